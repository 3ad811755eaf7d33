package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The channels-last lowering of a 2-D convolution with one group, the form
// the convolution schedule (toolchain/conv.mlir) tiles into register
// blocks. Niro's tensors stay NCHW at the function's boundary; inside, the
// convolution reads a channels-last copy of its input and writes a
// channels-last accumulator:
//
//   - X is gathered into NHWC with its padding (one tensor.extract per
//     element, zero outside X). With a column stride s > 1 it is gathered
//     once per kernel column kw instead, Xr[kw, n, h, ow, c] =
//     Xpad[n, h, ow·s + kw·d, c], so that inside a register block the
//     output columns read consecutive elements (what the vectorizer needs);
//   - W [M, C, KH, KW] is transposed to [C, KH, KW, M], so that a block's
//     output channels are consecutive; a constant filter is laid out so at
//     compile time (conv_filter.go);
//   - one generic over (n, oh, ow, m, c, kh, kw), the reduction loops in
//     the order of docs/ops.md (c, then kh, then kw, each ascending), adds
//     each product to an accumulator filled with zero, tagged niro.conv2d;
//   - a final generic reads the accumulator back in NCHW order, adds the
//     bias and rounds f16/bf16 once.
//
// A 1×1 convolution (any stride, dilation irrelevant) is a matrix product
// per image instead, in NCHW: W viewed as [M, C] times X viewed as
// [C, OH·OW] (read in place for stride 1 without padding, gathered
// channels-first otherwise), a niro.contraction generic that the
// contraction schedule blocks; each element still sums over c in ascending
// order from zero, and the bias is added in place (convEpilogue). Wide
// outputs take the row form instead of this one (conv_rows.go).

// convAxis is one gathered coordinate: Σ idx[i]·mul[i] − off, read from an
// axis of extent size.
type convAxis struct {
	terms []convTerm
	off   int64
	size  int64
}

type convTerm struct {
	idx int // loop index
	mul int64
}

// gatherZero writes a generic of shape out whose element at idx is
// x[axes(idx)] where every coordinate lies inside x, zero elsewhere.
// axes[j] gives X's axis j.
func (fe *funcEmitter) gatherZero(x, xtyp string, elemT niro.ScalarType, elem string, out []int64, axes []convAxis) string {
	return fe.gatherPad(x, xtyp, elem, out, axes, fe.scalarConst(elemT, 0))
}

// gatherPad is gatherZero with the scalar pv outside x.
func (fe *funcEmitter) gatherPad(x, xtyp string, elem string, out []int64, axes []convAxis, pv string) string {
	return fe.gatherConv(x, xtyp, elem, out, axes, pv, nil)
}

// gatherProductX gathers X (element type xElem, scalar type elem) into
// out by axes for a 1×1 product, zero outside X: 16-bit floats are
// gathered widened to acc (exact; the product would widen them anyway:
// llc 22 cannot select some vector operations on 16-bit floats that its
// vectorizer forms from a 16-bit gather along the output width). It
// returns the gather, its element type and whether it was widened.
func (fe *funcEmitter) gatherProductX(x, xtyp string, xElem niro.ScalarType, elem, acc string, accElem niro.ScalarType, out []int64, axes []convAxis) (string, string, bool) {
	if isHalf(xElem) {
		return fe.gatherConv(x, xtyp, acc, out, axes, fe.scalarConst(accElem, 0), func(e string) string { return fe.widen(xElem, e) }), acc, true
	}
	return fe.gatherZero(x, xtyp, xElem, elem, out, axes), elem, false
}

