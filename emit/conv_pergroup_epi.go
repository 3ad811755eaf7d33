package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The fused epilogue of a per-group grouped convolution (conv_general.go,
// convPerGroup: one rank-8 generic (g, n′, oh, ow, m′, c′, kh, kw) into a
// [G, N, OH, OW, M/G] accumulator). A root tile must stay within one group
// and reach the accumulator through projected-permutation maps only: a
// slice of a tensor.collapse_shape with the tile's dynamic offsets does not
// bubble up in MLIR 22 (a reassociation group of more than one non-unit
// dimension needs static offsets), and fuse_into_containing_op cannot
// invert a non-projected output map. So the region's generics are written
// in a split view of the result: [N, G, Mg, OH, OW] (NCHW, loops n, g, m′,
// oh, ow) or [N, OH, OW, G, Mg] (channels-last, loops n, oh, ow, g, m′),
// result channel g·Mg + m′ at (g, m′):
//
//   - the read-back (convPerGroupEpilogueFused) reads the accumulator
//     through (g, n, oh, ow, m′) and the bias expanded to [G, Mg];
//   - every other region op is written by its own emitter through the one
//     path of the element-wise families (elementwise, which hands a region
//     value to elementwiseSplit): its region operands are split values, an
//     operand from outside the region (a BatchNormalization parameter
//     [M, 1, 1], a residual [N, M, OH, OW] or channels-last [N, OH, OW, M])
//     is tensor.expand_shape'd to the split shape at its channel axis (a
//     view, outside the tile loops) and read through the same map as
//     before with the channel loop split;
//   - the root's split result is collapsed (tensor.collapse_shape, after
//     the tile loops) into the 4-D value the rest of the function uses.
//
// The root is tagged niro.epi_gnchw<bits> or niro.epi_gnhwc<bits> and the
// convolution's generic niro.conv2dg_e; toolchain/conv.mlir tiles the root
// by one group's block (1 × 1 × 32|16 channels × 1 row × 8 columns, or the
// channels-last order), fuses the region, the convolution and its fill,
// and gives the convolution tile the rank-8 block's steps. The arithmetic
// of each element is unchanged: the same scalar bodies on the same
// accumulator value.

// epiSplit is the split view of one per-group convolution's epilogue
// region (planConvEpilogues).
type epiSplit struct {
	G, Mg int64
	S     int                     // spatial axes: 1, 2 or 3
	last  bool                    // channels-last result (2-D only)
	root  niro.ValueID            // the region's root
	names map[niro.ValueID]string // the split value of each region value written
	// view: not a per-group split but the row form's 4-D view of a 1-D
	// or 3-D one-channel result (conv_rows_view.go, elementwiseView).
	view bool
}

// splitDims returns the split view of a result of NCHW dims rt.
func (s *epiSplit) splitDims(rt []int64) []int64 {
	if s.last {
		return []int64{rt[0], rt[2], rt[3], s.G, s.Mg}
	}
	return append([]int64{rt[0], s.G, s.Mg}, rt[2:]...)
}

// rank is the rank of the split view: the result's rank plus one.
func (s *epiSplit) rank() int {
	return s.S + 3
}

// chLoop is the channel loop of the 4-D loops (n, m, oh, ow or n, oh, ow,
// m); in the split loops it becomes g (chLoop) and m′ (chLoop + 1).
func (s *epiSplit) chLoop() int {
	if s.last {
		return 3
	}
	return 1
}

// splitDst allocates the name of res's split value, gives it res's
// schedule tag and records it.
func (fe *funcEmitter) splitDst(s *epiSplit, res niro.Value) string {
	dst := fe.tmp()
	if a, ok := fe.epiAttrs[name(res)]; ok {
		fe.epiAttrs[dst] = a
	}
	s.names[res.ID] = dst
	return dst
}

// splitFinish writes, for the region's root, the collapse of its split
// value dst into res.
func (fe *funcEmitter) splitFinish(s *epiSplit, res niro.Value, dst string, elem string) {
	if res.ID != s.root {
		return
	}
	rt, _ := rankedTensor(res)
	re := "[[0], [1, 2]" + tailGroups(3, s.S) + "]"
	if s.last {
		re = "[[0], [1], [2], [3, 4]]"
	}
	fe.line("%s = tensor.collapse_shape %s %s : %s into %s", name(res), dst, re, tensorTypeOf(s.splitDims(rt.Dims), elem), fe.typ(res))
}

// elementwiseSplit writes an element-wise op of a per-group convolution's
// epilogue region in the split view (see above).
func (fe *funcEmitter) elementwiseSplit(s *epiSplit, op niro.Op, res niro.Value, operands []niro.Value, body scalarBody) {
	if s.view {
		fe.elementwiseView(s, op, res, operands, body)
		return
	}
	rt, _ := rankedTensor(res)
	relem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	R := s.rank()
	ch := s.chLoop()
	loop := func(j int) string {
		if j > ch {
			j++
		}
		return "d" + strconv.Itoa(j)
	}
	ins := make([]genericOperand, len(operands))
	for i, v := range operands {
		t, elem, ok := fe.operandTensor(op, res, i, v)
		if !ok {
			return
		}
		if sn, ok := s.names[v.ID]; ok {
			ins[i] = genericOperand{name: sn, typ: tensorTypeOf(s.splitDims(t.Dims), elem), elem: elem, amap: identityMap(R)}
			continue
		}
		// The operand's map over the 4-D loops, as elementwise and
		// elementwiseNHWC write it.
		dims := t.Dims
		var exprs []string
		switch {
		case s.last && fe.nhwc[v.ID]:
			dims, exprs = nhwcDims(t.Dims), dimNames(R-1)
		default:
			exprs, err = broadcastExprs(t.Dims, rt.Dims)
			if err != nil {
				fe.opErrorf(op, "%s %s: operand #%d %s does not broadcast to %s: %v", op.Name(), name(res), i, t, rt, err)
				return
			}
			if s.last {
				exprs = clExprs(R-1, exprs)
			}
		}
		// The channel axis (read through the channel loop) is expanded to
		// [G, Mg] and read through (g, m′); the other loops are renumbered.
		var out, groups []string
		var sdims []int64
		split := false
		for a, e := range exprs {
			at := strconv.Itoa(len(sdims))
			if e == "d"+strconv.Itoa(ch) {
				out = append(out, "d"+strconv.Itoa(ch), "d"+strconv.Itoa(ch+1))
				groups = append(groups, "["+at+", "+strconv.Itoa(len(sdims)+1)+"]")
				sdims = append(sdims, s.G, s.Mg)
				split = true
				continue
			}
			if len(e) > 1 && e[0] == 'd' {
				j, _ := strconv.Atoi(e[1:])
				e = loop(j)
			}
			out = append(out, e)
			groups = append(groups, "["+at+"]")
			sdims = append(sdims, dims[a])
		}
		vn, vt := name(v), fe.typ(v)
		if split {
			x := fe.tmp()
			st := tensorTypeOf(sdims, elem)
			fe.line("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s", x, vn, strings.Join(groups, ", "), dimList(sdims), vt, st)
			vn, vt = x, st
		}
		ins[i] = genericOperand{name: vn, typ: vt, elem: elem, amap: affineMap(R, out)}
	}
	sd := s.splitDims(rt.Dims)
	dst := fe.splitDst(s, res)
	out := genericOperand{name: fe.empty(sd, relem, nil), typ: tensorTypeOf(sd, relem), elem: relem, amap: identityMap(R)}
	fe.generic(dst, parallel(R), ins, out, "", func(args []string) string {
		y, err := body(args[:len(operands)])
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return args[len(operands)]
		}
		return y
	})
	fe.splitFinish(s, res, dst, relem)
}

