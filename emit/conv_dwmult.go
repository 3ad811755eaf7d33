package emit

import (
	"fmt"
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// The row form of a 2-D depthwise convolution with a channel multiplier
// (groups G = C, one input channel per group, M = k·C output channels,
// k ≥ 2): output channel m = c·k + j reads input channel c alone. A
// one-group convolution of a single input channel (C = G = 1, M ≥ 2, such
// as a first layer on grayscale images) is the case C = 1 and takes it
// too. With an NCHW result (dwMultByM) it is the plain row form
// below with loops (n, m, oh, ow, kh, kw) over the N×M×OH×OW result, X's
// channel m floordiv k (C = 1: X read as [N, Hp, Wp], without its channel
// axis) and W [M, 1, KH, KW] read in place as [M, KH, KW],
// so that its epilogue is fused the same way (forms dwrows and dwrowsh;
// the root's 1 × 1 × 8 × 32 tile reads one channel of X). With a
// channels-last result and an epilogue to fuse (conv_epilogue.go) conv
// takes conv_general.go's per-output-channel depthwise block (k ≥ 2),
// its per-group block (k ≥ 8, at most 16 groups; gnhwc, k = 16j + 1
// per group gathered per output channel instead, dwMultOwnChannels) or
// conv_nhwc.go's channels-last block (C = 1) instead, which fuse it
// (forms nhwc and gnhwc; 1.1–1.4× faster than the view below and its
// separate pass, 2.7–3.6× with a block per group, docs/performance.md).
// Otherwise (a channels-last result without an epilogue to fuse) the
// result stays NCHW, viewed as [N·C, k, OH, OW], and the depthwise block
// of the convolution schedule (tag niro.dwconv2d, loops of rank 6: four
// parallel, two reduction) runs along the output row instead of along
// channels:
//
//   - loops (n·C + c, j, oh, ow, kh, kw); the accumulator is the result
//     itself, [N·C, k, OH, OW] (a view of N×M×OH×OW), filled with zero;
//   - X is read channels-first: in place, viewed as [N·C, H, W], when
//     there is no padding and the window covers X exactly, otherwise as a
//     padded copy [N·C, Hp, Wp] (with a column stride s > 1 once per kernel
//     column kw, Xr[kw, n·C + c, h, ow] = Xpad[n, c, h, ow·s + kw·d], so
//     that a block's output columns read consecutive elements); no copy
//     per output channel;
//   - W [M, 1, KH, KW] is read in place as [C, k, KH, KW] (replicated per
//     image when N > 1, a few hundred elements);
//   - each output element adds its KH·KW products in the order of
//     docs/ops.md (kh, then kw, ascending; the group has one input
//     channel) from zero; the bias is added last, in place (convEpilogue),
//     and f16/bf16 are rounded once.
//
// The schedule tiles (1, 1, 8, 32) (f32; 8 × 16 for 64-bit accumulators):
// 8 output rows by 32 output columns of one output channel, per step one
// broadcast filter element and one input vector per row. An output row is
// split into column segments, one generic each on its slices of X and of
// the accumulator (dwMultSegments), so that no block is of a width LLVM 22
// compiles badly (24) or of one column (which the schedule does not finish
// on). There is no channels-last accumulator and no pass back to NCHW,
// and the only temporary is the padded copy of X (C channels, not M).
//
// A result kept channels-last (layout.go) is written by a final generic
// that reads the accumulator, then a temporary, in NHWC order (adding the
// bias there). A one-column output (OW = 1) takes conv_general.go's form.
//
// The plain row form: a depthwise convolution without a multiplier
// (k = 1, groups = C = M) whose input and result are NCHW (useDWRows; a
// depthwise convolution between channels-last values keeps the
// channels-last block, conv_nhwc.go depthwiseNHWC) takes the same block
// with loops (n, c, oh, ow, kh, kw) and the N×C×OH×OW result itself as the
// accumulator (no view, so the result's buffer is the caller's and no copy
// of it follows), W read as [C, KH, KW] (or as its compile-time layout
// [KH, KW, C], conv_filter.go), and X padded by a zero fill and a copy of
// its rows into it (padRows) rather than gathered element by element. Its
// epilogue is fused (conv_epilogue.go, forms "dwrows" and "dwrowsh";
// toolchain/conv.mlir @conv_epi_dwrows32, @conv_epi_dwrowsh32): the root
// is tiled 1 × 1 × 8 × 32 (f64: × 16), or half as wide where the row
// would leave a remainder of another width than half a block, the
// convolution and its fill fused into the tile loop as one generic (no
// column segments), and the fused tile takes the depthwise block's steps.
// It is faster than the channels-last block at MobileNetV2's sizes (or
// even with it, at stride 2 on the smallest), with and without the
// epilogue (docs/performance.md, "Depthwise convolutions in the row
// form").

// dwMultLanes is the width of the schedule's depthwise block along its
// last parallel loop (the output columns here) for an accumulator type.
func dwMultLanes(acc string) int64 {
	if acc == "f64" || acc == "i64" {
		return 16
	}
	return 32
}

// useDWMultRows reports whether a 2-D convolution with c input channels,
// groups g, filter m × cg × … and output width ow takes the
// depthwise-multiplier row form (which reads W as it is: conv_filter.go
// lays out no copy for it).
func useDWMultRows(c, g, m, cg, ow int64) bool {
	return g == c && cg == 1 && m > c && m%c == 0 && ow >= 2
}

// dwMultByM reports whether the multiplier's row form with c input
// channels loops over the N×M×OH×OW result, reading X's channel m
// floordiv k, and so fuses its epilogue (conv_epilogue.go, forms dwrows
// and dwrowsh): an NCHW result. With one input channel (C = G = 1) X is
// read as [N, Hp, Wp], without its channel axis: through d1 floordiv M
// over a one-channel X the fused tile is left unvectorized, and with the
// channel index a constant 0 the schedule does not finish in MLIR 22.
// (Every channel count c takes it.)
func dwMultByM(c int64, nhwcResult bool) bool { return !nhwcResult }

// useDWRows reports whether a depthwise 2-D convolution without a channel
// multiplier (groups = C = M, filter M × 1 × …) takes the row form as a
// plain one: its input and result NCHW (layout.go leaves them so where
// they are not carried between channels-last ops) and an output at least
// two columns wide. The row form is faster than the channels-last block
// at MobileNetV2's sizes, with and without a fused epilogue, or even with
// it (stride 2 on 28×28 and 7×7 inputs; docs/performance.md, "Depthwise
// convolutions in the row form"); within a chain of channels-last
// values, the block is kept
// (examples/mobilenetv2 took 27 µs with its depthwise convolution and the
// 1×1 ones around it NCHW, against 23 µs channels-last).
func (fe *funcEmitter) useDWRows(op *niro.Conv) bool {
	if !conv2DStatic(op) || fe.channelsLast(op.X) || fe.channelsLast(op.Result) {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	rt, _ := rankedTensor(op.Result)
	C := xt.Dims[1]
	return op.Groups == C && wt.Dims[0] == C && wt.Dims[1] == 1 && rt.Dims[3] >= 2
}

// dwRowsCol1Op reports whether op takes the depthwise row form with its
// epilogue fused (a plain depthwise one with NCHW values, or a multiplier,
// one input channel among them, with an NCHW result: dwMultByM) at an
// output width that leaves both of the form's blocks one column
// (dwRowsCol1, which the schedule does not finish fused): with its
// epilogue fused it takes the channels-last blocks instead, which keep
// their vectors along the channels (a plain one depthwiseNHWC's, one input
// channel conv2dNHWC's, a multiplier conv_general.go's per-group or
// per-output-channel block), root niro.epi_nchw<bits> or
// niro.epi_gnchw<bits>. One input and one output channel takes the
// product over its taps (tapsKernel) first.
func (fe *funcEmitter) dwRowsCol1Op(op *niro.Conv) bool {
	if !conv2DStatic(op) {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	rt, _ := rankedTensor(op.Result)
	if !dwRowsCol1(rt.Dims[3], rt.Elem) {
		return false
	}
	return fe.useDWRows(op) || useDWMultRows(xt.Dims[1], op.Groups, wt.Dims[0], wt.Dims[1], rt.Dims[3]) && dwMultByM(xt.Dims[1], fe.channelsLast(op.Result))
}

// convDWMultRows lowers op in the depthwise-multiplier row form (see
// above) and reports whether it did.
func (fe *funcEmitter) convDWMultRows(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) bool {
	if xt.Rank() != 4 || wt.Rank() != 4 || isPacked(xt.Elem) || wt.Elem != xt.Elem {
		return false
	}
	acc, accElem := accumulator(xt.Elem, elem)
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	M, KH, KW := wt.Dims[0], wt.Dims[2], wt.Dims[3]
	OH, OW := rt.Dims[2], rt.Dims[3]
	plain := fe.useDWRows(op)
	if !plain && !useDWMultRows(C, op.Groups, M, wt.Dims[1], OW) || fe.epiConv[op.Result.ID] && fe.dwRowsCol1Op(op) {
		return false
	}
	k := M / C
	// byM: the result N×M×OH×OW is the accumulator, loops (n, m, oh, ow,
	// kh, kw), X's channel m floordiv k (k = 1: m); otherwise (a
	// multiplier with a channels-last result, or a single input channel)
	// the view [N·C, k, OH, OW].
	byM := plain || dwMultByM(C, fe.channelsLast(op.Result))
	if !byM && fe.epiConv[op.Result.ID] {
		return false // conv_general.go's per-output-channel block (generalEpilogueForm)
	}
	sh, sw := op.Strides[0], op.Strides[1]
	dh, dw := op.Dilations[0], op.Dilations[1]
	pt, pl := op.Pads[0], op.Pads[1]
	x := op.X
	xname, xtyp := name(x), fe.typ(x)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	Hp := (OH-1)*sh + (KH-1)*dh + 1
	NC := N * C
	// The gathered X: [KH?, KW?, N, C, rows, columns], with a kernel-row
	// axis for a row stride above 1 and a kernel-column axis for a column
	// stride above 1 (the block's vectors run along rows and columns of
	// the output, so neither may step by more than 1).
	rowG, colG := sh > 1, sw > 1
	Wp := OW + (KW-1)*dw
	var dims []int64
	var xExprs []string
	at := 0
	khIdx, kwIdx := -1, -1
	if rowG {
		dims, khIdx = append(dims, KH), at
		xExprs = append(xExprs, d(4))
		at++
	}
	if colG {
		dims, kwIdx = append(dims, KW), at
		xExprs = append(xExprs, d(5))
		at++
	}
	hAxis := convAxis{terms: []convTerm{{at + 2, 1}}, off: pt, size: H}
	wAxis := convAxis{terms: []convTerm{{at + 3, 1}}, off: pl, size: W}
	rows, cols := Hp, Wp
	xExprs = append(xExprs, d(0))
	switch {
	case plain:
		xExprs = append(xExprs, d(1)) // X [.., N, C, rows, columns]
	case byM && C > 1:
		xExprs = append(xExprs, fmt.Sprintf("d1 floordiv %d", k))
	}
	// One input channel (C = 1, k = M): X is read as [.., N, rows,
	// columns], without its channel axis (a constant channel index 0, or
	// d1 floordiv M, is not vectorized by MLIR 22, see dwMultByM).
	one := byM && !plain && C == 1
	if rowG {
		rows = OH
		hAxis.terms = []convTerm{{at + 2, sh}, {khIdx, dh}}
		xExprs = append(xExprs, d(2))
	} else {
		xExprs = append(xExprs, windowExpr(d(2), 1, d(4), dh))
	}
	if colG {
		cols = OW
		wAxis.terms = []convTerm{{at + 3, sw}, {kwIdx, dw}}
		xExprs = append(xExprs, d(3))
	} else {
		xExprs = append(xExprs, windowExpr(d(3), 1, d(5), dw))
	}
	dims = append(dims, N, C, rows, cols)
	sizes := make([]int, 0, 5)
	for i := 0; i < at; i++ {
		sizes = append(sizes, 1)
	}
	sizes = append(sizes, 2, 1, 1)
	var xp string
	var xpDims []int64
	inPlace := at == 0 && pt == 0 && pl == 0 && Hp == H && Wp == W && !fe.channelsLast(x)
	switch {
	case inPlace && byM && !one:
		xp, xpDims = xname, xt.Dims
	case inPlace:
		xp, xpDims = fe.collapse(xname, xt.Dims, elem, 2, 1, 1)
	case byM && at == 0 && !fe.channelsLast(x) && pt < Hp && pl < Wp:
		xp, xpDims = fe.padRows(xname, xt, elem, []int64{N, C, Hp, Wp}, pt, pl), []int64{N, C, Hp, Wp}
		if one {
			xp, xpDims = fe.collapse(xp, xpDims, elem, 2, 1, 1)
		}
	default:
		g := fe.gatherZero(xname, xtyp, xt.Elem, elem, dims, fe.nhwcAxes(x, []convAxis{
			{terms: []convTerm{{at, 1}}, size: N},
			{terms: []convTerm{{at + 1, 1}}, size: C},
			hAxis, wAxis,
		}))
		xp, xpDims = g, dims
		if !byM || one {
			xp, xpDims = fe.collapse(g, dims, elem, sizes...)
		}
	}
	var wv string
	var wDims []int64
	var wExprs []string
	if f, folded := fe.foldedFilter(op); plain && folded {
		// The constant filter laid out [KH, KW, C] at compile time for the
		// channels-last block (conv_filter.go).
		wv, wDims = f, []int64{KH, KW, C}
		wExprs = []string{d(4), d(5), d(1)}
	} else if byM {
		// W [M, 1, KH, KW] as [M, KH, KW]: one reshape, no copy.
		wv, wDims = fe.collapse(name(op.W), wt.Dims, elem, 2, 1, 1)
		wExprs = []string{d(1), d(4), d(5)}
	} else {
		// W [M, 1, KH, KW] as [C, k, KH, KW]: two reshapes, no copy.
		w3, w3Dims := fe.collapse(name(op.W), wt.Dims, elem, 1, 2, 1)
		wDims = []int64{C, k, KH, KW}
		wv = fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%s] : %s into %s", wv, w3, dimList(wDims), tensorTypeOf(w3Dims, elem), tensorTypeOf(wDims, elem))
		if N > 1 {
			rep := []int64{N, C, k, KH, KW}
			r := fe.tmp()
			fe.generic(r, parallel(5),
				[]genericOperand{{name: wv, typ: tensorTypeOf(wDims, elem), elem: elem, amap: affineMap(5, []string{d(1), d(2), d(3), d(4)})}},
				genericOperand{name: fe.empty(rep, elem, nil), typ: tensorTypeOf(rep, elem), elem: elem, amap: identityMap(5)},
				"", func(args []string) string { return args[0] })
			wv, wDims = fe.collapse(r, rep, elem, 2, 1, 1, 1)
		}
		wExprs = []string{d(0), d(1), d(4), d(5)}
	}
	accDims := []int64{NC, k, OH, OW}
	if byM {
		accDims = rt.Dims
	}
	accTyp := tensorTypeOf(accDims, acc)
	filled := fe.fill(fe.empty(accDims, acc, nil), accTyp, acc, fe.scalarConst(accElem, 0), 4)
	// One generic per column segment (dwMultSegments), each on its slice
	// of X and of the accumulator. A fused epilogue (conv_epilogue.go,
	// form "dwrows") tiles the convolution itself: one generic.
	blk := filled
	col := int64(0)
	segs := dwMultSegments(OW, dwMultLanes(acc))
	tag := "niro.dwconv2d"
	if byM {
		tag = fe.convTagFor(op, tag)
		if fe.epiConv[op.Result.ID] {
			segs = []int64{OW}
		}
	}
	// The plain form's accumulator is the result (or the bias's input):
	// its last op is named so.
	var sum string
	if byM {
		sum = fe.convSumName(op, xt)
	}
	for i, sw0 := range segs {
		xs, xsDims := xp, xpDims
		out, outDims := blk, accDims
		if len(segs) > 1 {
			xw := sw0
			if !colG {
				xw = sw0 + (KW-1)*dw
			}
			xs, xsDims = fe.sliceLast(xp, xpDims, elem, col, xw)
			out, outDims = fe.sliceLast(blk, accDims, acc, col, sw0)
		}
		seg := fe.tmp()
		if byM && len(segs) == 1 {
			seg = sum
		}
		fe.generic(seg, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction"},
			[]genericOperand{
				{name: xs, typ: tensorTypeOf(xsDims, elem), elem: elem, amap: affineMap(6, xExprs)},
				{name: wv, typ: tensorTypeOf(wDims, elem), elem: elem, amap: affineMap(6, wExprs)},
			},
			genericOperand{name: out, typ: tensorTypeOf(outDims, acc), elem: acc, amap: affineMap(6, []string{d(0), d(1), d(2), d(3)})},
			tag, func(args []string) string {
				return fe.mulAdd(xt.Elem, acc, args[0], args[1], args[2])
			})
		if len(segs) > 1 {
			into := ""
			if byM && i == len(segs)-1 {
				into = sum
			}
			seg = fe.insertLastAs(into, seg, outDims, blk, accDims, acc, col)
		}
		blk = seg
		col += sw0
	}
	if byM {
		fe.convEpilogue(op, rt, xt, elem, sum, accTyp, acc)
		return true
	}
	// (Not byM: a channels-last result.)
	fe.dwMultNHWCEpilogue(op, rt, xt, elem, blk, acc, C, k)
	return true
}

// padRows writes NCHW x zero-padded to dims (N, C, Hp, Wp), x's element
// [n, c, h, w] at [n, c, pt + h, pl + w] (the rows and columns of x past
// Hp or Wp dropped): a zero fill and one copy of x's rows into a slice of
// it by a generic that reads x with tensor.extract, which bufferizes in
// place (no memref.copy between strided buffers, see docs/toolchain.md)
// and which LLVM vectorizes along the row, where a gather (gatherZero)
// clamps and selects per element.
func (fe *funcEmitter) padRows(x string, xt niro.TensorType, elem string, dims []int64, pt, pl int64) string {
	N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
	hU, wU := min(H, dims[2]-pt), min(W, dims[3]-pl)
	typ := tensorTypeOf(dims, elem)
	pd := fe.fill(fe.empty(dims, elem, nil), typ, elem, fe.scalarConst(xt.Elem, 0), 4)
	part := []int64{N, C, hU, wU}
	// The slot drops unit axes (a rank-reducing slice), as concatNHWC's
	// do, so that eliminate-empty-tensors sees the copy write it.
	var kept []int64
	loop := make([]int, 4)
	for a, e := range part {
		loop[a] = -1
		if e != 1 {
			loop[a] = len(kept)
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		kept, loop[3] = []int64{1}, 0
	}
	K := len(kept)
	slotTyp := tensorTypeOf(kept, elem)
	where := fmt.Sprintf("[0, 0, %d, %d] [%s] [1, 1, 1, 1]", pt, pl, dimList(part))
	dst := fe.tmp()
	fe.line("%s = tensor.extract_slice %s%s : %s to %s", dst, pd, where, typ, slotTyp)
	// x is read with tensor.extract: an identity copy generic would be
	// folded into a tensor.insert_slice of x (layout.go, concatNHWC).
	cp := fe.tmp()
	fe.generic(cp, parallel(K), nil,
		genericOperand{name: dst, typ: slotTyp, elem: elem, amap: identityMap(K)},
		"", func(args []string) string {
			idx := make([]string, 4)
			for a := range idx {
				if loop[a] < 0 {
					idx[a] = fe.index(0)
				} else {
					idx[a] = fe.loopIndex(loop[a])
				}
			}
			return fe.extract(x, tensorTypeOf(xt.Dims, elem), idx)
		})
	r := fe.tmp()
	fe.line("%s = tensor.insert_slice %s into %s%s : %s into %s", r, cp, pd, where, slotTyp, typ)
	return r
}

// dwMultNHWCEpilogue writes op's channels-last result (layout.go) from
// the accumulator blk [N·C, k, OH, OW]: one generic over (n, oh, ow, c, j)
// reading it as [N, C, k, OH, OW], adding the bias (as [C, k]) and
// rounding 16-bit floats once, into [N, OH, OW, C, k], which is
// N×OH×OW×M.
func (fe *funcEmitter) dwMultNHWCEpilogue(op *niro.Conv, rt, xt niro.TensorType, elem, blk, acc string, C, k int64) {
	N, OH, OW := rt.Dims[0], rt.Dims[2], rt.Dims[3]
	accDims := []int64{N, C, k, OH, OW}
	accTyp := tensorTypeOf(accDims, acc)
	a := fe.tmp()
	fe.line("%s = tensor.expand_shape %s [[0, 1], [2], [3], [4]] output_shape [%s] : %s into %s", a, blk, dimList(accDims),
		tensorTypeOf([]int64{N * C, k, OH, OW}, acc), accTyp)
	ins := []genericOperand{{name: a, typ: accTyp, elem: acc, amap: affineMap(5, []string{"d0", "d3", "d4", "d1", "d2"})}}
	if op.HasBias() {
		bt := tensorTypeOf([]int64{C, k}, elem)
		b := fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0, 1]] output_shape [%d, %d] : %s into %s", b, name(op.B), C, k, fe.typ(op.B), bt)
		ins = append(ins, genericOperand{name: b, typ: bt, elem: elem, amap: affineMap(5, []string{"d3", "d4"})})
	}
	outDims := []int64{N, OH, OW, C, k}
	outTyp := tensorTypeOf(outDims, elem)
	dst := fe.tmp()
	fe.generic(dst, parallel(5), ins,
		genericOperand{name: fe.empty(outDims, elem, nil), typ: outTyp, elem: elem, amap: identityMap(5)},
		"", fe.biasBody(op, xt.Elem, acc))
	fe.line("%s = tensor.collapse_shape %s [[0], [1], [2], [3, 4]] : %s into %s", name(op.Result), dst, outTyp, fe.typ(op.Result))
}

// dwMultSegments splits an output row of ow ≥ 2 columns into the widths
// of the generics that compute it, for a block of lanes columns (32 f32,
// 16 f64): the longest prefix whose last block is full or half full, then
// chunks of lanes/4, lanes/8 and 2 columns. LLVM 22 compiles the other
// remainder widths, such as 24, into shuffles and spills (a 1×32×56×56
// channel multiplier of 2: 205 µs in one generic, against 96 µs for 64
// columns). A leftover single column joins the segment before it, never
// a full-block one: a one-column block is one the schedule's
// unit-dimension folding does not finish on in MLIR 22.
func dwMultSegments(ow, lanes int64) []int64 {
	half := lanes / 2
	main := ow / half * half
	rest := ow - main
	var segs []int64
	if main > 0 {
		segs = append(segs, main)
	}
	for _, c := range []int64{lanes / 4, lanes / 8, 2} {
		for c >= 2 && rest >= c {
			segs = append(segs, c)
			rest -= c
		}
	}
	if rest == 1 {
		last := len(segs) - 1
		switch {
		case last < 0:
			segs = []int64{1}
		case last > 0 || segs[0]%lanes != 0:
			segs[last]++
		default: // a whole number of full blocks: the last one becomes half + 1 columns
			segs = []int64{segs[0] - half, half + 1}
			if segs[0] == 0 {
				segs = segs[1:]
			}
		}
	}
	return segs
}

// sliceLast writes the slice [off, off + n) along t's last axis.
func (fe *funcEmitter) sliceLast(t string, dims []int64, elem string, off, n int64) (string, []int64) {
	offs, szs, ones, to := lastSlice(dims, off, n)
	r := fe.tmp()
	fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", r, t, offs, szs, ones, tensorTypeOf(dims, elem), tensorTypeOf(to, elem))
	return r, to
}

// insertLast writes t (dims part) into dst at off along the last axis.
func (fe *funcEmitter) insertLast(t string, part []int64, dst string, dims []int64, elem string, off int64) string {
	return fe.insertLastAs("", t, part, dst, dims, elem, off)
}

// insertLastAs is insertLast naming its result r (a new name if empty).
func (fe *funcEmitter) insertLastAs(r, t string, part []int64, dst string, dims []int64, elem string, off int64) string {
	offs, szs, ones, _ := lastSlice(dims, off, part[len(part)-1])
	if r == "" {
		r = fe.tmp()
	}
	fe.line("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s", r, t, dst, offs, szs, ones, tensorTypeOf(part, elem), tensorTypeOf(dims, elem))
	return r
}

func lastSlice(dims []int64, off, n int64) (offs, szs, ones string, to []int64) {
	to = append([]int64(nil), dims...)
	to[len(to)-1] = n
	o := make([]int64, len(dims))
	o[len(o)-1] = off
	one := make1(len(dims))
	return dimList(o), dimList(to), dimList(one), to
}

// UsesDWMultRows reports whether a 2-D convolution with c input channels,
// g groups, filter m × cg × … and output width ow takes the
// depthwise-multiplier row form (for tests).
func UsesDWMultRows(c, g, m, cg, ow int64) bool { return useDWMultRows(c, g, m, cg, ow) }

// DWRowsCol1 reports whether an output width of ow columns (f64 or f32)
// leaves both blocks of the depthwise row form one column, where a fused
// epilogue takes the channels-last blocks instead (dwRowsCol1Op; for
// tests).
func DWRowsCol1(ow int64, f64 bool) bool {
	e := niro.F32
	if f64 {
		e = niro.F64
	}
	return dwRowsCol1(ow, e)
}
