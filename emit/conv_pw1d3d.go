package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// The 1-D and 3-D pointwise convolutions (one group, kernel 1 on every
// axis) whose epilogue is fused: the NCHW 1×1
// product of conv_nhwc.go with its cache block (forms mmk/mmkl), one
// spatial axis fewer or more. W viewed as [M, C] times X viewed as
// [N, C, P], P the output positions (OW, or OD·OH·OW), read in place for
// stride 1 without padding and gathered channels-first otherwise (16-bit
// floats gathered widened to f32, as conv_nhwc.go does), one generic over
// (n, m, p, c) tagged niro.mm_e: each element sums over c ascending from
// zero, mulf then addf, the bias added last in the read-back. The product
// is the result's NC… layout ([N, M, P], expanded to [N, M, OD, OH, OW]
// for 3-D), so the read-back and the region read it through the identity,
// and the schedule tiles the root by a cache block of the product
// (toolchain/conv.mlir, @conv_epi_mmk1d, @conv_epi_mmk3d): 256 output
// channels × mmkTileCols columns (half for f64), whose product tile the
// contraction schedule blocks inside the tile loop, and whose epilogue is
// tiled into vectors of 4 channels × 16 columns on the cached tile.
//
// The root's tag (planConvEpilogues: niro.epi_<form>, niro.mmk_h<k>):
//   - 1-D, niro.epi_mmk1d: k = 0, the whole output row per block (OW ≤
//     mmkTileCols); k = 1 or 2, blocks of 128 or 256 columns (f64, f32);
//   - 3-D, niro.epi_mmk3d: k = 0, the whole output volume per block
//     (OD·OH·OW ≤ mmkTileCols); k = 8, one output depth slice, all its
//     rows; k = 1, 2, 4, k whole rows of one depth slice (mmkRows).

// pwProductForm returns the form of a 1-D or 3-D pointwise convolution
// whose epilogue is fused into the product's cache block ("mmk1d<k>",
// "mmk3d<k>"), or false: one group, kernel 1, NC… values. The fused
// product measured faster than the rank-7 block (kernel 1) with its
// epilogue fused, which took them within 256 × 256 filter elements
// (128 × 256 f64) before, at every size tried (docs/performance.md):
// f32 1.2–1.5× at 128 → 256 over 1000 columns and 3-D 128 → 256 over
// 8 × 14 × 14, 1.6× at 256 → 256 over 200, 2× at 24 → 40 over 37, 3.5×
// at 64 → 150 over 20, 7× at 16 → 21 over 3 × 5 × 11; f64 1.3–1.7×
// (128 → 128 over 1000, 24 → 40 over 37, 64 → 150 over 200).
func (fe *funcEmitter) pwProductForm(op *niro.Conv, rt, xt, wt niro.TensorType) (string, bool) {
	S := xt.Rank() - 2
	if (S != 1 && S != 3) || op.Groups != 1 || fe.channelsLast(op.Result) || fe.channelsLast(op.X) {
		return "", false
	}
	M := wt.Dims[0]
	if !unitKernel(wt.Dims) && !oneWindow(rt.Dims, M) {
		return "", false
	}
	cols := int64(mmkTileCols)
	if rt.Elem == niro.F64 {
		cols /= 2
	}
	o := rt.Dims[2:]
	if S == 1 {
		switch {
		case o[0] <= cols:
			return "mmk1d0", true
		case cols == 128:
			return "mmk1d1", true
		}
		return "mmk1d2", true
	}
	switch {
	case o[0]*o[1]*o[2] <= cols:
		return "mmk3d0", true
	case o[1]*o[2] <= cols:
		return "mmk3d8", true
	}
	return "mmk3d" + strconv.FormatInt(mmkRows(M, o[1], o[2], rt.Elem), 10), true
}

// unitKernel reports whether a filter of dims w has a kernel of 1 on
// every spatial axis.
func unitKernel(w []int64) bool {
	for _, k := range w[2:] {
		if k != 1 {
			return false
		}
	}
	return true
}

// oneWindow reports whether a convolution of M output channels and a
// result of dims rt has one output channel (M = 1) and one output column
// (OW = 1; for 1-D one output position): convPWProduct gathers its X as
// [N, C·K…, P] (im2col: C·K… the window's flattened index c·K… + k…,
// ascending in the order (c, k…) of docs/ops.md; P the output positions)
// and multiplies it by W viewed as [1, C·K…], as the 2-D one's of one
// output position (fullKernel). The gathered X is K… times X's window
// rows, which one output column keeps small (a 3-D head of OD·OH ≥ 2
// rows, one column, is the rank-7 block's scalar tile otherwise).
func oneWindow(rt []int64, M int64) bool {
	return M == 1 && rt[len(rt)-1] == 1
}

// usePWProduct reports whether convGeneral lowers op by convPWProduct:
// its epilogue is fused and pwProductForm takes it.
func (fe *funcEmitter) usePWProduct(op *niro.Conv, rt, xt, wt niro.TensorType) bool {
	if !fe.epiConv[op.Result.ID] {
		return false
	}
	_, ok := fe.pwProductForm(op, rt, xt, wt)
	return ok
}

