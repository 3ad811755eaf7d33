package importer

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// legacyBroadcast checks the broadcast/axis attributes of Add and Mul
// before opset 7. Without broadcast the shapes must be equal; with it, B
// must align with the trailing axes of A, which is where numpy-style
// broadcasting agrees with the legacy rule. Other axes are rejected.
func (nc *nodeCtx) legacyBroadcast(xt, yt niro.TensorType) error {
	bc := nc.attr("broadcast")
	if bc == nil || bc.Int == 0 {
		if xt.Unranked || yt.Unranked {
			return nil
		}
		if len(xt.Dims) != len(yt.Dims) {
			return nc.errorf("operand shapes %s and %s differ and broadcast is 0 (legacy broadcasting, opset %d)", xt, yt, nc.opset)
		}
		for i := range xt.Dims {
			if xt.Dims[i] >= 0 && yt.Dims[i] >= 0 && xt.Dims[i] != yt.Dims[i] {
				return nc.errorf("operand shapes %s and %s differ and broadcast is 0 (legacy broadcasting, opset %d)", xt, yt, nc.opset)
			}
		}
		return nil
	}
	ax := nc.attr("axis")
	if ax == nil {
		if !xt.Unranked && !yt.Unranked && len(yt.Dims) > len(xt.Dims) {
			return nc.errorf("legacy broadcasting needs B (%s) to have at most the rank of A (%s)", yt, xt)
		}
		return nil
	}
	if xt.Unranked || yt.Unranked {
		return nc.errorf("legacy broadcasting with axis=%d needs ranked operands, has %s and %s (opset %d)", ax.Int, xt, yt, nc.opset)
	}
	axis := ax.Int
	if axis < 0 {
		axis += int64(len(xt.Dims))
	}
	if axis != int64(len(xt.Dims)-len(yt.Dims)) {
		return nc.errorf("legacy broadcasting of %s into %s along axis %d is not supported (only trailing alignment, axis %d, maps to niro; opset %d)", yt, xt, ax.Int, len(xt.Dims)-len(yt.Dims), nc.opset)
	}
	return nil
}

// transpose maps Transpose; perm defaults to reversing the axes.
func (nc *nodeCtx) transpose() error {
	x := nc.args[0]
	xt := tensorOf(x)
	pa := nc.attr("perm")
	if xt.Unranked {
		return errFallback
	}
	rank := xt.Rank()
	perm := make([]int, rank)
	if pa == nil {
		for i := range perm {
			perm[i] = rank - 1 - i
		}
	} else {
		if pa.Type != atInts {
			return nc.errorf("attribute perm must be a list of ints")
		}
		if len(pa.Ints) != rank {
			return nc.errorf("perm %v has %d entries for an input of rank %d (%s)", pa.Ints, len(pa.Ints), rank, xt)
		}
		seen := make([]bool, rank)
		for i, p := range pa.Ints {
			if p < 0 || p >= int64(rank) || seen[p] {
				return nc.errorf("perm %v is not a permutation of 0..%d", pa.Ints, rank-1)
			}
			seen[p] = true
			perm[i] = int(p)
		}
	}
	nc.out(0, nc.transposeOp(x, perm))
	return nc.err
}

// identity maps Identity to no op: its output is its input's value.
func (nc *nodeCtx) identity() error {
	x := nc.args[0]
	if _, err := nc.resultType(0, tensorOf(x)); err != nil {
		return err
	}
	nc.setResult(0, x)
	return nil
}

// constantAttrs lists Constant's value attributes with their types and
// the opset that introduced them.
var constantAttrs = map[string]struct {
	typ   AttrType
	since int64
}{
	"value":         {atTensor, 1},
	"sparse_value":  {atSparseTensor, 11},
	"value_float":   {atFloat, 12},
	"value_floats":  {atFloats, 12},
	"value_int":     {atInt, 12},
	"value_ints":    {atInts, 12},
	"value_string":  {atString, 12},
	"value_strings": {atStrings, 12},
}

