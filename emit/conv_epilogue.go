package emit

import "github.com/niro-dev/niro/niro"

// The epilogue of a convolution in its register block. The element-wise
// ops that follow a 2-D convolution (its bias, a BatchNormalization's
// arithmetic, an activation, a residual Add) would otherwise be one more
// pass over the accumulator after all the blocks. planConvEpilogues picks,
// for each convolution the schedule blocks (the channels-last form, the
// depthwise one, the row form, and the f32 1×1 product within
// mmEpiMaxC and mmEpiMaxW), the region of
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
//     depthwise row form without a multiplier (conv_dwmult.go) with a
//     block of a whole vector of columns or half of one, mm: the NCHW
//     1×1 product,
//     mmnhwc and mmnchw: the channels-last 1×1 product with a
//     channels-last or NCHW result; bits 32 or 16, the block of a 32- or
//     64-bit accumulator), the region's other generics (the convolution's
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

// mmEpiMaxC and mmEpiMaxW bound the 1×1 convolutions whose epilogue is
// fused into the product's block: at most 256 input channels (the
// contraction schedule's KC) and 256 × 256 filter elements (its MC × KC
// block of W, 256 KB), so that the filter stays in L2 across the column
// blocks.
const (
	mmEpiMaxC = 256
	mmEpiMaxW = 256 * 256
)

// planConvEpilogues fills fe.epiAttrs and fe.epiConv for the function's
// entry block; planLayout must have run.
func (fe *funcEmitter) planConvEpilogues() {
	fe.epiAttrs, fe.epiConv = nil, nil
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
		inR := map[niro.ValueID]bool{c.Result.ID: true}
		inOps := map[niro.Op]bool{op: true}
		vals := []niro.Value{c.Result}
		committed, root := 0, c.Result
		// Without an epilogue generic of its own (the row form without
		// bias, f32 or f64) the convolution needs at least one op.
		if !c.HasBias() && !isHalf(rt.Elem) && (form == "rows" || form == "mm" || form == "dwrows" || form == "dwrowsh") {
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
			if next == nil || !epilogueOp(next, rt, last, fe) || claimed[next.Results()[0].ID] {
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
		bits := "32"
		if rt.Elem == niro.F64 {
			bits = "16"
		}
		for _, v := range vals[:committed] {
			claimed[v.ID] = true
			if v.ID == root.ID {
				fe.epiAttrs[name(v)] = "niro.epi_" + form + bits
			} else {
				fe.epiAttrs[name(v)] = "niro.conv_epi"
			}
		}
		fe.epiConv[c.Result.ID] = true
	}
}

// epilogueForm returns the scheduled form of a 2-D convolution whose
// epilogue can be fused ("nhwc", "nchw", "rows", "dwrows", "dwrowsh",
// "mm", "mmnhwc" or "mmnchw"), or false: the dispatch of conv, restricted to the
// one-group channels-last form, the depthwise one, the row form, the
// depthwise row form (k = 1, NCHW) and the f32 1×1 products within
// mmEpiMaxC and mmEpiMaxW.
func (fe *funcEmitter) epilogueForm(op *niro.Conv) (string, bool) {
	if !conv2DStatic(op) {
		return "", false
	}
	rt, _ := rankedTensor(op.Result)
	xt, _ := rankedTensor(op.X)
	wt, _ := rankedTensor(op.W)
	M, C, KH, KW := wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]
	if M < 2 || M%16 == 1 {
		return "", false
	}
	if op.Groups != 1 {
		// Depthwise (depthwiseNHWC): the channels-last block.
		if op.Groups != xt.Dims[1] || M != op.Groups {
			return "", false
		}
		// The plain row form (conv_dwmult.go), NCHW.
		if fe.useDWRows(op) {
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
			return "", false
		}
		if fe.channelsLast(op.Result) {
			return "nhwc", true
		}
		return "nchw", true
	}
	nhwcIO := fe.channelsLast(op.X) || fe.channelsLast(op.Result)
	if KH == 1 && KW == 1 {
		// A matrix product (conv_nhwc.go), f32, fused through its
		// tensor.expand_shape: NCHW ([M, C] times [N, C, OH·OW]), the
		// root tiled 1 × 8 × 1 × 16; channels-last ([N·OH·OW, C] times
		// [C, M], conv1x1NHWC), 1 × 1 × 8 × 16 for a channels-last
		// result and 1 × 16 × 1 × 8 for an NCHW one.
		switch {
		case rt.Elem != niro.F32 || xt.Elem != niro.F32:
			return "", false
		case C > mmEpiMaxC || M*C > mmEpiMaxW:
			// The fused block runs the whole contracted axis and reads
			// all of W per column block, without the contraction
			// schedule's KC and MC cache blocks: slower past one such
			// block (docs/performance.md).
			return "", false
		case !nhwcIO:
			return "mm", true
		case fe.channelsLast(op.Result):
			return "mmnhwc", true
		}
		return "mmnchw", true
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
