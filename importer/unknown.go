package importer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/niro-dev/niro/niro"
)

// ReasonAttr is the UnknownOp attribute that says why a node niro
// converts in general could not be compiled in this instance.
const ReasonAttr = "niro.not_compilable"

// unknownName is the UnknownOp name of a node: onnx.OpType for the default
// domain, domain.OpType otherwise.
func unknownName(domain, opType string) string {
	if domain == "" {
		return "onnx." + opType
	}
	return domain + "." + opType
}

// unknown keeps the node as an UnknownOp, converting its attributes and
// turning graph attributes into regions.
func (nc *nodeCtx) unknown() error {
	ids := nc.reserve()
	var regions []*niro.Region
	for _, a := range nc.attrs {
		for _, g := range attrGraphs(a) {
			r, ys, err := nc.c.regionFor(g, nc.sc.subgraph(nc.e.loc, a.Name), nc.e.loc, func(i int) (niro.TensorType, bool) {
				return nc.subgraphArgType(a.Name, g, i)
			})
			if err != nil {
				return fmt.Errorf("%s: attribute %s: %w", nc.ref(), a.Name, err)
			}
			regions = append(regions, r)
			nc.yields = append(nc.yields, ys)
		}
	}
	return nc.unknownWithRegions(regions, ids)
}

func attrGraphs(a *Attr) []*Graph {
	if a.Graph != nil {
		return []*Graph{a.Graph}
	}
	return a.Graphs
}

// regionFor converts a subgraph into a region whose entry block takes the
// graph's inputs as arguments and ends in Yield of its outputs. argType
// supplies the type of an input the subgraph does not declare.
func (c *converter) regionFor(g *Graph, sub *scope, loc string, argType func(int) (niro.TensorType, bool)) (*niro.Region, []niro.Value, error) {
	blk := &niro.Block{}
	for i, in := range g.Inputs {
		what := fmt.Sprintf("subgraph input %q", in.Name)
		var t niro.TensorType
		if in.Type != nil {
			var err error
			if t, err = c.tensorType(in.Type, what); err != nil {
				return nil, nil, err
			}
		}
		if in.Type == nil || t.Elem == niro.InvalidScalar {
			it, ok := argType(i)
			if !ok {
				return nil, nil, fmt.Errorf("%s has no type, and niro cannot infer it", what)
			}
			if in.Type == nil {
				t = it
			} else {
				t.Elem = it.Elem
			}
		}
		arg := c.fn.NewValue(t)
		blk.Args = append(blk.Args, arg)
		sub.vals[in] = arg
	}
	e := &emitter{blk: blk}
	vals, err := c.convertGraphBody(g, e, sub)
	if err != nil {
		return nil, nil, err
	}
	e.loc = loc
	e.add(&niro.Yield{Values: vals})
	return &niro.Region{Blocks: []*niro.Block{blk}}, vals, nil
}

// subgraphArgType infers the type of input i of a Loop or Scan body that
// does not declare it, from the node's inputs.
func (nc *nodeCtx) subgraphArgType(attr string, g *Graph, i int) (niro.TensorType, bool) {
	if nc.domain != "" || attr != "body" {
		return niro.TensorType{}, false
	}
	fromInput := func(j int) (niro.TensorType, bool) {
		x, ok := nc.input(j)
		if !ok {
			return niro.TensorType{}, false
		}
		return tensorOf(x), true
	}
	switch nc.n.OpType {
	case "Loop":
		// Body inputs: iteration number, condition, loop-carried values.
		switch i {
		case 0:
			return niro.Tensor(niro.I64), true
		case 1:
			return niro.Tensor(niro.Bool), true
		default:
			return fromInput(i)
		}
	case "Scan":
		m := int64(0)
		if a := nc.attr("num_scan_inputs"); a != nil {
			m = a.Int
		}
		first := 0
		if nc.opset < 9 {
			first = 1 // sequence_lens comes first
		}
		states := len(g.Inputs) - int(m)
		t, ok := fromInput(first + i)
		if !ok || i < states {
			return t, ok
		}
		// A scan input: one slice along the scan axis.
		axis := int64(0)
		if a := nc.attr("scan_input_axes"); a != nil && i-states < len(a.Ints) {
			axis = a.Ints[i-states]
		}
		if t.Unranked || nc.opset < 9 || len(t.Dims) == 0 {
			return niro.UnrankedTensor(t.Elem), true
		}
		if axis < 0 {
			axis += int64(len(t.Dims))
		}
		if axis < 0 || axis >= int64(len(t.Dims)) {
			return niro.UnrankedTensor(t.Elem), true
		}
		dims := append(append([]int64{}, t.Dims[:axis]...), t.Dims[axis+1:]...)
		return niro.TensorType{Elem: t.Elem, Dims: dims}, true
	}
	return niro.TensorType{}, false
}

