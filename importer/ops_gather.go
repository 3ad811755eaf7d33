package importer

import (
	"github.com/niro-dev/niro/niro"
)

// The indexing ops: Gather, GatherElements, GatherND, ScatterElements
// (and the deprecated Scatter), ScatterND, ArgMax and ArgMin. Each maps to
// one Niro op. An index known at import that lies outside [-extent,
// extent) is refused; indices computed at run time are clamped by the
// compiled code.

// indexInput returns input i, failing the node unless it holds i32 or i64
// (and keeping it an UnknownOp when its rank is unknown).
func (nc *nodeCtx) indexInput(i int) niro.Value {
	v := nc.in(i)
	nc.rank(v)
	if e := elem(v); e != niro.I32 && e != niro.I64 {
		nc.fail("indices must be int32 or int64, input %d has %s", i, e)
	}
	return v
}

// checkIndex fails the node when the known index idx (the n-th value of
// the indices) lies outside [-extent, extent) of data axis axis.
func (nc *nodeCtx) checkIndex(idx, extent int64, axis, n int) {
	if extent >= 0 && (idx < -extent || idx >= extent) {
		nc.fail("index %d (element %d of the indices) is out of range for axis %d of extent %d", idx, n, axis, extent)
	}
}

func gatherConv(nc *nodeCtx) error {
	x, ind := nc.in(0), nc.indexInput(1)
	axis := nc.axis(nc.attrInt("axis", 0), nc.rank(x))
	if nc.err != nil {
		return nc.err
	}
	if k, ok := nc.knownOf(ind); ok {
		ext := tensorOf(x).Dims[axis]
		for n, i := range k.ints {
			nc.checkIndex(i, ext, axis, n)
		}
	}
	nc.out(0, nc.op(&niro.Gather{Axis: axis, X: x, Indices: ind}))
	return nil
}

func gatherElementsConv(nc *nodeCtx) error {
	x, ind := nc.in(0), nc.indexInput(1)
	axis := nc.axis(nc.attrInt("axis", 0), nc.rank(x))
	if nc.err != nil {
		return nc.err
	}
	if k, ok := nc.knownOf(ind); ok {
		ext := tensorOf(x).Dims[axis]
		for n, i := range k.ints {
			nc.checkIndex(i, ext, axis, n)
		}
	}
	nc.out(0, nc.op(&niro.GatherElements{Axis: axis, X: x, Indices: ind}))
	return nil
}

// checkTuples checks known index tuples (the last axis of indices)
// against the data axes from first on.
func (nc *nodeCtx) checkTuples(x, ind niro.Value, first int) {
	k, ok := nc.knownOf(ind)
	it, xt := tensorOf(ind), tensorOf(x)
	if !it.Unranked && it.Rank() > 0 && it.Dims[it.Rank()-1] < 0 {
		// The tuple length fixes the result's rank: niro needs it.
		nc.notYet("the last extent of indices %s (the index tuples' length) must be static", it)
		return
	}
	if !ok || it.Unranked || xt.Unranked || it.Rank() == 0 {
		return
	}
	w := int(it.Dims[it.Rank()-1])
	if w < 1 {
		return
	}
	for n, i := range k.ints {
		if a := first + n%w; a < xt.Rank() {
			nc.checkIndex(i, xt.Dims[a], a, n)
		}
	}
}

func gatherNDConv(nc *nodeCtx) error {
	x, ind := nc.in(0), nc.indexInput(1)
	nc.rank(x)
	b := int(nc.attrInt("batch_dims", 0))
	if nc.err != nil {
		return nc.err
	}
	nc.checkTuples(x, ind, b)
	nc.out(0, nc.op(&niro.GatherND{BatchDims: b, X: x, Indices: ind}))
	return nil
}

// reduction returns the node's scatter reduction attribute.
func (nc *nodeCtx) reduction() niro.ScatterReduction {
	s := nc.attrString("reduction", "none")
	r, ok := niro.ParseScatterReduction(s)
	if !ok {
		nc.fail("reduction %q is not one of none, add, mul, max, min", s)
	}
	return r
}

func scatterElementsConv(nc *nodeCtx) error {
	x, ind, upd := nc.in(0), nc.indexInput(1), nc.in(2)
	nc.rank(upd)
	axis := nc.axis(nc.attrInt("axis", 0), nc.rank(x))
	red := nc.reduction()
	if nc.err != nil {
		return nc.err
	}
	if k, ok := nc.knownOf(ind); ok {
		ext := tensorOf(x).Dims[axis]
		for n, i := range k.ints {
			nc.checkIndex(i, ext, axis, n)
		}
	}
	nc.out(0, nc.op(&niro.Scatter{Kind: niro.ScatterElements, Axis: axis, Reduction: red, X: x, Indices: ind, Updates: upd}))
	return nil
}

