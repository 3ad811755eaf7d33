package importer

import (
	"github.com/niro-dev/niro/niro"
)

// The integer contractions: MatMulInteger, ConvInteger, QLinearMatMul and
// QLinearConv. Their inputs are 8-bit integers with zero points; the
// contraction of (x − x_zero_point) and (w − w_zero_point) is exact in
// int32, as ONNX defines it.
//
//   - MatMul: the operands are widened to i32, the zero points subtracted,
//     and the product is a Niro i32 matmul (integers wrap, as int32 does).
//   - Conv: Niro's conv computes on floats, so the zero-point-adjusted
//     operands are converted to f64 and convolved there. Every product has
//     a magnitude below 2^16 and every partial sum is an integer; the sums
//     stay exact while they are below 2^53, which needs more than 2^37
//     terms per output element to fail. The f64 result converts exactly
//     to i64 and narrows to i32 by dropping the high bits, which is
//     int32's wrapping.
//
// The QLinear ops then requantize as the reference does: the factor
// (scale_a · scale_b) / scale_y in the scales' float type, the i32 result
// times it in f64 (numpy's type for int32 times a float array), plus the
// output zero point, rounded half to even and saturated to the output
// type.

func init() {
	convAttrs := []string{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}
	register("MatMulInteger", opSpec{Since: 10, In: [2]int{2, 4}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: matmulIntegerConv})
	register("ConvInteger", opSpec{Since: 10, In: [2]int{2, 4}, Out: [2]int{1, 1}, Attrs: convAttrs, Convert: convIntegerConv})
	register("QLinearMatMul",
		opSpec{Since: 10, In: [2]int{8, 8}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: qlinearMatMulConv},
		opSpec{Since: 21, In: [2]int{8, 8}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: qlinearMatMulConv})
	register("QLinearConv", opSpec{Since: 10, In: [2]int{8, 9}, Out: [2]int{1, 1}, Attrs: convAttrs, Convert: qlinearConvConv})
}

// int8Input checks that input i holds 8-bit integers.
func (nc *nodeCtx) int8Input(i int, what string) niro.Value {
	v := nc.in(i)
	if e := elem(v); e != niro.I8 && e != niro.U8 {
		nc.fail("%s must hold int8 or uint8, has %s", what, e)
	}
	return v
}

// rowParam shapes the per-tensor or per-row parameter p (a zero point or
// a scale) of the left matmul operand x to broadcast against it: one
// element as a rank-0 tensor, a rank-1 tensor of x's row count as a
// column [M, 1], and any other shape as it is (numpy broadcasting).
func (nc *nodeCtx) rowParam(p, x niro.Value) niro.Value {
	pt, xt := tensorOf(p), tensorOf(x)
	switch {
	case pt.HasStaticShape() && pt.NumElements() == 1:
		return nc.rank0(p)
	case pt.Rank() == 1 && !xt.Unranked && xt.Rank() >= 2 && pt.Dims[0] == xt.Dims[xt.Rank()-2] && pt.Dims[0] >= 0:
		return nc.reshapeStatic(p, []int64{pt.Dims[0], 1})
	}
	return p
}

// colParam shapes a per-tensor or per-column parameter: one element as a
// rank-0 tensor, anything else as it is (a rank-1 tensor broadcasts along
// the last axis).
func (nc *nodeCtx) colParam(p niro.Value) niro.Value {
	if pt := tensorOf(p); pt.HasStaticShape() && pt.NumElements() == 1 {
		return nc.rank0(p)
	}
	return p
}

