package importer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/niro-dev/niro/onnxpb"
)

// loadModel fills ld.model from the decoded protobuf.
func (ld *loader) loadModel(mp *onnxpb.ModelProto) error {
	m := ld.model
	m.IRVersion = mp.GetIrVersion()
	m.ProducerName = mp.GetProducerName()
	m.ProducerVersion = mp.GetProducerVersion()
	m.Domain = mp.GetDomain()
	m.ModelVersion = mp.GetModelVersion()
	m.DocString = mp.GetDocString()
	for _, kv := range mp.GetMetadataProps() {
		m.Metadata = append(m.Metadata, KeyValue{kv.GetKey(), kv.GetValue()})
	}
	opsets, warns, err := readOpsets(mp.GetOpsetImport())
	if err != nil {
		return err
	}
	m.loadWarnings = append(m.loadWarnings, warns...)
	if len(opsets) == 0 && m.IRVersion < 3 {
		// Before IR version 3 models had no opset_import and used the
		// first version of the default operator set.
		opsets[""] = 1
	}
	m.Opsets = opsets
	for i, fp := range mp.GetFunctions() {
		f, err := ld.loadFunction(fp)
		if err != nil {
			name := fp.GetName()
			if name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			return fmt.Errorf("function %s: %w", name, err)
		}
		key := funcKey{f.Domain, f.Name, f.Overload}
		if _, dup := ld.funcs[key]; dup {
			return fmt.Errorf("function %s is defined twice", f)
		}
		ld.funcs[key] = f
		m.funcs = ld.funcs
		m.Functions = append(m.Functions, f)
	}
	if mp.GetGraph() == nil {
		return errors.New("model has no graph")
	}
	spec := ld.graphSpecOf(mp.GetGraph())
	spec.nodes = ld.mainNodes
	ld.mainNodes = nil
	g, err := ld.loadGraph(spec, nil, 0)
	if err != nil {
		return err
	}
	m.Graph = g
	return nil
}

// readOpsets converts opset_import entries. A domain listed twice with
// different versions takes the highest; version 0 means the default
// (defaultOpset). Both are tolerated with a warning, as ONNX Runtime
// tolerates them; a negative version is an error.
func readOpsets(list []*onnxpb.OperatorSetIdProto) (Opsets, []string, error) {
	out := Opsets{}
	var warns, order []string
	for _, o := range list {
		d, v := normDomain(o.GetDomain()), o.GetVersion()
		if v < 0 {
			return nil, nil, fmt.Errorf("opset_import of %s has invalid version %d", displayDomain(d), v)
		}
		old, dup := out[d]
		if !dup {
			order = append(order, d)
		} else if old != v {
			warns = append(warns, fmt.Sprintf("opset_import lists %s twice (versions %d and %d); using %d", displayDomain(d), old, v, max(old, v)))
			v = max(old, v)
		}
		out[d] = v
	}
	for _, d := range order {
		if out[d] == 0 {
			out[d] = defaultOpset(d)
			warns = append(warns, fmt.Sprintf("opset_import of %s has version 0; using the default, %d", displayDomain(d), out[d]))
		}
	}
	return out, warns, nil
}

// defaultOpset is the version an opset_import entry of version 0 stands
// for: the newest version of the domain niro knows, newestOpset for
// ai.onnx and, for another domain, the newest version at which niro
// registers one of its ops (1 where it registers none).
func defaultOpset(domain string) int64 {
	if domain == "" {
		return newestOpset
	}
	v := int64(1)
	for key, specs := range registry {
		if strings.HasPrefix(key, domain+".") && !strings.Contains(key[len(domain)+1:], ".") {
			v = max(v, specs[len(specs)-1].Since)
		}
	}
	return v
}

// graphSpec is what loadGraph needs from a GraphProto or a FunctionProto.
type graphSpec struct {
	name         string
	inputs       []*onnxpb.ValueInfoProto
	inputNames   []string // function inputs (untyped)
	initializers []*onnxpb.TensorProto
	sparseInits  []*onnxpb.SparseTensorProto
	nodes        []nodeRec
	valueInfo    []*onnxpb.ValueInfoProto
	outputs      []*onnxpb.ValueInfoProto
	outputNames  []string // function outputs (untyped)
	function     *Function
}