// gatherConv is gatherPad whose result has element type elem, each read
// element passed through conv first when conv is not nil (pv is then of
// type elem).
func (fe *funcEmitter) gatherConv(x, xtyp string, elem string, out []int64, axes []convAxis, pv string, conv func(string) string) string {
	R := len(out)
	typ := tensorTypeOf(out, elem)
	dst := fe.empty(out, elem, nil)
	zero := pv
	res := fe.tmp()
	fe.generic(res, parallel(R), nil,
		genericOperand{name: dst, typ: typ, elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			idx := make([]string, R)
			for j := range idx {
				idx[j] = fe.tmp()
				fe.line("%s = linalg.index %d : index", idx[j], j)
			}
			src := make([]string, len(axes))
			inside := ""
			for j, a := range axes {
				v := ""
				lo, hi := int64(0), int64(0) // range of the coordinate
				for _, t := range a.terms {
					term := idx[t.idx]
					if t.mul != 1 {
						p := fe.tmp()
						fe.line("%s = arith.muli %s, %s : index", p, term, fe.index(t.mul))
						term = p
					}
					if v == "" {
						v = term
					} else {
						s := fe.tmp()
						fe.line("%s = arith.addi %s, %s : index", s, v, term)
						v = s
					}
					hi += (out[t.idx] - 1) * t.mul
				}
				if a.off != 0 {
					s := fe.tmp()
					fe.line("%s = arith.subi %s, %s : index", s, v, fe.index(a.off))
					v = s
				}
				lo -= a.off
				hi -= a.off
				if lo >= 0 && hi < a.size {
					src[j] = v
					continue
				}
				ge, lt, in := fe.tmp(), fe.tmp(), fe.tmp()
				fe.line("%s = arith.cmpi sge, %s, %s : index", ge, v, fe.index(0))
				fe.line("%s = arith.cmpi slt, %s, %s : index", lt, v, fe.index(a.size))
				fe.line("%s = arith.andi %s, %s : i1", in, ge, lt)
				if inside != "" {
					both := fe.tmp()
					fe.line("%s = arith.andi %s, %s : i1", both, inside, in)
					in = both
				}
				inside = in
				src[j] = fe.clampIndex(v, a.size)
			}
			e := fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", e, x, strings.Join(src, ", "), xtyp)
			if conv != nil {
				e = conv(e)
			}
			if inside == "" {
				return e
			}
			y := fe.tmp()
			fe.line("%s = arith.select %s, %s, %s : %s", y, inside, e, zero, elem)
			return y
		})
	return res
}

