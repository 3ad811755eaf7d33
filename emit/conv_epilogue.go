package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The epilogue of a convolution in its register block. The element-wise
// ops that follow a 2-D convolution (its bias, a BatchNormalization's
// arithmetic, an activation, a residual Add) would otherwise be one more
// pass over the accumulator after all the blocks. planConvEpilogues picks,
// for each convolution the schedule blocks (the channels-last form, the
// depthwise one, the row form, the 1×1 product of f32, f64 or f16, and
// conv_general.go's 1-D, 3-D and grouped blocks, generalEpilogueForm),
// the region of
// element-wise ops it can finish in the block, and tags their generics for
// the convolution schedule (toolchain/conv.mlir, @conv_epi_tiles):
//
//   - the region grows from the convolution's result through the
//     element-wise ops (Binary, Unary, Compare, Select) that read a value
//     of the region and whose result has the convolution result's shape
//     and layout, one op at a time in block order, and ends at the last
//     point where exactly one value of the region (its root) is used
//     outside it: every other value of the region is read only by the
//     region's ops. So HardSwish's x·HardSigmoid(x) and LeakyRelu's
//     select(x < 0, x·α, x) are inside, and a residual Add is inside with
//     its other operand read as an input;
//   - the root's generic is tagged niro.epi_<form><bits> (form nhwc: a
//     channels-last result, nchw: an NCHW result of the channels-last or
//     depthwise form, rows: the row form, dwrows and dwrowsh: the
//     depthwise row form (conv_dwmult.go, with a channel multiplier or
//     without, NCHW) with a block of a whole vector of columns or half
//     of one, mm: the NCHW
//     1×1 product,
//     mmnhwc and mmnchw: the channels-last 1×1 product with a
//     channels-last or NCHW result; c1d and c3d: a 1-D or 3-D
//     convolution of conv_general.go, whose grouped 2-D ones take nhwc and
//     nchw, and its per-group ones gnhwc and gnchw (1-D and 3-D: gn1d,
//     gn3d), the region written in
//     the split view of the result (generalEpilogueForm,
//     conv_pergroup_epi.go); bits 32 or 16, the block of a 32- or
//     64-bit accumulator); a 1×1 product past mmEpiMaxC or mmEpiMaxM, or
//     of f64 or f16, takes its cache block instead: the root is tagged
//     niro.epi_mmk (an NCHW root) or niro.epi_mmkl (a channels-last one)
//     and niro.mmk_h<H> (H whole output rows per block, mmkRows), and a
//     1-D or 3-D pointwise one (one group) niro.epi_mmk1d or
//     niro.epi_mmk3d (conv_pw1d3d.go, pwProductForm); the
//     region's other generics (the convolution's
//     own bias generic among them) niro.conv_epi, and the convolution's
//     generic gets the tag niro.conv2d_e (niro.conv2d_rows_e,
//     niro.dwconv2d_e) instead of niro.conv2d (niro.conv2d_rows,
//     niro.dwconv2d); a 1×1 product is tagged niro.mm_e instead of
//     niro.contraction (conv_nhwc.go).
//
// The schedule tiles the root with the convolution's block and fuses the
// tagged generics, the convolution and its fill into the tile loop; the
// arithmetic of every element is unchanged (the same scalar bodies, in the
// same order, on the rounded accumulator).

// maxEpilogueOps bounds the ops a region may hold.
const maxEpilogueOps = 32

// mmEpiMaxC and mmEpiMaxM bound the f32 1×1 convolutions whose epilogue
// is fused into the product's register block (8 output channels × 16
// columns, the whole contracted axis in each, toolchain/conv.mlir
// @conv_epi_mm32): at most 32 input channels and 128 output channels.
// That block has no KC or MC cache blocks and reads all of W per column
// block; the product's cache block (mmkRows), blocked inside by the
// contraction schedule, measured faster everywhere else, up to 2× past
// 256 input channels and 256 × 256 filter elements (the register block's
// earlier bounds), 7–30% from 48 input channels or 192 output channels
// up, even at 24 × 144 and 64 × 64, while the register block stays 7–15%
// ahead at 16 × 96 and 32 × 64 (docs/performance.md, "The 1×1 product's
// epilogue"). Those measurements are of NCHW products; a product with a
// channels-last operand or result (conv1x1NHWC) keeps the register block
// within the earlier bounds, mmEpiLastMaxC input channels and
// mmEpiLastMaxW filter elements: examples/mobilenetv2's 64 → 16 project
// (channels-last X, NCHW result, 14 × 14) took 21.0–22.9 µs for the model
// with the cache block against 19.9–20.1 with the register block.
const (
	mmEpiMaxC     = 32
	mmEpiMaxM     = 128
	mmEpiLastMaxC = 256
	mmEpiLastMaxW = 256 * 256
)