// nodeRec is a decoded node on its way into a graph: the Node with its
// names and output values, and what loadGraph still has to resolve (the
// input names and the attributes). The NodeProto it came from is not kept, so a
// large main graph is never held decoded twice (load, UnmarshalModelNodes).
type nodeRec struct {
	node   *Node // with its outputs, not yet declared in the graph
	inputs []string
	attrs  []*onnxpb.AttributeProto
}

// nodeRec returns the record of np, the node at index i of its graph.
func (ld *loader) nodeRec(np *onnxpb.NodeProto, i int) nodeRec {
	n := &Node{
		Name:     np.GetName(),
		OpType:   ld.intern(np.GetOpType()),
		Domain:   ld.intern(normDomain(np.GetDomain())),
		Overload: np.GetOverload(),
		Index:    i,
	}
	if outs := np.GetOutput(); len(outs) > 0 {
		n.Outputs = make([]*Value, len(outs))
		for j, name := range outs {
			if name != "" { // an omitted output stays nil
				n.Outputs[j] = &Value{Name: name, Kind: NodeOutput, Producer: n, OutputIndex: j}
			}
		}
	}
	return nodeRec{node: n, inputs: np.GetInput(), attrs: np.GetAttribute()}
}

// nodeRecs returns the records of a graph's or function's nodes.
func (ld *loader) nodeRecs(nps []*onnxpb.NodeProto) []nodeRec {
	recs := make([]nodeRec, len(nps))
	for i, np := range nps {
		recs[i] = ld.nodeRec(np, i)
	}
	return recs
}

// intern returns s, or an equal string returned before: op types and
// domains repeat across nodes, and a graph of a million nodes would
// otherwise hold a million copies of "Add".
func (ld *loader) intern(s string) string {
	if t, ok := ld.strs[s]; ok {
		return t
	}
	if ld.strs == nil {
		ld.strs = map[string]string{}
	}
	ld.strs[s] = s
	return s
}

func (ld *loader) graphSpecOf(gp *onnxpb.GraphProto) graphSpec {
	return graphSpec{
		name:         gp.GetName(),
		inputs:       gp.GetInput(),
		initializers: gp.GetInitializer(),
		sparseInits:  gp.GetSparseInitializer(),
		nodes:        ld.nodeRecs(gp.GetNode()),
		valueInfo:    gp.GetValueInfo(),
		outputs:      gp.GetOutput(),
	}
}

// loadFunction converts a model-local function; its body is a graph with
// untyped inputs.
func (ld *loader) loadFunction(fp *onnxpb.FunctionProto) (*Function, error) {
	if fp.GetName() == "" {
		return nil, errors.New("function has no name")
	}
	opsets, warns, err := readOpsets(fp.GetOpsetImport())
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		ld.model.loadWarnings = append(ld.model.loadWarnings, fmt.Sprintf("function %s: %s", fp.GetName(), w))
	}
	f := &Function{
		Domain:     normDomain(fp.GetDomain()),
		Name:       fp.GetName(),
		Overload:   fp.GetOverload(),
		Attributes: fp.GetAttribute(),
		Opsets:     opsets,
	}
	for _, ap := range fp.GetAttributeProto() {
		a, err := ld.loadAttr(ap, nil, 0)
		if err != nil {
			return nil, err
		}
		f.Defaults = append(f.Defaults, a)
		f.Attributes = append(f.Attributes, a.Name)
	}
	body, err := ld.loadGraph(graphSpec{
		name:        f.Name,
		inputNames:  fp.GetInput(),
		nodes:       ld.nodeRecs(fp.GetNode()),
		valueInfo:   fp.GetValueInfo(),
		outputNames: fp.GetOutput(),
		function:    f,
	}, nil, 0)
	if err != nil {
		return nil, err
	}
	f.Body = body
	return f, nil
}

// describe names a value's definition for duplicate-definition messages.
func (v *Value) describe() string {
	switch v.Kind {
	case GraphInput:
		return "a graph input"
	case InitializerValue:
		return "an initializer"
	default:
		return "an output of " + v.Producer.String()
	}
}

