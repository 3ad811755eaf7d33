package emit

import (
	"fmt"
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// Channels-last values between convolutions. Every 2-D convolution is
// computed channels-last (conv_nhwc.go, conv_general.go); with NCHW at
// each op boundary it would gather its input from NCHW and write its
// result back to NCHW, and the ops between two convolutions (a
// BatchNormalization's arithmetic, an activation, a residual Add, a
// Concat of a skip connection, a Resize, a ConvTranspose's zero
// insertion) would run on NCHW tensors in between. planLayout picks the
// values that are instead kept channels-last inside the function: a value
// of rank R ≥ 3 whose logical axes are (n, c, s1…) is stored as
// (n, s1…, c), axis 1 moved last (N×H×W×C for a 4-D one):
//
//   - a value can be channels-last if a 2-D convolution or a 2-D pool
//     defines it; or an element-wise Binary, Unary or Cast op with at
//     least one channels-last operand, every channels-last operand having
//     the result's shape (the others, NCHW tensors or broadcast parameters
//     such as a C×1×1 scale, are read through a permuted map); or a Concat
//     with at least one channels-last operand (each operand is copied into
//     its slot, an NCHW one read at the permuted positions); or a Gather
//     with a rank-1 index (Resize's taps), a Pad, a Slice or a Reshape
//     that keeps axes 0 and 1 (a ConvTranspose's zero insertion) of a
//     channels-last operand;
//   - every use of it must be one that takes it channels-last, in the
//     function's entry block: the input X of a 2-D convolution or pool, an
//     operand of such a channels-last element-wise op or Concat, the
//     operand of such a Gather, Pad, Slice or Reshape, or a Transpose
//     (which reads it through its permuted map and writes its own result
//     as usual). A value returned or read by any other op stays NCHW, so
//     the layout changes only at the graph's edges (and at ops that do not
//     carry it);
//   - a convolution that takes the row form (convRowsNCHW) keeps its input
//     and result NCHW, and so does one of one input and one output
//     channel (the plain depthwise row form, oneChannelRows).
//
// The choice changes no arithmetic: the same elements are computed by the
// same scalar bodies, only stored in another order.

// planLayout fills fe.nhwc for the function's entry block.
func (fe *funcEmitter) planLayout() {
	fe.nhwc = map[niro.ValueID]bool{}
	if fe.f.Body == nil || len(fe.f.Body.Blocks) != 1 {
		return
	}
	entry := fe.f.Body.Blocks[0]
	cand := map[niro.ValueID]bool{}
	for _, op := range entry.Ops {
		switch op := op.(type) {
		case *niro.Conv:
			if conv2DStatic(op) && !convRowsNCHW(op) {
				cand[op.Result.ID] = true
			}
		case *niro.Pool:
			if pool2DStatic(op) {
				cand[op.Result.ID] = true
			}
		case *niro.Binary, *niro.Unary, *niro.Cast:
			r := op.Results()[0]
			if t, ok := rankedTensor(r); ok && t.Rank() >= 3 && t.HasStaticShape() && isFloat(t.Elem) {
				cand[r.ID] = true
			}
		case *niro.Concat:
			if layoutStatic(op.Result) {
				cand[op.Result.ID] = true
			}
		case *niro.Gather:
			if it, ok := rankedTensor(op.Indices); ok && it.Rank() == 1 && layoutStatic(op.Result) && layoutStatic(op.X) {
				cand[op.Result.ID] = true
			}
		case *niro.Pad:
			if layoutStatic(op.Result) && layoutStatic(op.X) && len(op.Low) == len(op.High) {
				cand[op.Result.ID] = true
			}
		case *niro.Slice:
			if layoutStatic(op.Result) && layoutStatic(op.X) && len(op.Starts) == len(op.Steps) {
				cand[op.Result.ID] = true
			}
		case *niro.Reshape:
			xt, _ := rankedTensor(op.X)
			rt, _ := rankedTensor(op.Result)
			if layoutStatic(op.Result) && layoutStatic(op.X) && xt.Dims[0] == rt.Dims[0] && xt.Dims[1] == rt.Dims[1] {
				cand[op.Result.ID] = true
			}
		}
	}
	// Uses outside the entry block's plain operands (nested regions)
	// rule a value out.
	var nested func(rs []*niro.Region)
	nested = func(rs []*niro.Region) {
		for _, r := range rs {
			for _, b := range r.Blocks {
				for _, op := range b.Ops {
					for _, v := range op.Operands() {
						delete(cand, v.ID)
					}
					nested(op.Regions())
				}
			}
		}
	}
	for _, op := range entry.Ops {
		nested(op.Regions())
	}
	for changed := true; changed; {
		changed = false
		drop := func(id niro.ValueID) {
			if cand[id] {
				delete(cand, id)
				changed = true
			}
		}
		// carry is an op that keeps the layout of its operand x: its
		// result is channels-last exactly when x is.
		carry := func(x, r niro.Value) {
			if !cand[x.ID] || !cand[r.ID] {
				drop(x.ID)
				drop(r.ID)
			}
		}
		for _, op := range entry.Ops {
			switch o := op.(type) {
			case *niro.Conv:
				if !conv2DStatic(o) || convRowsNCHW(o) {
					drop(o.X.ID)
				}
				drop(o.W.ID)
				if o.HasBias() {
					drop(o.B.ID)
				}
				continue
			case *niro.Pool:
				if !pool2DStatic(o) {
					drop(o.X.ID)
				}
				continue
			case *niro.Binary, *niro.Unary, *niro.Cast:
				r := op.Results()[0]
				rt, _ := rankedTensor(r)
				any := false
				for _, v := range op.Operands() {
					if !cand[v.ID] {
						continue
					}
					any = true
					if t, ok := rankedTensor(v); !ok || !sameDims(t.Dims, rt.Dims) {
						drop(v.ID)
						drop(r.ID)
					}
				}
				if !any {
					drop(r.ID)
				}
				if !cand[r.ID] {
					for _, v := range op.Operands() {
						drop(v.ID)
					}
				}
				continue
			case *niro.Concat:
				any := false
				for _, v := range o.Inputs {
					any = any || cand[v.ID]
				}
				if !any {
					drop(o.Result.ID)
				}
				if !cand[o.Result.ID] {
					for _, v := range o.Inputs {
						drop(v.ID)
					}
				}
				continue
			case *niro.Gather:
				carry(o.X, o.Result)
				drop(o.Indices.ID)
				continue
			case *niro.Pad:
				carry(o.X, o.Result)
				drop(o.Value.ID)
				continue
			case *niro.Slice:
				carry(o.X, o.Result)
				continue
			case *niro.Reshape:
				carry(o.X, o.Result)
				continue
			case *niro.Transpose:
				if t, ok := rankedTensor(o.X); ok && len(o.Perm) == t.Rank() {
					continue
				}
			}
			for _, v := range op.Operands() {
				drop(v.ID)
			}
		}
	}
	fe.nhwc = cand
}

// layoutStatic reports whether v is a ranked tensor of rank 3 or more
// with a static shape: one that can be kept channels-last.
func layoutStatic(v niro.Value) bool {
	t, ok := rankedTensor(v)
	return ok && t.Rank() >= 3 && t.HasStaticShape()
}

// conv2DStatic reports whether op is a 2-D convolution with static shapes
// on a floating-point type: one that conv lowers channels-last.
func conv2DStatic(op *niro.Conv) bool {
	xt, ok1 := rankedTensor(op.X)
	rt, ok2 := rankedTensor(op.Result)
	wt, ok3 := rankedTensor(op.W)
	return ok1 && ok2 && ok3 && xt.Rank() == 4 && xt.HasStaticShape() && rt.HasStaticShape() && wt.HasStaticShape() && isFloat(xt.Elem) &&
		len(op.Pads) == 4 && len(op.Strides) == 2 && len(op.Dilations) == 2 && op.Groups >= 1 &&
		xt.Dims[1]%op.Groups == 0 && wt.Dims[0]%op.Groups == 0 && wt.Dims[1] == xt.Dims[1]/op.Groups
}

// convRowsNCHW reports whether op is a 2-D one-group convolution that
// conv_rows.go's row form takes when its input and result are NCHW (rows
// at least convRowsMinWidth wide, a kernel of at least 2×2; one output
// channel and column: conv_rows_t.go's transposed view, the 1×1 product
// over one output position's window and, for one input channel and a
// kernel of one row or column, over the taps). Such a
// convolution keeps both NCHW: the row form, vectorized along the output
// row, is faster there than the channels-last block (examples/unet, whose
// three convolutions are 16 wide: 128 µs with them channels-last, 106 µs
// in the row form).
func convRowsNCHW(op *niro.Conv) bool {
	wt, ok1 := rankedTensor(op.W)
	rt, ok2 := rankedTensor(op.Result)
	return ok1 && ok2 && op.Groups == 1 && wt.Rank() == 4 && rt.Rank() == 4 &&
		(useConvRows(rt.Dims[3], wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]) ||
			useConvRowsT(rt.Dims[2], rt.Dims[3], wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]) || fullKernel(op) ||
			tapsKernel(op) && tapsColumn(op) ||
			oneChannelRows(wt.Dims, rt.Dims))
}