// convPWProduct writes op (pwProductForm) as the NC… product above and its
// read-back: the bias added last, 16-bit floats rounded once; without
// either, the product is the result.
func (fe *funcEmitter) convPWProduct(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	acc, accElem := accumulator(xt.Elem, elem)
	S := xt.Rank() - 2
	N, C, M := xt.Dims[0], xt.Dims[1], wt.Dims[0]
	o := rt.Dims[2:]
	P := int64(1)
	for _, d := range o {
		P *= d
	}
	xv, xvTyp, xElem := name(op.X), fe.typ(op.X), elem
	xWide := false
	inPlace := true
	for j := 0; j < S; j++ {
		inPlace = inPlace && op.Strides[j] == 1 && op.Pads[j] == 0 && op.Pads[S+j] == 0 && o[j] == xt.Dims[2+j]
	}
	window := !unitKernel(wt.Dims)
	if window {
		// One output column (oneWindow): X gathered as [N, C, K…, O…]
		// (Xw[n, c, k…, o…] = Xpad[n, c, o·s + k·d…]), then viewed as
		// [N, C·K…, P].
		dims := append(append([]int64{N, C}, wt.Dims[2:]...), o...)
		axes := []convAxis{{terms: []convTerm{{0, 1}}, size: N}, {terms: []convTerm{{1, 1}}, size: C}}
		for j := 0; j < S; j++ {
			axes = append(axes, convAxis{terms: []convTerm{{2 + S + j, op.Strides[j]}, {2 + j, op.Dilations[j]}}, off: op.Pads[j], size: xt.Dims[2+j]})
		}
		xv, xElem, xWide = fe.gatherProductX(name(op.X), fe.typ(op.X), xt.Elem, elem, acc, accElem, dims, axes)
		for _, k := range wt.Dims[2:] {
			C *= k
		}
		x3, x3t := fe.tmp(), tensorTypeOf([]int64{N, C, P}, xElem)
		fe.line("%s = tensor.collapse_shape %s %s : %s into %s", x3, xv, reassoc(1, 1+S, S), tensorTypeOf(dims, xElem), x3t)
		xv, xvTyp = x3, x3t
	} else if !inPlace {
		// Gathered channels-first: loops n, c, o….
		dims := append([]int64{N, C}, o...)
		axes := []convAxis{{terms: []convTerm{{0, 1}}, size: N}, {terms: []convTerm{{1, 1}}, size: C}}
		for j := 0; j < S; j++ {
			axes = append(axes, convAxis{terms: []convTerm{{2 + j, op.Strides[j]}}, off: op.Pads[j], size: xt.Dims[2+j]})
		}
		// 16-bit floats widened to f32, as conv_nhwc.go's 1×1 product.
		xv, xElem, xWide = fe.gatherProductX(name(op.X), fe.typ(op.X), xt.Elem, elem, acc, accElem, dims, axes)
		xvTyp = tensorTypeOf(dims, xElem)
	}
	x3t := tensorTypeOf([]int64{N, C, P}, xElem)
	if S == 3 && !window {
		x3 := fe.tmp()
		fe.line("%s = tensor.collapse_shape %s [[0], [1], [2, 3, 4]] : %s into %s", x3, xv, xvTyp, x3t)
		xv = x3
	}
	w2t := tensorTypeOf([]int64{M, C}, elem)
	w2 := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s %s : %s into %s", w2, name(op.W), reassoc(1, 1+S), fe.typ(op.W), w2t)
	wElem := elem
	if xWide {
		// W widened too: the contraction schedule takes a product whose
		// operands are both f32 or both widened in its body (extf), not
		// one of each (left a loop nest).
		w2t = tensorTypeOf([]int64{M, C}, acc)
		ww := fe.tmp()
		fe.generic(ww, parallel(2),
			[]genericOperand{{name: w2, typ: tensorTypeOf([]int64{M, C}, elem), elem: elem, amap: identityMap(2)}},
			genericOperand{name: fe.empty([]int64{M, C}, acc, nil), typ: w2t, elem: acc, amap: identityMap(2)},
			"", func(args []string) string { return fe.widen(xt.Elem, args[0]) })
		w2, wElem = ww, acc
	}
	res3t := tensorTypeOf([]int64{N, M, P}, acc)
	filled := fe.fill(fe.empty([]int64{N, M, P}, acc, nil), res3t, acc, fe.scalarConst(accElem, 0), 3)
	accDims := append([]int64{N, M}, o...)
	accTyp := tensorTypeOf(accDims, acc)
	sum := fe.convSumName(op, xt)
	mm := sum
	if S == 3 {
		mm = fe.tmp()
	}
	fe.generic(mm, []string{"parallel", "parallel", "parallel", "reduction"},
		[]genericOperand{
			{name: w2, typ: w2t, elem: wElem, amap: affineMap(4, []string{"d1", "d3"})},
			{name: xv, typ: x3t, elem: xElem, amap: affineMap(4, []string{"d0", "d3", "d2"})},
		},
		genericOperand{name: filled, typ: res3t, elem: acc, amap: affineMap(4, []string{"d0", "d1", "d2"})},
		"niro.mm_e", func(args []string) string {
			a, b := args[0], args[1]
			if !xWide {
				a, b = fe.extProduct(xt.Elem, a), fe.extProduct(xt.Elem, b) // bf16.go
			}
			p, s := fe.tmp(), fe.tmp()
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
			return s
		})
	if S == 3 {
		fe.line("%s = tensor.expand_shape %s [[0], [1], [2, 3, 4]] output_shape [%s] : %s into %s", sum, mm, dimList(accDims), res3t, accTyp)
	}
	if sum == name(op.Result) {
		return
	}
	R := S + 2
	ins := []genericOperand{{name: sum, typ: accTyp, elem: acc, amap: identityMap(R)}}
	if op.HasBias() {
		ins = append(ins, genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: elem, amap: affineMap(R, []string{"d1"})})
	}
	fe.generic(name(op.Result), parallel(R), ins,
		genericOperand{name: fe.empty(rt.Dims, elem, nil), typ: fe.typ(op.Result), elem: elem, amap: identityMap(R)},
		"", fe.biasBody(op, xt.Elem, acc))
}