// loadGraph builds a graph: it declares inputs, initializers and node
// outputs, resolves every node input by name (in this graph, then in the
// enclosing ones), records producers and uses, and sorts the nodes
// topologically. owner is the node holding a subgraph, nil otherwise.
func (ld *loader) loadGraph(spec graphSpec, owner *Node, depth int) (*Graph, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("subgraphs nested more than %d levels", maxNesting)
	}
	g := &Graph{Name: spec.name, Owner: owner, Function: spec.function, scope: map[string]*Value{}, model: ld.model}
	declare := func(v *Value) error {
		if prev, dup := g.scope[v.Name]; dup {
			return fmt.Errorf("value %q is defined twice: as %s and as %s", v.Name, prev.describe(), v.describe())
		}
		g.scope[v.Name] = v
		return nil
	}

	// Inputs.
	for i, vi := range spec.inputs {
		if vi.GetName() == "" {
			return nil, fmt.Errorf("graph input #%d has no name", i)
		}
		t, err := typeFromProto(vi.GetType(), 0)
		if err != nil {
			return nil, fmt.Errorf("graph input %q: %w", vi.GetName(), err)
		}
		v := &Value{Name: vi.GetName(), Kind: GraphInput, Type: t, Graph: g}
		if err := declare(v); err != nil {
			return nil, err
		}
		g.Inputs = append(g.Inputs, v)
	}
	for i, name := range spec.inputNames {
		if name == "" {
			return nil, fmt.Errorf("input #%d has no name", i)
		}
		v := &Value{Name: name, Kind: GraphInput, Graph: g}
		if err := declare(v); err != nil {
			return nil, err
		}
		g.Inputs = append(g.Inputs, v)
	}

	// Initializers.
	for i, tp := range spec.initializers {
		if tp.GetName() == "" {
			return nil, fmt.Errorf("initializer #%d has no name", i)
		}
		t, err := ld.decodeTensor(tp)
		if err != nil {
			return nil, fmt.Errorf("initializer: %w", err)
		}
		if in := g.scope[t.Name]; in != nil && in.Kind == GraphInput && in.Initializer == nil {
			// IR version < 4: an input listed with its initializer, which
			// is the input's default value.
			if in.Type != nil && in.Type.Kind == TensorKind && in.Type.Elem != t.DataType {
				return nil, fmt.Errorf("initializer %q has element type %s, its graph input declares %s", t.Name, dataTypeName(t.DataType), dataTypeName(in.Type.Elem))
			}
			if in.Type == nil {
				in.Type = tensorTypeOf(t)
			}
			in.Initializer = t
			continue
		}
		v := &Value{Name: t.Name, Kind: InitializerValue, Type: tensorTypeOf(t), Initializer: t, Graph: g}
		if prev := g.scope[t.Name]; prev != nil {
			return nil, fmt.Errorf("value %q is defined twice: as %s and as an initializer", t.Name, prev.describe())
		}
		g.scope[t.Name] = v
		g.Initializers = append(g.Initializers, v)
	}
	if len(spec.sparseInits) > 0 {
		name := spec.sparseInits[0].GetValues().GetName()
		return nil, fmt.Errorf("sparse initializer %q is not supported", name)
	}

	// Node outputs.
	nodes := make([]*Node, len(spec.nodes))
	for i := range spec.nodes {
		rec := &spec.nodes[i]
		n := rec.node
		n.Graph = g
		nodes[i] = n
		if n.OpType == "" {
			return nil, fmt.Errorf("%s has no op_type", n)
		}
		for _, v := range n.Outputs {
			if v == nil {
				continue
			}
			v.Graph = g
			if err := declare(v); err != nil {
				return nil, err
			}
		}
	}

	if memHook != nil && owner == nil && spec.function == nil {
		memHook("outputs declared")
	}

	// Declared types of intermediate values.
	for _, vi := range spec.valueInfo {
		v := g.scope[vi.GetName()]
		if v == nil || v.Type != nil {
			continue
		}
		t, err := typeFromProto(vi.GetType(), 0)
		if err != nil {
			return nil, fmt.Errorf("value_info %q: %w", vi.GetName(), err)
		}
		v.Type = t
	}

	// Attributes (with subgraphs) and inputs.
	for i := range spec.nodes {
		rec := &spec.nodes[i]
		n := nodes[i]
		seen := map[string]bool{}
		for _, ap := range rec.attrs {
			a, err := ld.loadAttr(ap, n, depth)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			if seen[a.Name] {
				return nil, fmt.Errorf("%s: attribute %q is given twice", n, a.Name)
			}
			seen[a.Name] = true
			n.Attrs = append(n.Attrs, a)
		}
		if len(rec.inputs) > 0 {
			n.Inputs = make([]*Value, 0, len(rec.inputs))
		}
		for j, name := range rec.inputs {
			if name == "" {
				n.Inputs = append(n.Inputs, nil)
				continue
			}
			v := g.resolve(name)
			if v == nil {
				return nil, fmt.Errorf("%s: input %d %q is not defined (no graph input, initializer or node output has that name)", n, j, name)
			}
			v.Uses = append(v.Uses, Use{Node: n, Index: j})
			n.Inputs = append(n.Inputs, v)
		}
		if sgs := n.Subgraphs(); len(sgs) > 0 {
			seen := map[*Value]bool{}
			for _, sg := range sgs {
				for _, c := range sg.Captures {
					if !seen[c] {
						seen[c] = true
						n.Implicit = append(n.Implicit, c)
					}
				}
			}
		}
		for _, c := range n.Implicit {
			if c.Graph != g {
				g.addCapture(c)
			}
		}
		*rec = nodeRec{} // its names and attributes are no longer needed
	}

	// Outputs.
	for i, vi := range spec.outputs {
		v := g.resolve(vi.GetName())
		if v == nil {
			return nil, fmt.Errorf("graph output %q is not defined (no graph input, initializer or node output has that name)", vi.GetName())
		}
		t, err := typeFromProto(vi.GetType(), 0)
		if err != nil {
			return nil, fmt.Errorf("graph output %q: %w", vi.GetName(), err)
		}
		if v.Type == nil {
			v.Type = t
		}
		g.Outputs = append(g.Outputs, v)
		g.OutputTypes = append(g.OutputTypes, t)
		_ = i
	}
	for _, name := range spec.outputNames {
		v := g.resolve(name)
		if v == nil {
			return nil, fmt.Errorf("output %q is not defined (no input or node output has that name)", name)
		}
		g.Outputs = append(g.Outputs, v)
		g.OutputTypes = append(g.OutputTypes, nil)
	}

	sorted, err := topoSort(g, nodes)
	if err != nil {
		return nil, err
	}
	g.Nodes = sorted
	return g, nil
}