// conv2dNHWC lowers op (2-D, one group, static shapes) channels-last; see
// the comment at the top of the file.
func (fe *funcEmitter) conv2dNHWC(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	// A convolution that reads or writes a value kept channels-last
	// (layout.go) takes the channels-last forms; the row form and the
	// per-image matrix product read and write NCHW.
	nhwcIO := fe.channelsLast(op.X) || fe.channelsLast(op.Result)
	if !nhwcIO && useConvRows(rt.Dims[3], wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]) {
		fe.conv2dRows(op, rt, xt, wt, elem) // conv_rows.go
		return
	}
	x, w := op.X, op.W
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	M, KH, KW := wt.Dims[0], wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	sh, sw := op.Strides[0], op.Strides[1]
	dh, dw := op.Dilations[0], op.Dilations[1]
	pt, pl := op.Pads[0], op.Pads[1]
	xname, xtyp := name(x), fe.typ(x)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	// The accumulator is the result's NCHW layout: the blocks write it
	// directly, and the epilogue (bias, rounding) works in place.
	accDims := []int64{N, M, OH, OW}
	accTyp := tensorTypeOf(accDims, acc)
	sum := fe.convSumName(op, xt)
	if KH == 1 && KW == 1 && nhwcIO {
		fe.conv1x1NHWC(op, rt, xt, wt, elem)
		return
	}
	full := fe.convFullKernel(op)    // conv_rows_t.go: the flattened window
	taps := !full && fe.convTaps(op) // conv_rows_t.go: the taps as channels
	if KH == 1 && KW == 1 || full || taps {
		// A matrix product per image: out[n][m, p] = Σ_c W[m, c]·X[n][c, p],
		// p = (oh, ow), read in place from NCHW when the stride is 1 and
		// there is no padding, gathered (still channels-first) otherwise.
		xv, xvTyp := xname, xtyp
		xWide := false // xv holds f32 widened from 16-bit floats
		if full {
			// The window [N, C, KH, KW] (X itself, or gathered from X
			// with its zero padding: Xw[n, c, kh, kw] = Xpad[n, c,
			// kh·dh, kw·dw], the one output's window) as [N, C·KH·KW, 1,
			// 1], W [1, C, KH, KW] as [1, C·KH·KW] (collapsed below).
			win, winTyp, winElem := xname, xtyp, elem
			if !windowIsX(op) {
				wdims := []int64{N, C, KH, KW}
				axes := []convAxis{
					{terms: []convTerm{{0, 1}}, size: N},
					{terms: []convTerm{{1, 1}}, size: C},
					{terms: []convTerm{{2, op.Dilations[0]}}, off: pt, size: H},
					{terms: []convTerm{{3, op.Dilations[1]}}, off: pl, size: W},
				}
				win, winElem, xWide = fe.gatherProductX(xname, xtyp, xt.Elem, elem, acc, accElem, wdims, axes)
				winTyp = tensorTypeOf(wdims, winElem)
			}
			C *= KH * KW
			dims := []int64{N, C, 1, 1}
			xvTyp = tensorTypeOf(dims, winElem)
			x2 := fe.tmp()
			fe.line("%s = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into %s", x2, win, winTyp, tensorTypeOf([]int64{N, C}, winElem))
			xv = fe.tmp()
			fe.line("%s = tensor.expand_shape %s [[0], [1, 2, 3]] output_shape [%s] : %s into %s", xv, x2, dimList(dims), tensorTypeOf([]int64{N, C}, winElem), xvTyp)
		} else if taps {
			// Xt [N, KH, KW, OH, OW] gathered from X viewed as [N, H, W]
			// (its one channel), Xt[n, kh, kw, oh, ow] = Xpad[n, oh·sh +
			// kh·dh, ow·sw + kw·dw], as [N, KH·KW, OH, OW].
			x3 := fe.tmp()
			fe.line("%s = tensor.collapse_shape %s [[0, 1], [2], [3]] : %s into %s", x3, xname, xtyp, tensorTypeOf([]int64{N, H, W}, elem))
			tdims := []int64{N, KH, KW, OH, OW}
			axes := []convAxis{
				{terms: []convTerm{{0, 1}}, size: N},
				{terms: []convTerm{{3, sh}, {1, dh}}, off: pt, size: H},
				{terms: []convTerm{{4, sw}, {2, dw}}, off: pl, size: W},
			}
			xt5, tElem, wide := fe.gatherProductX(x3, tensorTypeOf([]int64{N, H, W}, elem), xt.Elem, elem, acc, accElem, tdims, axes)
			xWide = wide
			C = KH * KW
			dims := []int64{N, C, OH, OW}
			xvTyp = tensorTypeOf(dims, tElem)
			xv = fe.tmp()
			fe.line("%s = tensor.collapse_shape %s [[0], [1, 2], [3], [4]] : %s into %s", xv, xt5, tensorTypeOf(tdims, tElem), xvTyp)
		} else if sh != 1 || sw != 1 || OH != H || OW != W || pt != 0 || pl != 0 {
			dims := []int64{N, C, OH, OW}
			axes := []convAxis{
				{terms: []convTerm{{0, 1}}, size: N},
				{terms: []convTerm{{1, 1}}, size: C},
				{terms: []convTerm{{2, sh}}, off: pt, size: H},
				{terms: []convTerm{{3, sw}}, off: pl, size: W},
			}
			var gElem string
			xv, gElem, xWide = fe.gatherProductX(xname, xtyp, xt.Elem, elem, acc, accElem, dims, axes)
			xvTyp = tensorTypeOf(dims, gElem)
		}
		P := OH * OW
		w2t := tensorTypeOf([]int64{M, C}, elem)
		w2 := fe.tmp()
		fe.line("%s = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into %s", w2, name(w), fe.typ(w), w2t)
		xElem := elem
		if xWide {
			xElem = acc
		}
		x3t := tensorTypeOf([]int64{N, C, P}, xElem)
		x3 := fe.tmp()
		fe.line("%s = tensor.collapse_shape %s [[0], [1], [2, 3]] : %s into %s", x3, xv, xvTyp, x3t)
		mmTyp := tensorTypeOf([]int64{M, P}, acc)
		x2t := tensorTypeOf([]int64{C, P}, xElem)
		if fused := fe.epiConv[op.Result.ID]; fused || N > 1 {
			// With its epilogue fused (conv_epilogue.go): one generic over
			// (n, m, p, c), tagged niro.mm_e, that the convolution
			// schedule blocks in the epilogue's tile loop (or hands to the
			// contraction schedule as a batched product). More than one
			// image: the same generic as a batched product (per-image
			// products inserted into the batch bufferize to copies of the
			// whole accumulator per image).
			tag := "niro.contraction"
			if fused {
				tag = "niro.mm_e"
			}
			res3t := tensorTypeOf([]int64{N, M, P}, acc)
			filled := fe.fill(fe.empty([]int64{N, M, P}, acc, nil), res3t, acc, fe.scalarConst(accElem, 0), 3)
			mm := fe.tmp()
			fe.generic(mm, []string{"parallel", "parallel", "parallel", "reduction"},
				[]genericOperand{
					{name: w2, typ: w2t, elem: elem, amap: affineMap(4, []string{"d1", "d3"})},
					{name: x3, typ: x3t, elem: xElem, amap: affineMap(4, []string{"d0", "d3", "d2"})},
				},
				genericOperand{name: filled, typ: res3t, elem: acc, amap: affineMap(4, []string{"d0", "d1", "d2"})},
				tag, func(args []string) string {
					a, b := fe.extProduct(xt.Elem, args[0]), args[1] // bf16.go
					if !xWide {
						b = fe.extProduct(xt.Elem, b)
					}
					p, s := fe.tmp(), fe.tmp()
					fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
					fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
					return s
				})
			fe.line("%s = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [%s] : %s into %s", sum, mm, dimList(accDims), res3t, accTyp)
			fe.convEpilogue(op, rt, xt, elem, sum, accTyp, acc)
			return
		}
		// One rank-3 product per image (the contraction schedule's
		// common case), inserted into the [N, M, P] result.
		all := fe.tmp()
		res3t := tensorTypeOf([]int64{N, M, P}, acc)
		if N > 1 {
			fe.line("%s = tensor.empty() : %s", all, res3t)
		}
		for n := int64(0); n < N; n++ {
			x2 := fe.tmp()
			fe.line("%s = tensor.extract_slice %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s to %s", x2, x3, n, C, P, x3t, x2t)
			filled := fe.fill(fe.empty([]int64{M, P}, acc, nil), mmTyp, acc, fe.scalarConst(accElem, 0), 2)
			mm := fe.tmp()
			fe.generic(mm, []string{"parallel", "parallel", "reduction"},
				[]genericOperand{
					{name: w2, typ: w2t, elem: elem, amap: affineMap(3, []string{"d0", "d2"})},
					{name: x2, typ: x2t, elem: xElem, amap: affineMap(3, []string{"d2", "d1"})},
				},
				genericOperand{name: filled, typ: mmTyp, elem: acc, amap: affineMap(3, []string{"d0", "d1"})},
				"niro.contraction", func(args []string) string {
					a, b := fe.extProduct(xt.Elem, args[0]), args[1] // bf16.go
					if !xWide {
						b = fe.extProduct(xt.Elem, b)
					}
					p, s := fe.tmp(), fe.tmp()
					fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
					fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
					return s
				})
			if N == 1 {
				fe.line("%s = tensor.expand_shape %s [[0, 1], [2, 3]] output_shape [%s] : %s into %s", sum, mm, dimList(accDims), mmTyp, accTyp)
				break
			}
			next := fe.tmp()
			fe.line("%s = tensor.insert_slice %s into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s", next, mm, all, n, M, P, mmTyp, res3t)
			all = next
		}
		if N > 1 {
			fe.line("%s = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [%s] : %s into %s", sum, all, dimList(accDims), res3t, accTyp)
		}
	} else {
		Hp := (OH-1)*sh + (KH-1)*dh + 1
		var xp, xpTyp string
		var xExprs []string
		hAxis := convAxis{terms: []convTerm{{1, 1}}, off: pt, size: H}
		if sw == 1 {
			Wp := OW + (KW-1)*dw
			dims := []int64{N, Hp, Wp, C}
			xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, fe.nhwcAxes(x, []convAxis{
				{terms: []convTerm{{0, 1}}, size: N},
				{terms: []convTerm{{3, 1}}, size: C},
				hAxis,
				{terms: []convTerm{{2, 1}}, off: pl, size: W},
			}))
			xpTyp = tensorTypeOf(dims, elem)
			xExprs = []string{d(0), windowExpr(d(1), sh, d(5), dh), windowExpr(d(2), 1, d(6), dw), d(4)}
		} else {
			dims := []int64{KW, N, Hp, OW, C}
			hAxis.terms[0].idx = 2
			xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, fe.nhwcAxes(x, []convAxis{
				{terms: []convTerm{{1, 1}}, size: N},
				{terms: []convTerm{{4, 1}}, size: C},
				hAxis,
				{terms: []convTerm{{3, sw}, {0, dw}}, off: pl, size: W},
			}))
			xpTyp = tensorTypeOf(dims, elem)
			xExprs = []string{d(6), d(0), windowExpr(d(1), sh, d(5), dh), d(2), d(4)}
		}
		wT, wtTyp := fe.convFilterIn(op, []int64{C, KH, KW, M}, []string{"d3", "d0", "d1", "d2"}, elem)
		nhwcDims := []int64{N, OH, OW, M}
		nhwcTyp := tensorTypeOf(nhwcDims, acc)
		filled := fe.fill(fe.empty(nhwcDims, acc, nil), nhwcTyp, acc, fe.scalarConst(accElem, 0), 4)
		nhwc := fe.tmp()
		fe.generic(nhwc, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"},
			[]genericOperand{
				{name: xp, typ: xpTyp, elem: elem, amap: affineMap(7, xExprs)},
				{name: wT, typ: wtTyp, elem: elem, amap: affineMap(7, []string{d(4), d(5), d(6), d(3)})},
			},
			genericOperand{name: filled, typ: nhwcTyp, elem: acc, amap: affineMap(7, []string{d(0), d(1), d(2), d(3)})},
			fe.convTagFor(op, fe.convBlockTagFor(op, M, acc)), func(args []string) string {
				a, b := fe.widen(xt.Elem, args[0]), fe.widen(xt.Elem, args[1])
				p, s := fe.tmp(), fe.tmp()
				fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
				fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
				return s
			})
		fe.convBackToNCHW(op, rt, xt, elem, nhwc, nhwcTyp, acc)
		return
	}
	fe.convEpilogue(op, rt, xt, elem, sum, accTyp, acc)
}

