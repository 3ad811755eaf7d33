package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// padWith writes a generic giving x (static shape dims, element type
// elem) extended by lo and hi elements on each axis, holding the scalar v
// outside x; it returns the new tensor's name and shape. Without padding
// it returns x unchanged.
func (fe *funcEmitter) padWith(x, xtyp string, dims []int64, elem string, lo, hi []int64, v string) (string, []int64) {
	any := false
	for i := range lo {
		any = any || lo[i] != 0 || hi[i] != 0
	}
	if !any {
		return x, dims
	}
	R := len(dims)
	out := make([]int64, R)
	for i, d := range dims {
		out[i] = d + lo[i] + hi[i]
	}
	typ := tensorTypeOf(out, elem)
	dst := fe.empty(out, elem, nil)
	res := fe.tmp()
	fe.generic(res, parallel(R),
		[]genericOperand{{name: v, typ: elem, elem: elem, amap: affineMap(R, nil)}},
		genericOperand{name: dst, typ: typ, elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			idx := make([]string, R)
			inside := ""
			for j := 0; j < R; j++ {
				i := fe.tmp()
				fe.line("%s = linalg.index %d : index", i, j)
				if lo[j] == 0 && hi[j] == 0 {
					idx[j] = i
					continue
				}
				src := fe.tmp()
				fe.line("%s = arith.subi %s, %s : index", src, i, fe.index(lo[j]))
				ge, lt, in := fe.tmp(), fe.tmp(), fe.tmp()
				fe.line("%s = arith.cmpi sge, %s, %s : index", ge, src, fe.index(0))
				fe.line("%s = arith.cmpi slt, %s, %s : index", lt, src, fe.index(dims[j]))
				fe.line("%s = arith.andi %s, %s : i1", in, ge, lt)
				if inside != "" {
					both := fe.tmp()
					fe.line("%s = arith.andi %s, %s : i1", both, inside, in)
					in = both
				}
				inside = in
				idx[j] = fe.clampIndex(src, dims[j])
			}
			e, y := fe.tmp(), fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", e, x, strings.Join(idx, ", "), xtyp)
			fe.line("%s = arith.select %s, %s, %s : %s", y, inside, e, args[0], elem)
			return y
		})
	return res, out
}

// readThrough writes a generic copying x (static shape dims) by
// tensor.extract, as padWith does. The convolution reads every element of
// X M/G·K1⋯Ks times; read directly as an operand, X's element-wise
// producers (a BatchNormalization, an activation) would be fused into the
// convolution's generic by linalg-fuse-elementwise-ops and recomputed on
// every read. The extract, which fusion leaves as it is, keeps them in
// their own loop nest; the copy itself fuses into the convolution.
func (fe *funcEmitter) readThrough(x, xtyp string, dims []int64, elem string) string {
	R := len(dims)
	typ := tensorTypeOf(dims, elem)
	dst := fe.empty(dims, elem, nil)
	res := fe.tmp()
	fe.generic(res, parallel(R), nil,
		genericOperand{name: dst, typ: typ, elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			idx := make([]string, R)
			for j := range idx {
				idx[j] = fe.tmp()
				fe.line("%s = linalg.index %d : index", idx[j], j)
			}
			e := fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", e, x, strings.Join(idx, ", "), xtyp)
			return e
		})
	return res
}