// mmkTileM is the output channels of the cache block of a 1×1
// convolution's product (the forms mmk and mmkl): the contraction
// schedule's MC. mmkTileCols bounds its output columns (OH·OW positions)
// for a 4-byte accumulator, half that for f64, so that the block's
// accumulator (256 × 256 × 4 bytes, 256 KB) stays in L2 across the KC
// slices and the epilogue reads it from there.
const (
	mmkTileM    = 256
	mmkTileCols = 256
)

// mmkRows is the output rows of a 1×1 convolution's cache block (the
// product's columns, whole output rows, contiguous in its [N, M, OH·OW]
// or [N·OH·OW, M] layout): 0 for all of them when the OH·OW columns fit
// mmkTileCols, else the most of 4, 2 or 1 rows that do (1 at least).
// The schedule has one sequence per value (toolchain/conv.mlir,
// @conv_epi_mmk0 to @conv_epi_mmk4).
func mmkRows(M, OH, OW int64, elem niro.ScalarType) int64 {
	cols := int64(mmkTileCols)
	if elem == niro.F64 {
		cols /= 2
	}
	if OH*OW <= cols {
		return 0
	}
	for _, r := range []int64{4, 2} {
		if r*OW <= cols && r < OH {
			return r
		}
	}
	return 1
}

// planConvEpilogues fills fe.epiAttrs and fe.epiConv for the function's
// entry block; planLayout must have run.
func (fe *funcEmitter) planConvEpilogues() {
	fe.epiAttrs, fe.epiConv, fe.epiSplit = nil, nil, nil
	if fe.f.Body == nil || len(fe.f.Body.Blocks) != 1 {
		return
	}
	entry := fe.f.Body.Blocks[0]
	pos := map[niro.Op]int{}
	uses := map[niro.ValueID][]niro.Op{}
	escapes := map[niro.ValueID]bool{} // read in a nested region
	var nested func(rs []*niro.Region)
	nested = func(rs []*niro.Region) {
		for _, r := range rs {
			for _, b := range r.Blocks {
				for _, op := range b.Ops {
					for _, v := range op.Operands() {
						escapes[v.ID] = true
					}
					nested(op.Regions())
				}
			}
		}
	}
	for i, op := range entry.Ops {
		pos[op] = i
		for _, v := range op.Operands() {
			uses[v.ID] = append(uses[v.ID], op)
		}
		nested(op.Regions())
	}
	claimed := map[niro.ValueID]bool{}
	for _, op := range entry.Ops {
		c, ok := op.(*niro.Conv)
		if !ok {
			continue
		}
		form, ok := fe.epilogueForm(c)
		if !ok || claimed[c.Result.ID] {
			continue
		}
		rt, _ := rankedTensor(c.Result)
		last := fe.channelsLast(c.Result)
		// A 1-D or 3-D one-channel head in the row form's view
		// (conv_rows_view.go): the region in that view.
		// So is a 2-D one of one output column (conv_rows_t.go), in its
		// transposed view.
		view := form == "rows" && (rt.Rank() != 4 || rowsTView(rt.Dims))
		inR := map[niro.ValueID]bool{c.Result.ID: true}
		inOps := map[niro.Op]bool{op: true}
		vals := []niro.Value{c.Result}
		committed, root := 0, c.Result
		// Without an epilogue generic of its own (the row form without
		// bias, f32 or f64) the convolution needs at least one op.
		// So does the depthwise row form's geometry at a width that
		// leaves its blocks one column (dwRowsCol1Op): with neither, the
		// row form writes the result itself.
		if !c.HasBias() && !isHalf(rt.Elem) && (form == "rows" || form == "mm" || form == "dwrows" || form == "dwrowsh" ||
			strings.HasPrefix(form, "mmk") && !fe.channelsLast(c.X) && !last || fe.dwRowsCol1Op(c)) {
			root = niro.Value{}
		}
		for len(vals) <= maxEpilogueOps {
			var next niro.Op
			for _, v := range vals {
				for _, u := range uses[v.ID] {
					if !inOps[u] && (next == nil || pos[u] < pos[next]) {
						next = u
					}
				}
			}
			if next == nil || !epilogueOp(next, rt, last, fe) || claimed[next.Results()[0].ID] ||
				view && !rowsViewOperands(next, inR, rt.Dims) {
				break
			}
			r := next.Results()[0]
			inOps[next], inR[r.ID] = true, true
			vals = append(vals, r)
			var open []niro.Value
			for _, v := range vals {
				out := escapes[v.ID]
				for _, u := range uses[v.ID] {
					out = out || !inOps[u]
				}
				if out {
					open = append(open, v)
				}
			}
			if len(open) == 1 {
				committed, root = len(vals), open[0]
			}
		}
		if root.Type == nil {
			continue
		}
		if committed == 0 {
			committed = 1
		}
		if fe.epiAttrs == nil {
			fe.epiAttrs, fe.epiConv = map[string]string{}, map[niro.ValueID]bool{}
		}
		rootTag := "niro.epi_" + form + "32"
		switch {
		case strings.HasPrefix(form, "mmk"):
			// The cache block: the layout's tag and the block's rows.
			n := len(form) - 1
			rootTag = "niro.epi_" + form[:n] + ", niro.mmk_h" + form[n:]
		case rt.Elem == niro.F64 && (epiBlock8(form, c) || splitForm(form) && perGroupBlock8(rt.Dims[1]/c.Groups)):
			rootTag = "niro.epi_" + form + "8"
		case rt.Elem == niro.F64 || epiBlock16(form, c) || splitForm(form) && perGroupBlock16(rt.Dims[1]/c.Groups):
			rootTag = "niro.epi_" + form + "16"
		}
		if splitForm(form) || view {
			// The per-group form: the region in its split view
			// (conv_pergroup_epi.go).
			if fe.epiSplit == nil {
				fe.epiSplit = map[niro.ValueID]*epiSplit{}
			}
			G := c.Groups
			s := &epiSplit{G: G, Mg: rt.Dims[1] / G, S: rt.Rank() - 2, last: last, root: root.ID, names: map[niro.ValueID]string{}, view: view}
			for _, v := range vals[:committed] {
				fe.epiSplit[v.ID] = s
			}
		}
		for _, v := range vals[:committed] {
			claimed[v.ID] = true
			if v.ID == root.ID {
				fe.epiAttrs[name(v)] = rootTag
			} else {
				fe.epiAttrs[name(v)] = "niro.conv_epi"
			}
		}
		fe.epiConv[c.Result.ID] = true
	}
}

