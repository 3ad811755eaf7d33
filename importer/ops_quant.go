package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Linear quantization: QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear decompose into the element-wise families in the
// order the ONNX reference computes them, in the float types numpy
// computes them in, so the results are bit-exact. Quantization targets the
// 8-, 16-, 4- and 2-bit integers and the 8-bit floats; f4E2M1FN and
// f8E8M0FNU targets stay UnknownOps.

func init() {
	q := func(since int64, attrs ...string) opSpec {
		return opSpec{Since: since, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: append([]string{}, attrs...), Float8: since >= 19, Convert: quantizeLinear}
	}
	register("QuantizeLinear",
		q(10),
		q(13, "axis"),
		q(19, "axis", "saturate"),
		q(21, "axis", "block_size", "output_dtype", "saturate"),
		q(23, "axis", "block_size", "output_dtype", "precision", "saturate"))
	dq := func(since int64, attrs ...string) opSpec {
		return opSpec{Since: since, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: append([]string{}, attrs...), Float8: since >= 19, Convert: dequantizeLinear}
	}
	register("DequantizeLinear",
		dq(10),
		dq(13, "axis"),
		dq(19, "axis"),
		dq(21, "axis", "block_size"),
		dq(23, "axis", "block_size", "output_dtype"))
	register("DynamicQuantizeLinear", opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{3, 3}, Attrs: []string{}, Convert: dynamicQuantizeLinear})
}

// quantizeLinear maps QuantizeLinear: y = saturate(round(x / scale) + zp),
// rounding half to even. The division runs in numpy's type for x / scale;
// the rounded quotient is widened to f32 (f64 after an f64 division), the
// zero point added there (exact: both are integers far below 2^24) and the
// sum clamped to the target's range, NaN to its lowest value.
func quantizeLinear(nc *nodeCtx) error {
	to := niro.U8
	if nc.has(2) {
		to = elem(nc.in(2))
	}
	if nc.attr("output_dtype") != nil {
		od, err := nc.dtypeAttr("output_dtype", niro.U8)
		if err != nil {
			return err
		}
		if nc.has(2) && od != to {
			return nc.errorf("output_dtype %s differs from the zero point's element type %s", od, to)
		}
		to = od
	}
	switch {
	case to == niro.I8, to == niro.U8, to == niro.I16, to == niro.U16, to == niro.I4, to == niro.U4, to == niro.I2, to == niro.U2:
	case niro.IsFloat8(to), to == niro.F4E2M1FN:
	default:
		nc.notYet("quantization to %s is not supported yet", to)
		return nil
	}
	x, ps, restore := nc.quantParams()
	if nc.err != nil {
		return nc.err // a parameter of dynamic shape, say
	}
	scale := ps[0]
	if !elem(scale).IsFloat() {
		return nc.errorf("the scale must have float elements, has %s", elem(scale))
	}
	w := numpyFloat(elem(x), elem(scale))
	if nc.attr("precision") != nil {
		p, err := nc.dtypeAttr("precision", niro.F32)
		if err != nil {
			return err
		}
		if !p.IsFloat() {
			return nc.errorf("precision must name a float type, names %s", p)
		}
		w = p
	}
	wide := niro.F32
	if w == niro.F64 {
		wide = niro.F64
	}
	if niro.IsFloat8(to) || to == niro.F4E2M1FN {
		// y = cast(x / scale + zp), the cast rounding to nearest even and
		// saturating unless saturate = 0.
		q := nc.bin(niro.Div, nc.cast(x, w), nc.cast(scale, w))
		if len(ps) > 1 {
			q = nc.bin(niro.Add, q, nc.cast(ps[1], w))
		}
		nc.out(0, restore(nc.castSaturating(q, to)))
		return nil
	}
	r := nc.un(niro.Round, nc.cast(nc.bin(niro.Div, nc.cast(x, w), nc.cast(scale, w)), wide))
	if len(ps) > 1 {
		r = nc.bin(niro.Add, r, nc.cast(ps[1], wide))
	}
	nc.out(0, restore(nc.saturate(r, to)))
	return nil
}

