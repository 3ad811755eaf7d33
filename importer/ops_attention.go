package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Attention (opsets 23 and 24), RotaryEmbedding, SwiGLU and TensorScatter,
// decomposed into Niro ops in the order the ONNX reference computes them.
// docs/ops.md, "Attention and its companions", describes each
// decomposition.

func init() {
	attnAttrs := []string{"is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode", "scale", "softcap", "softmax_precision"}
	register("Attention",
		opSpec{Since: 23, In: [2]int{3, 6}, Out: [2]int{1, 4}, Attrs: attnAttrs, Convert: attentionConv},
		opSpec{Since: 24, In: [2]int{3, 7}, Out: [2]int{1, 4}, Attrs: attnAttrs, Convert: attentionConv})
	register("RotaryEmbedding", opSpec{Since: 23, In: [2]int{3, 4}, Out: [2]int{1, 1},
		Attrs: []string{"interleaved", "num_heads", "rotary_embedding_dim"}, Convert: rotaryConv})
	register("SwiGLU", opSpec{Since: 28, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"alpha"}, Convert: swigluConv})
	register("TensorScatter", opSpec{Since: 24, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: []string{"axis", "mode"}, Convert: tensorScatterConv})
}

// attnHeads returns the 4-D [batch, heads, sequence, head size] view of an
// Attention operand: a 4-D operand as it is, a 3-D [batch, sequence,
// heads·head size] one reshaped to [batch, sequence, heads, head size] and
// transposed.
func (nc *nodeCtx) attnHeads(x niro.Value, heads int64, what string) (niro.Value, []int64) {
	d, ok := nc.staticDims(x)
	if !ok {
		return x, make([]int64, 4)
	}
	if len(d) == 4 {
		return x, d
	}
	if heads <= 0 || d[2]%heads != 0 {
		nc.fail("%s %s: 3-D inputs need q_num_heads and kv_num_heads, and %d heads must divide the hidden size %d", what, tensorOf(x), heads, d[2])
		return x, make([]int64, 4)
	}
	x = nc.reshape(x, []int64{d[0], d[1], heads, d[2] / heads})
	x = nc.transposeOp(x, []int{0, 2, 1, 3})
	return x, []int64{d[0], heads, d[1], d[2] / heads}
}

