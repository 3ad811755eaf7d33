package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// The row form's transposed view of a 2-D one-group convolution of one
// output channel and one output column (M = 1, OW = 1, OH ≥ 2: a head
// whose kernel covers the input's width, or a column left by a strided
// kernel), NCHW: the row form (conv_rows.go) with the output's rows as its
// row, so that the block's vectors run along the output column. The
// result [N, 1, OH, 1] is the same memory as the view [N, 1, 1, OH]:
//
//   - X is gathered with its zero padding transposed, Xt[n, c, w, h] =
//     Xpad[n, c, h, w] (with a row stride s > 1 once per kernel row kh,
//     Xt[kh, n, c, w, oh] = Xpad[n, c, oh·s + kh·d, w]), so that a block's
//     output rows read consecutive elements;
//   - W is read as [C, KH, KW, 1], as the row form reads it;
//   - one generic over (n, m, ow, oh, c, kh, kw), tagged niro.conv2d_rows,
//     writes the view; its reduction loops keep the order (c, kh, kw) of
//     docs/ops.md, each ascending, only X's map swaps the row and column
//     axes, so the sums are the row form's bit for bit;
//   - the epilogue is fused as the 1-D and 3-D heads' (conv_rows_view.go:
//     root niro.epi_rows<bits>, the region's generics in the view,
//     elementwiseView, the root's view reshaped into the result).
//
// Without it such a convolution takes conv_general.go's block of 2
// channels with a padding channel and an unfused epilogue
// (paddedChannelConv). One output row and column (OH = OW = 1) is not
// the row form's (its blocks need a row of at least 2): where the kernel
// covers the whole of X (no padding, no dilation, KH × KW = H × W, a head
// over a 7 × 7 map) it is a dot product per image, the 1×1 product of
// conv_nhwc.go over X viewed as [N, C·H·W, 1, 1] and W as [1, C·KH·KW]
// (fullKernel): the flattened index c·KH·KW + kh·KW + kw ascends in the
// order (c, kh, kw), so the sums keep their bits. Any other single output
// (a strided or padded kernel, a dilation) keeps the padded block.

// useConvRowsT reports whether a 2-D one-group convolution of output
// oh × ow, m output channels, c input channels and a kh × kw kernel takes
// the transposed row view (see above) when its values are NCHW: the row
// form's rule for one channel (useConvRows) with rows and columns swapped.
func useConvRowsT(oh, ow, m, c, kh, kw int64) bool {
	return m == 1 && ow == 1 && (useConvRows(oh, m, c, kw, kh) || c == 1 && oh >= 2 && kh >= 2 && kw >= 2)
}

// convRowsT reports whether op, a 2-D convolution, takes the transposed
// row view: NCHW X and result, one group, useConvRowsT.
func (fe *funcEmitter) convRowsT(op *niro.Conv) bool {
	if !conv2DStatic(op) || op.Groups != 1 || fe.channelsLast(op.X) || fe.channelsLast(op.Result) {
		return false
	}
	rt, _ := rankedTensor(op.Result)
	wt, _ := rankedTensor(op.W)
	return useConvRowsT(rt.Dims[2], rt.Dims[3], wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3])
}

// rowsTView reports whether a 2-D result of dims rt is read in the
// transposed row view: one channel and one column.
func rowsTView(rt []int64) bool {
	return len(rt) == 4 && rt[1] == 1 && rt[3] == 1
}

// conv2dRowsT lowers op, which convRowsT takes, in the transposed row
// view (see above).
func (fe *funcEmitter) conv2dRowsT(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	x := op.X
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	KH, KW := wt.Dims[2], wt.Dims[3]
	OH := rt.Dims[2]
	sh, sw := op.Strides[0], op.Strides[1]
	dh, dw := op.Dilations[0], op.Dilations[1]
	pt, pl := op.Pads[0], op.Pads[1]
	xname, xtyp := name(x), fe.typ(x)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	Wp := (KW-1)*dw + 1
	wAxis := convAxis{terms: []convTerm{{2, 1}}, off: pl, size: W}
	var xp, xpTyp string
	var xExprs []string
	if sh == 1 {
		Hp := OH + (KH-1)*dh
		dims := []int64{N, C, Wp, Hp}
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, []convAxis{
			{terms: []convTerm{{0, 1}}, size: N},
			{terms: []convTerm{{1, 1}}, size: C},
			{terms: []convTerm{{3, 1}}, off: pt, size: H},
			wAxis,
		})
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(0), d(4), windowExpr(d(2), sw, d(6), dw), windowExpr(d(3), 1, d(5), dh)}
	} else {
		dims := []int64{KH, N, C, Wp, OH}
		wAxis.terms[0].idx = 3
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, []convAxis{
			{terms: []convTerm{{1, 1}}, size: N},
			{terms: []convTerm{{2, 1}}, size: C},
			{terms: []convTerm{{4, sh}, {0, dh}}, off: pt, size: H},
			wAxis,
		})
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(5), d(0), d(4), windowExpr(d(2), sw, d(6), dw), d(3)}
	}
	wT, wtTyp := fe.convFilterIn(op, []int64{C, KH, KW, 1}, []string{"d3", "d0", "d1", "d2"}, elem)
	vd := rowsViewDims(rt.Dims)
	accTyp := tensorTypeOf(vd, acc)
	filled := fe.fill(fe.empty(vd, acc, nil), accTyp, acc, fe.scalarConst(accElem, 0), 4)
	sum := fe.tmp()
	fe.rowsBlock(op, sum, filled, accTyp, acc, xt.Elem, elem, xp, xpTyp, xExprs, wT, wtTyp)
	fe.rowsViewFinish(op, rt, xt, elem, sum, accTyp, acc)
}