// dequantizeLinear maps DequantizeLinear: y = (x − zp) · scale. As in the
// reference, x is converted to f32, the zero point subtracted in f32 (f64
// for an i32 zero point), the difference multiplied by the scale in the
// wider of that type and the scale's, and the product rounded once to the
// output type (output_dtype, else the scale's type).
func dequantizeLinear(nc *nodeCtx) error {
	x, ps, restore := nc.quantParams()
	if nc.err != nil {
		return nc.err // a parameter of dynamic shape, say
	}
	scale := ps[0]
	e := elem(x)
	if !niro.IsCastOnly(e) && (!e.IsInt() || e.Bits() > 32) {
		return nc.errorf("x must hold 8-bit floats, f8E8M0FNU or integers of at most 32 bits, has %s", e)
	}
	if !elem(scale).IsFloat() {
		return nc.errorf("the scale must have float elements, has %s", elem(scale))
	}
	to, err := nc.dtypeAttr("output_dtype", elem(scale))
	if err != nil {
		return err
	}
	if !to.IsFloat() {
		return nc.errorf("output_dtype must name a float type, names %s", to)
	}
	d := nc.cast(x, niro.F32)
	if len(ps) > 1 {
		zp := ps[1]
		if elem(zp) != e {
			return nc.errorf("the zero point has element type %s, x has %s", elem(zp), e)
		}
		if e.Bits() > 16 {
			d = nc.cast(d, niro.F64)
		}
		d = nc.bin(niro.Sub, d, nc.cast(zp, elem(d)))
	}
	w := numpyFloat(elem(d), elem(scale))
	y := nc.bin(niro.Mul, nc.cast(d, w), nc.cast(scale, w))
	nc.out(0, restore(nc.cast(y, to)))
	return nil
}

// dynamicQuantizeLinear maps DynamicQuantizeLinear (to u8) as the
// reference computes it: the range [min(0, min x), max(0, max x)], the
// scale range / 255 (1 for an empty range), the zero point
// round(clamp(−min / scale, 0, 255)) and y quantized with them.
func dynamicQuantizeLinear(nc *nodeCtx) error {
	x := nc.in(0)
	if elem(x) != niro.F32 {
		return nc.errorf("x must have f32 elements, has %s", elem(x))
	}
	r := nc.rank(x)
	lo, hi := x, x
	if r > 0 {
		axes := make([]int, r)
		for i := range axes {
			axes[i] = i
		}
		lo = nc.op(&niro.Reduce{Kind: niro.ReduceMin, Axes: axes, X: x})
		hi = nc.op(&niro.Reduce{Kind: niro.ReduceMax, Axes: axes, X: x})
	}
	zero := nc.like(x, 0)
	lo, hi = nc.bin(niro.Min, lo, zero), nc.bin(niro.Max, hi, zero)
	span := nc.bin(niro.Sub, hi, lo)
	scale := nc.sel(nc.cmp(niro.Eq, span, zero), nc.like(x, 1), nc.bin(niro.Div, span, nc.like(x, 255)))
	qlo, qhi := nc.like(x, 0), nc.like(x, 255)
	zp := nc.un(niro.Round, nc.clamp(nc.bin(niro.Sub, zero, nc.bin(niro.Div, lo, scale)), &qlo, &qhi))
	y := nc.clamp(nc.bin(niro.Add, nc.un(niro.Round, nc.bin(niro.Div, x, scale)), zp), &qlo, &qhi)
	nc.out(0, nc.cast(y, niro.U8))
	nc.out(1, scale)
	nc.out(2, nc.cast(zp, niro.U8))
	return nil
}

// saturate clamps the integer-valued floats r to the range of the integer
// type to (NaN to its lowest value) and converts them.
func (nc *nodeCtx) saturate(r niro.Value, to niro.ScalarType) niro.Value {
	lo, hi := to.IntRange()
	l, h := nc.like(r, float64(lo)), nc.like(r, float64(hi))
	y := nc.clamp(r, &l, &h)
	y = nc.sel(nc.cmp(niro.Ne, r, r), l, y)
	return nc.cast(y, to)
}