// unknownWithRegions adds the node as an UnknownOp owning regions; its
// results take the reserved IDs.
func (nc *nodeCtx) unknownWithRegions(regions []*niro.Region, ids []niro.ValueID) error {
	n := nc.n
	op := &niro.UnknownOp{OpName: unknownName(nc.domain, n.OpType), Bodies: regions}
	var absent niro.ListAttr
	last := -1
	for i, h := range nc.have {
		if h {
			last = i
		}
	}
	for i, h := range nc.have {
		if h {
			op.Args = append(op.Args, nc.args[i])
		} else if i < last {
			absent = append(absent, niro.IntAttr(i))
		}
	}
	attrs, err := convertAttrs(nc.attrs)
	if err != nil {
		return nc.errorf("%v", err)
	}
	if len(absent) > 0 {
		attrs["onnx.absent_inputs"] = absent
	}
	if nc.reason != "" {
		attrs[ReasonAttr] = niro.StringAttr(nc.reason)
	}
	var absentOut niro.ListAttr
	lastOut := -1
	for i, v := range n.Outputs {
		if v != nil {
			lastOut = i
		}
	}
	for i, v := range n.Outputs {
		if v == nil {
			if i < lastOut {
				absentOut = append(absentOut, niro.IntAttr(i))
			}
			continue
		}
		t, err := nc.unknownResultType(i)
		if err != nil {
			return err
		}
		res := niro.Value{ID: ids[i], Type: t}
		op.Res = append(op.Res, res)
		nc.setResult(i, res)
	}
	if len(absentOut) > 0 {
		attrs["onnx.absent_outputs"] = absentOut
	}
	if len(attrs) > 0 {
		op.Attrs = attrs
	}
	nc.e.add(op)
	return nil
}

// unknownResultType types output i of an unknown op: from its declared
// type when it has one, else from the element-type rule of the op, with an
// unknown shape.
func (nc *nodeCtx) unknownResultType(i int) (niro.TensorType, error) {
	d, declared, err := nc.declared(i)
	if err != nil {
		return niro.TensorType{}, nc.errorf("%v", err)
	}
	inferred, ok := nc.knownResultShape(i)
	if !ok {
		elem := d.Elem
		if !declared || elem == niro.InvalidScalar {
			if elem, err = nc.resultElem(i); err != nil {
				return niro.TensorType{}, err
			}
		}
		inferred = niro.UnrankedTensor(elem)
		if dims, ranked := nc.inferredDims(i); ranked {
			inferred = niro.TensorType{Elem: elem, Dims: dims}
		}
	}
	if !declared {
		return inferred, nil
	}
	if d.Elem != niro.InvalidScalar && d.Elem != inferred.Elem {
		return niro.TensorType{}, nc.errorf("output %q is declared with element type %s, but the op produces %s", nc.n.Outputs[i].Name, d.Elem, inferred.Elem)
	}
	return nc.c.hint(nc.outputWhere(i), nc.n.Outputs[i].Type, d, inferred), nil
}

