package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Sequence ops: ReverseSequence, CausalConvWithState and LinearAttention,
// decomposed into Niro ops (docs/ops.md, "Sequence ops").

// reverseSequenceConv maps ReverseSequence: along time_axis, the first
// sequence_lens[b] elements of batch entry b are reversed and the rest
// kept. It is one GatherElements along the time axis with the index
// t < L ? L − 1 − t : t, L = sequence_lens clamped to [0, T] (a length
// beyond T reverses the whole entry, as the reference's slicing does).
func reverseSequenceConv(nc *nodeCtx) error {
	x, lens := nc.in(0), nc.in(1)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	r := len(dims)
	if r < 2 {
		return nc.errorf("input must have rank 2 or more, has rank %d", r)
	}
	ba, ta := nc.attrInt("batch_axis", 1), nc.attrInt("time_axis", 0)
	if ba < 0 || ba > 1 || ta < 0 || ta > 1 || ba == ta {
		return nc.errorf("batch_axis %d and time_axis %d must be 0 and 1 in some order", ba, ta)
	}
	b, t := int(ba), int(ta)
	lt := tensorOf(lens)
	if !lt.Elem.IsInt() {
		return nc.errorf("sequence_lens must be an integer tensor, has type %s", lt)
	}
	if lt.Unranked || lt.Rank() != 1 || lt.Dims[0] != dims[b] {
		return nc.errorf("sequence_lens must have shape [%d] (the batch extent), has type %s", dims[b], lt)
	}
	small := make([]int64, r)
	for i := range small {
		small[i] = 1
	}
	small[b] = dims[b]
	l := nc.reshape(nc.cast(lens, niro.I64), append([]int64{}, small...))
	l = nc.bin(niro.Min, nc.bin(niro.Max, l, nc.scalar(niro.I64, 0)), nc.scalar(niro.I64, float64(dims[t])))
	small[t] = dims[t]
	ti := nc.iota(niro.I64, small, t)
	rev := nc.bin(niro.Sub, nc.bin(niro.Sub, l, nc.scalar(niro.I64, 1)), ti)
	idx := nc.sel(nc.cmp(niro.Lt, ti, l), rev, ti)
	if r > 2 {
		idx = nc.op(&niro.Broadcast{Shape: append([]int64{}, dims...), X: idx})
	}
	nc.out(0, nc.op(&niro.GatherElements{Axis: t, X: x, Indices: idx}))
	return nil
}

// causalConvConv maps CausalConvWithState: padded = Concat(past_state or
// zeros, input) along the length axis; output = the depthwise Conv
// (group = channels, no padding) of padded with the weight and bias, then
// x·sigmoid(x) for activation silu or swish (in f32 on 16-bit types);
// present_state = the last k − 1 positions of padded.
func causalConvConv(nc *nodeCtx) error {
	x, w := nc.in(0), nc.in(1)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	wd, ok := nc.staticDims(w)
	if !ok {
		return nc.err
	}
	nc.requireFloat(x)
	nc.sameElem(0, 1)
	if nc.err != nil {
		return nc.err
	}
	if len(dims) != 3 {
		return nc.errorf("input must have rank 3 (batch_size, channels, length), has shape %v", dims)
	}
	bsz, c, l := dims[0], dims[1], dims[2]
	if len(wd) != 3 || wd[0] != c || wd[1] != 1 || wd[2] < 1 {
		return nc.errorf("weight must have shape (%d, 1, k) with k ≥ 1, has shape %v", c, wd)
	}
	k := wd[2]
	act := nc.attrString("activation", "none")
	if act != "none" && act != "silu" && act != "swish" {
		return nc.errorf("activation %q is not one of none, silu, swish", act)
	}
	state := []int64{bsz, c, k - 1}
	padded := x
	if k > 1 {
		var past niro.Value
		if nc.has(3) {
			nc.sameElem(0, 3)
			past = nc.in(3)
			if pt := tensorOf(past); pt.Unranked || !pt.HasStaticShape() || len(pt.Dims) != 3 || pt.Dims[0] != bsz || pt.Dims[1] != c || pt.Dims[2] != k-1 {
				return nc.errorf("past_state must have shape %v, has type %s", state, pt)
			}
		} else {
			past = nc.op(&niro.Broadcast{Shape: state, X: nc.like(x, 0)})
		}
		padded = nc.op(&niro.Concat{Axis: 2, Inputs: []niro.Value{past, x}})
	}
	conv := &niro.Conv{Strides: []int64{1}, Dilations: []int64{1}, Pads: []int64{0, 0}, Groups: c, X: padded, W: w}
	if nc.has(2) {
		nc.sameElem(0, 2)
		if bt := tensorOf(nc.in(2)); bt.Unranked || bt.Rank() != 1 || bt.Dims[0] != c {
			return nc.errorf("bias must have shape [%d], has type %s", c, bt)
		}
		conv.B = nc.in(2)
	}
	y := nc.op(conv)
	if act != "none" {
		y = nc.inF32(y, func(v niro.Value) niro.Value { return nc.bin(niro.Mul, v, nc.sigmoid(v)) })
	}
	nc.out(0, y)
	if len(nc.n.Outputs) > 1 {
		start := l
		if k == 1 {
			start = 0 // an empty slice reads from index 0
		}
		nc.out(1, nc.sliceRange(padded, []int64{bsz, c, l + k - 1}, []int64{0, 0, start}, []int64{1, 1, 1}, state))
	}
	return nil
}