// oneChannelRows reports whether a one-group convolution of filter dims w
// and result dims r has one input and one output channel (C = M = 1) and
// an output at least two columns wide: the plain depthwise row form
// (conv_dwmult.go, useDWRows) takes it with NCHW values and fuses its
// epilogue (dwrows, dwrowsh), so layout.go keeps it NCHW; a one-channel
// value has the same memory in either layout, so no value around it pays
// for that.
func oneChannelRows(w, r []int64) bool {
	return w[0] == 1 && w[1] == 1 && r[3] >= 2
}

// pool2DStatic reports whether op is a 2-D pool with static shapes on a
// floating-point type: one that pool lowers channels-last.
func pool2DStatic(op *niro.Pool) bool {
	xt, ok1 := rankedTensor(op.X)
	rt, ok2 := rankedTensor(op.Result)
	return ok1 && ok2 && xt.Rank() == 4 && xt.HasStaticShape() && rt.HasStaticShape() && isFloat(xt.Elem) &&
		len(op.Kernel) == 2 && len(op.Pads) == 4 && len(op.Strides) == 2 && len(op.Dilations) == 2
}

func isFloat(e niro.ScalarType) bool {
	return e == niro.F32 || e == niro.F64 || e == niro.F16 || e == niro.BF16
}

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// channelsLast reports whether v is kept channels-last (N×H×W×C).
func (fe *funcEmitter) channelsLast(v niro.Value) bool { return fe.nhwc[v.ID] }