// perChannel shapes a per-tensor or per-output-channel parameter p of a
// conv: one element as a rank-0 tensor, a rank-1 tensor [M] as
// [M, 1, ..., 1] with ones trailing extents 1, which broadcasts it along
// axis 0 of the weight (ones = rank − 1) or axis 1 of the result
// (ones = rank − 2).
func (nc *nodeCtx) perChannel(p niro.Value, ones int) niro.Value {
	pt := tensorOf(p)
	if pt.HasStaticShape() && pt.NumElements() == 1 {
		return nc.rank0(p)
	}
	if pt.Rank() == 1 && !pt.HasStaticShape() {
		nc.notYet("a per-channel parameter of dynamic extent %s is not compiled", pt)
		return p
	}
	if pt.Rank() != 1 {
		nc.fail("a per-channel parameter must be a scalar or 1-D, is %s", pt)
		return p
	}
	dims := append([]int64{pt.Dims[0]}, make([]int64, ones)...)
	for i := 1; i < len(dims); i++ {
		dims[i] = 1
	}
	return nc.reshapeStatic(p, dims)
}

// minusZP widens x to i32 and subtracts the zero point zp (already shaped
// to broadcast), which must have x's element type.
func (nc *nodeCtx) minusZP(x niro.Value, zp *niro.Value) niro.Value {
	x32 := nc.cast(x, niro.I32)
	if zp == nil {
		return x32
	}
	if elem(*zp) != elem(x) {
		nc.fail("zero point has element type %s, its operand %s", elem(*zp), elem(x))
		return x32
	}
	return nc.bin(niro.Sub, x32, nc.cast(*zp, niro.I32))
}

// optIn returns input i, or nil when it is absent.
func (nc *nodeCtx) optIn(i int) *niro.Value {
	if !nc.has(i) {
		return nil
	}
	v := nc.in(i)
	return &v
}

func shaped(v *niro.Value, f func(niro.Value) niro.Value) *niro.Value {
	if v == nil {
		return nil
	}
	r := f(*v)
	return &r
}

// matmulInt is the exact i32 product (a − azp)·(b − bzp) with ONNX MatMul's
// shapes.
func (nc *nodeCtx) matmulInt(a, b niro.Value, azp, bzp *niro.Value) niro.Value {
	azp = shaped(azp, func(p niro.Value) niro.Value { return nc.rowParam(p, a) })
	bzp = shaped(bzp, nc.colParam)
	return nc.matmulONNX(nc.minusZP(a, azp), nc.minusZP(b, bzp))
}

// matmulIntegerConv maps MatMulInteger: Y = (A − a_zero_point)·(B −
// b_zero_point) in i32.
func matmulIntegerConv(nc *nodeCtx) error {
	a, b := nc.int8Input(0, "A"), nc.int8Input(1, "B")
	if nc.err != nil {
		return nc.err
	}
	nc.out(0, nc.matmulInt(a, b, nc.optIn(2), nc.optIn(3)))
	return nil
}

// convInt is the exact i32 conv of (x − xzp) by (w − wzp) plus the i32
// bias, through f64 (see the file comment).
func (nc *nodeCtx) convInt(x, w niro.Value, xzp, wzp, bias *niro.Value) niro.Value {
	r := nc.rank(w)
	if xzp != nil {
		if pt := tensorOf(*xzp); !pt.HasStaticShape() || pt.NumElements() != 1 {
			nc.fail("x_zero_point must be a scalar, is %s", pt)
		}
		xzp = shaped(xzp, func(p niro.Value) niro.Value { return nc.rank0(p) })
	}
	wzp = shaped(wzp, func(p niro.Value) niro.Value { return nc.perChannel(p, r-1) })
	xf := nc.cast(nc.minusZP(x, xzp), niro.F64)
	wf := nc.cast(nc.minusZP(w, wzp), niro.F64)
	if bias != nil {
		if elem(*bias) != niro.I32 {
			nc.fail("the bias must hold int32, has %s", elem(*bias))
		}
		bias = shaped(bias, func(b niro.Value) niro.Value { return nc.cast(b, niro.F64) })
	}
	y := nc.convWith(xf, wf, bias)
	return nc.cast(nc.cast(y, niro.I64), niro.I32)
}