// resolve finds the value named name in g's scope or, failing that, in
// the enclosing graphs' scopes; a value found outside g is recorded as a
// capture of g.
func (g *Graph) resolve(name string) *Value {
	if v := g.scope[name]; v != nil {
		return v
	}
	for outer := g.parent(); outer != nil; outer = outer.parent() {
		if v := outer.scope[name]; v != nil {
			g.addCapture(v)
			return v
		}
	}
	return nil
}

// parent returns the graph enclosing a subgraph, or nil.
func (g *Graph) parent() *Graph {
	if g.Owner == nil {
		return nil
	}
	return g.Owner.Graph
}

// Lookup returns the value named name visible in g (its own scope, then
// the enclosing graphs'), or nil.
func (g *Graph) Lookup(name string) *Value {
	for s := g; s != nil; s = s.parent() {
		if v := s.scope[name]; v != nil {
			return v
		}
	}
	return nil
}

// addCapture records that g reads v from an enclosing graph.
func (g *Graph) addCapture(v *Value) {
	if g.captured == nil {
		g.captured = map[*Value]bool{}
	}
	if !g.captured[v] {
		g.captured[v] = true
		g.Captures = append(g.Captures, v)
	}
}

// topoSort orders nodes so that every producer precedes its consumers,
// keeping the file order where it already is one. Dependencies include the
// values a node's subgraphs capture. A cycle is an error naming its nodes.
func topoSort(g *Graph, nodes []*Node) ([]*Node, error) {
	const (
		unvisited = iota
		active
		done
	)
	// Indexed by Node.Index, which is the node's position in nodes: a byte
	// a node rather than a map entry, at the load's peak.
	state := make([]uint8, len(nodes))
	out := make([]*Node, 0, len(nodes))
	type frame struct {
		n    *Node
		deps []*Node
		next int
	}
	depsOf := func(n *Node) []*Node {
		var deps []*Node
		add := func(v *Value) {
			if v != nil && v.Producer != nil && v.Graph == g {
				deps = append(deps, v.Producer)
			}
		}
		for _, v := range n.Inputs {
			add(v)
		}
		for _, v := range n.Implicit {
			add(v)
		}
		return deps
	}
	for _, root := range nodes {
		if state[root.Index] != unvisited {
			continue
		}
		stack := []frame{{n: root, deps: depsOf(root)}}
		state[root.Index] = active
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.deps) {
				state[top.n.Index] = done
				out = append(out, top.n)
				stack = stack[:len(stack)-1]
				continue
			}
			d := top.deps[top.next]
			top.next++
			switch state[d.Index] {
			case done:
			case active:
				var path []string
				start := 0
				for i := range stack {
					if stack[i].n == d {
						start = i
					}
				}
				for _, f := range stack[start:] {
					path = append(path, f.n.String())
				}
				path = append(path, d.String())
				return nil, fmt.Errorf("cycle: %s uses an output of %s", path[0], strings.Join(path[1:], ", which uses an output of "))
			default:
				state[d.Index] = active
				stack = append(stack, frame{n: d, deps: depsOf(d)})
			}
		}
	}
	return out, nil
}