// fullKernel reports whether op, a 2-D one-group convolution of one
// output channel, has one output row and column (OH = OW = 1) and a
// kernel that is not 1×1: a dot product per image, the 1×1 product over
// the flattened window (see above), where X and the result are NCHW. The
// window is X itself where the kernel covers the whole of X (no padding,
// unit dilations, KH = H, KW = W); otherwise (a strided, padded or
// dilated kernel) it is gathered first (windowIsX, conv2dNHWC).
func fullKernel(op *niro.Conv) bool {
	if !conv2DStatic(op) || op.Groups != 1 {
		return false
	}
	rt, _ := rankedTensor(op.Result)
	wt, _ := rankedTensor(op.W)
	return wt.Dims[0] == 1 && rt.Dims[2] == 1 && rt.Dims[3] == 1 && (wt.Dims[2] > 1 || wt.Dims[3] > 1)
}

// windowIsX reports whether the one window of op, which fullKernel
// takes, is X itself: no padding, unit dilations, KH = H and KW = W.
func windowIsX(op *niro.Conv) bool {
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	for _, p := range op.Pads {
		if p != 0 {
			return false
		}
	}
	return op.Dilations[0] == 1 && op.Dilations[1] == 1 && wt.Dims[2] == xt.Dims[2] && wt.Dims[3] == xt.Dims[3]
}

// tapsKernel reports whether op, a 2-D one-group convolution of one input
// and one output channel (C = M = 1) with a kernel other than 1×1, takes
// the 1×1 product over its taps where X and the result are NCHW: X
// gathered as [N, KH·KW, OH, OW], Xt[n, kh·KW + kw, oh, ow] = Xpad[n, 0,
// oh·sh + kh·dh, ow·sw + kw·dw], times W viewed as [1, KH·KW], P = OH·OW
// output positions per image (conv2dNHWC). The tap index kh·KW + kw
// ascends in the order (kh, kw) of docs/ops.md, so the sums keep their
// bits. It takes one output column (OW = 1, OH ≥ 2) from a kernel of one
// row or one column, which the transposed row view does not vectorize
// (its block folds to rank 3 with one channel; a kernel of at least 2 × 2
// takes that view, useConvRowsT), and, where the epilogue is fused
// (convTaps), an output width that leaves both blocks of the depthwise
// row form a remainder of one column (dwRowsCol1).
func tapsKernel(op *niro.Conv) bool {
	if !conv2DStatic(op) || op.Groups != 1 {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	rt, _ := rankedTensor(op.Result)
	KH, KW, OH, OW := wt.Dims[2], wt.Dims[3], rt.Dims[2], rt.Dims[3]
	if xt.Dims[1] != 1 || wt.Dims[0] != 1 || KH == 1 && KW == 1 {
		return false
	}
	return (KH == 1 || KW == 1) && (OW == 1 && OH >= 2 || dwRowsCol1(OW, rt.Elem))
}

// rowsOneChannel reports whether op, a 2-D one-group convolution of one
// input and one output channel (C = M = 1) with a kernel of at least
// 2 × 2, takes the row form (conv_rows.go) when its epilogue is fused:
// at an output width that leaves both blocks of the depthwise row form a
// remainder of one column (dwRowsCol1), where the row form's blocks of
// 16 columns (8 for f64) finish on a one-column remainder tile (its
// subviews folded, niro.epi_rows_col1). The product over the taps, which
// gathers X nine times for a 3 × 3 kernel, measured 1.3–1.8× slower at
// 129 and 257 columns (docs/performance.md).
func rowsOneChannel(op *niro.Conv) bool {
	if !conv2DStatic(op) || op.Groups != 1 {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	rt, _ := rankedTensor(op.Result)
	return xt.Dims[1] == 1 && wt.Dims[0] == 1 && wt.Dims[2] >= 2 && wt.Dims[3] >= 2 && dwRowsCol1(rt.Dims[3], rt.Elem)
}

// dwRowsCol1 reports whether an output width of ow columns of element type
// elem leaves both blocks of the depthwise row form (conv_epilogue.go's
// dwrows and dwrowsh: a full vector of 32 columns, 16 for f64, or half of
// one) a remainder of one column, whose fused tile the schedule's
// unit-dimension folding does not finish in MLIR 22: ow = 32k + 1 (16k + 1
// for f64), k ≥ 1.
func dwRowsCol1(ow int64, elem niro.ScalarType) bool {
	lanes := int64(32)
	if elem == niro.F64 {
		lanes = 16
	}
	return ow >= lanes/2 && ow%lanes == 1
}

// tapsColumn reports whether op, which tapsKernel takes, has one output
// column: the product serves it with or without an epilogue.
func tapsColumn(op *niro.Conv) bool {
	rt, _ := rankedTensor(op.Result)
	return rt.Dims[3] == 1
}

// convTaps reports whether op takes the 1×1 product over its taps
// (tapsKernel): NCHW X and result, one output column, or a width of
// dwRowsCol1 with the epilogue fused.
func (fe *funcEmitter) convTaps(op *niro.Conv) bool {
	return tapsKernel(op) && !fe.channelsLast(op.X) && !fe.channelsLast(op.Result) && (tapsColumn(op) || fe.epiConv[op.Result.ID])
}

// convFullKernel reports whether op takes the 1×1 product over its
// flattened window: fullKernel with NCHW X and result.
func (fe *funcEmitter) convFullKernel(op *niro.Conv) bool {
	return fullKernel(op) && !fe.channelsLast(op.X) && !fe.channelsLast(op.Result)
}