// constant maps Constant to a Const (payloads up to smallConstBytes) or
// to a module global read with GetGlobal. A sparse_value stays an
// UnknownOp.
func (nc *nodeCtx) constant() error {
	if len(nc.attrs) != 1 {
		return nc.errorf("needs exactly one value attribute, has %d attributes", len(nc.attrs))
	}
	a := nc.attrs[0]
	spec, ok := constantAttrs[a.Name]
	if !ok || nc.opset < spec.since {
		return nc.errorf("attribute %q is not defined for Constant at opset %d", a.Name, nc.opset)
	}
	if a.Type != spec.typ {
		return nc.errorf("attribute %q has type %s, want %s", a.Name, a.Type, spec.typ)
	}
	out := nc.n.Outputs[0]
	if out == nil {
		return nil // the constant is not used
	}
	var t niro.TensorType
	var data []byte
	tensor := a.Tensor
	switch a.Name {
	case "value":
		tt, err := tensor.NiroType()
		if err != nil {
			return nc.errorf("output %q: %v", out.Name, err)
		}
		t, data = tt, tensor.Bytes()
	case "sparse_value":
		return errFallback
	case "value_float":
		t, data = niro.Tensor(niro.F32), encodeFloats([]float32{a.Float})
	case "value_floats":
		t, data = niro.Tensor(niro.F32, int64(len(a.Floats))), encodeFloats(a.Floats)
	case "value_int":
		t, data = niro.Tensor(niro.I64), encodeInts([]int64{a.Int})
	case "value_ints":
		t, data = niro.Tensor(niro.I64, int64(len(a.Ints))), encodeInts(a.Ints)
	default:
		return nc.errorf("output %q is a string constant; niro does not support strings", out.Name)
	}
	if _, err := nc.resultType(0, t); err != nil {
		return err
	}
	res := nc.c.fn.NewValue(t)
	if len(data) <= smallConstBytes {
		nc.e.add(&niro.Const{Result: res, Lit: niro.BytesLit(data)})
		nc.c.recordKnown(res, data)
		nc.setResult(0, res)
		return nil
	}
	if tensor == nil {
		tensor = &Tensor{Name: out.Name, DataType: dataTypeOf(t.Elem), Dims: t.Dims, data: data}
	}
	g, err := nc.c.global(tensor, out.Name)
	if err != nil {
		return nc.errorf("%v", err)
	}
	nc.e.add(&niro.GetGlobal{Result: res, Global: g.Name})
	nc.c.recordKnown(res, data)
	nc.setResult(0, res)
	return nil
}

