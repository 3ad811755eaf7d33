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
	return m == 1 && ow == 1 && useConvRows(oh, m, c, kw, kh)
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
// output channel, has a kernel covering the whole of X (no padding, unit
// dilations, KH = H, KW = W, not 1×1): the 1×1 product over the flattened
// window (see above), where X and the result are NCHW.
func fullKernel(op *niro.Conv) bool {
	if !conv2DStatic(op) || op.Groups != 1 {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	for _, p := range op.Pads {
		if p != 0 {
			return false
		}
	}
	return wt.Dims[0] == 1 && op.Dilations[0] == 1 && op.Dilations[1] == 1 &&
		wt.Dims[2] == xt.Dims[2] && wt.Dims[3] == xt.Dims[3] && (wt.Dims[2] > 1 || wt.Dims[3] > 1)
}

// convFullKernel reports whether op takes the 1×1 product over its
// flattened window: fullKernel with NCHW X and result.
func (fe *funcEmitter) convFullKernel(op *niro.Conv) bool {
	return fullKernel(op) && !fe.channelsLast(op.X) && !fe.channelsLast(op.Result)
}