// attentionConv maps Attention. With Q [B, Hq, S, D], K [B, Hk, L, D] and
// V [B, Hk, L, Dv] (3-D operands viewed so), past caches [B, Hk, P, ·]:
//
//	K' = concat(past_key, K), V' = concat(past_value, V)   (T = P + L)
//	s  = sqrt(scale), scale = 1/sqrt(D) by default
//	qk = (Q·s) @ transpose(K'·s)        GQA: Q as [B, Hk, (Hq/Hk)·S, D]
//	c  = softcap·tanh(qk / softcap)     when softcap > 0
//	x  = c + bias                        bias: mask (bool → 0 / −inf, padded
//	                                     with −inf to T), causal, nonpad
//	p  = softmax(x) on the rows of x as a 2-D [B·Hq·S, T] matrix
//	p  = 0 on rows whose bias is all −inf
//	Y  = p @ V'                          GQA as for qk
//
// The computation runs in f32 for 16-bit floats and each output is rounded
// once.
func attentionConv(nc *nodeCtx) error {
	q, k, v := nc.in(0), nc.in(1), nc.in(2)
	for i := 0; i < 3; i++ {
		nc.requireFloat(nc.in(i))
	}
	nc.sameElem(0, 1)
	if nc.err != nil {
		return nc.err
	}
	t1, t2 := elem(q), elem(v)
	ct := computeElem(t1)
	r := nc.rank(q)
	if nc.err == nil && (r != 3 && r != 4 || nc.rank(k) != r || nc.rank(v) != r) {
		return nc.errorf("Q, K and V must all be 3-D or all 4-D, are %s, %s and %s", tensorOf(q), tensorOf(k), tensorOf(v))
	}
	hqAttr, hkAttr := nc.attrInt("q_num_heads", 0), nc.attrInt("kv_num_heads", 0)
	q4, qd := nc.attnHeads(q, hqAttr, "Q")
	k4, kd := nc.attnHeads(k, hkAttr, "K")
	v4, vd := nc.attnHeads(v, hkAttr, "V")
	if nc.err != nil {
		return nc.err
	}
	b, hq, s, dq := qd[0], qd[1], qd[2], qd[3]
	hk, l, dv := kd[1], kd[2], vd[3]
	if kd[0] != b || vd[0] != b || kd[3] != dq || vd[1] != hk || vd[2] != l {
		return nc.errorf("Q %v, K %v and V %v (as [batch, heads, sequence, head size]) do not fit together", qd, kd, vd)
	}
	if hk <= 0 || hq%hk != 0 {
		return nc.errorf("kv_num_heads %d must divide q_num_heads %d", hk, hq)
	}
	// The caches.
	if nc.has(4) != nc.has(5) {
		return nc.errorf("past_key and past_value must be given together")
	}
	past := int64(0)
	if nc.has(4) {
		if nc.has(6) {
			return nc.errorf("nonpad_kv_seqlen cannot be combined with past_key and past_value")
		}
		pk, pv := nc.in(4), nc.in(5)
		pkd, ok1 := nc.staticDims(pk)
		pvd, ok2 := nc.staticDims(pv)
		if !ok1 || !ok2 {
			return nc.err
		}
		if len(pkd) != 4 || len(pvd) != 4 || pkd[0] != b || pkd[1] != hk || pkd[3] != dq || !equalDims(pvd[:2], pkd[:2]) || pvd[2] != pkd[2] || pvd[3] != dv {
			return nc.errorf("past_key %s and past_value %s must be [%d, %d, P, %d] and [%d, %d, P, %d]", tensorOf(pk), tensorOf(pv), b, hk, dq, b, hk, dv)
		}
		if elem(pk) != t1 || elem(pv) != t2 {
			return nc.errorf("past_key %s and past_value %s must have the element types of K and V", tensorOf(pk), tensorOf(pv))
		}
		past = pkd[2]
		k4 = nc.op(&niro.Concat{Axis: 2, Inputs: []niro.Value{pk, k4}})
		v4 = nc.op(&niro.Concat{Axis: 2, Inputs: []niro.Value{pv, v4}})
	}
	nc.out(1, k4)
	nc.out(2, v4)
	total := past + l

	// Scaled QKᵀ. The scale is split as the reference splits it: Q and K
	// are each multiplied by its square root.
	scale := 1 / math.Sqrt(float64(dq))
	if a := nc.attr("scale"); a != nil {
		scale = float64(a.Float)
	}
	sq := nc.scalar(ct, math.Sqrt(scale))
	qs := nc.bin(niro.Mul, nc.cast(q4, ct), sq)
	kt := nc.bin(niro.Mul, nc.transposeOp(nc.cast(k4, ct), []int{0, 1, 3, 2}), sq)
	vc := nc.cast(v4, ct)
	g := hq / hk
	var qk niro.Value
	if g > 1 {
		// Grouped-query attention: query head h reads key head h/g, so the
		// g query heads of one key head are one [g·S, D] matrix.
		qk = nc.matmulOp(nc.reshape(qs, []int64{b, hk, g * s, dq}), kt)
		qk = nc.reshape(qk, []int64{b, hq, s, total})
	} else {
		qk = nc.matmulOp(qs, kt)
	}
	capped := qk
	if c := float64(nc.attrFloat("softcap", 0)); c > 0 {
		cv := nc.scalar(ct, c)
		capped = nc.bin(niro.Mul, nc.un(niro.Tanh, nc.bin(niro.Div, qk, cv)), cv)
	}

	bias, guard := nc.attnBias(ct, b, s, total, past)
	if nc.err != nil {
		return nc.err
	}
	x := capped
	if bias != nil {
		x = nc.bin(niro.Add, capped, *bias)
	}

	// The softmax, in softmax_precision when it is given, as Softmax
	// computes it on the rows of a matrix.
	sp := t1
	if nc.attr("softmax_precision") != nil {
		var err error
		if sp, err = nc.dtypeAttr("softmax_precision", t1); err != nil {
			return err
		}
		if !sp.IsFloat() {
			return nc.errorf("softmax_precision must name a float type, names %s", sp)
		}
	}
	rows := []int64{b * hq * s, total}
	xs := nc.cast(nc.cast(nc.reshape(x, rows), sp), computeElem(sp))
	p := nc.cast(nc.cast(nc.softmax(xs, 1), sp), ct)
	p = nc.reshape(p, []int64{b, hq, s, total})
	if guard {
		// A row whose bias is −inf everywhere attends to no key: its
		// probabilities are 0 (not the NaN of 0/0).
		allMasked := nc.cmp(niro.Eq, nc.reduce(niro.ReduceMax, *bias, []int{nc.rank(*bias) - 1}, true), nc.scalar(ct, math.Inf(-1)))
		p = nc.sel(allMasked, nc.scalar(ct, 0), p)
	}

	if len(nc.n.Outputs) > 3 && nc.n.Outputs[3] != nil {
		var qkOut niro.Value
		switch mode := nc.attrInt("qk_matmul_output_mode", 0); mode {
		case 0:
			qkOut = qk
		case 1:
			qkOut = capped
		case 2:
			qkOut = x
		case 3:
			qkOut = p
		default:
			return nc.errorf("qk_matmul_output_mode must be 0, 1, 2 or 3, is %d", mode)
		}
		nc.out(3, nc.cast(qkOut, t1))
	}

	var y niro.Value
	if g > 1 {
		y = nc.matmulOp(nc.reshape(p, []int64{b, hk, g * s, total}), vc)
		y = nc.reshape(y, []int64{b, hq, s, dv})
	} else {
		y = nc.matmulOp(p, vc)
	}
	if r == 3 {
		y = nc.reshape(nc.transposeOp(y, []int{0, 2, 1, 3}), []int64{b, s, hq * dv})
	}
	nc.out(0, nc.cast(y, t1))
	return nil
}

