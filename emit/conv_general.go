package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The channels-last lowering of the convolutions that conv_nhwc.go does
// not take: 1-D and 3-D ones, and 2-D ones whose group count is neither 1
// nor the depthwise C = M. Each becomes the rank-7 generic that the
// convolution schedule blocks (loops n′, oh, ow, m, c′, kh, kw, tagged
// niro.conv2d), on a gathered copy of X, so that every output element
// keeps the summation order of docs/ops.md (c, then k1, k2, k3, ascending
// from zero, bias last):
//
//   - every convolution is seen as a 3-D one over (depth, rows, columns),
//     a missing axis having extent 1, kernel 1, stride 1 and no padding (a
//     1-D convolution is one output row of a 2-D one);
//   - the depth axis is folded into the others: the output depth od joins
//     the batch (n′ = n·OD + od) and the kernel depth kd joins the input
//     channel (c′ = c·KD + kd, c outer), so that c′ ascending is c
//     ascending and, within it, kd ascending — the order (c, kd, kh, kw).
//     X is gathered, with its zero padding, into
//     Xg[n, od, h, w, c, kd] = Xpad[n, c, od·sd + kd·dd, h, w] and viewed
//     as [N·OD, Hp, Wp, C·KD]; W [M, C, KD, KH, KW] is transposed to
//     [C, KD, KH, KW, M] and viewed as [C·KD, KH, KW, M];
//   - with a column stride s > 1 the gather is made once per kernel
//     column, as in conv_nhwc.go, so that a block's output columns read
//     consecutive elements;
//   - groups: with few output channels per group (M/G < 8, or more than
//     16 groups) X is gathered once per output channel instead,
//     Xg[c, kd, n, od, h, w, g, m′] = Xpad[n, g·C/G + c, …] viewed as
//     [C/G·KD, N·OD, Hp, Wp, M], and the generic reads X through (c′, n′,
//     h, w, m): an element-wise block along m, as the depthwise block is
//     (a depthwise convolution with a channel multiplier is the case
//     C/G = 1, which takes conv_nhwc.go's depthwise block, niro.dwconv2d,
//     over X gathered per output channel, where conv_dwmult.go's row form
//     does not take it: a one-column output, or a channels-last result
//     with its epilogue fused; with M/G = 16k + 1 of at most 16 groups
//     too, dwMultOwnChannels). With M/G ≥ 8 and at most 16
//     groups, X is gathered per group ([G, N·OD, Hp, Wp, C/G·KD]), the
//     filter as [G, C/G·KD, KH, KW, mp], and one rank-8 generic (g, n′,
//     oh, ow, m′, c′, kh, kw), tagged niro.conv2dg (convPerGroup), writes
//     a [G, N·OD, OH, OW, mp] accumulator: each group's block is the
//     one-group block with a leading group index, the schedule's
//     register block 1 × 1 × 1 × 8 × 32|16;
//   - a one-group convolution whose kernel is 1 on every axis is a matrix
//     product ([N·OD·OH·OW, C] by [C, M], niro.contraction), as in
//     conv_nhwc.go (not for bf16, see convGeneral: a 2-D bf16 one is
//     conv_nhwc.go's product), except where its epilogue is fused: then
//     (bf16 too) it is the NC… product of conv_pw1d3d.go ([M, C] by
//     [N, C, P]), whose epilogue is fused into the product's cache block
//     as the 2-D 1×1 product's (mmk);
//   - a final generic reads the accumulator back in NC… order, adds the
//     bias and rounds f16/bf16 once. Where the epilogue is fused into the
//     block (generalEpilogueForm: the one-group and per-output-channel
//     blocks), it reads the accumulator through its indexing map
//     (convGeneralEpilogueFused) and is the epilogue region's first op.
//     The per-group block's epilogue is fused in the split view of the
//     result ([N, G, M/G, OH, OW] or [N, OH, OW, G, M/G]; 1-D [N, G, M/G,
//     OW], 3-D [N, G, M/G, OD, OH, OW]; so that a root tile stays in one
//     group and reads the accumulator through a projected permutation:
//     conv_pergroup_epi.go); M/G = 16k + 1 channels among them, without a
//     padding channel: a root tile's one-channel remainder leaves the
//     rank-8 block a one-channel tile, whose steps the schedule takes in
//     the one-channel order, vectorized along the output columns
//     (toolchain/conv.mlir, @conv_steps8_1). (Gathering a per-group
//     convolution per output channel instead, so that the per-channel
//     form fuses it, was measured 2× slower for 8 groups of 16 and 60×
//     for 3 groups of 80: X copied M/G times; docs/performance.md.)
//     A channel multiplier with a channels-last result and k = 16j + 1
//     per group (one input channel per group: dwMultOwnChannels) is
//     gathered per output channel instead: that gather is the size of
//     its result, and its depthwise block fuses the epilogue, 2.7× faster
//     than the view of conv_dwmult.go with its separate pass.

// convGeom is a convolution seen in three spatial axes (depth, rows,
// columns): the extents of X, the kernel, the result, and the window
// parameters, with the missing axes of a 1-D or 2-D convolution as unit
// axes. axis[i] is the axis of X holding virtual axis i, or −1.
type convGeom struct {
	S                    int
	N, C, M, G, Cg, Mg   int64
	in, k, o             [3]int64
	stride, dil, padLo   [3]int64
	axis                 [3]int
	hp, wp               int64 // gathered rows and columns (sw = 1)
	colStride            bool  // column stride above 1: gathered per kernel column
	acc, elem            string
	half                 bool
	xElem                niro.ScalarType
	xname, xtyp, wname   string
	wtyp                 string
	accElem              niro.ScalarType
	perGroup, perChannel bool
	// mp is the channel count of one block's accumulator per group (one
	// group: of the whole): M/G, or 2 for one channel (a block of 2, the
	// extra channel's values never read back; a 1-D or 3-D one of one
	// group that rowsView takes is conv_rows_view.go's instead). A block of 16k + 1
	// channels (k ≥ 1) keeps them: the schedule's one-channel remainder
	// blocks (toolchain/conv.mlir: @conv_steps1 for the one-group and the
	// per-output-channel blocks, @conv_steps8_1 for the per-group one,
	// @conv_steps_dw1 for the depthwise one).
	mp int64
	x  niro.Value
	// epi: the epilogue is fused into the block (generalEpilogueForm);
	// the block's generic is tagged with _e.
	epi bool
}

