package importer

import (
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
)

// FlexAttention (domain ai.onnx.preview, opset 1), decomposed as its ONNX
// function body computes it: the K and V heads repeated for grouped-query
// attention, Q and K each multiplied by sqrt(scale) (in f32, cast to the
// input type), Score = Q·Kᵀ (MatMul), cast to the softmax precision, the
// score_mod graph inlined on it, Softmax over the last axis, the prob_mod
// graph inlined on the probabilities, then Prob·V in the softmax precision
// and the cast back to the input type.

// inlineModifier converts the one-input, one-output graph held by
// attribute name with its input bound to x, in place, and returns its
// output; x itself when the node has no such attribute.
func (nc *nodeCtx) inlineModifier(name string, x niro.Value) niro.Value {
	a := nc.attr(name)
	if a == nil || nc.err != nil {
		return x
	}
	g := a.Graph
	if g == nil {
		nc.fail("attribute %s must be a graph", name)
		return x
	}
	if len(g.Inputs) != 1 || len(g.Outputs) != 1 {
		nc.fail("%s must have 1 input and 1 output, has %d and %d", name, len(g.Inputs), len(g.Outputs))
		return x
	}
	loc := nc.e.loc
	sc := nc.sc.subgraph(loc, name)
	sc.vals[g.Inputs[0]] = x
	vals, err := nc.c.convertGraphBody(g, nc.e, sc)
	nc.e.loc = loc
	if err != nil {
		nc.err = fmt.Errorf("%s: %s: %w", nc.ref(), name, err)
		return x
	}
	y := vals[0]
	if xt, yt := tensorOf(x), tensorOf(y); yt.Elem != xt.Elem || !yt.Unranked && !xt.Unranked && !sameDims(yt.Dims, xt.Dims) {
		nc.fail("%s must give a tensor of its input's type %s, gives %s", name, xt, yt)
	}
	return y
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

func flexAttentionConv(nc *nodeCtx) error {
	q, k, v := nc.in(0), nc.in(1), nc.in(2)
	nc.requireFloat(q)
	nc.sameElem(0, 1)
	nc.sameElem(0, 2)
	qd, ok := nc.staticDims(q)
	if !ok {
		return nc.err
	}
	kd, ok := nc.staticDims(k)
	if !ok {
		return nc.err
	}
	vd, ok := nc.staticDims(v)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(qd) != 4 || len(kd) != 4 || len(vd) != 4 {
		return nc.errorf("Q, K and V must have rank 4, have shapes %v, %v, %v", qd, kd, vd)
	}
	b, hq, e := qd[0], qd[1], qd[3]
	hkv, s := kd[1], kd[2]
	if kd[0] != b || vd[0] != b || vd[1] != hkv || vd[2] != s || kd[3] != e {
		return nc.errorf("K %v and V %v do not match Q %v", kd, vd, qd)
	}
	if hq%hkv != 0 {
		return nc.errorf("the query heads (%d) must be a multiple of the key/value heads (%d)", hq, hkv)
	}
	in := elem(q)
	sp := niro.F32
	if in == niro.F64 {
		sp = niro.F64
	}
	if nc.attr("softmax_precision") != nil {
		var err error
		if sp, err = nc.dtypeAttr("softmax_precision", sp); err != nil {
			return err
		}
		if !sp.IsFloat() {
			return nc.errorf("softmax_precision must be a float type, is %s", sp)
		}
	}
	// repeat shares each K/V head across a group of hq/hkv query heads.
	repeat := func(x niro.Value, d []int64) niro.Value {
		if hq == hkv {
			return x
		}
		g := hq / hkv
		x = nc.reshape(x, []int64{b, hkv, 1, d[2], d[3]})
		x = nc.op(&niro.Broadcast{Shape: []int64{b, hkv, g, d[2], d[3]}, X: x})
		return nc.reshape(x, []int64{b, hq, d[2], d[3]})
	}
	k, v = repeat(k, kd), repeat(v, vd)
	scale := float32(1) / float32(math.Sqrt(float64(e)))
	if a := nc.attr("scale"); a != nil {
		scale = a.Float
	}
	sq := nc.scalar(in, float64(float32(math.Sqrt(float64(scale)))))
	score := nc.matmulOp(nc.bin(niro.Mul, q, sq), nc.permute(nc.bin(niro.Mul, k, sq), []int{0, 1, 3, 2}))
	if sp != in {
		score = nc.cast(score, sp)
	}
	score = nc.inlineModifier("score_mod", score)
	prob := nc.inlineModifier("prob_mod", nc.softmax(score, 3))
	if sp != in {
		v = nc.cast(v, sp)
	}
	y := nc.matmulOp(prob, v)
	if sp != in {
		y = nc.cast(y, in)
	}
	nc.out(0, y)
	return nil
}

func init() {
	registerDomain("ai.onnx.preview", "FlexAttention",
		opSpec{Since: 1, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{"scale", "softmax_precision", "score_mod", "prob_mod"}, Convert: flexAttentionConv})
}