// knownResultShape returns the full type of result i for the few unknown
// ops niro can still type: a sparse Constant, a MatMul niro cannot compile
// yet (a 1-D operand of dynamic extent), and an If whose branches yield
// different shapes.
func (nc *nodeCtx) knownResultShape(i int) (niro.TensorType, bool) {
	if nc.domain != "" {
		return niro.TensorType{}, false
	}
	if nc.n.OpType == "If" && len(nc.yields) == 2 && i < len(nc.yields[0]) && i < len(nc.yields[1]) {
		return joinTypes(tensorOf(nc.yields[0][i]), tensorOf(nc.yields[1][i]))
	}
	if len(nc.n.Outputs) != 1 {
		return niro.TensorType{}, false
	}
	switch nc.n.OpType {
	case "Constant":
		if a := nc.attr("sparse_value"); a != nil && a.SparseTensor != nil {
			if s, ok := ScalarType(a.SparseTensor.Values.DataType); ok {
				return niro.Tensor(s, a.SparseTensor.Dims...), true
			}
		}
	case "MatMul":
		x, ok1 := nc.input(0)
		y, ok2 := nc.input(1)
		if ok1 && ok2 {
			return matmulShape(tensorOf(x), tensorOf(y))
		}
	}
	return niro.TensorType{}, false
}

// matmulShape applies ONNX MatMul's shape rule (numpy matmul: 1-D operands
// promoted, batch dimensions broadcast) where the ranks are known.
func matmulShape(a, b niro.TensorType) (niro.TensorType, bool) {
	if a.Unranked || b.Unranked || a.Rank() == 0 || b.Rank() == 0 || a.Elem != b.Elem {
		return niro.TensorType{}, false
	}
	ad, bd := a.Dims, b.Dims
	if len(ad) == 1 {
		ad = []int64{1, ad[0]}
	}
	if len(bd) == 1 {
		bd = []int64{bd[0], 1}
	}
	batch, err := niro.BroadcastShape(ad[:len(ad)-2], bd[:len(bd)-2])
	if err != nil {
		return niro.TensorType{}, false
	}
	dims := append(batch, ad[len(ad)-2], bd[len(bd)-1])
	if len(a.Dims) == 1 {
		dims = append(dims[:len(dims)-2], dims[len(dims)-1])
	}
	if len(b.Dims) == 1 {
		dims = dims[:len(dims)-1]
	}
	return niro.TensorType{Elem: a.Elem, Dims: dims}, true
}