// epiBlock16 reports whether the root of convolution op's epilogue in
// form takes the 16-channel block (niro.epi_<form>16) with a 4-byte
// accumulator: the channels-last forms (nhwc, nchw) and conv_general.go's
// c1d and c3d with one group and 32k + 17 to 32k + 31 output channels,
// whose 32-channel root tile would leave a remainder tile of 17 to 31
// (chanBlock16, convBlockTag).
func epiBlock16(form string, op *niro.Conv) bool {
	return epiBlockRule(form, op, chanBlock16)
}

// epiBlock8 reports whether the root of convolution op's epilogue in form
// takes the 8-channel block (niro.epi_<form>8) with an 8-byte
// accumulator: the same forms with one group and 16k + 9 to 16k + 15
// output channels, whose 16-channel root tile would leave a remainder
// tile of 9 to 15 (chanBlock8, convBlockTag).
func epiBlock8(form string, op *niro.Conv) bool {
	return epiBlockRule(form, op, chanBlock8)
}

// epiBlockRule applies rule to the output channels of a one-group
// convolution op whose epilogue form is nhwc, nchw, c1d or c3d.
func epiBlockRule(form string, op *niro.Conv, rule func(int64) bool) bool {
	wt, ok := rankedTensor(op.W)
	if !ok || op.Groups != 1 || wt.Rank() < 1 {
		return false
	}
	switch form {
	case "nhwc", "nchw", "c1d", "c3d":
		return rule(wt.Dims[0])
	}
	return false
}

