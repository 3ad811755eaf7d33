package emit

import "github.com/niro-dev/niro/niro"

// Channels-last values between convolutions. Every 2-D convolution is
// computed channels-last (conv_nhwc.go, conv_general.go); with NCHW at
// each op boundary it would gather its input from NCHW and write its
// result back to NCHW, and the element-wise ops between two convolutions
// (a BatchNormalization's arithmetic, an activation, a residual Add) would
// run on NCHW tensors in between. planLayout picks the 4-D values that
// are instead kept as N×H×W×C tensors inside the function:
//
//   - a value can be channels-last if a 2-D convolution, a 2-D pool or an
//     element-wise Binary or Unary op defines it; for an element-wise op, at least one
//     operand must be channels-last and every channels-last operand must
//     have the result's shape (the others, NCHW tensors or broadcast
//     parameters such as a C×1×1 scale, are read through a permuted map);
//   - every use of it must be the input X of a 2-D convolution or pool or
//     an operand of a channels-last element-wise op, in the function's
//     entry block. A value returned, reshaped or read by any other op
//     stays NCHW, so the layout changes only at the graph's edges (and at
//     ops that do not carry it).
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
	def := map[niro.ValueID]niro.Op{}
	for _, op := range entry.Ops {
		for _, r := range op.Results() {
			def[r.ID] = op
		}
	}
	cand := map[niro.ValueID]bool{}
	for _, op := range entry.Ops {
		switch op := op.(type) {
		case *niro.Conv:
			if conv2DStatic(op) {
				cand[op.Result.ID] = true
			}
		case *niro.Pool:
			if pool2DStatic(op) {
				cand[op.Result.ID] = true
			}
		case *niro.Binary, *niro.Unary:
			r := op.Results()[0]
			if t, ok := rankedTensor(r); ok && t.Rank() == 4 && t.HasStaticShape() && isFloat(t.Elem) {
				cand[r.ID] = true
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
		for _, op := range entry.Ops {
			switch o := op.(type) {
			case *niro.Conv:
				if !conv2DStatic(o) {
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
			case *niro.Binary, *niro.Unary:
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
			}
			for _, v := range op.Operands() {
				drop(v.ID)
			}
		}
	}
	fe.nhwc = cand
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

// channelsLast reports whether v is kept N×H×W×C.
func (fe *funcEmitter) channelsLast(v niro.Value) bool { return fe.nhwc[v.ID] }

// nhwcDims returns NCHW dims in NHWC order.
func nhwcDims(d []int64) []int64 { return []int64{d[0], d[2], d[3], d[1]} }

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
func nhwcExprs(exprs []string) []string {
	to := map[string]string{"d0": "d0", "d1": "d3", "d2": "d1", "d3": "d2"}
	out := make([]string, len(exprs))
	for i, e := range exprs {
		if r, ok := to[e]; ok {
			out[i] = r
		} else {
			out[i] = e
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
	ins := make([]genericOperand, len(operands))
	for i, v := range operands {
		t, ok := rankedTensor(v)
		if !ok {
			fe.opErrorf(op, "%s %s: operand #%d must be a ranked tensor, has %s", op.Name(), name(res), i, typeName(v.Type))
			return
		}
		elem, err := scalarType(t.Elem)
		if err != nil {
			fe.typ(v)
			return
		}
		if fe.nhwc[v.ID] {
			ins[i] = genericOperand{name: name(v), typ: fe.typ(v), elem: elem, amap: identityMap(4)}
			continue
		}
		exprs, err := broadcastExprs(t.Dims, rt.Dims)
		if err != nil {
			fe.opErrorf(op, "%s %s: operand #%d %s does not broadcast to %s: %v", op.Name(), name(res), i, t, rt, err)
			return
		}
		ins[i] = genericOperand{name: name(v), typ: fe.typ(v), elem: elem, amap: affineMap(4, nhwcExprs(exprs))}
	}
	dst := fe.empty(nhwcDims(rt.Dims), relem, nil)
	out := genericOperand{name: dst, typ: fe.typ(res), elem: relem, amap: identityMap(4)}
	fe.generic(name(res), parallel(4), ins, out, "", func(args []string) string {
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
		"", func(args []string) string {
			y := args[0]
			if op.HasBias() {
				s := fe.tmp()
				fe.line("%s = arith.addf %s, %s : %s", s, y, fe.widen(xt.Elem, args[1]), acc)
				y = s
			}
			return fe.narrow(xt.Elem, y)
		})
}