// attnBias builds Attention's additive bias in element type ct, of a shape
// that broadcasts against the [B, Hq, S, T] scores: the mask (a bool mask
// as 0 where true and −inf where false; its last axis padded with −inf to
// T), plus the causal bias (−inf where key j > query i + offset), plus the
// padding bias of nonpad_kv_seqlen (−inf at keys j ≥ nonpad[b]). The
// causal offset is the past length, or nonpad[b] − S per batch when
// nonpad_kv_seqlen is given without a cache. It returns nil when there is
// no bias, and whether a row of it may be −inf throughout (a run-time mask
// or per-batch lengths), which the caller must guard.
func (nc *nodeCtx) attnBias(ct niro.ScalarType, b, s, total, past int64) (*niro.Value, bool) {
	negInf, zero := nc.scalar(ct, math.Inf(-1)), nc.scalar(ct, 0)
	var bias *niro.Value
	add := func(v niro.Value) {
		if bias == nil {
			bias = &v
			return
		}
		sum := nc.bin(niro.Add, *bias, v)
		bias = &sum
	}
	guard := false
	if nc.has(3) {
		m := nc.in(3)
		md, ok := nc.staticDims(m)
		if !ok {
			return nil, false
		}
		if len(md) == 0 || md[len(md)-1] > total {
			nc.fail("attn_mask %s must have rank 1 or more and a last extent of at most the total sequence length %d", tensorOf(m), total)
			return nil, false
		}
		if elem(m) == niro.Bool {
			m = nc.sel(m, zero, negInf)
		} else {
			m = nc.cast(m, ct)
		}
		if n := md[len(md)-1]; n < total {
			lo, hi := make([]int64, len(md)), make([]int64, len(md))
			hi[len(md)-1] = total - n
			m = nc.op(&niro.Pad{Mode: "constant", Low: lo, High: hi, X: m, Value: negInf})
		}
		add(m)
		guard = true
	}
	var nonpad niro.Value
	if nc.has(6) {
		nonpad = nc.in(6)
		if nd, ok := nc.staticDims(nonpad); !ok || len(nd) != 1 || nd[0] != b || elem(nonpad) != niro.I64 {
			nc.fail("nonpad_kv_seqlen %s must be an int64 vector of the batch size %d", tensorOf(nonpad), b)
			return nil, false
		}
		guard = true
	}
	if nc.attrInt("is_causal", 0) != 0 {
		if nc.has(6) {
			// External cache: row i of batch b sees keys j ≤ i + nonpad[b] − S.
			off := nc.reshape(nc.bin(niro.Sub, nonpad, nc.scalar(niro.I64, float64(s))), []int64{b, 1, 1, 1})
			row := nc.bin(niro.Add, nc.iota(niro.I64, []int64{1, 1, s, 1}, 2), off)
			col := nc.iota(niro.I64, []int64{1, 1, 1, total}, 3)
			add(nc.sel(nc.cmp(niro.Lt, row, col), negInf, zero))
		} else {
			row := nc.bin(niro.Add, nc.iota(niro.I64, []int64{s, 1}, 0), nc.scalar(niro.I64, float64(past)))
			col := nc.iota(niro.I64, []int64{1, total}, 1)
			add(nc.sel(nc.cmp(niro.Lt, row, col), negInf, zero))
		}
	}
	if nc.has(6) {
		col := nc.iota(niro.I64, []int64{1, total}, 1)
		valid := nc.cmp(niro.Lt, col, nc.reshape(nonpad, []int64{b, 1}))
		add(nc.reshape(nc.sel(valid, zero, negInf), []int64{b, 1, 1, total}))
	}
	return bias, guard
}