// clPos returns the position, in a channels-last tensor of rank R, of
// logical axis a: 0 stays first, 1 (the channels) goes last, the others
// move one up.
func clPos(a, R int) int {
	switch {
	case a == 0:
		return 0
	case a == 1:
		return R - 1
	}
	return a - 1
}

// clOrder returns xs, given per logical axis, in channels-last order.
func clOrder[T any](xs []T) []T {
	out := make([]T, len(xs))
	for a, x := range xs {
		out[clPos(a, len(xs))] = x
	}
	return out
}

// nhwcDims returns NCHW dims in channels-last order (N×H×W×C for 4-D).
func nhwcDims(d []int64) []int64 { return clOrder(d) }

// layoutType returns the MLIR type of a channels-last value.
func (fe *funcEmitter) layoutType(v niro.Value) (string, bool) {
	if !fe.nhwc[v.ID] {
		return "", false
	}
	t, _ := rankedTensor(v)
	elem, err := scalarType(t.Elem)
	if err != nil {
		return "", false
	}
	return tensorTypeOf(nhwcDims(t.Dims), elem), true
}

// nhwcAxes reorders the gather coordinates of a convolution's input X,
// given in X's NCHW axis order, into the order of X's tensor: unchanged
// for NCHW, (n, h, w, c) for a channels-last X.
func (fe *funcEmitter) nhwcAxes(x niro.Value, axes []convAxis) []convAxis {
	if !fe.nhwc[x.ID] || len(axes) != 4 {
		return axes
	}
	return []convAxis{axes[0], axes[2], axes[3], axes[1]}
}