// numpyFloat returns the float type numpy computes a binary op on element
// types a and b in: the wider float (f32 for f16 with bf16), f64 when
// either is an integer.
func numpyFloat(a, b niro.ScalarType) niro.ScalarType {
	switch {
	case !a.IsFloat() || !b.IsFloat():
		return niro.F64
	case a == b:
		return a
	case a.Bits() != b.Bits():
		if a.Bits() > b.Bits() {
			return a
		}
		return b
	}
	return niro.F32
}

// quantParams returns x and the scale and zero point (when present),
// shaped to broadcast against x as the reference broadcasts them: a scalar
// or one-element scale applies to every element, a rank-1 scale along
// axis, and a blocked scale (block_size > 0, the rank of x) to blocks of
// block_size elements along axis, for which x is viewed as
// [..., S, block_size, ...]. restore reshapes a result of that view back
// to x's shape.
func (nc *nodeCtx) quantParams() (x niro.Value, ps []niro.Value, restore func(niro.Value) niro.Value) {
	x = nc.in(0)
	restore = func(v niro.Value) niro.Value { return v }
	ps = []niro.Value{nc.in(1)}
	if nc.has(2) {
		ps = append(ps, nc.in(2))
	}
	sd, ok := nc.staticDims(ps[0])
	if !ok {
		return x, ps, restore
	}
	if len(ps) > 1 {
		if zd, ok := nc.staticDims(ps[1]); ok && !equalDims(sd, zd) && (product(sd) != 1 || product(zd) != 1) {
			nc.fail("the zero point has shape %v, the scale %v", zd, sd)
		}
	}
	block := nc.attrInt("block_size", 0)
	reshapeAll := func(dims []int64) {
		for i := range ps {
			ps[i] = nc.reshape(ps[i], dims)
		}
	}
	switch {
	case block < 0:
		nc.fail("block_size must not be negative, is %d", block)
	case product(sd) == 1: // a scalar or one element (the zero point may be [1] to a scalar scale)
		for i := range ps {
			if d, ok := nc.staticDims(ps[i]); !ok || len(d) > 0 {
				ps[i] = nc.reshape(ps[i], []int64{})
			}
		}
	case block == 0:
		if len(sd) != 1 {
			nc.fail("the scale must be a scalar or have rank 1, has shape %v", sd)
			break
		}
		r := nc.rank(x)
		a := nc.axis(nc.attrInt("axis", 1), r)
		if nc.err != nil {
			break
		}
		if d := tensorOf(x).Dims[a]; d >= 0 && d != sd[0] {
			nc.fail("the scale has %d elements, but axis %d of x has extent %d", sd[0], a, d)
			break
		}
		dims := []int64{sd[0]}
		for i := a + 1; i < r; i++ {
			dims = append(dims, 1)
		}
		reshapeAll(dims)
	default:
		xd, ok := nc.staticDims(x)
		if !ok {
			break
		}
		a := nc.axis(nc.attrInt("axis", 1), len(xd))
		if nc.err != nil {
			break
		}
		if len(sd) != len(xd) {
			nc.fail("a blocked scale must have the rank of x (%d), has shape %v", len(xd), sd)
			break
		}
		for i := range xd {
			if i != a && sd[i] != xd[i] {
				nc.fail("the scale has shape %v, x %v: they may differ only along axis %d", sd, xd, a)
				return x, ps, restore
			}
		}
		if sd[a]*block != xd[a] {
			if (xd[a]+block-1)/block == sd[a] {
				nc.notYet("blocks of %d elements do not divide axis %d of extent %d", block, a, xd[a])
			} else {
				nc.fail("the scale has extent %d along axis %d, want %d blocks of %d", sd[a], a, (xd[a]+block-1)/block, block)
			}
			break
		}
		view := append(append(append([]int64{}, xd[:a]...), sd[a], block), xd[a+1:]...)
		pd := append(append(append([]int64{}, sd[:a]...), sd[a], 1), sd[a+1:]...)
		x = nc.reshape(x, view)
		reshapeAll(pd)
		restore = func(v niro.Value) niro.Value { return nc.reshape(v, xd) }
	}
	return x, ps, restore
}