// conv1x1NHWC lowers a one-group 1×1 convolution that reads or writes a
// channels-last value: one matrix product, the gathered X as
// [N·OH·OW, C] times W as [C, M], into an N×OH×OW×M accumulator, written
// back by convBackToNCHW (channels-last, or NCHW).
func (fe *funcEmitter) conv1x1NHWC(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	x, w := op.X, op.W
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	M := wt.Dims[0]
	OH, OW := rt.Dims[2], rt.Dims[3]
	sh, sw := op.Strides[0], op.Strides[1]
	pt, pl := op.Pads[0], op.Pads[1]
	xname, xtyp := name(x), fe.typ(x)
	accDims := []int64{N, OH, OW, M}
	accTyp := tensorTypeOf(accDims, acc)
	// A matrix product: rows (n, oh, ow), columns m, contracted c.
	xg := fe.gatherZero(xname, xtyp, xt.Elem, elem, []int64{N, OH, OW, C}, fe.nhwcAxes(x, []convAxis{
		{terms: []convTerm{{0, 1}}, size: N},
		{terms: []convTerm{{3, 1}}, size: C},
		{terms: []convTerm{{1, sh}}, off: pt, size: H},
		{terms: []convTerm{{2, sw}}, off: pl, size: W},
	}))
	rows := N * OH * OW
	x2t := tensorTypeOf([]int64{rows, C}, elem)
	x2 := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [[0, 1, 2], [3]] : %s into %s", x2, xg, tensorTypeOf([]int64{N, OH, OW, C}, elem), x2t)
	w2t := tensorTypeOf([]int64{M, C}, elem)
	w2 := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [[0], [1, 2, 3]] : %s into %s", w2, name(w), fe.typ(w), w2t)
	// [C, M], so the matrix product reads its right operand row-major.
	wT := fe.tmp()
	wTt := tensorTypeOf([]int64{C, M}, elem)
	fe.generic(wT, parallel(2),
		[]genericOperand{{name: w2, typ: w2t, elem: elem, amap: affineMap(2, []string{"d1", "d0"})}},
		genericOperand{name: fe.empty([]int64{C, M}, elem, nil), typ: wTt, elem: elem, amap: identityMap(2)},
		"", func(args []string) string { return args[0] })
	mmTyp := tensorTypeOf([]int64{rows, M}, acc)
	filled := fe.fill(fe.empty([]int64{rows, M}, acc, nil), mmTyp, acc, fe.scalarConst(accElem, 0), 2)
	// With its epilogue fused (conv_epilogue.go) the product is blocked
	// by the convolution schedule in the epilogue's tile loop.
	mmTag := "niro.contraction"
	if fe.epiConv[op.Result.ID] {
		mmTag = "niro.mm_e"
	}
	mm := fe.tmp()
	fe.generic(mm, []string{"parallel", "parallel", "reduction"},
		[]genericOperand{
			{name: x2, typ: x2t, elem: elem, amap: affineMap(3, []string{"d0", "d2"})},
			{name: wT, typ: wTt, elem: elem, amap: affineMap(3, []string{"d2", "d1"})},
		},
		genericOperand{name: filled, typ: mmTyp, elem: acc, amap: affineMap(3, []string{"d0", "d1"})},
		mmTag, func(args []string) string {
			a, b := fe.widen(xt.Elem, args[0]), fe.widen(xt.Elem, args[1])
			p, s := fe.tmp(), fe.tmp()
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
			return s
		})
	sum := fe.tmp()
	fe.line("%s = tensor.expand_shape %s [[0, 1, 2], [3]] output_shape [%s] : %s into %s", sum, mm, dimList(accDims), mmTyp, accTyp)
	fe.convBackToNCHW(op, rt, xt, elem, sum, accTyp, acc)
}