// nhwcExprs rewrites the exprs of an indexing map over NCHW loops
// (d0…d3) into the same map over NHWC loops.
func nhwcExprs(exprs []string) []string { return clExprs(4, exprs) }

// clExprs rewrites the exprs of an indexing map over the R logical loops
// (d0…dR-1, NCHW order) into the same map over the loops of a
// channels-last result.
func clExprs(R int, exprs []string) []string {
	out := make([]string, len(exprs))
	for i, e := range exprs {
		out[i] = e
		if len(e) > 1 && e[0] == 'd' {
			if j, err := strconv.Atoi(e[1:]); err == nil && j < R {
				out[i] = "d" + strconv.Itoa(clPos(j, R))
			}
		}
	}
	return out
}

// elementwiseNHWC lowers an element-wise op whose result is channels-last:
// one generic over (n, h, w, c), reading the channels-last operands
// directly and the others (NCHW, or broadcast) through permuted maps.
func (fe *funcEmitter) elementwiseNHWC(op niro.Op, res niro.Value, operands []niro.Value, body scalarBody) {
	rt, _ := rankedTensor(res)
	relem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	R := rt.Rank()
	ins := make([]genericOperand, len(operands))
	for i, v := range operands {
		t, elem, ok := fe.operandTensor(op, res, i, v)
		if !ok {
			return
		}
		if fe.nhwc[v.ID] {
			ins[i] = genericOperand{name: name(v), typ: fe.typ(v), elem: elem, amap: identityMap(R)}
			continue
		}
		exprs, err := broadcastExprs(t.Dims, rt.Dims)
		if err != nil {
			fe.opErrorf(op, "%s %s: operand #%d %s does not broadcast to %s: %v", op.Name(), name(res), i, t, rt, err)
			return
		}
		ins[i] = genericOperand{name: name(v), typ: fe.typ(v), elem: elem, amap: affineMap(R, clExprs(R, exprs))}
	}
	dst := fe.empty(nhwcDims(rt.Dims), relem, nil)
	out := genericOperand{name: dst, typ: fe.typ(res), elem: relem, amap: identityMap(R)}
	fe.generic(name(res), parallel(R), ins, out, "", func(args []string) string {
		y, err := body(args[:len(operands)])
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return args[len(operands)]
		}
		return y
	})
}

// nhwcEpilogue is convBackToNCHW for a channels-last result: the
// accumulator (N×OH×OW×M) read in its own order, the bias added, 16-bit
// floats rounded once.
func (fe *funcEmitter) nhwcEpilogue(op *niro.Conv, rt, xt niro.TensorType, elem, sum, accTyp, acc string) {
	res := op.Result
	ins := []genericOperand{{name: sum, typ: accTyp, elem: acc, amap: identityMap(4)}}
	if op.HasBias() {
		ins = append(ins, genericOperand{name: name(op.B), typ: fe.typ(op.B), elem: elem, amap: affineMap(4, []string{"d3"})})
	}
	fe.generic(name(res), parallel(4), ins,
		genericOperand{name: fe.empty(nhwcDims(rt.Dims), elem, nil), typ: fe.typ(res), elem: elem, amap: identityMap(4)},
		"", fe.biasBody(op, xt.Elem, acc))
}