// paddedChannelConv reports whether a 2-D convolution of G groups and M
// output channels (C input channels per group, a KH × KW kernel, OW
// output columns) takes conv_general.go's block with a padding channel
// (conv), whose epilogue is not fused: one output channel (a block of 2,
// the second never read back, against conv_nhwc.go's channels-last block
// of one channel, which the schedule leaves a loop nest: 3.8× faster at
// 1×64×56×56 → 1, 3×3, docs/performance.md) where neither the 1×1
// product (its vectors along the output row) nor the row form
// (conv_rows.go, vectors along the output row too, every kernel but 1×1
// and every width of at least 2 at M = 1, 8k + 1 among them, a kernel
// side of 1 too) takes it: one output column, or one input channel (C =
// 1; with NCHW values conv lowers that one first in the plain depthwise
// row form, conv_dwmult.go, or the product over its taps, conv_rows_t.go,
// which fuse their epilogue). One output column, and one output row and
// column, with NCHW values are lowered before this rule too
// (conv_rows_t.go): the row form's transposed view where OH ≥ 2 (one
// input channel too where the kernel is at least 2 × 2; the product
// over the taps where it has one row or column), the 1×1 product over
// the one window (X itself or gathered) where OH = OW = 1. layout.go
// keeps the values of all of those NCHW (convRowsNCHW), so only a
// channels-last one, which its rules do not give, would get the padding
// channel. A one-group convolution of 16k + 1
// channels (k ≥ 1) keeps its channels: the schedule's one-channel
// remainder block (toolchain/conv.mlir, @conv_steps1) is vectorized along
// its output columns; so do a depthwise one (the depthwise block's,
// @conv_steps_dw1), a grouped one gathered per output channel
// (conv_general.go) and a per-group one of 16k + 1 channels per group
// (the rank-8 block's, @conv_steps8_1).
// 1-D and 3-D convolutions of one output channel (one group) take the
// row form's 4-D view (conv_rows_view.go, rowsView), without a padding
// channel, where the 2-D row form would take their view; otherwise, with
// their epilogue fused, the product over the im2col of one output column
// (conv_pw1d3d.go, oneWindow) or conv_general.go's block of one channel
// (oneChannelBlock), and conv_general.go's padded block without (not this
// rule's).
func paddedChannelConv(G, M, C, KH, KW, OW int64) bool {
	if G != 1 {
		// Every grouped block keeps its channels: the depthwise block
		// (G = M, one input channel per group), the per-output-channel
		// block and the per-group block (M/G ≥ 8, at most 16 groups) of
		// 16k + 1 channels too (@conv_steps_dw1, @conv_steps1,
		// @conv_steps8_1).
		return false
	}
	return M == 1 && !(KH == 1 && KW == 1 || useConvRows(OW, M, C, KH, KW))
}

// convBlockTag is the schedule's tag of the one-group channels-last block
// generic of M channels (conv_nhwc.go, conv_general.go), a 4-byte
// accumulator when acc4 (an 8-byte one otherwise): niro.conv2d, or
// niro.conv2d16 where the schedule's 32-channel block would leave a
// remainder of 17 to 31 channels (chanBlock16): the block of 16 channels
// instead, which leaves 1 to 15 (one channel: @conv_steps1); and for an
// 8-byte accumulator niro.conv2d8 where its 16-channel block would leave
// 9 to 15 (chanBlock8): the block of 8 channels, which leaves 1 to 7.
func convBlockTag(M int64, acc4 bool) string {
	switch {
	case acc4 && chanBlock16(M):
		return "niro.conv2d16"
	case !acc4 && chanBlock8(M):
		return "niro.conv2d8"
	}
	return "niro.conv2d"
}

// chanBlock8 reports whether an 8-byte accumulator's block of M channels
// takes the 8-channel block instead of the 16-channel one: where the
// 16-channel block would leave a remainder of 9 to 15 channels, a vector
// of 9 to 15 f64 lanes, which LLVM 22 lowers as badly as 17 to 31 f32
// lanes (an f64 3×3 1×64×28×28 → 28: 1.51–1.53 ms → 0.65 ms, → 31:
// 1.81–1.85 → 0.74 ms, against 0.34 ms for 16 channels and 0.67 ms for
// 32, docs/performance.md). A remainder of up to 8 lanes is not slow
// (→ 24: 0.51 ms). The one-group block (convBlockTag, epiBlock8) and the
// per-group one (perGroupBlock8) take it.
func chanBlock8(M int64) bool {
	return M%16 > 8
}

// chanBlock16 reports whether a 4-byte accumulator's block of M channels
// takes the 16-channel block instead of the 32-channel one: where the
// 32-channel block would leave a remainder of 17 to 31 channels, a vector
// of that many lanes, which LLVM 22 lowers badly (a one-group 3×3
// 1×64×28×28 → 20: 1.70–1.76 ms → 0.30–0.34 ms, → 28: 1.99–2.67 →
// 0.37–0.38 ms, → 255 (7·32 + 31): 6.3–11.3 → 2.7–2.8 ms, ONNX Runtime
// 0.31–0.33, 0.28–0.33 and 2.7–2.9 ms, docs/performance.md; ShuffleNet's
// 3 groups of 20, 1×1: 1.36 ms → 0.16 ms). A remainder of up to 16 lanes
// is not slow.
// The one-group block (convBlockTag, epiBlock16) and the per-group one
// (perGroupBlock16) share it.
func chanBlock16(M int64) bool {
	return M%32 > 16
}