// convBackToNCHW writes op's result from the NHWC accumulator sum: the
// bias added, 16-bit floats rounded once.
func (fe *funcEmitter) convBackToNCHW(op *niro.Conv, rt, xt niro.TensorType, elem, sum, accTyp, acc string) {
	if fe.channelsLast(op.Result) {
		fe.nhwcEpilogue(op, rt, xt, elem, sum, accTyp, acc)
		return
	}
	res := op.Result
	ins := []genericOperand{{name: sum, typ: accTyp, elem: acc, amap: affineMap(4, []string{"d0", "d2", "d3", "d1"})}}
	if op.HasBias() {
		ins = append(ins, genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: elem, amap: affineMap(4, []string{"d1"})})
	}
	fe.generic(name(res), parallel(4), ins,
		genericOperand{name: fe.empty(rt.Dims, elem, nil), typ: fe.typ(res), elem: elem, amap: identityMap(4)},
		"", fe.biasBody(op, xt.Elem, acc))
}

// convSumName is the name of op's accumulator: the result itself when
// there is no epilogue (no bias, no 16-bit rounding).
func (fe *funcEmitter) convSumName(op *niro.Conv, xt niro.TensorType) string {
	if op.HasBias() || isHalf(xt.Elem) {
		return fe.tmp()
	}
	return name(op.Result)
}