// loadAttr converts an attribute; graph attributes become subgraphs owned
// by n, whose scope encloses them.
func (ld *loader) loadAttr(ap *onnxpb.AttributeProto, n *Node, depth int) (*Attr, error) {
	a := &Attr{Name: ap.GetName(), Type: ap.GetType(), RefAttrName: ap.GetRefAttrName()}
	if a.Name == "" {
		return nil, errors.New("attribute has no name")
	}
	wrap := func(err error) error { return fmt.Errorf("attribute %q: %w", a.Name, err) }
	if a.RefAttrName != "" {
		if n != nil && !n.inFunction() {
			return nil, wrap(fmt.Errorf("refers to attribute %q, which is allowed only in a function body", a.RefAttrName))
		}
		return a, nil
	}
	if a.Type == onnxpb.AttributeProto_UNDEFINED {
		a.Type = inferAttrType(ap)
		if a.Type == onnxpb.AttributeProto_UNDEFINED {
			return nil, wrap(errors.New("has no type and no value"))
		}
	}
	var err error
	switch a.Type {
	case onnxpb.AttributeProto_FLOAT:
		a.Float = ap.GetF()
	case onnxpb.AttributeProto_INT:
		a.Int = ap.GetI()
	case onnxpb.AttributeProto_STRING:
		a.String = ap.GetS()
	case onnxpb.AttributeProto_FLOATS:
		a.Floats = ap.GetFloats()
	case onnxpb.AttributeProto_INTS:
		a.Ints = ap.GetInts()
	case onnxpb.AttributeProto_STRINGS:
		a.Strings = ap.GetStrings()
	case onnxpb.AttributeProto_TENSOR:
		if ap.GetT() == nil {
			return nil, wrap(errors.New("TENSOR attribute has no tensor"))
		}
		a.Tensor, err = ld.decodeTensor(ap.GetT())
	case onnxpb.AttributeProto_TENSORS:
		for _, tp := range ap.GetTensors() {
			t, terr := ld.decodeTensor(tp)
			if terr != nil {
				err = terr
				break
			}
			a.Tensors = append(a.Tensors, t)
		}
	case onnxpb.AttributeProto_GRAPH:
		if ap.GetG() == nil {
			return nil, wrap(errors.New("GRAPH attribute has no graph"))
		}
		if n == nil {
			return nil, wrap(errors.New("graph attributes are not supported as function attribute defaults"))
		}
		a.Graph, err = ld.loadGraph(ld.graphSpecOf(ap.GetG()), n, depth+1)
	case onnxpb.AttributeProto_GRAPHS:
		if n == nil {
			return nil, wrap(errors.New("graph attributes are not supported as function attribute defaults"))
		}
		for _, gp := range ap.GetGraphs() {
			sg, gerr := ld.loadGraph(ld.graphSpecOf(gp), n, depth+1)
			if gerr != nil {
				err = gerr
				break
			}
			a.Graphs = append(a.Graphs, sg)
		}
	case onnxpb.AttributeProto_SPARSE_TENSOR:
		if ap.GetSparseTensor() == nil {
			return nil, wrap(errors.New("SPARSE_TENSOR attribute has no tensor"))
		}
		a.SparseTensor, err = ld.decodeSparse(ap.GetSparseTensor())
	case onnxpb.AttributeProto_SPARSE_TENSORS:
		for _, sp := range ap.GetSparseTensors() {
			s, serr := ld.decodeSparse(sp)
			if serr != nil {
				err = serr
				break
			}
			a.SparseTensors = append(a.SparseTensors, s)
		}
	case onnxpb.AttributeProto_TYPE_PROTO:
		a.TypeProto, err = typeFromProto(ap.GetTp(), 0)
		if err == nil && a.TypeProto == nil {
			err = errors.New("TYPE_PROTO attribute has no type")
		}
	case onnxpb.AttributeProto_TYPE_PROTOS:
		for _, tp := range ap.GetTypeProtos() {
			t, terr := typeFromProto(tp, 0)
			if terr == nil && t == nil {
				terr = errors.New("TYPE_PROTOS entry has no type")
			}
			if terr != nil {
				err = terr
				break
			}
			a.TypeProtos = append(a.TypeProtos, t)
		}
	default:
		return nil, wrap(fmt.Errorf("unknown attribute type %d", int32(a.Type)))
	}
	if err != nil {
		return nil, wrap(err)
	}
	return a, nil
}

