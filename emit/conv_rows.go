package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// The row form of a 2-D one-group convolution, for outputs at least
// convRowsMinWidth wide: the result stays NCHW and the register block runs
// along the output row. One generic over (n, m, oh, ow, c, kh, kw), tagged
// niro.conv2d_rows, writes the result's layout directly:
//
//   - X is copied with its padding, still channels-first (a plain padded
//     copy; with a column stride s > 1 once per kernel column kw instead,
//     Xr[kw, n, c, h, ow] = Xpad[n, c, h, ow·s + kw·d], so that a block's
//     output columns read consecutive elements);
//   - W is read as [C, KH, KW, M] (laid out at compile time when constant,
//     conv_filter.go), so that the block's output channels at one step are
//     consecutive;
//   - the reduction loops run in the order of docs/ops.md (c, kh, kw, each
//     ascending) from an accumulator filled with zero; the bias is added
//     last, in place (convEpilogue).
//
// The convolution schedule blocks it as 8 output channels × 32 output
// columns (f32; 8 × 16 for f64): per step one vector of X along the row and
// one broadcast filter element per channel. There is no NHWC accumulator and
// no pass back to NCHW.

// convRowsMinWidth is the narrowest output row the row form takes; a
// narrower one keeps the channels-last block (conv2dNHWC), whose vectors
// run along the output channels.
const convRowsMinWidth = 16

// useConvRows reports whether a 2-D one-group convolution with output
// width ow, m output channels, c input channels and a kh × kw kernel takes
// the row form: a width of a multiple of 8, so that the block's remainder
// along the row is a whole 256-bit vector or nothing (LLVM 22 compiles odd
// vector widths, such as 24, into shuffles and spills), and no loop of the
// block's steps of extent 1 (more than one input channel, kernel rows and
// columns): the schedule tiles the steps of a rank-5 block (m, ow, c, kh,
// kw), and folding drops a unit loop. So is a channel remainder of one
// (16k + 1 channels), whose block the folding leaves rank 4 (ow, c, kh,
// kw; toolchain/conv.mlir, @conv_steps_rows4): 1×64×56×56 → 33, 3×3,
// with BatchNormalization and Relu, 1524–1544 µs against 1676–1791 µs for
// the channels-last block (docs/performance.md).
// One output channel (a segmentation or depth head) takes any width of at
// least 2 with two input channels or more and any kernel but 1×1 (the
// matrix product's): its blocks are one channel throughout, without a
// remainder block, and the schedule finishes on them (TestConvEpilogueFused
// rows_m1_*, TestConvHeadEpilogueFused, under a deadline); its block of
// 1 × 16 columns, even with a remainder of 12, a row of 14 or a
// one-column block (8k + 1, whose 0-d accumulator transfers the
// contraction-transfers schedule folds through their subviews,
// toolchain/schedule.mlir), is 2.4–4.2× faster than conv_general.go's
// padded block of 2 channels with its separate epilogue
// (paddedChannelConv, docs/performance.md). A kernel with a side of 1
// (1 × 3, 3 × 1) folds to (m, ow, c, k), which @conv_steps_rows4p tiles.
func useConvRows(ow, m, c, kh, kw int64) bool {
	if m == 1 {
		return ow >= 2 && c >= 2 && (kh >= 2 || kw >= 2)
	}
	return ow >= convRowsMinWidth && ow%8 == 0 && m >= 1 && c >= 2 && kh >= 2 && kw >= 2
}

// conv2dRows lowers op in the row form; see above.
func (fe *funcEmitter) conv2dRows(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	x := op.X
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	M, KH, KW := wt.Dims[0], wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	sh, sw := op.Strides[0], op.Strides[1]
	dh, dw := op.Dilations[0], op.Dilations[1]
	pt, pl := op.Pads[0], op.Pads[1]
	xname, xtyp := name(x), fe.typ(x)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	Hp := (OH-1)*sh + (KH-1)*dh + 1
	hAxis := convAxis{terms: []convTerm{{2, 1}}, off: pt, size: H}
	var xp, xpTyp string
	var xExprs []string
	if sw == 1 {
		Wp := OW + (KW-1)*dw
		dims := []int64{N, C, Hp, Wp}
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, []convAxis{
			{terms: []convTerm{{0, 1}}, size: N},
			{terms: []convTerm{{1, 1}}, size: C},
			hAxis,
			{terms: []convTerm{{3, 1}}, off: pl, size: W},
		})
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(0), d(4), windowExpr(d(2), sh, d(5), dh), windowExpr(d(3), 1, d(6), dw)}
	} else {
		dims := []int64{KW, N, C, Hp, OW}
		hAxis.terms[0].idx = 3
		xp = fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, []convAxis{
			{terms: []convTerm{{1, 1}}, size: N},
			{terms: []convTerm{{2, 1}}, size: C},
			hAxis,
			{terms: []convTerm{{4, sw}, {0, dw}}, off: pl, size: W},
		})
		xpTyp = tensorTypeOf(dims, elem)
		xExprs = []string{d(6), d(0), d(4), windowExpr(d(2), sh, d(5), dh), d(3)}
	}
	wT, wtTyp := fe.convFilterIn(op, []int64{C, KH, KW, M}, []string{"d3", "d0", "d1", "d2"}, elem)
	accDims := []int64{N, M, OH, OW}
	accTyp := tensorTypeOf(accDims, acc)
	filled := fe.fill(fe.empty(accDims, acc, nil), accTyp, acc, fe.scalarConst(accElem, 0), 4)
	sum := fe.convSumName(op, xt)
	fe.rowsBlock(op, sum, filled, accTyp, acc, xt.Elem, elem, xp, xpTyp, xExprs, wT, wtTyp)
	fe.convEpilogue(op, rt, xt, elem, sum, accTyp, acc)
}

// UsesConvRows reports whether a 2-D one-group convolution with output
// width ow and filter m × c × kh × kw takes the row form (for tests).
func UsesConvRows(ow, m, c, kh, kw int64) bool { return useConvRows(ow, m, c, kh, kw) }

// rowsBlock writes sum, the row form's block generic (tagged
// niro.conv2d_rows): loops (n, m, oh, ow) parallel and (c, kh, kw)
// reductions, X read as xp through xExprs and W as wT [C, KH, KW, M], the
// product of the two (widened from x to the accumulator type acc)
// added to filled, the zero-filled accumulator of type accTyp, in the
// documented order, a multiply then an add.
func (fe *funcEmitter) rowsBlock(op *niro.Conv, sum, filled, accTyp, acc string, x niro.ScalarType, elem, xp, xpTyp string, xExprs []string, wT, wtTyp string) {
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	fe.generic(sum, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"},
		[]genericOperand{
			{name: xp, typ: xpTyp, elem: elem, amap: affineMap(7, xExprs)},
			{name: wT, typ: wtTyp, elem: elem, amap: affineMap(7, []string{d(4), d(5), d(6), d(1)})},
		},
		genericOperand{name: filled, typ: accTyp, elem: acc, amap: affineMap(7, []string{d(0), d(1), d(2), d(3)})},
		fe.convTagFor(op, "niro.conv2d_rows"), func(args []string) string {
			a, b := fe.widen(x, args[0]), fe.widen(x, args[1])
			p, s := fe.tmp(), fe.tmp()
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, acc)
			return s
		})
}