// linearAttentionConv maps LinearAttention, the recurrence of the
// reference in f32, as one loop over the T time steps (static; never
// unrolled): the loop scans Q, K, V (and decay and beta) along their time
// axis, carries the state and stacks o_t along the time axis. A single
// step (T = 1, a decode step) is that step alone, without the loop. Per step t,
// with S the (B, H_kv, d_k, d_v) state (past_state, or zeros):
//
//	gated:  S = S · exp(g_t)              (g per head or per key dim)
//	delta:  v_t = β_t · (v_t − k_tᵀS)     (k_tᵀS a MatMul over d_k)
//	        S = S + k_t ⊗ v_t             (an exact outer product)
//	        o_t = scale · (q_t S_h)       (S_h: the KV head of each query head)
//
// then output = o in (B, T, H_q·d_v) cast to the query's type and
// present_state = S cast to past_state's type (the query's without it).
func linearAttentionConv(nc *nodeCtx) error {
	q, k, v := nc.in(0), nc.in(1), nc.in(2)
	rule := nc.attrString("update_rule", "gated_delta")
	gating, delta := false, false
	switch rule {
	case "linear":
	case "gated":
		gating = true
	case "delta":
		delta = true
	case "gated_delta":
		gating, delta = true, true
	default:
		return nc.errorf("update_rule %q is not one of linear, gated, delta, gated_delta", rule)
	}
	hq, hkv := nc.attrInt("q_num_heads", 0), nc.attrInt("kv_num_heads", 0)
	if nc.attr("q_num_heads") == nil || nc.attr("kv_num_heads") == nil {
		return nc.errorf("attributes q_num_heads and kv_num_heads are required")
	}
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 {
		return nc.errorf("q_num_heads (%d) must be a positive multiple of kv_num_heads (%d)", hq, hkv)
	}
	if gating != nc.has(4) {
		return nc.errorf("update_rule %q %s the decay input", rule, map[bool]string{true: "needs", false: "forbids"}[gating])
	}
	if delta != nc.has(5) {
		return nc.errorf("update_rule %q %s the beta input", rule, map[bool]string{true: "needs", false: "forbids"}[delta])
	}
	nc.requireFloat(q)
	nc.sameElem(0, 1)
	nc.sameElem(0, 2)
	var qd, kd, vd []int64
	var ok bool
	if qd, ok = nc.staticDims(q); !ok {
		return nc.err
	}
	if kd, ok = nc.staticDims(k); !ok {
		return nc.err
	}
	if vd, ok = nc.staticDims(v); !ok {
		return nc.err
	}
	if nc.err != nil {
		return nc.err
	}
	if len(qd) != 3 || len(kd) != 3 || len(vd) != 3 {
		return nc.errorf("query, key and value must have rank 3 (B, T, H·D), have shapes %v, %v, %v", qd, kd, vd)
	}
	b, t := qd[0], qd[1]
	if qd[2]%hq != 0 || kd[2]%hkv != 0 || vd[2]%hkv != 0 {
		return nc.errorf("the last extents of query %v, key %v and value %v must divide by q_num_heads %d, kv_num_heads %d", qd, kd, vd, hq, hkv)
	}
	dk, dv := qd[2]/hq, vd[2]/hkv
	if kd[0] != b || kd[1] != t || kd[2] != hkv*dk || vd[0] != b || vd[1] != t {
		return nc.errorf("key %v and value %v do not match query %v with d_k = %d", kd, vd, qd, dk)
	}
	if t == 0 {
		nc.notYet("LinearAttention over an empty sequence is not compiled")
		return nc.err
	}
	f := niro.F32
	wide := func(x niro.Value) niro.Value {
		if elem(x) != f {
			return nc.cast(x, f)
		}
		return x
	}
	// heads views (B, T, H·D) as (B, T, H, D) in f32: the loop scans the
	// time axis 1, whose slices (B, H, D) are contiguous.
	heads := func(x niro.Value, h, d int64) niro.Value {
		return nc.reshape(wide(x), []int64{b, t, h, d})
	}
	q4, k4, v4 := heads(q, hq, dk), heads(k, hkv, dk), heads(v, hkv, dv)
	var g4, beta4 niro.Value
	perKey := false
	if gating {
		nc.sameElem(0, 4)
		gd, ok := nc.staticDims(nc.in(4))
		if !ok {
			return nc.err
		}
		switch {
		case len(gd) != 3 || gd[0] != b || gd[1] != t:
			return nc.errorf("decay must have shape (%d, %d, H_kv or H_kv·d_k), has %v", b, t, gd)
		case gd[2] == hkv:
			g4 = heads(nc.in(4), hkv, 1)
		case gd[2] == hkv*dk:
			g4, perKey = heads(nc.in(4), hkv, dk), true
		default:
			return nc.errorf("decay's last extent %d must be kv_num_heads (%d) or kv_num_heads·d_k (%d)", gd[2], hkv, hkv*dk)
		}
	}
	if delta {
		nc.sameElem(0, 5)
		bd, ok := nc.staticDims(nc.in(5))
		if !ok {
			return nc.err
		}
		if len(bd) != 3 || bd[0] != b || bd[1] != t || bd[2] != hkv && bd[2] != 1 {
			return nc.errorf("beta must have shape (%d, %d, %d or 1), has %v", b, t, hkv, bd)
		}
		beta4 = heads(nc.in(5), bd[2], 1)
	}
	sd := []int64{b, hkv, dk, dv}
	stateElem := elem(q)
	var s niro.Value
	if nc.has(3) {
		st := tensorOf(nc.in(3))
		if st.Unranked || len(st.Dims) != 4 || st.Dims[0] != b || st.Dims[1] != hkv || st.Dims[2] != dk || st.Dims[3] != dv {
			return nc.errorf("past_state must have shape %v, has type %s", sd, st)
		}
		if !st.Elem.IsFloat() {
			return nc.errorf("past_state must have float elements, has type %s", st)
		}
		stateElem = st.Elem
		s = wide(nc.in(3))
	} else {
		s = nc.op(&niro.Broadcast{Shape: sd, X: nc.scalar(f, 0)})
	}
	scale := float64(float32(nc.attrFloat("scale", 0)))
	if scale == 0 {
		scale = float64(float32(1 / math.Sqrt(float64(dk))))
	}
	if nc.err != nil {
		return nc.err
	}
	group := hq / hkv
	// The loop: scan inputs q4, k4, v4 (and g4, beta4) along the time
	// axis 1, the state carried, o_t stacked along axis 1.
	lp := &niro.Loop{Init: []niro.Value{s}, Scans: []niro.Value{q4, k4, v4}, ScanOutAxes: []int{1}, ScanOutReverse: []bool{false}}
	if gating {
		lp.Scans = append(lp.Scans, g4)
	}
	if delta {
		lp.Scans = append(lp.Scans, beta4)
	}
	lp.ScanInAxes = make([]int, len(lp.Scans))
	for i := range lp.ScanInAxes {
		lp.ScanInAxes[i] = 1
	}
	lp.ScanInReverse = make([]bool, len(lp.Scans))
	// stepOf writes one step on the state st and the step's slices xs
	// (q, k, v, then decay and beta when present; each (B, H, D)) and
	// returns the next state and o_t (B, H_q, d_v).
	stepOf := func(st niro.Value, xs []niro.Value) (niro.Value, niro.Value) {
		// step views a slice (B, H, D) as (B, H, 1, D).
		step := func(x niro.Value) niro.Value {
			d := tensorOf(x).Dims
			return nc.reshape(x, []int64{d[0], d[1], 1, d[2]})
		}
		qt, kt, vt := step(xs[0]), step(xs[1]), step(xs[2])
		next := 3
		if gating {
			a := nc.un(niro.Exp, step(xs[next]))
			next++
			if perKey {
				a = nc.reshape(a, []int64{b, hkv, dk, 1})
			}
			st = nc.bin(niro.Mul, st, a)
		}
		if delta {
			vt = nc.bin(niro.Mul, step(xs[next]), nc.bin(niro.Sub, vt, nc.matmulOp(kt, st)))
		}
		st = nc.bin(niro.Add, st, nc.bin(niro.Mul, nc.reshape(kt, []int64{b, hkv, dk, 1}), vt))
		read := st
		if group > 1 {
			read = nc.reshape(st, []int64{b, hkv, 1, dk, dv})
			read = nc.op(&niro.Broadcast{Shape: []int64{b, hkv, group, dk, dv}, X: read})
			read = nc.reshape(read, []int64{b, hq, dk, dv})
		}
		return st, nc.reshape(nc.bin(niro.Mul, nc.scalar(f, scale), nc.matmulOp(qt, read)), []int64{b, hq, dv})
	}
	var o niro.Value
	if t == 1 {
		// One step (a decode step): the step itself, with no loop around
		// it.
		xs := make([]niro.Value, len(lp.Scans))
		for i, x := range lp.Scans {
			d := tensorOf(x).Dims
			xs[i] = nc.reshape(x, []int64{d[0], d[2], d[3]})
		}
		s, o = stepOf(s, xs)
	} else {
		argTypes, err := lp.BodyArgTypes()
		if err != nil {
			return nc.errorf("%v", err)
		}
		blk := &niro.Block{}
		for _, at := range argTypes {
			blk.Args = append(blk.Args, nc.c.fn.NewValue(at))
		}
		saved := nc.e
		nc.e = &emitter{blk: blk, loc: saved.loc}
		st, ot := stepOf(blk.Args[1], blk.Args[2:])
		nc.e.add(&niro.Yield{Values: []niro.Value{st, ot}})
		nc.e = saved
		if nc.err != nil {
			return nc.err
		}
		lp.Body = &niro.Region{Blocks: []*niro.Block{blk}}
		lp.Res = []niro.Value{nc.c.fn.NewValue(tensorOf(s)), nc.c.fn.NewValue(niro.TensorType{Elem: f, Dims: []int64{b, t, hq, dv}})}
		nc.e.add(lp)
		s, o = lp.Res[0], lp.Res[1]
	}
	o = nc.reshape(o, []int64{b, t, hq * dv})
	if elem(q) != f {
		o = nc.cast(o, elem(q))
	}
	nc.out(0, o)
	if len(nc.n.Outputs) > 1 {
		if stateElem != f {
			s = nc.cast(s, stateElem)
		}
		nc.out(1, s)
	}
	return nil
}

func init() {
	register("ReverseSequence",
		opSpec{Since: 10, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"batch_axis", "time_axis"}, Convert: reverseSequenceConv})
	register("CausalConvWithState",
		opSpec{Since: 27, In: [2]int{2, 4}, Out: [2]int{1, 2}, Attrs: []string{"activation"}, Convert: causalConvConv})
	register("LinearAttention",
		opSpec{Since: 27, In: [2]int{3, 6}, Out: [2]int{1, 2}, Attrs: []string{"update_rule", "scale", "q_num_heads", "kv_num_heads", "chunk_size"}, Convert: linearAttentionConv})
}