// ifOp maps If to a Niro If whose arms are the branch graphs. The
// condition is read with TensorExtract. Arms yielding different extents of
// one rank give the result dynamic extents there. When the condition's
// rank is unknown or the branches yield different ranks or element types,
// If stays an UnknownOp.
func (nc *nodeCtx) ifOp() error {
	cond := nc.args[0]
	ct := tensorOf(cond)
	if ct.Elem != niro.Bool {
		return nc.errorf("condition has element type %s, want bool", ct.Elem)
	}
	var arms [2]*Graph
	for i, name := range []string{"then_branch", "else_branch"} {
		a := nc.attr(name)
		if a == nil || a.Graph == nil {
			return nc.errorf("attribute %s (a graph) is missing", name)
		}
		if len(a.Graph.Inputs) != 0 {
			return nc.errorf("%s has %d inputs, want none", name, len(a.Graph.Inputs))
		}
		if len(a.Graph.Outputs) != len(nc.n.Outputs) {
			return nc.errorf("%s has %d outputs, but the node has %d", name, len(a.Graph.Outputs), len(nc.n.Outputs))
		}
		arms[i] = a.Graph
	}
	if ct.Unranked || ct.HasStaticShape() && ct.NumElements() != 1 {
		if !ct.Unranked {
			return nc.errorf("condition %s must hold exactly one element", ct)
		}
		return errFallback
	}
	// A condition known at import (shape arithmetic, a bound input)
	// selects its arm, which is converted in place.
	if k, ok := nc.knownOf(cond); ok && k.len() == 1 && !k.elem.IsFloat() {
		i := 0
		if k.ints[0] == 0 {
			i = 1
		}
		name := []string{"then_branch", "else_branch"}[i]
		loc := nc.e.loc
		items, err := nc.c.convertGraphItems(arms[i], nc.e, nc.sc.subgraph(loc, name))
		nc.e.loc = loc
		if err != nil {
			return fmt.Errorf("%s: %s: %w", nc.ref(), name, err)
		}
		for j := range nc.n.Outputs {
			if items[j].c != nil {
				if err := nc.setItem(j, items[j]); err != nil {
					return err
				}
				continue
			}
			if _, err := nc.resultType(j, tensorOf(items[j].t)); err != nil {
				return err
			}
			nc.setResult(j, items[j].t)
		}
		return nil
	}
	// Read the condition's single element, then build the arms.
	mark := len(nc.e.blk.Ops)
	idx := make([]niro.Value, ct.Rank())
	if len(idx) > 0 {
		zero := nc.c.fn.NewValue(niro.I64)
		nc.e.add(&niro.Const{Result: zero, Lit: niro.IntLit(0)})
		for i := range idx {
			idx[i] = zero
		}
	}
	c := nc.c.fn.NewValue(niro.Bool)
	nc.e.add(&niro.TensorExtract{Result: c, X: cond, Indices: idx})
	ids := nc.reserve()
	var regions [2]*niro.Region
	var items [2][]item
	var yields [2][]niro.Value
	var yes [2]*emitter
	for i, g := range arms {
		blk := &niro.Block{}
		sub := nc.sc.subgraph(nc.e.loc, []string{"then_branch", "else_branch"}[i])
		ye := &emitter{blk: blk}
		its, err := nc.c.convertGraphItems(g, ye, sub)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", nc.ref(), []string{"then_branch", "else_branch"}[i], err)
		}
		ye.loc = nc.e.loc
		regions[i] = &niro.Region{Blocks: []*niro.Block{blk}}
		items[i] = its
		for _, it := range its {
			yields[i] = it.flatten(yields[i])
		}
		yes[i] = ye
	}
	// Arms yielding sequences or optionals of the same structure (kinds
	// and lengths) are selected element by element: the If yields their
	// tensors. Otherwise the condition must be known at compile time.
	hasComp := false
	for j := range nc.n.Outputs {
		a, b := items[0][j], items[1][j]
		hasComp = hasComp || a.c != nil || b.c != nil
		if !sameStructure(a, b) {
			return needsData(nc.errorf("the arms yield %s and %s for output %q: the condition (input %q) must be known at compile time, since niro resolves sequences and optionals at import", itemWhat(a), itemWhat(b), nc.n.Outputs[j].Name, nc.n.Inputs[0].Name))
		}
	}
	if hasComp {
		ids = make([]niro.ValueID, len(yields[0]))
		for k := range ids {
			ids[k] = nc.c.fn.NewValue(niro.Bool).ID
		}
	}
	// Arms that yield different extents of the same rank give the result
	// a dynamic extent there: each arm's value is cast to the joined type
	// (a reshape that only forgets static extents, a tensor.cast).
	saved := nc.e
	for i := range yields[0] {
		a, b := tensorOf(yields[0][i]), tensorOf(yields[1][i])
		if niro.TypesEqual(a, b) {
			continue
		}
		j, ok := joinTypes(a, b)
		if !ok || j.Unranked {
			continue
		}
		for k := range yields {
			if !niro.TypesEqual(tensorOf(yields[k][i]), j) {
				nc.e = yes[k]
				yields[k][i] = nc.reshape(yields[k][i], j.Dims)
			}
		}
	}
	nc.e = saved
	if nc.err != nil {
		return nc.err
	}
	for k, ye := range yes {
		ye.add(&niro.Yield{Values: yields[k]})
	}
	op := &niro.If{Cond: c, Then: regions[0], Else: regions[1]}
	for i := range yields[0] {
		a, b := yields[0][i].Type, yields[1][i].Type
		if !niro.TypesEqual(a, b) {
			if hasComp {
				return needsData(nc.errorf("the arms yield sequence elements of types %s and %s: the condition (input %q) must be known at compile time", a, b, nc.n.Inputs[0].Name))
			}
			// The arms disagree on a type (ONNX allows different shapes):
			// keep the If as an UnknownOp, without the condition read.
			nc.e.blk.Ops = nc.e.blk.Ops[:mark]
			nc.yields = yields[:]
			return nc.unknownWithRegions(regions[:], ids)
		}
		op.Res = append(op.Res, niro.Value{ID: ids[i], Type: a})
	}
	nc.e.add(op)
	// Hand the results out to the outputs, rebuilding the sequences.
	res := op.Res
	for j := range nc.n.Outputs {
		var it item
		it, res = rebuild(items[0][j], res)
		if it.c != nil {
			if err := nc.setItem(j, it); err != nil {
				return err
			}
			continue
		}
		if _, err := nc.resultType(j, tensorOf(it.t)); err != nil {
			return err
		}
		nc.setResult(j, it.t)
	}
	return nil
}

// sameStructure reports whether a and b are both tensors, or composites
// of the same kind and length whose elements have the same structure.
func sameStructure(a, b item) bool {
	if a.c == nil || b.c == nil {
		return a.c == nil && b.c == nil
	}
	if a.c.kind != b.c.kind || len(a.c.elems) != len(b.c.elems) {
		return false
	}
	for i := range a.c.elems {
		if !sameStructure(a.c.elems[i], b.c.elems[i]) {
			return false
		}
	}
	return true
}

func itemWhat(it item) string {
	if it.c == nil {
		return "a tensor"
	}
	return fmt.Sprintf("%s of %d elements", it.c.what(), len(it.c.elems))
}

// rebuild returns a value of the structure of tmpl holding the first
// tensors of vals, and the rest of vals.
func rebuild(tmpl item, vals []niro.Value) (item, []niro.Value) {
	if tmpl.c == nil {
		return item{t: vals[0]}, vals[1:]
	}
	cp := &composite{kind: tmpl.c.kind, elem: tmpl.c.elem}
	for _, e := range tmpl.c.elems {
		var it item
		it, vals = rebuild(e, vals)
		cp.elems = append(cp.elems, it)
	}
	return item{c: cp}, vals
}

// reserve hands out one value ID per output of the node, so that results
// are numbered before the values of the regions built next.
func (nc *nodeCtx) reserve() []niro.ValueID {
	ids := make([]niro.ValueID, len(nc.n.Outputs))
	for i := range ids {
		ids[i] = nc.c.fn.NewValue(niro.Bool).ID
	}
	return ids
}