// convGeneral lowers op (1-D or 3-D, or 2-D with groups other than 1 and
// C = M) channels-last; see the comment above. It reports whether it
// did.
func (fe *funcEmitter) convGeneral(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) bool {
	S := xt.Rank() - 2
	if S < 1 || S > 3 {
		return false
	}
	g := convGeom{S: S, N: xt.Dims[0], C: xt.Dims[1], M: wt.Dims[0], G: op.Groups, elem: elem, xElem: xt.Elem, half: isHalf(xt.Elem)}
	if g.C%g.G != 0 || g.M%g.G != 0 || wt.Dims[1] != g.C/g.G {
		return false
	}
	g.Cg, g.Mg = g.C/g.G, g.M/g.G
	g.acc, g.accElem = accumulator(xt.Elem, elem)
	for i := 0; i < 3; i++ {
		g.in[i], g.k[i], g.o[i], g.stride[i], g.dil[i], g.axis[i] = 1, 1, 1, 1, 1, -1
	}
	for j := 0; j < S; j++ {
		i := 3 - S + j
		g.in[i], g.k[i], g.o[i] = xt.Dims[2+j], wt.Dims[2+j], rt.Dims[2+j]
		g.stride[i], g.dil[i], g.padLo[i] = op.Strides[j], op.Dilations[j], op.Pads[j]
		g.axis[i] = 2 + j
	}
	g.hp = (g.o[1]-1)*g.stride[1] + (g.k[1]-1)*g.dil[1] + 1
	g.wp = g.o[2] + (g.k[2]-1)*g.dil[2]
	g.colStride = g.stride[2] > 1
	g.xname, g.xtyp, g.wname, g.wtyp, g.x = name(op.X), fe.typ(op.X), name(op.W), fe.typ(op.W), op.X
	if g.G > 1 {
		if g.Mg >= 8 && g.G <= 16 && !(fe.epiConv[op.Result.ID] && fe.dwMultOwnChannels(op)) {
			g.perGroup = true
		} else {
			g.perChannel = true
		}
	}
	g.mp = g.Mg
	if g.M == 1 && !(fe.epiConv[op.Result.ID] && oneChannelBlock(S, g.G, g.M, g.o[2])) {
		// (A block of 16k + 1 channels, k ≥ 1, keeps them: the
		// schedule's one-channel remainder blocks, @conv_steps1,
		// @conv_steps8_1 per group, @conv_steps_dw1; so does a 1-D or
		// 3-D block of one channel with its epilogue fused,
		// oneChannelBlock.)
		g.mp++
	}
	oneRow := []int64{g.N * g.o[0], g.o[1], g.o[2]}
	switch {
	case fe.usePWProduct(op, rt, xt, wt):
		// A pointwise one with its epilogue fused:
		// the product's cache block (conv_pw1d3d.go).
		fe.convPWProduct(op, rt, xt, wt, elem)
	case fe.epiConv[op.Result.ID] && g.G == 1 && g.mp == g.Mg:
		// The epilogue in the block (generalEpilogueForm): the rank-7
		// block, the pointwise product's included.
		g.epi = true
		fe.convGeneralEpilogueFused(op, rt, &g, fe.convFolded(&g))
	case g.G == 1 && g.k == [3]int64{1, 1, 1} && g.xElem != niro.BF16:
		// (bf16: the contraction schedule's vector code for some shapes
		// does not select on x86 in LLVM 22 with arith.extf — "Do not know
		// how to soft promote this operator's operand", 2×7×15 → 9 with a
		// stride of 2, TestE2EConvBF16Pointwise/1 — and runs ten times
		// slower with the widening as integers (emit/bf16.go), so the
		// rank-7 block serves. The 2-D bf16 1×1 product of conv_nhwc.go
		// selects with its epilogue in the block, and so does the 1-D and
		// 3-D one of conv_pw1d3d.go, which takes a bf16 pointwise one with
		// its epilogue fused (that shape among them: its gathered X and W
		// are widened to f32 first).)
		g.mp = g.M
		acc := fe.convPointwise(&g)
		fe.convGeneralEpilogue(op, rt, &g, acc, append(oneRow, g.M), "[[0, 1], [2], [3], [4, 5]]", false)
	case g.perGroup && fe.epiConv[op.Result.ID] && g.mp == g.Mg:
		// The epilogue in the block (conv_pergroup_epi.go): the region in
		// the split view of the result.
		g.epi = true
		fe.convPerGroupEpilogueFused(op, rt, &g, fe.convPerGroup(&g))
	case g.perGroup:
		acc := fe.convPerGroup(&g)
		fe.convGeneralEpilogue(op, rt, &g, acc, append([]int64{g.G}, append(oneRow, g.mp)...), "[[0], [1, 2], [3], [4], [5]]", true)
	case fe.epiConv[op.Result.ID] && g.mp == g.Mg:
		g.epi = true
		fe.convGeneralEpilogueFused(op, rt, &g, fe.convFolded(&g))
	default:
		acc := fe.convFolded(&g)
		fe.convGeneralEpilogue(op, rt, &g, acc, append(oneRow, g.G*g.mp), "[[0, 1], [2], [3], [4, 5]]", false)
	}
	return true
}

// xAxes returns the gather's coordinates of X for the loop positions of
// n, c (and the group g, −1 without), od, kd, h and the column (w, or
// ow and kw with a column stride): X's axes in order.
func (g *convGeom) xAxes(n, grp, c, od, kd, h, col, kw int) []convAxis {
	ch := convAxis{terms: []convTerm{{c, 1}}, size: g.C}
	if grp >= 0 {
		ch.terms = append(ch.terms, convTerm{grp, g.Cg})
	}
	axes := []convAxis{{terms: []convTerm{{n, 1}}, size: g.N}, ch}
	for i := 0; i < 3; i++ {
		if g.axis[i] < 0 {
			continue
		}
		var a convAxis
		switch i {
		case 0:
			a = convAxis{terms: []convTerm{{od, g.stride[0]}, {kd, g.dil[0]}}}
		case 1:
			a = convAxis{terms: []convTerm{{h, 1}}}
		case 2:
			if g.colStride {
				a = convAxis{terms: []convTerm{{col, g.stride[2]}, {kw, g.dil[2]}}}
			} else {
				a = convAxis{terms: []convTerm{{col, 1}}}
			}
		}
		a.off, a.size = g.padLo[i], g.in[i]
		axes = append(axes, a)
	}
	return axes
}