// convEpilogue writes op's result from the NCHW accumulator sum (named by
// convSumName): the bias added last, in place in the accumulator's buffer,
// and 16-bit floats rounded once. Without either, sum is the result.
func (fe *funcEmitter) convEpilogue(op *niro.Conv, rt, xt niro.TensorType, elem, sum, accTyp, acc string) {
	res := op.Result
	if sum == name(res) {
		return
	}
	fe.convEpilogueTo(op, rt.Dims, name(res), fe.typ(res), xt, elem, sum, accTyp, acc)
}

// convEpilogueTo is convEpilogue writing dst, of NCHW dims and type
// dstTyp (conv2dRowsView: the row form's 4-D view of a 1-D or 3-D
// result).
func (fe *funcEmitter) convEpilogueTo(op *niro.Conv, dims []int64, dst, dstTyp string, xt niro.TensorType, elem, sum, accTyp, acc string) {
	bias := func() genericOperand {
		return genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: elem, amap: affineMap(4, []string{"d1"})}
	}
	// A fused epilogue (conv_epilogue.go) writes a result of its own: the
	// schedule fuses the convolution into the tile loop through the
	// epilogue's input, which a tiled destination is not.
	if !isHalf(xt.Elem) && !fe.epiConv[op.Result.ID] {
		// y = sum + b, written over sum.
		fe.generic(dst, parallel(4), []genericOperand{bias()},
			genericOperand{name: sum, typ: accTyp, elem: acc, amap: identityMap(4)},
			"", func(args []string) string {
				s := fe.tmp()
				fe.line("%s = arith.addf %s, %s : %s", s, args[1], args[0], acc)
				return s
			})
		return
	}
	ins := []genericOperand{{name: sum, typ: accTyp, elem: acc, amap: identityMap(4)}}
	if op.HasBias() {
		ins = append(ins, bias())
	}
	fe.generic(dst, parallel(4), ins,
		genericOperand{name: fe.empty(dims, elem, nil), typ: dstTyp, elem: elem, amap: identityMap(4)},
		"", fe.biasBody(op, xt.Elem, acc))
}