// inFunction reports whether the node lies in a function body, directly or
// in a subgraph.
func (n *Node) inFunction() bool {
	for g := n.Graph; g != nil; g = g.parent() {
		if g.Function != nil {
			return true
		}
	}
	return false
}

// inferAttrType recovers the type of an attribute written without one
// (early IR versions) from the field that is set.
func inferAttrType(ap *onnxpb.AttributeProto) onnxpb.AttributeProto_AttributeType {
	switch {
	case ap.F != nil:
		return onnxpb.AttributeProto_FLOAT
	case ap.I != nil:
		return onnxpb.AttributeProto_INT
	case ap.S != nil:
		return onnxpb.AttributeProto_STRING
	case ap.T != nil:
		return onnxpb.AttributeProto_TENSOR
	case ap.G != nil:
		return onnxpb.AttributeProto_GRAPH
	case ap.SparseTensor != nil:
		return onnxpb.AttributeProto_SPARSE_TENSOR
	case ap.Tp != nil:
		return onnxpb.AttributeProto_TYPE_PROTO
	case len(ap.Floats) > 0:
		return onnxpb.AttributeProto_FLOATS
	case len(ap.Ints) > 0:
		return onnxpb.AttributeProto_INTS
	case len(ap.Strings) > 0:
		return onnxpb.AttributeProto_STRINGS
	case len(ap.Tensors) > 0:
		return onnxpb.AttributeProto_TENSORS
	case len(ap.Graphs) > 0:
		return onnxpb.AttributeProto_GRAPHS
	case len(ap.SparseTensors) > 0:
		return onnxpb.AttributeProto_SPARSE_TENSORS
	case len(ap.TypeProtos) > 0:
		return onnxpb.AttributeProto_TYPE_PROTOS
	}
	return onnxpb.AttributeProto_UNDEFINED
}

// decodeSparse converts a sparse tensor, checking that its values and
// indices agree with its dense shape.
func (ld *loader) decodeSparse(sp *onnxpb.SparseTensorProto) (*SparseTensor, error) {
	if sp.GetValues() == nil {
		return nil, errors.New("sparse tensor has no values")
	}
	vals, err := ld.decodeTensor(sp.GetValues())
	if err != nil {
		return nil, err
	}
	s := &SparseTensor{Values: vals, Dims: sp.GetDims()}
	if _, err := numElements(s.Dims); err != nil {
		return nil, fmt.Errorf("sparse tensor: %w", err)
	}
	if len(vals.Dims) != 1 {
		return nil, fmt.Errorf("sparse tensor values have rank %d, want 1", len(vals.Dims))
	}
	if sp.GetIndices() != nil {
		if s.Indices, err = ld.decodeTensor(sp.GetIndices()); err != nil {
			return nil, err
		}
		if s.Indices.DataType != dtInt64 {
			return nil, fmt.Errorf("sparse tensor indices have type %s, want int64", dataTypeName(s.Indices.DataType))
		}
	}
	return s, nil
}