// convPerGroupEpilogueFused writes the read-back of a per-group
// convolution whose epilogue is fused: the accumulator sum [G, N·OD, OH,
// OW, M/G] read in the split view, the bias added, 16-bit floats rounded
// once. A 2-D one reads it through (g, n, oh, ow, m′); a 1-D one (OD =
// OH = 1, loops n, g, m′, ow) through a rank-reducing slice [G, N, OW,
// M/G] (g, n, ow, m′), which the schedule merges with the root tile's
// slice (@conv_epi_slice_fuse), as the one-group 1-D block's (c1d); a 3-D
// one (loops n, g, m′, od, oh, ow) through the accumulator expanded to
// [G, N, OD, OH, OW, M/G] (g, n, od, oh, ow, m′), whose tile's slice the
// schedule bubbles up above the expand_shape (@conv_epi_mm_fuse), as the
// one-group 3-D block's (c3d). Every map is a projected permutation,
// which vectorization takes and fuse_into_containing_op inverts.
func (fe *funcEmitter) convPerGroupEpilogueFused(op *niro.Conv, rt niro.TensorType, g *convGeom, sum string) {
	s := fe.epiSplit[op.Result.ID]
	res := op.Result
	R := s.rank()
	accDims := []int64{g.G, g.N * g.o[0], g.o[1], g.o[2], g.mp}
	accExprs, biasExprs := []string{"d1", "d0", "d3", "d4", "d2"}, []string{"d1", "d2"}
	switch {
	case s.last:
		accExprs, biasExprs = []string{"d3", "d0", "d1", "d2", "d4"}, []string{"d3", "d4"}
	case s.S == 1:
		// [G, N, 1, OW, M/G] as [G, N, OW, M/G]: a rank-reducing slice,
		// which the schedule merges with the root tile's
		// (@conv_epi_slice_fuse; a map with a constant 0 result does not
		// vectorize).
		to := []int64{g.G, g.N, g.o[2], g.mp}
		t := fe.tmp()
		fe.line("%s = tensor.extract_slice %s[0, 0, 0, 0, 0] [%d, %d, 1, %d, %d] [1, 1, 1, 1, 1] : %s to %s", t, sum, to[0], to[1], to[2], to[3], tensorTypeOf(accDims, g.acc), tensorTypeOf(to, g.acc))
		sum, accDims = t, to
		accExprs = []string{"d1", "d0", "d3", "d2"}
	case s.S == 3:
		full := []int64{g.G, g.N, g.o[0], g.o[1], g.o[2], g.mp}
		t := fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0], [1, 2], [3], [4], [5]] output_shape [%s] : %s into %s", t, sum, dimList(full), tensorTypeOf(accDims, g.acc), tensorTypeOf(full, g.acc))
		sum, accDims = t, full
		accExprs = []string{"d1", "d0", "d3", "d4", "d5", "d2"}
	}
	ins := []genericOperand{{name: sum, typ: tensorTypeOf(accDims, g.acc), elem: g.acc, amap: affineMap(R, accExprs)}}
	if op.HasBias() {
		bt := tensorTypeOf([]int64{g.G, g.Mg}, g.elem)
		b := fe.tmp()
		fe.line("%s = tensor.expand_shape %s [[0, 1]] output_shape [%d, %d] : %s into %s", b, name(op.B), g.G, g.Mg, fe.typ(op.B), bt)
		ins = append(ins, genericOperand{name: b, typ: bt, elem: g.elem, amap: affineMap(R, biasExprs)})
	}
	sd := s.splitDims(rt.Dims)
	dst := fe.splitDst(s, res)
	fe.generic(dst, parallel(R), ins,
		genericOperand{name: fe.empty(sd, g.elem, nil), typ: tensorTypeOf(sd, g.elem), elem: g.elem, amap: identityMap(R)},
		"", func(args []string) string {
			y := args[0]
			if op.HasBias() {
				t := fe.tmp()
				fe.line("%s = arith.addf %s, %s : %s", t, y, fe.widen(g.xElem, args[1]), g.acc)
				y = t
			}
			return fe.narrow(g.xElem, y)
		})
	fe.splitFinish(s, res, dst, g.elem)
}