// epilogueForm returns the scheduled form of a 2-D convolution whose
// epilogue can be fused ("nhwc", "nchw", "rows", "dwrows", "dwrowsh",
// "mm", "mmnhwc", "mmnchw", or "mmk<H>" and "mmkl<H>": the 1×1 product's
// cache block of H rows with an NCHW or a channels-last root), or false:
// the dispatch of conv, restricted to the one-group channels-last form,
// the depthwise one, the row form, the depthwise row form (k = 1, NCHW;
// a channel multiplier or one input channel with an NCHW result) and the
// 1×1 products (bf16 too: its epilogue widens as integers,
// emit/bf16.go). A multiplier with a channels-last result is fused in
// conv_general.go's per-output-channel block or, with a block per group
// (k ≥ 8, at most 16 groups), its per-group block (generalEpilogueForm:
// nhwc, gnhwc; dwMultOwnChannels), one input channel with a
// channels-last result in the channels-last block; convDWMultRows leaves
// them to those.
func (fe *funcEmitter) epilogueForm(op *niro.Conv) (string, bool) {
	if !conv2DStatic(op) {
		return fe.generalEpilogueForm(op) // 1-D, 3-D (conv_general.go)
	}
	rt, _ := rankedTensor(op.Result)
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	M, C, KH, KW := wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]
	taps := tapsKernel(op) && !fe.channelsLast(op.X) && !fe.channelsLast(op.Result)
	switch {
	case fe.convFullKernel(op):
		// One output position: the 1×1 product over the flattened
		// window (conv_rows_t.go), C·KH·KW channels.
		C, KH, KW = C*KH*KW, 1, 1
	case taps:
		// One input and one output channel: the 1×1 product over the
		// taps (conv_rows_t.go), KH·KW channels.
		C, KH, KW = KH*KW, 1, 1
	}
	// A block with a padding channel (one channel: paddedChannelConv) is
	// not fused: its root tile would leave the schedule a block that the
	// padding does not cover; layout.go keeps the values of every 2-D
	// one-channel convolution but 1×1 NCHW (convRowsNCHW), so none takes
	// it. One output channel of a 1×1 convolution (with a channels-last
	// X too: conv1x1NHWC's product, mmnchw, mmnhwc) or of the row form
	// with NCHW values is fused: the product's block (mm, mmk) and the
	// row form's have their vectors along the output row; so is one
	// output column with NCHW values (conv_rows_t.go: the row form's
	// transposed view, rows, or the 1×1 product over one gathered window
	// or over the taps); so is one input and one output channel with NCHW
	// values, in the depthwise row form (plainDW), or at a width that
	// leaves its blocks one column in the product over the taps
	// (tapsKernel). A one-group block of 16k + 1 channels
	// (k ≥ 1) is fused: the root tile's one-channel remainder leaves the
	// schedule a one-channel convolution tile, vectorized along its
	// output columns (toolchain/conv.mlir, @conv_steps1), and an epilogue
	// tile of one channel (epiBlock16: 32k + 17 to 32k + 31 channels of a
	// 4-byte accumulator take the 16-channel tile; epiBlock8: 16k + 9 to
	// 16k + 15 of an 8-byte one the 8-channel tile); so is a depthwise one
	// (depthwiseNHWC, the one-channel depthwise block, @conv_steps_dw1)
	// and a per-group one of 16k + 1 channels per group (conv_general.go,
	// the rank-8 block's one-channel remainder, @conv_steps8_1).
	nhwcIO := fe.channelsLast(op.X) || fe.channelsLast(op.Result)
	// The depthwise row form with a channel multiplier (conv_dwmult.go,
	// which conv lowers first), a single input channel (groups 1, C = 1)
	// among them: fused with an NCHW result (dwMultByM, loops over the
	// N×M×OH×OW result, one output channel per tile, so 16k + 1 channels
	// are no block remainder); with a channels-last result, conv_general.go's
	// blocks (generalEpilogueForm) for groups ≥ 2, the channels-last block
	// for C = 1; the view [N·C, k, OH, OW] only without an epilogue.
	dwMult := useDWMultRows(xt.Dims[1], op.Groups, M, C, rt.Dims[3])
	mult := dwMult && dwMultByM(xt.Dims[1], fe.channelsLast(op.Result))
	// One input and one output channel (groups 1) with NCHW values takes
	// the depthwise row form as a plain one (useDWRows, conv lowers it
	// first), not paddedChannelConv's block.
	plainDW := op.Groups == 1 && fe.useDWRows(op) && !taps
	padded := paddedChannelConv(op.Groups, M, C, KH, KW, rt.Dims[3]) && !plainDW
	if fe.convRowsT(op) {
		// One output channel and column, NCHW: the row form's
		// transposed view (conv_rows_t.go), conv's dispatch before the
		// padding channel.
		return "rows", true
	}
	switch {
	case dwMult && !mult && op.Groups > 1:
		return fe.generalEpilogueForm(op)
	case dwMult && !mult && !padded:
		return "nhwc", true
	}
	if dwMult && !mult || !mult && (padded || M == 1 && nhwcIO && (KH != 1 || KW != 1)) {
		return "", false
	}
	if op.Groups != 1 || mult || plainDW {
		// Depthwise (depthwiseNHWC): the channels-last block.
		// The depthwise row form (conv_dwmult.go), NCHW, with a channel
		// multiplier or without.
		if !mult && (op.Groups != xt.Dims[1] || M != op.Groups) {
			return fe.generalEpilogueForm(op) // grouped (conv_general.go)
		}
		if mult || fe.useDWRows(op) {
			// The block of 8 rows by a full vector of columns (32 f32, 16
			// f64) where the row is a whole number of them or leaves half
			// of one or fits one; half as wide otherwise (a remainder of
			// 24 or 28 f32 columns is slow in LLVM 22, dwMultSegments).
			// Never a remainder of one column, which the schedule's
			// unit-dimension folding does not finish on in MLIR 22: where
			// both blocks would leave one, the epilogue is not fused.
			lanes, ow := int64(32), rt.Dims[3]
			if rt.Elem == niro.F64 {
				lanes = 16
			}
			switch r := ow % lanes; {
			case r == 0 || r == lanes/2 || ow < lanes/2:
				return "dwrows", true
			case ow%(lanes/2) != 1:
				return "dwrowsh", true
			case r != 1:
				return "dwrows", true
			}
			// Both leave one column (dwRowsCol1Op): the channels-last
			// blocks (one input and one output channel took the product
			// over its taps, tapsKernel, above).
			switch {
			case op.Groups > 1 && mult:
				return fe.generalEpilogueForm(op)
			case rowsOneChannel(op):
				return "rows", true
			}
			return "nchw", true
		}
		if fe.channelsLast(op.Result) {
			return "nhwc", true
		}
		return "nchw", true
	}
	if KH == 1 && KW == 1 {
		// A matrix product (conv_nhwc.go), f32, fused through its
		// tensor.expand_shape: NCHW ([M, C] times [N, C, OH·OW]), the
		// root tiled 1 × 8 × 1 × 16; channels-last ([N·OH·OW, C] times
		// [C, M], conv1x1NHWC), 1 × 1 × 8 × 16 for a channels-last
		// result and 1 × 16 × 1 × 8 for an NCHW one.
		if rt.Elem == niro.F32 && xt.Elem == niro.F32 && (C <= mmEpiMaxC && M <= mmEpiMaxM || nhwcIO && C <= mmEpiLastMaxC && M*C <= mmEpiLastMaxW) {
			switch {
			case !nhwcIO:
				return "mm", true
			case fe.channelsLast(op.Result):
				return "mmnhwc", true
			}
			return "mmnchw", true
		}
		// Past those bounds, and for f64, f16 and bf16: the cache block
		// (mmkRows), whose product the contraction schedule blocks
		// inside the tile loop.
		form := "mmk"
		if fe.channelsLast(op.Result) {
			form = "mmkl"
		}
		return form + strconv.FormatInt(mmkRows(M, rt.Dims[2], rt.Dims[3], rt.Elem), 10), true
	}
	switch {
	case !nhwcIO && useConvRows(rt.Dims[3], M, C, KH, KW):
		return "rows", true
	case fe.channelsLast(op.Result):
		return "nhwc", true
	}
	return "nchw", true
}

// epilogueOp reports whether op can join the epilogue of a convolution
// with result type rt (channels-last when last): an element-wise op whose
// tensor result has rt's shape and layout, of rt's element type (or
// bool, for a comparison).
func epilogueOp(op niro.Op, rt niro.TensorType, last bool, fe *funcEmitter) bool {
	switch op.(type) {
	case *niro.Binary, *niro.Unary, *niro.Compare, *niro.Select:
	default:
		return false
	}
	rs := op.Results()
	if len(rs) != 1 || len(op.Regions()) != 0 {
		return false
	}
	t, ok := rankedTensor(rs[0])
	if !ok || !sameDims(t.Dims, rt.Dims) || fe.channelsLast(rs[0]) != last {
		return false
	}
	return t.Elem == rt.Elem || t.Elem == niro.Bool
}

// convTagFor is the schedule's tag for the generic of convolution op:
// tag with "_e" appended when its epilogue is fused (planConvEpilogues).
func (fe *funcEmitter) convTagFor(op *niro.Conv, tag string) string {
	if tag != "" && fe.epiConv[op.Result.ID] {
		return tag + "_e"
	}
	return tag
}