func scatterNDConv(nc *nodeCtx) error {
	x, ind, upd := nc.in(0), nc.indexInput(1), nc.in(2)
	nc.rank(upd)
	nc.rank(x)
	red := nc.reduction()
	if nc.err != nil {
		return nc.err
	}
	nc.checkTuples(x, ind, 0)
	nc.out(0, nc.op(&niro.Scatter{Kind: niro.ScatterND, Reduction: red, X: x, Indices: ind, Updates: upd}))
	return nil
}

func argReduceConv(k niro.ArgReduceKind) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		x := nc.in(0)
		axis := nc.axis(nc.attrInt("axis", 0), nc.rank(x))
		if nc.err != nil {
			return nc.err
		}
		nc.out(0, nc.op(&niro.ArgReduce{Kind: k, Axis: axis, KeepDims: nc.attrInt("keepdims", 1) != 0,
			SelectLast: nc.attrInt("select_last_index", 0) != 0, X: x}))
		return nil
	}
}

func init() {
	gather := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: gatherConv}
	}
	register("Gather", gather(1), gather(11), gather(13))
	gatherElements := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: gatherElementsConv}
	}
	register("GatherElements", gatherElements(11), gatherElements(13))
	register("GatherND",
		opSpec{Since: 11, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: gatherNDConv},
		opSpec{Since: 12, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"batch_dims"}, Convert: gatherNDConv},
		opSpec{Since: 13, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"batch_dims"}, Convert: gatherNDConv})
	scatter := func(since int64, conv func(*nodeCtx) error, attrs ...string) opSpec {
		return opSpec{Since: since, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: attrs, Convert: conv}
	}
	register("Scatter", scatter(9, scatterElementsConv, "axis"), scatter(11, scatterElementsConv, "axis"))
	register("ScatterElements",
		scatter(11, scatterElementsConv, "axis"), scatter(13, scatterElementsConv, "axis"),
		scatter(16, scatterElementsConv, "axis", "reduction"), scatter(18, scatterElementsConv, "axis", "reduction"))
	register("ScatterND",
		scatter(11, scatterNDConv), scatter(13, scatterNDConv),
		scatter(16, scatterNDConv, "reduction"), scatter(18, scatterNDConv, "reduction"))
	for name, k := range map[string]niro.ArgReduceKind{"ArgMax": niro.ArgMax, "ArgMin": niro.ArgMin} {
		arg := func(since int64, attrs ...string) opSpec {
			return opSpec{Since: since, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: attrs, Convert: argReduceConv(k)}
		}
		register(name, arg(1, "axis", "keepdims"), arg(11, "axis", "keepdims"),
			arg(12, "axis", "keepdims", "select_last_index"), arg(13, "axis", "keepdims", "select_last_index"))
	}
}

// topKConv maps TopK to a Niro TopK; K (an attribute before opset 10, an
// input after) must be known at compile time, as it fixes the results'
// shape.
func topKConv(nc *nodeCtx) error {
	x := nc.in(0)
	r := nc.rank(x)
	if nc.err != nil {
		return nc.err
	}
	if r == 0 {
		return nc.errorf("input must have rank 1 or more")
	}
	axis := nc.axis(nc.attrInt("axis", -1), r)
	var k int64
	if nc.opset < 10 {
		k = nc.attrInt("k", 0)
	} else {
		if !nc.oneElem(1) {
			return nc.err
		}
		ks, ok := nc.knownInts(1)
		if !ok {
			nc.notYet("input 1 (%q) must be known at compile time, but it is computed at run time", nc.n.Inputs[1].Name)
			return nc.err
		}
		k = ks[0]
	}
	t := tensorOf(x)
	if t.Dims[axis] < 0 {
		nc.notYet("input %s has type %s, but TopK needs the static extent of axis %d", x, x.Type, axis)
		return nc.err
	}
	if k < 0 || k > t.Dims[axis] {
		return nc.errorf("k = %d is out of range for axis %d of %s", k, axis, x.Type)
	}
	op := &niro.TopK{Axis: axis, K: k, Largest: nc.attrInt("largest", 1) != 0, Sorted: nc.attrInt("sorted", 1) != 0, X: x}
	vals := nc.op(op)
	if nc.err != nil {
		return nc.err
	}
	nc.out(0, vals)
	nc.out(1, op.Indices)
	return nc.err
}

func init() {
	register("TopK",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{2, 2}, Attrs: []string{"axis", "k"}, Convert: topKConv},
		opSpec{Since: 10, In: [2]int{2, 2}, Out: [2]int{2, 2}, Attrs: []string{"axis"}, Convert: topKConv},
		opSpec{Since: 11, In: [2]int{2, 2}, Out: [2]int{2, 2}, Attrs: []string{"axis", "largest", "sorted"}, Convert: topKConv})
}
