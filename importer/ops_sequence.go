package importer

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// The ops on sequences and optionals, resolved at import (composite.go,
// docs/importer.md "Sequences and optionals"): each becomes plain Niro ops
// on the elements, or none at all.

func init() {
	seq := func(name string, specs ...opSpec) {
		for i := range specs {
			specs[i].Composite = true
		}
		register(name, specs...)
	}
	seq("SequenceEmpty", opSpec{Since: 11, In: [2]int{0, 0}, Out: [2]int{1, 1}, Attrs: []string{"dtype"}, Convert: (*nodeCtx).sequenceEmpty})
	seq("SequenceConstruct", opSpec{Since: 11, In: [2]int{1, 1 << 20}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).sequenceConstruct})
	seq("SequenceInsert", opSpec{Since: 11, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).sequenceInsert})
	seq("SequenceErase", opSpec{Since: 11, In: [2]int{1, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).sequenceErase})
	seq("SequenceAt", opSpec{Since: 11, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).sequenceAt})
	seq("SequenceLength", opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).sequenceLength})
	seq("SplitToSequence", opSpec{Since: 11, In: [2]int{1, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis", "keepdims"}, Convert: (*nodeCtx).splitToSequence})
	seq("ConcatFromSequence", opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axis", "new_axis"}, Convert: (*nodeCtx).concatFromSequence})
	seq("SequenceMap", opSpec{Since: 17, In: [2]int{1, 1 << 20}, Out: [2]int{1, 1 << 20}, Attrs: []string{"body"}, Convert: (*nodeCtx).sequenceMap})
	seq("Optional", opSpec{Since: 15, In: [2]int{0, 1}, Out: [2]int{1, 1}, Attrs: []string{"type"}, Convert: (*nodeCtx).optionalOp})
	seq("OptionalHasElement",
		opSpec{Since: 15, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).optionalHasElement},
		opSpec{Since: 18, In: [2]int{0, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).optionalHasElement})
	seq("OptionalGetElement", opSpec{Since: 15, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).optionalGetElement})
}

// convertComposite converts a node on sequences or optionals: an op of
// ops_sequence.go, or Identity, If or Loop with such an input.
func (nc *nodeCtx) convertComposite(spec *opSpec) error {
	if nc.domain == "" {
		switch nc.n.OpType {
		case "Identity":
			if len(nc.args) != 1 || len(nc.n.Outputs) != 1 {
				return nc.errorf("takes one input and one output")
			}
			return nc.setItem(0, nc.item(0))
		case "Loop":
			if err := nc.checkNewest(); err != nil {
				return err
			}
			return nc.unrollLoop()
		}
	}
	if spec == nil || !spec.Composite {
		for i, cp := range nc.comps {
			if cp != nil {
				return nc.errorf("input %q is %s; niro resolves sequences and optionals at import, and %s on them is not supported", nc.n.Inputs[i].Name, cp.what(), nc.n.OpType)
			}
		}
		return nc.errorf("op type is not supported at opset %d", nc.opset)
	}
	if err := nc.checkNewest(); err != nil {
		return err
	}
	if err := nc.checkSpecArity(spec); err != nil {
		return err
	}
	if err := nc.checkAttrs(spec.Attrs...); err != nil {
		return err
	}
	err := spec.Convert(nc)
	if err == nil {
		err = nc.err
	}
	if ny, ok := err.(*notYetError); ok {
		// A shape or value the op needs is known only at run time: the
		// data's shapes and values, bound at import, may give it.
		err = needsData(nc.errorf("%s", ny.msg))
	}
	return err
}

// item returns input i as an item.
func (nc *nodeCtx) item(i int) item {
	if nc.comps[i] != nil {
		return item{c: nc.comps[i]}
	}
	return item{t: nc.args[i]}
}

// seqIn returns input i, which must be a sequence.
func (nc *nodeCtx) seqIn(i int) (*composite, error) {
	cp := nc.comps[i]
	if cp == nil || cp.kind != SequenceKind {
		what := "a tensor"
		if cp != nil {
			what = cp.what()
		}
		return nil, nc.errorf("input %d (%q) must be a sequence, is %s", i, nc.n.Inputs[i].Name, what)
	}
	return cp, nil
}

// tensorIn returns input i, which must be a tensor.
func (nc *nodeCtx) tensorIn(i int) (niro.Value, error) {
	if cp := nc.comps[i]; cp != nil {
		return niro.Value{}, nc.errorf("input %d (%q) must be a tensor, is %s", i, nc.n.Inputs[i].Name, cp.what())
	}
	return nc.args[i], nil
}

// setItem defines output i, checking it against the declared type.
func (nc *nodeCtx) setItem(i int, it item) error {
	if i >= len(nc.n.Outputs) || nc.n.Outputs[i] == nil {
		return nil
	}
	out := nc.n.Outputs[i]
	if err := nc.c.checkItem(out.Type, it, nc.hintRef(), fmt.Sprintf("output %q", out.Name)); err != nil {
		return nc.errorf("%w", err)
	}
	nc.sc.bind(out, it)
	return nil
}

// position returns the known value of input i, a position in a sequence of
// n elements, normalized to [0, n) (or [0, n] when end is set, for an
// insertion).
func (nc *nodeCtx) position(i, n int, end bool) (int, error) {
	p, err := nc.tensorIn(i)
	if err != nil {
		return 0, err
	}
	pt := tensorOf(p)
	if !pt.Elem.IsInt() || pt.Unranked || !pt.HasStaticShape() || pt.NumElements() != 1 {
		return 0, nc.errorf("position has type %s, want one integer", pt)
	}
	k, ok := nc.knownOf(p)
	if !ok {
		return 0, needsData(nc.errorf("position (input %q) must be known at compile time: niro resolves sequences at import", nc.n.Inputs[i].Name))
	}
	v := k.int(0)
	hi := int64(n)
	if !end {
		hi--
	}
	if v < -int64(n) || v > hi {
		return 0, nc.errorf("position %d is out of range for a sequence of %d elements", v, n)
	}
	if v < 0 {
		v += int64(n)
	}
	return int(v), nil
}

// sequenceEmpty maps SequenceEmpty: an empty sequence of dtype (float by
// default).
func (nc *nodeCtx) sequenceEmpty() error {
	dt := DataType(nc.attrInt("dtype", int64(dtFloat)))
	if _, ok := ScalarType(dt); !ok {
		return nc.errorf("dtype %s is not supported", dataTypeName(dt))
	}
	return nc.setItem(0, item{c: &composite{kind: SequenceKind, elem: &Type{Kind: TensorKind, Elem: dt}}})
}

func (nc *nodeCtx) sequenceConstruct() error {
	cp := &composite{kind: SequenceKind}
	for i := range nc.args {
		t, err := nc.tensorIn(i)
		if err != nil {
			return err
		}
		if i > 0 && elem(t) != elem(cp.elems[0].t) {
			return nc.errorf("input %d has element type %s, input 0 has %s: a sequence's elements share one", i, elem(t), elem(cp.elems[0].t))
		}
		cp.elems = append(cp.elems, item{t: t})
	}
	return nc.setItem(0, item{c: cp})
}

// elemsOf returns a copy of s's element list.
func elemsOf(s *composite) []item { return append([]item(nil), s.elems...) }

// checkElem checks that tensor t may join sequence s.
func (nc *nodeCtx) checkElem(s *composite, t niro.Value) error {
	if len(s.elems) > 0 && s.elems[0].c == nil && elem(s.elems[0].t) != elem(t) {
		return nc.errorf("tensor has element type %s, the sequence holds %s", elem(t), elem(s.elems[0].t))
	}
	if len(s.elems) == 0 && s.elem != nil && s.elem.Kind == TensorKind && s.elem.Elem != dtUndefined {
		if want, ok := ScalarType(s.elem.Elem); ok && want != elem(t) {
			return nc.errorf("tensor has element type %s, the sequence holds %s", elem(t), want)
		}
	}
	if len(s.elems) >= maxSeqElems {
		return nc.errorf("the sequence would have more than %d elements", maxSeqElems)
	}
	return nil
}

func (nc *nodeCtx) sequenceInsert() error {
	s, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	t, err := nc.tensorIn(1)
	if err != nil {
		return err
	}
	if err := nc.checkElem(s, t); err != nil {
		return err
	}
	p := len(s.elems)
	if nc.has(2) {
		if p, err = nc.position(2, len(s.elems), true); err != nil {
			return err
		}
	}
	es := elemsOf(s)
	es = append(es[:p], append([]item{{t: t}}, es[p:]...)...)
	return nc.setItem(0, item{c: &composite{kind: SequenceKind, elems: es, elem: s.elem}})
}

func (nc *nodeCtx) sequenceErase() error {
	s, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	if len(s.elems) == 0 {
		return nc.errorf("the sequence is empty")
	}
	p := len(s.elems) - 1
	if nc.has(1) {
		if p, err = nc.position(1, len(s.elems), false); err != nil {
			return err
		}
	}
	es := elemsOf(s)
	es = append(es[:p], es[p+1:]...)
	return nc.setItem(0, item{c: &composite{kind: SequenceKind, elems: es, elem: s.elem}})
}

func (nc *nodeCtx) sequenceAt() error {
	s, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	p, err := nc.position(1, len(s.elems), false)
	if err != nil {
		return err
	}
	return nc.setItem(0, s.elems[p])
}

func (nc *nodeCtx) sequenceLength() error {
	s, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	return nc.setItem(0, item{t: nc.constInts(niro.I64, []int64{}, []int64{int64(len(s.elems))})})
}

// splitToSequence maps SplitToSequence: slices of the input along axis,
// of sizes split (a scalar: chunks of that size, the last one shorter; a
// list: the sizes), or of size 1 with the axis kept or dropped (keepdims)
// when split is absent.
func (nc *nodeCtx) splitToSequence() error {
	x, err := nc.tensorIn(0)
	if err != nil {
		return err
	}
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	ax := nc.axis(nc.attrInt("axis", 0), len(dims))
	if nc.err != nil {
		return nc.err
	}
	ext := dims[ax]
	var sizes []int64
	squeeze := false
	if nc.has(1) {
		if _, err := nc.tensorIn(1); err != nil {
			return err
		}
		st := tensorOf(nc.in(1))
		vals, ok := nc.knownInts(1)
		if !ok {
			return needsData(nc.errorf("split (input %q) must be known at compile time: niro resolves sequences at import", nc.n.Inputs[1].Name))
		}
		if st.Rank() == 0 {
			c := vals[0]
			if c <= 0 {
				return nc.errorf("split %d must be positive", c)
			}
			for done := int64(0); done < ext; done += c {
				sizes = append(sizes, min(c, ext-done))
			}
		} else {
			var sum int64
			for _, v := range vals {
				if v < 0 {
					return nc.errorf("split %v has a negative size", vals)
				}
				sum += v
			}
			if sum != ext {
				return nc.errorf("split %v sums to %d, but axis %d has extent %d", vals, sum, ax, ext)
			}
			sizes = vals
		}
	} else {
		for i := int64(0); i < ext; i++ {
			sizes = append(sizes, 1)
		}
		squeeze = nc.attrInt("keepdims", 1) == 0
	}
	if len(sizes) > maxSeqElems {
		return nc.errorf("the split makes %d elements, more than %d", len(sizes), maxSeqElems)
	}
	cp := &composite{kind: SequenceKind}
	var at int64
	for _, n := range sizes {
		starts := make([]int64, len(dims))
		steps := make([]int64, len(dims))
		sz := append([]int64{}, dims...)
		for a := range steps {
			steps[a] = 1
		}
		starts[ax], sz[ax] = at, n
		at += n
		v := nc.sliceRange(x, dims, starts, steps, sz)
		if squeeze {
			v = nc.reshape(v, append(append([]int64{}, dims[:ax]...), dims[ax+1:]...))
		}
		cp.elems = append(cp.elems, item{t: v})
	}
	if nc.err != nil {
		return nc.err
	}
	return nc.setItem(0, item{c: cp})
}

// concatFromSequence maps ConcatFromSequence: a Concat of the elements
// along axis, each given a new axis of extent 1 there first when new_axis
// is 1.
func (nc *nodeCtx) concatFromSequence() error {
	s, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	if nc.attr("axis") == nil {
		return nc.errorf("attribute axis is required")
	}
	if len(s.elems) == 0 {
		return nc.errorf("the sequence is empty; ONNX leaves the result undefined")
	}
	newAxis := nc.attrInt("new_axis", 0)
	if newAxis != 0 && newAxis != 1 {
		return nc.errorf("new_axis is %d, want 0 or 1", newAxis)
	}
	var ins []niro.Value
	for _, e := range s.elems {
		if e.c != nil {
			return nc.errorf("the sequence holds %s, not tensors", e.c.what())
		}
		ins = append(ins, e.t)
	}
	dims, ok := nc.staticDims(ins[0])
	if !ok {
		return nc.err
	}
	r := len(dims) + int(newAxis)
	ax := nc.axis(nc.attrInt("axis", 0), r)
	if nc.err != nil {
		return nc.err
	}
	if newAxis == 1 {
		for i, v := range ins {
			d, ok := nc.staticDims(v)
			if !ok {
				return nc.err
			}
			ins[i] = nc.reshape(v, append(append(append([]int64{}, d[:ax]...), 1), d[ax:]...))
		}
	}
	res := ins[0]
	if len(ins) > 1 {
		res = nc.op(&niro.Concat{Axis: ax, Inputs: ins})
	}
	nc.out(0, res)
	return nc.err
}

// sequenceMap maps SequenceMap: the body converted once per element, with
// the sequence inputs' elements at that position and the tensor inputs
// whole; each output collects the body's output of each step.
func (nc *nodeCtx) sequenceMap() error {
	a := nc.attr("body")
	if a == nil || a.Graph == nil {
		return nc.errorf("attribute body (a graph) is missing")
	}
	g := a.Graph
	s0, err := nc.seqIn(0)
	if err != nil {
		return err
	}
	n := len(s0.elems)
	if len(g.Inputs) != len(nc.args) {
		return nc.errorf("body has %d inputs, the node %d", len(g.Inputs), len(nc.args))
	}
	if len(g.Outputs) != len(nc.n.Outputs) {
		return nc.errorf("body has %d outputs, the node %d", len(g.Outputs), len(nc.n.Outputs))
	}
	for i := range nc.args {
		if !nc.has(i) {
			return nc.errorf("input %d is absent", i)
		}
		if cp := nc.comps[i]; cp != nil && (cp.kind != SequenceKind || len(cp.elems) != n) {
			return nc.errorf("input %d (%q) must be a sequence of %d elements, as input 0 is", i, nc.n.Inputs[i].Name, n)
		}
	}
	outs := make([]*composite, len(g.Outputs))
	for j := range outs {
		outs[j] = &composite{kind: SequenceKind}
		if t := g.OutputTypes[j]; t != nil && t.Kind == SequenceKind {
			outs[j].elem = t.Inner
		}
	}
	loc := nc.e.loc
	for k := 0; k < n; k++ {
		sub := nc.sc.subgraph(loc, "body")
		for i, v := range g.Inputs {
			if cp := nc.comps[i]; cp != nil {
				sub.bind(v, cp.elems[k])
			} else {
				sub.vals[v] = nc.args[i]
			}
		}
		items, err := nc.c.convertGraphItems(g, nc.e, sub)
		nc.e.loc = loc
		if err != nil {
			return fmt.Errorf("%s: body (element %d): %w", nc.ref(), k, err)
		}
		for j, it := range items {
			outs[j].elems = append(outs[j].elems, it)
		}
	}
	for j, cp := range outs {
		if err := nc.setItem(j, item{c: cp}); err != nil {
			return err
		}
	}
	return nil
}

// optionalOp maps Optional: an optional holding the input, or an empty one
// of the type attribute's type.
func (nc *nodeCtx) optionalOp() error {
	if nc.has(0) {
		return nc.setItem(0, item{c: &composite{kind: OptionalKind, elems: []item{nc.item(0)}}})
	}
	a := nc.attr("type")
	if a == nil || a.TypeProto == nil {
		return nc.errorf("an Optional with no input needs the attribute type")
	}
	return nc.setItem(0, item{c: &composite{kind: OptionalKind, elem: a.TypeProto}})
}

// optionalHasElement folds OptionalHasElement to a constant: whether the
// optional holds a value (a tensor or sequence input always does, an
// absent input never).
func (nc *nodeCtx) optionalHasElement() error {
	has := nc.has(0)
	if has {
		if cp := nc.comps[0]; cp != nil && cp.kind == OptionalKind {
			has = len(cp.elems) > 0
		}
	}
	return nc.setItem(0, item{t: nc.constInts(niro.Bool, []int64{}, []int64{b2i(has)})})
}

// optionalGetElement maps OptionalGetElement: the optional's value (an
// error when it holds none), or the input itself when it is a tensor or a
// sequence.
func (nc *nodeCtx) optionalGetElement() error {
	cp := nc.comps[0]
	if cp == nil || cp.kind != OptionalKind {
		return nc.setItem(0, nc.item(0))
	}
	if len(cp.elems) == 0 {
		return nc.errorf("the optional input %q holds no value", nc.n.Inputs[0].Name)
	}
	return nc.setItem(0, cp.elems[0])
}

// unrollLoop maps a Loop that carries sequences or optionals: it is
// unrolled at import, the body converted once per iteration with the
// iteration number and the condition as constants, so its trip count, and
// the condition the body yields, must be known at compile time. The scan
// outputs are the slices stacked along a new axis 0.
func (nc *nodeCtx) unrollLoop() error {
	a := nc.attr("body")
	if a == nil || a.Graph == nil {
		return nc.errorf("attribute body (a graph) is missing")
	}
	if err := nc.checkAttrs("body"); err != nil {
		return err
	}
	g := a.Graph
	trip := int64(-1)
	if nc.has(0) {
		m, err := nc.tensorIn(0)
		if err != nil {
			return err
		}
		k, ok := nc.knownOf(m)
		if !ok || k.len() != 1 || k.elem.IsFloat() {
			return needsData(nc.errorf("trip count M (input %q) must be known at compile time: a Loop carrying sequences or optionals is unrolled at import", nc.n.Inputs[0].Name))
		}
		trip = k.ints[0]
	}
	cond := true
	hasCond := nc.has(1)
	if hasCond {
		c, err := nc.tensorIn(1)
		if err != nil {
			return err
		}
		k, ok := nc.knownOf(c)
		if !ok || k.len() != 1 {
			return needsData(nc.errorf("condition (input %q) must be known at compile time: a Loop carrying sequences or optionals is unrolled at import", nc.n.Inputs[1].Name))
		}
		cond = k.int(0) != 0
	}
	if trip < 0 && !hasCond {
		return nc.errorf("a Loop with neither a trip count nor a condition never ends")
	}
	var carried []item
	for i := 2; i < len(nc.args); i++ {
		if !nc.has(i) {
			return nc.errorf("loop-carried input %d is absent", i)
		}
		carried = append(carried, nc.item(i))
	}
	nCarried := len(carried)
	nScan := len(nc.n.Outputs) - nCarried
	if nScan < 0 {
		return nc.errorf("has %d outputs for %d loop-carried values", len(nc.n.Outputs), nCarried)
	}
	if len(g.Inputs) != 2+nCarried {
		return nc.errorf("body has %d inputs, want %d", len(g.Inputs), 2+nCarried)
	}
	if len(g.Outputs) != 1+nCarried+nScan {
		return nc.errorf("body has %d outputs, want %d", len(g.Outputs), 1+nCarried+nScan)
	}
	scans := make([][]niro.Value, nScan)
	loc := nc.e.loc
	for i := int64(0); cond && (trip < 0 || i < trip); i++ {
		if i >= maxSeqElems {
			return nc.errorf("the loop runs more than %d iterations; a Loop carrying sequences or optionals is unrolled at import, up to that many", maxSeqElems)
		}
		sub := nc.sc.subgraph(loc, "body")
		sub.vals[g.Inputs[0]] = nc.constInts(niro.I64, []int64{}, []int64{i})
		sub.vals[g.Inputs[1]] = nc.constInts(niro.Bool, []int64{}, []int64{b2i(cond)})
		for j, it := range carried {
			sub.bind(g.Inputs[2+j], it)
		}
		items, err := nc.c.convertGraphItems(g, nc.e, sub)
		nc.e.loc = loc
		if err != nil {
			return fmt.Errorf("%s: body (iteration %d): %w", nc.ref(), i, err)
		}
		if items[0].c != nil {
			return nc.errorf("the body's condition output is %s, want a bool tensor", items[0].c.what())
		}
		if k, ok := nc.knownOf(items[0].t); ok && k.len() == 1 {
			cond = k.int(0) != 0
		} else if hasCond {
			return needsData(nc.errorf("the body's condition output must be known at compile time: a Loop carrying sequences or optionals is unrolled at import"))
		}
		carried = items[1 : 1+nCarried]
		for j := range scans {
			it := items[1+nCarried+j]
			if it.c != nil {
				return nc.errorf("scan output %d is %s; niro stacks tensors only", j, it.c.what())
			}
			scans[j] = append(scans[j], it.t)
		}
	}
	for j, it := range carried {
		if err := nc.setItem(j, it); err != nil {
			return err
		}
	}
	for j, slices := range scans {
		if len(slices) == 0 {
			return nc.errorf("scan output %d has no slices (the loop runs no iteration), so its type is unknown", j)
		}
		var ins []niro.Value
		for _, s := range slices {
			d, ok := nc.staticDims(s)
			if !ok {
				return nc.err
			}
			ins = append(ins, nc.reshape(s, append([]int64{1}, d...)))
		}
		res := ins[0]
		if len(ins) > 1 {
			res = nc.op(&niro.Concat{Axis: 0, Inputs: ins})
		}
		nc.out(nCarried+j, res)
	}
	return nc.err
}