// perGroupBlock16 reports whether a 4-byte accumulator's per-group block
// of Mg channels takes the 16-channel block (niro.epi_gn…16) instead of the
// 32-channel one: where the 32-channel block would leave a remainder of
// 17 to 31 channels, a vector of that many lanes, which LLVM 22 lowers
// badly (ShuffleNet's 1×240×28×28 → 60, 3 groups of 20, 1×1, with Relu:
// 1.36 ms with the 32-channel block, 0.16 ms with the 16-channel one, 16 +
// 4 channels; 3 groups of 24: 1.77 → 0.17 ms; of 28: 2.22 → 0.20 ms;
// docs/performance.md). Remainders of up to 16 lanes are not slow (3
// groups of 12 and 14: 133–139 µs).
func perGroupBlock16(Mg int64) bool {
	return chanBlock16(Mg)
}

// perGroupBlock8 reports whether an 8-byte accumulator's per-group block
// of Mg channels takes the 8-channel block (niro.conv2dg8, niro.epi_gn…8)
// instead of the 16-channel one: where the 16-channel block would leave a
// remainder of 9 to 15 channels, a vector of that many f64 lanes, which
// LLVM 22 lowers badly, as for the one-group block (chanBlock8;
// docs/performance.md has the figures).
func perGroupBlock8(Mg int64) bool {
	return chanBlock8(Mg)
}

// splitForm reports whether an epilogue form is the per-group one, its
// region written in the split view: gnchw and gnhwc (2-D), gn1d (1-D,
// loops n, g, m′, ow) and gn3d (3-D, loops n, g, m′, od, oh, ow).
func splitForm(form string) bool {
	switch form {
	case "gnchw", "gnhwc", "gn1d", "gn3d":
		return true
	}
	return false
}