// convIntegerConv maps ConvInteger: the conv of (x − x_zero_point) by
// (w − w_zero_point) in i32.
func convIntegerConv(nc *nodeCtx) error {
	x, w := nc.int8Input(0, "x"), nc.int8Input(1, "w")
	if nc.err != nil {
		return nc.err
	}
	nc.out(0, nc.convInt(x, w, nc.optIn(2), nc.optIn(3), nil))
	return nil
}

// requantize returns round(f64(c) · f64(factor) + f64(zp)), saturated to
// zp's type: the QLinear ops' output.
func (nc *nodeCtx) requantize(c, factor, zp niro.Value) niro.Value {
	to := elem(zp)
	d := nc.bin(niro.Mul, nc.cast(c, niro.F64), nc.cast(factor, niro.F64))
	d = nc.bin(niro.Add, d, nc.cast(zp, niro.F64))
	return nc.saturate(nc.un(niro.Round, d), to)
}

// scaleInput checks that input i holds floats of the type of scale input
// first.
func (nc *nodeCtx) scaleInput(i, first int, what string) niro.Value {
	v := nc.in(i)
	if !elem(v).IsFloat() {
		nc.fail("%s must hold floats, has %s", what, elem(v))
	} else if elem(v) != elem(nc.in(first)) {
		nc.fail("%s has element type %s, the other scales %s", what, elem(v), elem(nc.in(first)))
	}
	return v
}

// qlinearMatMulConv maps QLinearMatMul: C = (a − a_zp)·(b − b_zp) in i32,
// then y = saturate(round(C · (a_scale · b_scale / y_scale) + y_zp)).
func qlinearMatMulConv(nc *nodeCtx) error {
	a, b := nc.int8Input(0, "a"), nc.int8Input(3, "b")
	as, bs, ys := nc.scaleInput(1, 1, "a_scale"), nc.scaleInput(4, 1, "b_scale"), nc.scaleInput(6, 1, "y_scale")
	yzp := nc.in(7)
	if e := elem(yzp); e != niro.I8 && e != niro.U8 {
		nc.fail("y_zero_point must hold int8 or uint8, has %s", e)
	}
	if nc.err != nil {
		return nc.err
	}
	azp, bzp := nc.in(2), nc.in(5)
	c := nc.matmulInt(a, b, &azp, &bzp)
	factor := nc.bin(niro.Div, nc.bin(niro.Mul, nc.rowParam(as, a), nc.colParam(bs)), nc.colParam(ys))
	nc.out(0, nc.requantize(c, factor, nc.colParam(yzp)))
	return nil
}

// qlinearConvConv maps QLinearConv: C = the i32 conv of (x − x_zp) by
// (w − w_zp) plus B, then y = saturate(round(C · (x_scale · w_scale /
// y_scale) + y_zp)), w_scale per tensor or per output channel.
func qlinearConvConv(nc *nodeCtx) error {
	x, w := nc.int8Input(0, "x"), nc.int8Input(3, "w")
	xs, ws, ys := nc.scaleInput(1, 1, "x_scale"), nc.scaleInput(4, 1, "w_scale"), nc.scaleInput(6, 1, "y_scale")
	yzp := nc.in(7)
	if e := elem(yzp); e != niro.I8 && e != niro.U8 {
		nc.fail("y_zero_point must hold int8 or uint8, has %s", e)
	}
	for _, i := range []int{1, 6, 7} {
		if pt := tensorOf(nc.in(i)); !pt.HasStaticShape() || pt.NumElements() != 1 {
			nc.fail("input %d must be a scalar, is %s", i, pt)
		}
	}
	r := nc.rank(x)
	if nc.err != nil {
		return nc.err
	}
	xzp, wzp := nc.in(2), nc.in(5)
	c := nc.convInt(x, w, &xzp, &wzp, nc.optIn(8))
	scalar := nc.rank0
	factor := nc.bin(niro.Div, nc.bin(niro.Mul, scalar(xs), nc.perChannel(ws, r-2)), scalar(ys))
	nc.out(0, nc.requantize(c, factor, scalar(yzp)))
	return nil
}