// convertAttrs converts node attributes to Niro attributes. Graph
// attributes are not included: they become regions, listed in order by the
// "onnx.regions" attribute.
func convertAttrs(attrs []*Attr) (niro.Attrs, error) {
	out := niro.Attrs{}
	var regions niro.ListAttr
	for _, a := range attrs {
		if gs := attrGraphs(a); len(gs) > 0 || a.Type == AttrType(10) {
			for range gs {
				regions = append(regions, niro.StringAttr(a.Name))
			}
			continue
		}
		v, err := convertAttr(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		out[a.Name] = v
	}
	if len(regions) > 0 {
		out["onnx.regions"] = regions
	}
	return out, nil
}

// Attribute type codes (AttributeProto.AttributeType).
const (
	atFloat         AttrType = 1
	atInt           AttrType = 2
	atString        AttrType = 3
	atTensor        AttrType = 4
	atGraph         AttrType = 5
	atFloats        AttrType = 6
	atInts          AttrType = 7
	atStrings       AttrType = 8
	atTensors       AttrType = 9
	atGraphs        AttrType = 10
	atSparseTensor  AttrType = 11
	atSparseTensors AttrType = 12
	atTypeProto     AttrType = 13
	atTypeProtos    AttrType = 14
)

func convertAttr(a *Attr) (niro.Attribute, error) {
	switch a.Type {
	case atFloat:
		return niro.FloatAttr(a.Float), nil
	case atInt:
		return niro.IntAttr(a.Int), nil
	case atString:
		return stringAttr(a.String), nil
	case atFloats:
		l := make(niro.ListAttr, len(a.Floats))
		for i, f := range a.Floats {
			l[i] = niro.FloatAttr(f)
		}
		return l, nil
	case atInts:
		l := make(niro.ListAttr, len(a.Ints))
		for i, v := range a.Ints {
			l[i] = niro.IntAttr(v)
		}
		return l, nil
	case atStrings:
		l := make(niro.ListAttr, len(a.Strings))
		for i, s := range a.Strings {
			l[i] = stringAttr(s)
		}
		return l, nil
	case atTensor:
		return tensorAttr(a.Tensor), nil
	case atTensors:
		l := make(niro.ListAttr, len(a.Tensors))
		for i, t := range a.Tensors {
			l[i] = tensorAttr(t)
		}
		return l, nil
	case atSparseTensor:
		return sparseAttr(a.SparseTensor), nil
	case atSparseTensors:
		l := make(niro.ListAttr, len(a.SparseTensors))
		for i, s := range a.SparseTensors {
			l[i] = sparseAttr(s)
		}
		return l, nil
	case atTypeProto:
		return niro.StringAttr(a.TypeProto.String()), nil
	case atTypeProtos:
		l := make(niro.ListAttr, len(a.TypeProtos))
		for i, t := range a.TypeProtos {
			l[i] = niro.StringAttr(t.String())
		}
		return l, nil
	default:
		return nil, fmt.Errorf("unsupported attribute type %s", a.Type)
	}
}

// stringAttr keeps valid UTF-8 as a string and anything else as bytes.
func stringAttr(b []byte) niro.Attribute {
	if utf8.Valid(b) {
		return niro.StringAttr(b)
	}
	return niro.BytesAttr(b)
}

// tensorAttr encodes a tensor as [type, data]: the Niro type spelling and
// the packed bytes, or for a string tensor ["tensor<…x!onnx.string>",
// [strings…]].
func tensorAttr(t *Tensor) niro.Attribute {
	if t.DataType == dtString {
		var sb strings.Builder
		sb.WriteString("tensor<")
		for _, d := range t.Dims {
			fmt.Fprintf(&sb, "%dx", d)
		}
		sb.WriteString("!onnx.string>")
		l := make(niro.ListAttr, len(t.strings))
		for i, s := range t.strings {
			l[i] = stringAttr(s)
		}
		return niro.ListAttr{niro.StringAttr(sb.String()), l}
	}
	ty, _ := t.NiroType()
	return niro.ListAttr{niro.StringAttr(ty.String()), niro.BytesAttr(t.Bytes())}
}

// sparseAttr encodes a sparse tensor as ["sparse", dims, values, indices].
func sparseAttr(s *SparseTensor) niro.Attribute {
	dims := make(niro.ListAttr, len(s.Dims))
	for i, d := range s.Dims {
		dims[i] = niro.IntAttr(d)
	}
	var idx niro.Attribute = niro.UnitAttr{}
	if s.Indices != nil {
		idx = tensorAttr(s.Indices)
	}
	return niro.ListAttr{niro.StringAttr("sparse"), dims, tensorAttr(s.Values), idx}
}

// joinTypes returns the most precise type that both a and b have: equal
// extents are kept, others become dynamic, and a rank mismatch gives an
// unranked tensor. It fails when the element types differ.
func joinTypes(a, b niro.TensorType) (niro.TensorType, bool) {
	if a.Elem != b.Elem {
		return niro.TensorType{}, false
	}
	if a.Unranked || b.Unranked || len(a.Dims) != len(b.Dims) {
		return niro.UnrankedTensor(a.Elem), true
	}
	dims := make([]int64, len(a.Dims))
	for i := range dims {
		dims[i] = a.Dims[i]
		if b.Dims[i] != a.Dims[i] {
			dims[i] = niro.Dynamic
		}
	}
	return niro.TensorType{Elem: a.Elem, Dims: dims}, true
}