// rotaryConv maps RotaryEmbedding. X is [B, H, S, D], or [B, S, H·D] with
// num_heads (viewed as [B, S, H, D]); the caches are [B, S, R/2], or
// [positions, R/2] read at position_ids [B, S]. The first R = rotary_
// embedding_dim (default D) elements of each head are rotated: x1, x2 are
// the two halves (interleaved: the even and odd elements),
//
//	real = cos·x1 − sin·x2, imag = sin·x1 + cos·x2,
//
// written back as the halves (interleaved: alternately); the other D − R
// elements pass through. It works in X's own layout: the caches are
// reshaped to broadcast over the heads axis.
func rotaryConv(nc *nodeCtx) error {
	x, cosC, sinC := nc.in(0), nc.in(1), nc.in(2)
	nc.requireFloat(x)
	xd, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	e := elem(x)
	ct := computeElem(e)
	var b, s, h, d int64
	var view []int64 // X as a 4-D tensor
	var headsAxis int
	switch len(xd) {
	case 4:
		b, h, s, d = xd[0], xd[1], xd[2], xd[3]
		view, headsAxis = xd, 1
	case 3:
		h = nc.attrInt("num_heads", 0)
		if h <= 0 || xd[2]%h != 0 {
			return nc.errorf("a 3-D input %s needs num_heads dividing its hidden size, num_heads is %d", tensorOf(x), h)
		}
		b, s, d = xd[0], xd[1], xd[2]/h
		view, headsAxis = []int64{b, s, h, d}, 2
	default:
		return nc.errorf("input must be 3-D or 4-D, is %s", tensorOf(x))
	}
	rd := nc.attrInt("rotary_embedding_dim", 0)
	if rd == 0 {
		rd = d
	}
	if rd < 0 || rd > d || rd%2 != 0 {
		return nc.errorf("rotary_embedding_dim %d must be even and at most the head size %d", rd, d)
	}
	half := rd / 2
	// The caches as [B, S, R/2].
	caches := []niro.Value{cosC, sinC}
	for i, c := range caches {
		nc.requireFloat(c)
		if nc.has(3) {
			c = nc.op(&niro.Gather{Axis: 0, X: c, Indices: nc.indexInput(3)})
		}
		cd, ok := nc.staticDims(c)
		if !ok {
			return nc.err
		}
		if len(cd) != 3 || cd[0] != b || cd[1] != s || cd[2] != half {
			return nc.errorf("the %s cache gives %v per position, want [%d, %d, %d] (batch, sequence, rotary_embedding_dim/2)", []string{"cos", "sin"}[i], cd, b, s, half)
		}
		shape := []int64{b, s, half}
		shape = append(shape[:headsAxis], append([]int64{1}, shape[headsAxis:]...)...)
		caches[i] = nc.reshape(nc.cast(c, ct), shape)
	}
	xv := nc.cast(nc.reshapeStatic(x, view), ct)
	dims := append([]int64{}, view...)
	part := func(start, step, n int64) niro.Value {
		dims[3] = n
		return nc.sliceRange(xv, view, []int64{0, 0, 0, start}, []int64{1, 1, 1, step}, append([]int64{}, dims...))
	}
	var x1, x2 niro.Value
	if nc.attrInt("interleaved", 0) != 0 {
		x1, x2 = part(0, 2, half), part(1, 2, half)
	} else {
		x1, x2 = part(0, 1, half), part(half, 1, half)
	}
	cos, sin := caches[0], caches[1]
	real := nc.bin(niro.Sub, nc.bin(niro.Mul, cos, x1), nc.bin(niro.Mul, sin, x2))
	imag := nc.bin(niro.Add, nc.bin(niro.Mul, sin, x1), nc.bin(niro.Mul, cos, x2))
	var rot niro.Value
	if nc.attrInt("interleaved", 0) != 0 {
		pair := append(append([]int64{}, view[:3]...), half, 1)
		rot = nc.op(&niro.Concat{Axis: 4, Inputs: []niro.Value{nc.reshape(real, pair), nc.reshape(imag, pair)}})
		rot = nc.reshape(rot, append(append([]int64{}, view[:3]...), rd))
	} else {
		rot = nc.op(&niro.Concat{Axis: 3, Inputs: []niro.Value{real, imag}})
	}
	y := rot
	if rd < d {
		y = nc.op(&niro.Concat{Axis: 3, Inputs: []niro.Value{rot, part(rd, 1, d-rd)}})
	}
	nc.out(0, nc.cast(nc.reshapeStatic(y, xd), e))
	return nil
}