// depthwiseNHWC lowers a 2-D depthwise Conv (groups = C = M, one input
// channel per output channel) channels-last, as conv2dNHWC does: X
// gathered into NHWC with its padding (per kernel column for a column
// stride above 1), W [C, 1, KH, KW] read as [KH, KW, C], and one generic
// over (n, oh, ow, c, kh, kw) tagged niro.dwconv2d that adds each product
// in the order (kh, kw) ascending from zero (the group's single channel:
// the order of docs/ops.md). The convolution schedule blocks it over
// output columns × channels; 16k + 1 channels (no padding channel) leave
// it a one-channel block, which @conv_steps_dw1 vectorizes along its
// output columns.
func (fe *funcEmitter) depthwiseNHWC(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	x := op.X
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	KH, KW := wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	sh, sw := op.Strides[0], op.Strides[1]
	dh, dw := op.Dilations[0], op.Dilations[1]
	pt, pl := op.Pads[0], op.Pads[1]
	xname, xtyp := name(x), fe.typ(x)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	Hp := (OH-1)*sh + (KH-1)*dh + 1
	hAxis := convAxis{terms: []convTerm{{1, 1}}, off: pt, size: H}
	var xp, xpTyp string
	var xExprs []string
	if sw == 1 {
		dims := []int64{N, Hp, OW + (KW-1)*dw, C}
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, fe.nhwcAxes(x, []convAxis{
			{terms: []convTerm{{0, 1}}, size: N},
			{terms: []convTerm{{3, 1}}, size: C},
			hAxis,
			{terms: []convTerm{{2, 1}}, off: pl, size: W},
		}))
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(0), windowExpr(d(1), sh, d(4), dh), windowExpr(d(2), 1, d(5), dw), d(3)}
	} else {
		dims := []int64{KW, N, Hp, OW, C}
		hAxis.terms[0].idx = 2
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, fe.nhwcAxes(x, []convAxis{
			{terms: []convTerm{{1, 1}}, size: N},
			{terms: []convTerm{{4, 1}}, size: C},
			hAxis,
			{terms: []convTerm{{3, sw}, {0, dw}}, off: pl, size: W},
		}))
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(5), d(0), windowExpr(d(1), sh, d(4), dh), d(2), d(3)}
	}
	wT, wtTyp := fe.convFilterIn(op, []int64{KH, KW, C}, []string{"d2", "0", "d0", "d1"}, elem)
	accDims := []int64{N, OH, OW, C}
	accTyp := tensorTypeOf(accDims, acc)
	filled := fe.fill(fe.empty(accDims, acc, nil), accTyp, acc, fe.scalarConst(accElem, 0), 4)
	sum := fe.tmp()
	fe.generic(sum, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction"},
		[]genericOperand{
			{name: xp, typ: xpTyp, elem: elem, amap: affineMap(6, xExprs)},
			{name: wT, typ: wtTyp, elem: elem, amap: affineMap(6, []string{d(4), d(5), d(3)})},
		},
		genericOperand{name: filled, typ: accTyp, elem: acc, amap: affineMap(6, []string{d(0), d(1), d(2), d(3)})},
		fe.convTagFor(op, convTag("niro.dwconv2d", C)), func(args []string) string {
			a, b := fe.widen(xt.Elem, args[0]), fe.widen(xt.Elem, args[1])
			p, s := fe.tmp(), fe.tmp()
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
			return s
		})
	fe.convBackToNCHW(op, rt, xt, elem, sum, accTyp, acc)
}

// convBlockTagFor is op's block tag (convBlockTag, niro.conv2d for a
// fused epilogue, whose root tag sets the block: planConvEpilogues) for
// M channels of accumulator type acc.
func (fe *funcEmitter) convBlockTagFor(op *niro.Conv, M int64, acc string) string {
	if fe.epiConv[op.Result.ID] {
		return convTag("niro.conv2d", M)
	}
	return convTag(convBlockTag(M, acc != "f64"), M)
}

// convTag returns the schedule's tag for a channels-last generic whose
// vectorized (channel) axis has extent c, or none for c = 1: the schedule
// has nothing to vectorize there (and its unit-dimension folding does not
// terminate on such a block in MLIR 22), so the generic stays a loop nest.
func convTag(tag string, c int64) string {
	if c < 2 {
		return ""
	}
	return tag
}