// reassoc returns the reassociation text of groups of consecutive axes of
// the given sizes: [[0, 1], [2], …].
func reassoc(sizes ...int) string {
	var parts []string
	at := 0
	for _, s := range sizes {
		ax := make([]string, s)
		for i := range ax {
			ax[i] = strconv.Itoa(at + i)
		}
		at += s
		parts = append(parts, "["+strings.Join(ax, ", ")+"]")
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// collapse writes a tensor.collapse_shape of t (dims from) by the group
// sizes and returns the result's name and dims.
func (fe *funcEmitter) collapse(t string, from []int64, elem string, sizes ...int) (string, []int64) {
	var to []int64
	at := 0
	for _, s := range sizes {
		p := int64(1)
		for _, d := range from[at : at+s] {
			p *= d
		}
		to = append(to, p)
		at += s
	}
	r := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s %s : %s into %s", r, t, reassoc(sizes...), tensorTypeOf(from, elem), tensorTypeOf(to, elem))
	return r, to
}

// transposedFilter writes W [M, C/G, K…] as [C/G·KD, KH, KW, G·mp]
// (perGroup: [G, C/G·KD, KH, KW, mp]) and returns its name and dims. A
// padding channel reads some channel of W (the next group's first) or 0.
func (fe *funcEmitter) transposedFilter(g *convGeom) (string, []int64) {
	// Loops: [g] c kd kh kw [g] m′ (the group axis first per group, next
	// to m′ per channel; absent with one group).
	var dims []int64
	base, grp := 0, -1
	switch {
	case g.perGroup:
		dims, base, grp = []int64{g.G}, 1, 0
	case g.G > 1:
		grp = 4
	}
	dims = append(dims, g.Cg, g.k[0], g.k[1], g.k[2])
	if grp == 4 {
		dims = append(dims, g.G)
	}
	dims = append(dims, g.mp)
	mAxis := convAxis{terms: []convTerm{{len(dims) - 1, 1}}, size: g.M}
	if grp >= 0 {
		mAxis.terms = append(mAxis.terms, convTerm{grp, g.Mg})
	}
	axes := []convAxis{mAxis, {terms: []convTerm{{base, 1}}, size: g.Cg}}
	for i := 0; i < 3; i++ {
		if g.axis[i] >= 0 {
			axes = append(axes, convAxis{terms: []convTerm{{base + 1 + i, 1}}, size: g.k[i]})
		}
	}
	wT := fe.gatherZero(g.wname, g.wtyp, g.xElem, g.elem, dims, axes)
	switch {
	case g.perGroup:
		return fe.collapse(wT, dims, g.elem, 1, 2, 1, 1, 1)
	case g.G > 1:
		return fe.collapse(wT, dims, g.elem, 2, 1, 1, 2)
	}
	return fe.collapse(wT, dims, g.elem, 2, 1, 1, 1)
}

// mulAdd writes acc + a·b (a and b widened to the accumulator type), the
// body of every convolution generic.
func (fe *funcEmitter) mulAdd(e niro.ScalarType, acc, a, b, s string) string {
	a, b = fe.widen(e, a), fe.widen(e, b)
	p, r := fe.tmp(), fe.tmp()
	fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
	fe.line("%s = arith.addf %s, %s : %s", r, s, p, acc)
	return r
}

// convFolded writes the rank-7 generic of a one-group convolution, or of
// a grouped one gathered per output channel, and returns the accumulator
// [N·OD, OH, OW, M].
func (fe *funcEmitter) convFolded(g *convGeom) string {
	var dims []int64
	var axes []convAxis
	var sizes []int
	// Gather loops, by case:
	//   one group:              [kw?] n od h col c kd
	//   per output channel:     [kw?] c kd n od h col grp m′
	off := 0
	kw := -1
	if g.colStride {
		dims = append(dims, g.k[2])
		kw, off = 0, 1
		sizes = append(sizes, 1)
	}
	col := g.wp
	if g.colStride {
		col = g.o[2]
	}
	if g.perChannel {
		dims = append(dims, g.Cg, g.k[0], g.N, g.o[0], g.hp, col, g.G, g.mp)
		axes = g.xAxes(off+2, off+6, off+0, off+3, off+1, off+4, off+5, kw)
		sizes = append(sizes, 2, 2, 1, 1, 2)
	} else {
		dims = append(dims, g.N, g.o[0], g.hp, col, g.C, g.k[0])
		axes = g.xAxes(off+0, -1, off+4, off+1, off+5, off+2, off+3, kw)
		sizes = append(sizes, 2, 1, 1, 2)
	}
	dw := g.perChannel && g.Cg*g.k[0] == 1
	if dw {
		// One input channel per output channel (a channel multiplier):
		// the unit c′ axis goes, and the depthwise block takes it.
		if g.colStride {
			sizes = []int{1, 4, 1, 1, 2}
		} else {
			sizes = []int{4, 1, 1, 2}
		}
	}
	xg := fe.gatherZero(g.xname, g.xtyp, g.xElem, g.elem, dims, fe.nhwcAxes(g.x, axes))
	xg, xgDims := fe.collapse(xg, dims, g.elem, sizes...)
	wT, wDims := fe.transposedFilter(g)
	if dw {
		wT, wDims = fe.collapse(wT, wDims, g.elem, 2, 1, 1)
		return fe.dwBlock(g, xg, xgDims, wT, wDims, g.G*g.mp)
	}
	return fe.convBlock(g, xg, xgDims, wT, wDims, g.G*g.mp, "")
}

// dwBlock writes the rank-6 depthwise generic (n′, oh, ow, m, kh, kw),
// tagged niro.dwconv2d as conv_nhwc.go's, over X gathered per output
// channel ([KW?,] N·OD, Hp, Wp or OW, M) and the filter as [KH, KW, M],
// into a zero-filled accumulator, and returns it.
func (fe *funcEmitter) dwBlock(g *convGeom, xg string, xgDims []int64, wT string, wDims []int64, M int64) string {
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	row := windowExpr(d(1), g.stride[1], d(4), g.dil[1])
	xExprs := []string{d(0), row, windowExpr(d(2), 1, d(5), g.dil[2]), d(3)}
	if g.colStride {
		xExprs = []string{d(5), d(0), row, d(2), d(3)}
	}
	accDims := []int64{xgDims[b2i(g.colStride)], g.o[1], g.o[2], M}
	accTyp := tensorTypeOf(accDims, g.acc)
	filled := fe.fill(fe.empty(accDims, g.acc, nil), accTyp, g.acc, fe.scalarConst(g.accElem, 0), 4)
	sum := fe.tmp()
	fe.generic(sum, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction"},
		[]genericOperand{
			{name: xg, typ: tensorTypeOf(xgDims, g.elem), elem: g.elem, amap: affineMap(6, xExprs)},
			{name: wT, typ: tensorTypeOf(wDims, g.elem), elem: g.elem, amap: affineMap(6, []string{d(4), d(5), d(3)})},
		},
		genericOperand{name: filled, typ: accTyp, elem: g.acc, amap: affineMap(6, []string{d(0), d(1), d(2), d(3)})},
		g.tag("niro.dwconv2d", M), func(args []string) string {
			return fe.mulAdd(g.xElem, g.acc, args[0], args[1], args[2])
		})
	return sum
}

// convBlock writes the rank-7 generic (n′, oh, ow, m, c′, kh, kw) over the
// gathered X xg and the transposed filter wT, with M channels, into a
// zero-filled accumulator (init, when given, is the tensor to fill) and
// returns it.
func (fe *funcEmitter) convBlock(g *convGeom, xg string, xgDims []int64, wT string, wDims []int64, M int64, init string) string {
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	row := windowExpr(d(1), g.stride[1], d(5), g.dil[1])
	var xExprs []string
	switch {
	case g.perChannel && g.colStride:
		xExprs = []string{d(6), d(4), d(0), row, d(2), d(3)}
	case g.perChannel:
		xExprs = []string{d(4), d(0), row, windowExpr(d(2), 1, d(6), g.dil[2]), d(3)}
	case g.colStride:
		xExprs = []string{d(6), d(0), row, d(2), d(4)}
	default:
		xExprs = []string{d(0), row, windowExpr(d(2), 1, d(6), g.dil[2]), d(4)}
	}
	accDims := []int64{xgDims[0+b2i(g.colStride)+b2i(g.perChannel)], g.o[1], g.o[2], M}
	accTyp := tensorTypeOf(accDims, g.acc)
	if init == "" {
		init = fe.empty(accDims, g.acc, nil)
	}
	filled := fe.fill(init, accTyp, g.acc, fe.scalarConst(g.accElem, 0), 4)
	sum := fe.tmp()
	fe.generic(sum, []string{"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"},
		[]genericOperand{
			{name: xg, typ: tensorTypeOf(xgDims, g.elem), elem: g.elem, amap: affineMap(7, xExprs)},
			{name: wT, typ: tensorTypeOf(wDims, g.elem), elem: g.elem, amap: affineMap(7, []string{d(4), d(5), d(6), d(3)})},
		},
		genericOperand{name: filled, typ: accTyp, elem: g.acc, amap: affineMap(7, []string{d(0), d(1), d(2), d(3)})},
		g.blockTag(M), func(args []string) string {
			return fe.mulAdd(g.xElem, g.acc, args[0], args[1], args[2])
		})
	return sum
}

// blockTag is the tag of the rank-7 block generic of M channels: g.tag's,
// or convBlockTag's niro.conv2d16 for an unfused one-group block.
func (g *convGeom) blockTag(M int64) string {
	if g.G == 1 && !g.epi {
		return convTag(convBlockTag(M, g.accElem != niro.F64), M)
	}
	return g.tag("niro.conv2d", M)
}

// perGroupTag is the tag of the rank-8 per-group block generic: g.tag's
// niro.conv2dg(_e), or niro.conv2dg16 for an unfused block of a 4-byte
// accumulator whose 32-channel block would leave 17 to 31 channels
// (perGroupBlock16: the 16-channel block, which leaves 1 to 15, one for
// 16k + 1 channels per group, @conv_steps8_1), or niro.conv2dg8 for an
// unfused block of an 8-byte accumulator whose 16-channel block would
// leave 9 to 15 (perGroupBlock8: the 8-channel block, which leaves 1 to
// 7). A fused one's block follows its root's tile (niro.epi_gn…16,
// niro.epi_gn…8).
func (g *convGeom) perGroupTag() string {
	switch {
	case !g.epi && g.accElem != niro.F64 && perGroupBlock16(g.mp):
		return convTag("niro.conv2dg16", g.mp)
	case !g.epi && g.accElem == niro.F64 && perGroupBlock8(g.mp):
		return convTag("niro.conv2dg8", g.mp)
	}
	return g.tag("niro.conv2dg", g.mp)
}

// tag is the schedule's tag of a block generic with c channels: convTag's,
// with _e when the epilogue is fused.
func (g *convGeom) tag(tag string, c int64) string {
	t := convTag(tag, c)
	if g.epi && c == 1 && oneChannelBlock(g.S, g.G, g.M, g.o[2]) {
		t = tag // @conv_steps1, vectorized along the output columns
	}
	if t != "" && g.epi {
		t += "_e"
	}
	return t
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// convPerGroup writes the rank-8 generic of a grouped convolution with
// M/G ≥ 8 output channels per group and at most 16 groups: loops (g, n′,
// oh, ow, m′, c′, kh, kw), tagged niro.conv2dg, over a per-group gather
// of X ([KW?,] G, N·OD, Hp, Wp or OW, C/G·KD) and the filter [G, C/G·KD,
// KH, KW, mp], into a zero-filled [G, N·OD, OH, OW, mp] accumulator,
// which it returns. Each group's block is the one-group block of
// convBlock with a leading group index: the same sums, c′ then kh then kw
// ascending from zero.
func (fe *funcEmitter) convPerGroup(g *convGeom) string {
	var dims []int64
	var sizes []int
	off := 1
	kw := -1
	if g.colStride {
		dims = append(dims, g.k[2])
		kw, off = 0, 2
		sizes = append(sizes, 1)
	}
	col := g.wp
	if g.colStride {
		col = g.o[2]
	}
	// Gather loops: [kw?] grp n od h col c kd.
	dims = append(dims, g.G, g.N, g.o[0], g.hp, col, g.Cg, g.k[0])
	axes := g.xAxes(off, off-1, off+4, off+1, off+5, off+2, off+3, kw)
	sizes = append(sizes, 1, 2, 1, 1, 2)
	xg := fe.gatherZero(g.xname, g.xtyp, g.xElem, g.elem, dims, fe.nhwcAxes(g.x, axes))
	xg, xgDims := fe.collapse(xg, dims, g.elem, sizes...)
	wT, wDims := fe.transposedFilter(g)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	row := windowExpr(d(2), g.stride[1], d(6), g.dil[1])
	xExprs := []string{d(0), d(1), row, windowExpr(d(3), 1, d(7), g.dil[2]), d(5)}
	if g.colStride {
		xExprs = []string{d(7), d(0), d(1), row, d(3), d(5)}
	}
	accDims := []int64{g.G, g.N * g.o[0], g.o[1], g.o[2], g.mp}
	accTyp := tensorTypeOf(accDims, g.acc)
	filled := fe.fill(fe.empty(accDims, g.acc, nil), accTyp, g.acc, fe.scalarConst(g.accElem, 0), 5)
	sum := fe.tmp()
	fe.generic(sum, []string{"parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"},
		[]genericOperand{
			{name: xg, typ: tensorTypeOf(xgDims, g.elem), elem: g.elem, amap: affineMap(8, xExprs)},
			{name: wT, typ: tensorTypeOf(wDims, g.elem), elem: g.elem, amap: affineMap(8, []string{d(0), d(5), d(6), d(7), d(4)})},
		},
		genericOperand{name: filled, typ: accTyp, elem: g.acc, amap: affineMap(8, []string{d(0), d(1), d(2), d(3), d(4)})},
		g.perGroupTag(), func(args []string) string {
			return fe.mulAdd(g.xElem, g.acc, args[0], args[1], args[2])
		})
	return sum
}

// convPointwise writes a one-group convolution whose kernel is 1 on every
// axis as a matrix product and returns the accumulator [N·OD, OH, OW, M].
func (fe *funcEmitter) convPointwise(g *convGeom) string {
	// Gather loops: n od oh ow c (kd = 0, h = oh·sh, w = ow·sw).
	dims := []int64{g.N, g.o[0], g.o[1], g.o[2], g.C}
	axes := []convAxis{{terms: []convTerm{{0, 1}}, size: g.N}, {terms: []convTerm{{4, 1}}, size: g.C}}
	for i := 0; i < 3; i++ {
		if g.axis[i] >= 0 {
			axes = append(axes, convAxis{terms: []convTerm{{1 + i, g.stride[i]}}, off: g.padLo[i], size: g.in[i]})
		}
	}
	xg := fe.gatherZero(g.xname, g.xtyp, g.xElem, g.elem, dims, fe.nhwcAxes(g.x, axes))
	x2, x2Dims := fe.collapse(xg, dims, g.elem, 4, 1)
	w2, _ := fe.collapse(g.wname, append([]int64{g.M, g.C}, make1(g.S)...), g.elem, 1, 1+g.S)
	w2t := tensorTypeOf([]int64{g.M, g.C}, g.elem)
	wTt := tensorTypeOf([]int64{g.C, g.M}, g.elem)
	wT := fe.tmp()
	fe.generic(wT, parallel(2),
		[]genericOperand{{name: w2, typ: w2t, elem: g.elem, amap: affineMap(2, []string{"d1", "d0"})}},
		genericOperand{name: fe.empty([]int64{g.C, g.M}, g.elem, nil), typ: wTt, elem: g.elem, amap: identityMap(2)},
		"", func(args []string) string { return args[0] })
	rows := x2Dims[0]
	mmTyp := tensorTypeOf([]int64{rows, g.M}, g.acc)
	filled := fe.fill(fe.empty([]int64{rows, g.M}, g.acc, nil), mmTyp, g.acc, fe.scalarConst(g.accElem, 0), 2)
	mm := fe.tmp()
	fe.generic(mm, []string{"parallel", "parallel", "reduction"},
		[]genericOperand{
			{name: x2, typ: tensorTypeOf(x2Dims, g.elem), elem: g.elem, amap: affineMap(3, []string{"d0", "d2"})},
			{name: wT, typ: wTt, elem: g.elem, amap: affineMap(3, []string{"d2", "d1"})},
		},
		genericOperand{name: filled, typ: mmTyp, elem: g.acc, amap: affineMap(3, []string{"d0", "d1"})},
		"niro.contraction", func(args []string) string {
			return fe.mulAdd(g.xElem, g.acc, args[0], args[1], args[2])
		})
	accDims := []int64{g.N * g.o[0], g.o[1], g.o[2], g.M}
	sum := fe.tmp()
	fe.line("%s = tensor.expand_shape %s [[0, 1, 2], [3]] output_shape [%s] : %s into %s", sum, mm, dimList(accDims), mmTyp, tensorTypeOf(accDims, g.acc))
	return sum
}

func make1(n int) []int64 {
	r := make([]int64, n)
	for i := range r {
		r[i] = 1
	}
	return r
}

// convGeneralEpilogue writes op's result from the accumulator sum,
// expanded by the reassociation re into full: [N, OD, OH, OW, Gx, Mxp]
// or, groupFirst, [Gx, N, OD, OH, OW, Mxp], where result channel
// gx·(M/Gx) + mx (mx < M/Gx ≤ Mxp) is at (gx, mx). The accumulator is read
// back in NC… order, the bias added, 16-bit floats rounded once.
func (fe *funcEmitter) convGeneralEpilogue(op *niro.Conv, rt niro.TensorType, g *convGeom, sum string, from []int64, re string, groupFirst bool) {
	res := op.Result
	var full []int64
	if groupFirst {
		full = []int64{from[0], g.N, g.o[0], g.o[1], g.o[2], from[4]}
	} else {
		Gx := int64(1)
		if g.G > 1 {
			Gx = g.G
		}
		full = []int64{g.N, g.o[0], g.o[1], g.o[2], Gx, from[3] / Gx}
	}
	Gx := full[4]
	if groupFirst {
		Gx = full[0]
	}
	Mx := g.M / Gx
	fullTyp := tensorTypeOf(full, g.acc)
	acc := fe.tmp()
	fe.line("%s = tensor.expand_shape %s %s output_shape [%s] : %s into %s", acc, sum, re, dimList(full), tensorTypeOf(from, g.acc), fullTyp)
	if full[5] != Mx {
		// Leave the padding channel out.
		cut := append(append([]int64(nil), full[:5]...), Mx)
		t := fe.tmp()
		fe.line("%s = tensor.extract_slice %s[0, 0, 0, 0, 0, 0] [%s] [1, 1, 1, 1, 1, 1] : %s to %s", t, acc, dimList(cut), fullTyp, tensorTypeOf(cut, g.acc))
		acc, full, fullTyp = t, cut, tensorTypeOf(cut, g.acc)
	}
	if fe.channelsLast(res) {
		fe.generalNHWCEpilogue(op, rt, g, acc, fullTyp, Gx, Mx, groupFirst)
		return
	}
	// Loops over the result: (n, m, o…) for Gx = 1, else (n, gx, mx, o…)
	// over the result viewed with its channel axis split.
	S := g.S
	split := Gx > 1
	R := S + 2
	first := 2 // loop index of the first spatial axis
	if split {
		R, first = S+3, 3
	}
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	sp := []string{"0", "0", "0"}
	for j := 0; j < S; j++ {
		sp[3-S+j] = d(first + j)
	}
	gxE, mxE := "0", d(1)
	biasExprs := []string{d(1)}
	if split {
		gxE, mxE = d(1), d(2)
		biasExprs = []string{d(1), d(2)}
	}
	accExprs := append(append([]string{d(0)}, sp...), gxE, mxE)
	if groupFirst {
		accExprs = append(append([]string{gxE, d(0)}, sp...), mxE)
	}
	ins := []genericOperand{{name: acc, typ: fullTyp, elem: g.acc, amap: affineMap(R, accExprs)}}
	if op.HasBias() {
		b, btyp := name(op.B), fe.typ(op.B)
		if split {
			bt := tensorTypeOf([]int64{Gx, Mx}, g.elem)
			t := fe.tmp()
			fe.line("%s = tensor.expand_shape %s [[0, 1]] output_shape [%d, %d] : %s into %s", t, b, Gx, Mx, btyp, bt)
			b, btyp = t, bt
		}
		ins = append(ins, genericOperand{name: b, typ: btyp, elem: g.elem, amap: affineMap(R, biasExprs)})
	}
	outDims := rt.Dims
	if split {
		outDims = append([]int64{rt.Dims[0], Gx, Mx}, rt.Dims[2:]...)
	}
	outTyp := tensorTypeOf(outDims, g.elem)
	dst := name(res)
	if split {
		dst = fe.tmp()
	}
	fe.generic(dst, parallel(R), ins,
		genericOperand{name: fe.empty(outDims, g.elem, nil), typ: outTyp, elem: g.elem, amap: identityMap(R)},
		"", fe.biasBody(op, g.xElem, g.acc))
	if split {
		fe.line("%s = tensor.collapse_shape %s [[0], [1, 2]%s] : %s into %s", name(res), dst, tailGroups(3, S), outTyp, fe.typ(res))
	}
}

// generalNHWCEpilogue writes the channels-last result of a 2-D op from
// the accumulator acc (6-D, as convGeneralEpilogue expands it): loops
// (n, oh, ow, m), or (n, oh, ow, gx, mx) over the result viewed with its
// channel axis split.
func (fe *funcEmitter) generalNHWCEpilogue(op *niro.Conv, rt niro.TensorType, g *convGeom, acc, accTyp string, Gx, Mx int64, groupFirst bool) {
	res := op.Result
	split := Gx > 1
	R := 4
	gxE, mxE := "0", "d3"
	biasExprs := []string{"d3"}
	outDims := nhwcDims(rt.Dims)
	if split {
		R, gxE, mxE = 5, "d3", "d4"
		biasExprs = []string{"d3", "d4"}
		outDims = []int64{rt.Dims[0], rt.Dims[2], rt.Dims[3], Gx, Mx}
	}
	accExprs := []string{"d0", "0", "d1", "d2", gxE, mxE}
	if groupFirst {
		accExprs = []string{gxE, "d0", "0", "d1", "d2", mxE}
	}
	ins := []genericOperand{{name: acc, typ: accTyp, elem: g.acc, amap: affineMap(R, accExprs)}}
	if op.HasBias() {
		b, btyp := name(op.B), fe.typ(op.B)
		if split {
			bt := tensorTypeOf([]int64{Gx, Mx}, g.elem)
			t := fe.tmp()
			fe.line("%s = tensor.expand_shape %s [[0, 1]] output_shape [%d, %d] : %s into %s", t, b, Gx, Mx, btyp, bt)
			b, btyp = t, bt
		}
		ins = append(ins, genericOperand{name: b, typ: btyp, elem: g.elem, amap: affineMap(R, biasExprs)})
	}
	outTyp := tensorTypeOf(outDims, g.elem)
	dst := name(res)
	if split {
		dst = fe.tmp()
	}
	fe.generic(dst, parallel(R), ins,
		genericOperand{name: fe.empty(outDims, g.elem, nil), typ: outTyp, elem: g.elem, amap: identityMap(R)},
		"", fe.biasBody(op, g.xElem, g.acc))
	if split {
		fe.line("%s = tensor.collapse_shape %s [[0], [1], [2], [3, 4]] : %s into %s", name(res), dst, outTyp, fe.typ(res))
	}
}

// generalEpilogueForm returns the scheduled form of a convolution of
// conv_general.go whose epilogue can be fused into its register block
// (planConvEpilogues), or false. It takes the rank-7 block of one group
// and the per-output-channel gather (convFolded, with its depthwise
// block for a channel multiplier), whose accumulator [N·OD, OH, OW, M]
// holds result channel m at m:
//
//   - "c1d": a 1-D convolution, NCH result (loops n, m, ow);
//   - "c3d": a 3-D one, NCDHW result (loops n, m, od, oh, ow);
//   - "nchw" and "nhwc": a grouped 2-D one, as conv_nhwc.go's forms;
//   - "gnchw" and "gnhwc": a 2-D per-group one (M/G ≥ 8, at most 16
//     groups), its region in the split view of the result (loops n, g,
//     m′, oh, ow or n, oh, ow, g, m′; conv_pergroup_epi.go);
//   - "gn1d" and "gn3d": a 1-D or 3-D per-group one, the same (loops n,
//     g, m′, ow or n, g, m′, od, oh, ow).
//
// The fused read-back (convGeneralEpilogueFused) reads the accumulator
// through its indexing map, which the tiling of the root carries to the
// convolution's generic. A 1-D or 3-D pointwise convolution (one group,
// kernel 1) takes "mmk1d<k>" or "mmk3d<k>" (pwProductForm,
// conv_pw1d3d.go): the NC… product's cache block.
// A block of 16k + 1 channels is fused (one group, per group, per output
// channel, depthwise): the one-channel remainder tile is vectorized along
// the output columns, and 32k + 17 channels of a 4-byte accumulator take
// the 16-channel root tile (epiBlock16, perGroupBlock16); 16k + 9 to
// 16k + 15 of an 8-byte one the 8-channel tile (epiBlock8, perGroupBlock8).
// A channel multiplier with a channels-last result (epilogueForm leaves
// it here) takes nhwc (per output channel, fewer than 8 per group or more
// than 16 groups, and k = 16j + 1: dwMultOwnChannels) or gnhwc (a block
// per group, M = 16j + 1 included).
// Not taken: one output channel (the row form or its view,
// conv_rows_view.go, where it applies; else the block of 2), a channel
// multiplier that conv_dwmult.go's row form takes (an NCHW result), and
// channels-last 1-D
// or 3-D values. These
// do not occur: planLayout (layout.go) makes a value channels-last only
// where a 2-D convolution or pool defines it or an op carries a
// channels-last operand's layout, and drops the X of every convolution
// that is not 2-D, so a 1-D or 3-D convolution's X and result are always
// NC… (a 2-D result reshaped to rank 3 is carried channels-last only into
// ops that take it so).
func (fe *funcEmitter) generalEpilogueForm(op *niro.Conv) (string, bool) {
	rt, ok1 := rankedTensor(op.Result)
	xt, ok2 := rankedTensor(op.X)
	wt, ok3 := rankedTensor(op.W)
	if !ok1 || !ok2 || !ok3 || !rt.HasStaticShape() || !xt.HasStaticShape() || !wt.HasStaticShape() ||
		!isFloat(xt.Elem) || wt.Elem != xt.Elem || xt.Rank() != wt.Rank() || rt.Rank() != xt.Rank() {
		return "", false
	}
	S := xt.Rank() - 2
	if S < 1 || S > 3 || len(op.Pads) != 2*S || len(op.Strides) != S || len(op.Dilations) != S || op.Groups < 1 {
		return "", false
	}
	G, C, M := op.Groups, xt.Dims[1], wt.Dims[0]
	if C%G != 0 || M%G != 0 || wt.Dims[1] != C/G {
		return "", false
	}
	Mg := M / G
	unit := unitKernel(wt.Dims)
	pw, pwOK := "", false
	if G == 1 && S != 2 {
		// Kernel 1, or one output position of one channel (oneWindow).
		pw, pwOK = fe.pwProductForm(op, rt, xt, wt)
	}
	// A channel multiplier (groups = C, one input channel per group,
	// k ≥ 2) with a channels-last result: epilogueForm leaves it here
	// (conv_dwmult.go's row form takes it with an NCHW result).
	dwMultLast := S == 2 && useDWMultRows(C, G, M, wt.Dims[1], rt.Dims[3]) && fe.channelsLast(op.Result)
	// A multiplier that conv_dwmult.go's row form takes with its
	// epilogue fused (an NCHW result), but not at a width that leaves its
	// blocks one column (dwRowsCol1Op: the blocks here).
	dwRows := S == 2 && useDWMultRows(C, G, M, wt.Dims[1], rt.Dims[3]) && !fe.dwRowsCol1Op(op)
	switch {
	case S != 2 && rowsView(op) && !fe.channelsLast(op.Result) && !fe.channelsLast(op.X):
		// One output channel: the row form's view (conv_rows_view.go).
		return "rows", true
	case M < 2 && !pwOK && !oneChannelBlock(S, G, M, rt.Dims[rt.Rank()-1]):
		return "", false
	case S == 2 && fe.dwMultOwnChannels(op):
		// A multiplier k = 16j + 1 of the per-group geometry: the
		// per-output-channel depthwise block (dwMultOwnChannels).
		return "nhwc", true
	case G > 1 && Mg >= 8 && G <= 16:
		// Per group (conv_pergroup_epi.go; 16k + 1 channels per group
		// too: the rank-8 block's one-channel remainder, @conv_steps8_1),
		// not a channel multiplier that conv_dwmult.go's row form takes
		// (an NCHW result). A multiplier k ≥ 8 of at most 16 groups with a
		// channels-last result takes it, M = 16j + 1 among them: 1.1–1.2×
		// faster than the depthwise block over X gathered per output
		// channel (docs/performance.md).
		switch {
		case dwRows && !dwMultLast:
			return "", false
		case S != 2 && (fe.channelsLast(op.Result) || fe.channelsLast(op.X)):
			return "", false
		case S == 1:
			return "gn1d", true
		case S == 3:
			return "gn3d", true
		case fe.channelsLast(op.Result):
			return "gnhwc", true
		}
		return "gnchw", true
	case pwOK:
		// A 1-D or 3-D pointwise one: the NC… product with its cache
		// block (conv_pw1d3d.go), as the 2-D 1×1 product's mmk form.
		return pw, true
	case G == 1 && unit && S == 2:
		// conv_nhwc.go's 1×1 product (epilogueForm).
		return "", false
	case S == 2 && (G == 1 || G == C && M == G || dwRows && dwMultByM(C, fe.channelsLast(op.Result))):
		// conv_nhwc.go's forms and conv_dwmult.go's (epilogueForm).
		return "", false
	case S == 2 && fe.channelsLast(op.Result):
		return "nhwc", true
	case S == 2:
		return "nchw", true
	case fe.channelsLast(op.Result) || fe.channelsLast(op.X):
		return "", false
	case S == 1:
		return "c1d", true
	}
	return "c3d", true
}

// oneChannelBlock reports whether a 1-D or 3-D convolution of G groups,
// M output channels and an output OW columns wide, whose epilogue is
// fused, takes the rank-7 block of one channel without a padding channel
// (forms c1d, c3d): one group, one output channel, OW ≥ 2, that neither
// the row form's view (rowsView: one input channel of a 1-D one, a 3-D
// one of one input channel and depth, or a kernel of 1 in both row axes
// of a 3-D one) nor the product (pwProductForm) takes. The block's one
// channel is the schedule's one-channel block (toolchain/conv.mlir,
// @conv_steps1, as a 16k + 1 block's remainder), vectorized along the
// output columns, the epilogue in its root tile.
func oneChannelBlock(S int, G, M, OW int64) bool {
	return S != 2 && G == 1 && M == 1 && OW >= 2
}

// dwMultOwnChannels reports whether op, a 2-D depthwise convolution with
// a channel multiplier k = 16j + 1 (j ≥ 1) of at most 16 groups (groups =
// C, one input channel per group, M = k·C: the per-group geometry, whose
// block would take a padding channel, paddedChannelConv) with a
// channels-last result, is gathered per output channel instead when its
// epilogue is fused (planConvEpilogues, generalEpilogueForm): X as [N,
// Hp, Wp, M] (channel m reads X's m floordiv k), the depthwise block of M
// channels (dwBlock, niro.dwconv2d_e, its one-channel block where M
// leaves one, @conv_steps_dw1), the epilogue in form nhwc, as for a
// multiplier of fewer than 8 per group or more than 16 groups (2 groups
// of 17, 1×2×56×56 → 34 between 1×1s: 0.74 → 0.27 ms against the view
// [N·C, k, OH, OW] and its separate pass, docs/performance.md).
func (fe *funcEmitter) dwMultOwnChannels(op *niro.Conv) bool {
	if !conv2DStatic(op) || !fe.channelsLast(op.Result) {
		return false
	}
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	rt, _ := rankedTensor(op.Result)
	C, G, M := xt.Dims[1], op.Groups, wt.Dims[0]
	return G >= 2 && G <= 16 && useDWMultRows(C, G, M, wt.Dims[1], rt.Dims[3]) && (M/G)%16 == 1
}

// convGeneralEpilogueFused writes op's result from the accumulator sum
// [N·OD, OH, OW, M] of a convolution whose epilogue is fused
// (generalEpilogueForm): one generic over the result's loops (n, m, o…,
// or n, oh, ow, m channels-last) that reads the accumulator through
// (n, m, od, oh, ow) → (n·OD + od, oh, ow, m), adds the bias and rounds
// 16-bit floats once. A 2-D accumulator is a direct operand, read through
// a transposing map (as conv_nhwc.go's); a 1-D one is read through a
// rank-reducing slice [N, OW, M], a 3-D one expanded to [N, OD, OH, OW,
// M], so that every map stays a projected permutation (which
// vectorization needs): the schedule merges the root tile's slice with
// that slice (@conv_epi_slice_fuse) or bubbles it above the expand_shape
// (@conv_epi_mm_fuse) and fuses the convolution's block into the loop.
func (fe *funcEmitter) convGeneralEpilogueFused(op *niro.Conv, rt niro.TensorType, g *convGeom, sum string) {
	res := op.Result
	R := g.S + 2
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	var accExprs []string
	outDims := rt.Dims
	mE := d(1)
	accDims := []int64{g.N * g.o[0], g.o[1], g.o[2], g.G * g.mp}
	switch {
	case fe.channelsLast(res): // 2-D: loops n, oh, ow, m
		accExprs = []string{d(0), d(1), d(2), d(3)}
		outDims = nhwcDims(rt.Dims)
		mE = d(3)
	case g.S == 2:
		accExprs = []string{d(0), d(2), d(3), d(1)}
	case g.S == 1:
		// [N, 1, OW, M] as [N, OW, M]: a rank-reducing slice, which
		// merges with the tile's (a collapse_shape's slice does not
		// bubble up with the tile's dynamic offsets in MLIR 22).
		to := []int64{accDims[0], accDims[2], accDims[3]}
		t := fe.tmp()
		fe.line("%s = tensor.extract_slice %s[0, 0, 0, 0] [%d, 1, %d, %d] [1, 1, 1, 1] : %s to %s", t, sum, to[0], to[1], to[2], tensorTypeOf(accDims, g.acc), tensorTypeOf(to, g.acc))
		sum, accDims = t, to
		accExprs = []string{d(0), d(2), d(1)}
	default:
		// [N·OD, OH, OW, M] as [N, OD, OH, OW, M].
		full := []int64{g.N, g.o[0], g.o[1], g.o[2], accDims[3]}
		t := fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0, 1], [2], [3], [4]] output_shape [%s] : %s into %s", t, sum, dimList(full), tensorTypeOf(accDims, g.acc), tensorTypeOf(full, g.acc))
		sum, accDims = t, full
		accExprs = []string{d(0), d(2), d(3), d(4), d(1)}
	}
	ins := []genericOperand{{name: sum, typ: tensorTypeOf(accDims, g.acc), elem: g.acc, amap: affineMap(R, accExprs)}}
	if op.HasBias() {
		ins = append(ins, genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: g.elem, amap: affineMap(R, []string{mE})})
	}
	fe.generic(name(res), parallel(R), ins,
		genericOperand{name: fe.empty(outDims, g.elem, nil), typ: tensorTypeOf(outDims, g.elem), elem: g.elem, amap: identityMap(R)},
		"", fe.biasBody(op, g.xElem, g.acc))
}