// swigluConv maps SwiGLU: Swish_alpha(A)·B = (A·sigmoid(alpha·A))·B, A and
// B of one shape.
func swigluConv(nc *nodeCtx) error {
	a, b := nc.in(0), nc.in(1)
	nc.requireFloat(a)
	nc.sameElem(0, 1)
	at, bt := tensorOf(a), tensorOf(b)
	if nc.err == nil && (at.Unranked || bt.Unranked || !equalDims(at.Dims, bt.Dims)) {
		return nc.errorf("A %s and B %s must have the same shape (SwiGLU does not broadcast)", at, bt)
	}
	e := elem(a)
	ct := computeElem(e)
	ac, bc := nc.cast(a, ct), nc.cast(b, ct)
	gate := nc.bin(niro.Mul, ac, nc.sigmoid(nc.bin(niro.Mul, nc.scalar(ct, nc.attrFloat("alpha", 1)), ac)))
	nc.out(0, nc.cast(nc.bin(niro.Mul, gate, bc), e))
	return nil
}

// tensorScatterConv maps TensorScatter: a copy of past_cache [B, ...,
// M, ...] with update [B, ..., S, ...] written along axis at positions
// write_indices[b] + i (0 + i without write_indices; modulo M in circular
// mode), as a Scatter whose indices are computed from those.
func tensorScatterConv(nc *nodeCtx) error {
	past, upd := nc.in(0), nc.in(1)
	pd, ok1 := nc.staticDims(past)
	ud, ok2 := nc.staticDims(upd)
	if !ok1 || !ok2 {
		return nc.err
	}
	nc.sameElem(0, 1)
	r := len(pd)
	axis := nc.axis(nc.attrInt("axis", -2), r)
	if nc.err != nil {
		return nc.err
	}
	if axis == 0 {
		return nc.errorf("axis cannot be 0, the batch axis")
	}
	if len(ud) != r {
		return nc.errorf("update %s and past_cache %s differ in rank", tensorOf(upd), tensorOf(past))
	}
	for a := range pd {
		if a != axis && ud[a] != pd[a] || a == axis && ud[a] > pd[a] {
			return nc.errorf("update %s does not fit past_cache %s along axis %d", tensorOf(upd), tensorOf(past), a)
		}
	}
	mode := nc.attrString("mode", "linear")
	if mode != "linear" && mode != "circular" {
		return nc.errorf("mode must be \"linear\" or \"circular\", is %q", mode)
	}
	idx := nc.iota(niro.I64, ud, axis)
	if nc.has(2) {
		w := nc.in(2)
		if wd, ok := nc.staticDims(w); !ok || len(wd) != 1 || wd[0] != pd[0] || elem(w) != niro.I64 {
			return nc.errorf("write_indices %s must be an int64 vector of the batch size %d", tensorOf(w), pd[0])
		}
		shape := make([]int64, r)
		for a := range shape {
			shape[a] = 1
		}
		shape[0] = pd[0]
		idx = nc.bin(niro.Add, idx, nc.reshape(w, shape))
	}
	if mode == "circular" {
		// A remainder; a negative one then counts from the end, as
		// Python's modulo does.
		idx = nc.bin(niro.Rem, idx, nc.scalar(niro.I64, float64(pd[axis])))
	}
	nc.out(0, nc.op(&niro.Scatter{Kind: niro.ScatterElements, Axis: axis, Reduction: niro.ScatterNone, X: past, Indices: idx, Updates: upd}))
	return nil
}