// conv lowers Conv. X is first padded with zeros (padWith), so that every
// read of the window lies inside it. One generic, with the parallel loops
// (n, m, o1…os) — (n, g, m', o1…os) with groups, the operands expanded to
// an explicit group axis — then the reduction loops (c, k1…ks) outermost
// to innermost, adds each product X[n, c, o·s + k·d]·W[m, c, k] to an
// accumulator filled with zero: the summation order of docs/ops.md. A
// final generic adds the bias and, for f16 and bf16 (accumulated in f32),
// rounds once.
func (fe *funcEmitter) conv(op *niro.Conv) {
	res, x, w := op.Result, op.X, op.W
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	wt, ok2 := rankedTensor(w)
	if !ok || !ok1 || !ok2 || !rt.HasStaticShape() || !xt.HasStaticShape() || !wt.HasStaticShape() {
		fe.opErrorf(op, "conv %s: needs static shapes, got (%s, %s) -> %s", name(res), typeName(x.Type), typeName(w.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	half := isHalf(xt.Elem)
	acc, accElem := accumulator(xt.Elem, elem)
	S := xt.Rank() - 2
	if len(op.Pads) != 2*S || len(op.Strides) != S || len(op.Dilations) != S || op.Groups < 1 {
		fe.opErrorf(op, "conv %s: invalid window parameters", name(res))
		return
	}
	// One input and one output channel where neither row form serves:
	// the 1×1 product over its taps (conv_rows_t.go, tapsKernel).
	if S == 2 && fe.convTaps(op) {
		fe.conv2dNHWC(op, rt, xt, wt, elem)
		return
	}
	if S == 2 && fe.epiConv[op.Result.ID] && rowsOneChannel(op) && !fe.channelsLast(op.X) && !fe.channelsLast(op.Result) {
		fe.conv2dRows(op, rt, xt, wt, elem)
		return
	}
	// A depthwise convolution with a channel multiplier, or without one
	// where X and the result are NCHW: the row form of conv_dwmult.go.
	if S == 2 && fe.convDWMultRows(op, rt, xt, wt, elem) {
		return
	}
	// One output channel and one output column, NCHW: the row form's
	// transposed view (conv_rows_t.go), without a padding channel.
	if S == 2 && fe.convRowsT(op) {
		fe.conv2dRowsT(op, rt, xt, wt, elem)
		return
	}
	// A kernel covering the whole of X, NCHW: the 1×1 product over the
	// flattened window (conv_rows_t.go, fullKernel).
	if S == 2 && fe.convFullKernel(op) {
		fe.conv2dNHWC(op, rt, xt, wt, elem)
		return
	}
	// One output channel: conv_general.go gives it a padding channel
	// (paddedChannelConv).
	if S == 2 && paddedChannelConv(op.Groups, wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3], rt.Dims[3]) && fe.convGeneral(op, rt, xt, wt, elem) {
		return
	}
	if S == 2 && op.Groups == 1 {
		fe.conv2dNHWC(op, rt, xt, wt, elem)
		return
	}
	if S == 2 && op.Groups == xt.Dims[1] && wt.Dims[0] == op.Groups {
		fe.depthwiseNHWC(op, rt, xt, wt, elem)
		return
	}
	// A 1-D or 3-D one of one output channel: the row form's view
	// (conv_rows_view.go), without a padding channel.
	if S != 2 && rowsView(op) && !fe.channelsLast(op.Result) && !fe.channelsLast(op.X) {
		fe.conv2dRowsView(op, rt, xt, wt, elem)
		return
	}
	if fe.convGeneral(op, rt, xt, wt, elem) {
		return
	}
	lo := make([]int64, S+2)
	hi := make([]int64, S+2)
	copy(lo[2:], op.Pads[:S])
	copy(hi[2:], op.Pads[S:])
	zero := fe.scalarConst(xt.Elem, 0)
	xp, xdims := fe.padWith(name(x), fe.typ(x), xt.Dims, elem, lo, hi, zero)
	if xp == name(x) {
		xp = fe.readThrough(xp, fe.typ(x), xt.Dims, elem)
	}
	xtyp := tensorTypeOf(xdims, elem)
	wname, wtyp, wdims := name(w), fe.typ(w), wt.Dims

	G := op.Groups
	grouped := G > 1
	// Loop dimensions: the parallel ones, then c, then the kernel axes.
	P := 2 + S
	outDims := rt.Dims
	if grouped {
		P = 3 + S
		C, M := xdims[1], wdims[0]
		xe := append([]int64{xdims[0], G, C / G}, xdims[2:]...)
		xet := tensorTypeOf(xe, elem)
		t := fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0], [1, 2]%s] output_shape [%s] : %s into %s", t, xp, tailGroups(3, S), dimList(xe), xtyp, xet)
		xp, xtyp = t, xet
		we := append([]int64{G, M / G}, wdims[1:]...)
		wet := tensorTypeOf(we, elem)
		t = fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0, 1]%s] output_shape [%s] : %s into %s", t, wname, tailGroups(2, S+1), dimList(we), wtyp, wet)
		wname, wtyp = t, wet
		outDims = append([]int64{rt.Dims[0], G, rt.Dims[1] / G}, rt.Dims[2:]...)
	}
	L := P + 1 + S
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	cDim := P
	var xExprs, wExprs, oExprs []string
	for i := 0; i < P; i++ {
		oExprs = append(oExprs, d(i))
	}
	if grouped {
		xExprs = []string{d(0), d(1), d(cDim)}
		wExprs = []string{d(1), d(2), d(cDim)}
	} else {
		xExprs = []string{d(0), d(cDim)}
		wExprs = []string{d(1), d(cDim)}
	}
	for i := 0; i < S; i++ {
		o, k := d(P-S+i), d(cDim+1+i)
		xExprs = append(xExprs, windowExpr(o, op.Strides[i], k, op.Dilations[i]))
		wExprs = append(wExprs, k)
	}
	iters := parallel(L)
	for i := P; i < L; i++ {
		iters[i] = "reduction"
	}
	accTyp := tensorTypeOf(outDims, acc)
	init := fe.empty(outDims, acc, nil)
	filled := fe.fill(init, accTyp, acc, fe.scalarConst(accElem, 0), P)
	needFinal := half || op.HasBias() || grouped
	sum := name(res)
	if needFinal {
		sum = fe.tmp()
	}
	fe.generic(sum, iters,
		[]genericOperand{
			{name: xp, typ: xtyp, elem: elem, amap: affineMap(L, xExprs)},
			{name: wname, typ: wtyp, elem: elem, amap: affineMap(L, wExprs)},
		},
		genericOperand{name: filled, typ: accTyp, elem: acc, amap: affineMap(L, oExprs)},
		"niro.conv", func(args []string) string {
			a, b := fe.widen(xt.Elem, args[0]), fe.widen(xt.Elem, args[1])
			p, s := fe.tmp(), fe.tmp()
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
			return s
		})
	if !needFinal {
		return
	}
	if grouped {
		collapsed := tensorTypeOf(rt.Dims, acc)
		t := name(res)
		if half || op.HasBias() {
			t = fe.tmp()
		}
		fe.line("%s = tensor.collapse_shape %s [[0], [1, 2]%s] : %s into %s", t, sum, tailGroups(3, S), accTyp, collapsed)
		if !half && !op.HasBias() {
			return
		}
		sum, accTyp = t, collapsed
	}
	R := len(rt.Dims)
	ins := []genericOperand{{name: sum, typ: accTyp, elem: acc, amap: identityMap(R)}}
	if op.HasBias() {
		ins = append(ins, genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: elem, amap: affineMap(R, []string{"d1"})})
	}
	dst := fe.empty(rt.Dims, elem, nil)
	fe.generic(name(res), parallel(R), ins,
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", fe.biasBody(op, xt.Elem, acc))
}

// tailGroups returns ", [from], [from+1], …" for n single-axis groups.
func tailGroups(from, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, ", [%d]", from+i)
	}
	return sb.String()
}

// windowExpr returns the affine expression o·s + k·d, without factors of 1.
func windowExpr(o string, s int64, k string, d int64) string {
	term := func(v string, f int64) string {
		if f == 1 {
			return v
		}
		return fmt.Sprintf("%s * %d", v, f)
	}
	return term(o, s) + " + " + term(k, d)
}

// biasBody is the body of the generic that reads a convolution's
// accumulator back: the sum (args[0]) plus the bias when op has one
// (args[1], widened from x's element type to the accumulator's, acc),
// rounded once to x's element type.
func (fe *funcEmitter) biasBody(op *niro.Conv, x niro.ScalarType, acc string) func([]string) string {
	return func(args []string) string {
		y := args[0]
		if op.HasBias() {
			s := fe.tmp()
			fe.line("%s = arith.addf %s, %s : %s", s, y, fe.widen(x, args[1]), acc)
			y = s
		}
		return fe.narrow(x, y)
	}
}