// concatNHWC lowers a Concat whose result is channels-last: each operand
// is copied by a generic into its slice of the result (at its offset
// along the concatenated axis's channels-last position), reading it with
// tensor.extract, a channels-last operand in its order, an NCHW one (such
// as a skip connection from a graph input: the layout changes here, at
// the graph's edge) at the permuted position. The generic writes the
// slice in place. A tensor.insert_slice of the operand itself (or of an
// identity copy generic, which canonicalization folds away) would
// bufferize to a strided memref.copy, a call into the MLIR runtime
// library that copies element by element: a 12-column variant of
// examples/unet took 92 µs so, against 72 µs with the Concat NCHW or
// written by these generics (docs/performance.md). Shapes are static
// (planLayout).
func (fe *funcEmitter) concatNHWC(op *niro.Concat, rt niro.TensorType, elem string) {
	res := op.Result
	R := rt.Rank()
	pa := clPos(op.Axis, R)
	acc := fe.empty(nhwcDims(rt.Dims), elem, nil)
	last := -1
	for i, in := range op.Inputs {
		if it, _ := rankedTensor(in); !hasZeroExtent(it) {
			last = i
		}
	}
	if last < 0 {
		fe.line("%s = tensor.cast %s : %s to %s", name(res), acc, fe.typ(res), fe.typ(res))
		return
	}
	off := int64(0)
	for i, in := range op.Inputs {
		it, _ := rankedTensor(in)
		if hasZeroExtent(it) {
			continue
		}
		ielem, err := scalarType(it.Elem)
		if err != nil {
			fe.typ(in)
			return
		}
		dims := nhwcDims(it.Dims)
		// The slot drops the unit axes (a rank-reducing slice): MLIR's
		// unit-extent folding would otherwise wrap the generic in
		// reshapes, and eliminate-empty-tensors no longer sees that it
		// writes the slice.
		var kept []int64
		loop := make([]int, R) // the slot's loop of each axis; -1 for a unit one
		for p, d := range dims {
			loop[p] = -1
			if d != 1 {
				loop[p] = len(kept)
				kept = append(kept, d)
			}
		}
		if len(kept) == 0 {
			kept, loop[R-1] = []int64{1}, 0
		}
		K := len(kept)
		sliceTyp := tensorTypeOf(kept, ielem)
		offs := make([]int64, R)
		offs[pa] = off
		where := fmt.Sprintf("[%s] [%s] [%s]", dimList(offs), dimList(dims), dimList(ones(R)))
		slot := fe.tmp()
		fe.line("%s = tensor.extract_slice %s%s : %s to %s", slot, acc, where, fe.typ(res), sliceTyp)
		cl := fe.nhwc[in.ID]
		part := fe.tmp()
		fe.generic(part, parallel(K), nil,
			genericOperand{name: slot, typ: sliceTyp, elem: ielem, amap: identityMap(K)},
			"", func(args []string) string {
				idx := make([]string, R) // per channels-last axis
				for p := range idx {
					if loop[p] < 0 {
						idx[p] = fe.index(0)
					} else {
						idx[p] = fe.loopIndex(loop[p])
					}
				}
				coords := idx
				if !cl { // (n, c, s…) of the channels-last position
					coords = make([]string, R)
					for a := range coords {
						coords[a] = idx[clPos(a, R)]
					}
				}
				return fe.extract(name(in), fe.typ(in), coords)
			})
		dst := name(res)
		if i < last {
			dst = fe.tmp()
		}
		fe.line("%s = tensor.insert_slice %s into %s%s : %s into %s", dst, part, acc, where, sliceTyp, fe.typ(res))
		acc = dst
		off += it.Dims[op.Axis]
		if i == last {
			break
		}
	}
}

// gatherNHWC lowers a Gather with a rank-1 index of a channels-last X
// into a channels-last result: the generic runs over the result's
// channels-last loops and reads X at the same positions but the gathered
// axis's.
func (fe *funcEmitter) gatherNHWC(op *niro.Gather, rt, xt, it niro.TensorType, elem, ielem string) {
	res, x, ind := op.Result, op.X, op.Indices
	R := rt.Rank()
	pa := clPos(op.Axis, R)
	ext := fe.index(xt.Dims[op.Axis])
	dst := fe.empty(nhwcDims(rt.Dims), elem, nil)
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(ind), typ: fe.typ(ind), elem: ielem, amap: affineMap(R, []string{"d" + strconv.Itoa(pa)})}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			k := fe.wrapIndex(args[0], ielem, ext)
			coords := make([]string, R)
			for p := range coords {
				if p == pa {
					coords[p] = k
				} else {
					coords[p] = fe.loopIndex(p)
				}
			}
			return fe.extract(name(x), fe.typ(x), coords)
		})
}
