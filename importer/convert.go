package importer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// smallConstBytes is the largest Constant payload kept inline as a Const;
// larger constants become module globals.
const smallConstBytes = 64

// newestOpset is the newest ai.onnx opset whose semantics the mapped ops
// were checked against.
const newestOpset = 28

// errInvalidIR marks a conversion whose output fails niro.Verify: always a
// bug in the importer, never a property of the model.
var errInvalidIR = errors.New("the importer produced invalid Niro IR (an importer bug; please report it)")

// converter turns a loaded Model into a Niro module.
type converter struct {
	m       *Model
	opts    Options
	mod     *niro.Module
	fn      *niro.Function
	globals map[*Tensor]*niro.Global
	symbols map[string]bool
	// active holds the functions being inlined, to reject recursion.
	active map[*Function]bool
	// known holds the values known at import (see known.go).
	known map[niro.ValueID]*known
	// release is set by ConvertReleasing (release.go).
	release bool
	// scalarTypes holds the shared types of rank-0 constants (knownType).
	scalarTypes map[scalarKey]niro.Type
	// warnings lists the declared types overridden so far (hints.go);
	// warned holds the same lines, hinted the declarations overridden.
	warnings []string
	warned   map[string]bool
	hinted   map[*Type]bool
}

// scope maps the values of one graph (and, through parent, of the graphs
// enclosing it) to Niro values while the graph is converted.
type scope struct {
	parent *scope
	vals   map[*Value]niro.Value
	// comps holds the values of sequence or optional type (composite.go).
	comps map[*Value]*composite
	// absent marks function inputs the call site did not pass.
	absent map[*Value]bool
	opsets Opsets
	// bindings holds the attributes of the call being inlined, for
	// attributes with ref_attr_name; nil outside function bodies.
	bindings map[string]*Attr
	// loc prefixes the locations of all nodes (inside inlined function
	// bodies); anonLoc prefixes those of unnamed nodes (in subgraphs).
	loc     string
	anonLoc string
	depth   int
}

// subgraph returns the scope of a subgraph held by attribute attr of the
// node at location loc. Unnamed nodes of the subgraph are located
// "loc/attr/node #i (Op)".
func (s *scope) subgraph(loc, attr string) *scope {
	return &scope{
		parent:   s,
		vals:     map[*Value]niro.Value{},
		comps:    map[*Value]*composite{},
		opsets:   s.opsets,
		bindings: s.bindings,
		loc:      s.loc,
		anonLoc:  strings.TrimPrefix(loc, s.loc) + "/" + attr + "/",
		depth:    s.depth + 1,
	}
}

// lookup returns the Niro value of v; absent reports an unpassed optional
// function input.
func (s *scope) lookup(v *Value) (val niro.Value, ok, absent bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if x, ok := sc.vals[v]; ok {
			return x, true, false
		}
		if sc.absent[v] {
			return niro.Value{}, false, true
		}
	}
	return niro.Value{}, false, false
}

// emitter appends ops to one block, recording a location on each.
type emitter struct {
	blk *niro.Block
	loc string
}

func (e *emitter) add(op niro.Op) {
	op.SetLocation(e.loc)
	e.blk.Ops = append(e.blk.Ops, op)
}

// Convert maps a loaded model to a Niro module and verifies it. The
// module's tensor literals alias the model's memory, so the model must not
// be closed while the module is used.
func Convert(m *Model, opts Options) (*niro.Module, error) {
	return convert(m, opts, false)
}

func convert(m *Model, opts Options, release bool) (*niro.Module, error) {
	if m == nil || m.Graph == nil {
		return nil, errors.New("model has no graph")
	}
	m.convWarnings = nil
	if m.released {
		return nil, errors.New("the model's graph was released by an earlier conversion (ConvertReleasing) and cannot be converted again")
	}
	if err := checkOptions(m, opts); err != nil {
		return nil, err
	}
	m.released = release
	c := &converter{
		release: release,
		m:       m,
		opts:    opts,
		mod:     niro.NewModule(),
		globals: map[*Tensor]*niro.Global{},
		symbols: map[string]bool{},
		active:  map[*Function]bool{},
		known:   map[niro.ValueID]*known{},
	}
	err := c.convertMain()
	m.convWarnings = c.warnings
	if err != nil {
		return nil, err
	}
	c.prune()
	if err := niro.Verify(c.mod); err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalidIR, err)
	}
	return c.mod, nil
}

// FunctionName returns the name of the Niro function made from a graph
// name: the name made a valid C identifier, or "model" when it is empty.
func FunctionName(graph string) string {
	var sb strings.Builder
	for _, r := range graph {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	s := sb.String()
	if s == "" {
		return "model"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if !niro.IsCIdent(s) || s == "main" { // a C keyword, or the harness's entry
		s += "_"
	}
	return s
}

// symbol returns a module symbol name based on base that no global or
// function uses yet, and reserves it.
func (c *converter) symbol(base string) string {
	if base == "" {
		base = "const"
	}
	name := base
	for i := 1; c.symbols[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	c.symbols[name] = true
	return name
}

// global returns the module global holding t, creating it on first use.
func (c *converter) global(t *Tensor, name string) (*niro.Global, error) {
	if g := c.globals[t]; g != nil {
		return g, nil
	}
	ty, err := t.NiroType()
	if err != nil {
		return nil, err
	}
	g := c.mod.AddGlobal(c.symbol(name), ty, niro.BytesLit(t.Bytes()))
	c.globals[t] = g
	return g, nil
}

func (c *converter) convertMain() error {
	g := c.m.Graph
	fname := FunctionName(g.Name)
	c.symbols[fname] = true

	sc := &scope{vals: map[*Value]niro.Value{}, comps: map[*Value]*composite{}, opsets: c.m.Opsets}
	var ft niro.FunctionType
	var inNames []*string
	// A graph input of sequence or optional type is flattened into one
	// parameter per element (composite.go); the others take one each.
	type param struct {
		name string
		t    niro.Type
	}
	var params []param
	comps := map[*Value]*composite{}
	for _, in := range g.Inputs {
		if in.Type != nil && (in.Type.Kind == SequenceKind || in.Type.Kind == OptionalKind) {
			cp, err := c.compositeInput(in, func(name string, t niro.Type) niro.Value {
				params = append(params, param{name, t})
				return niro.Value{ID: niro.ValueID(len(params) - 1)} // the parameter's index, resolved below
			})
			if err != nil {
				return err
			}
			comps[in] = cp
			continue
		}
		t, err := c.inputType(in)
		if err != nil {
			return err
		}
		params = append(params, param{in.Name, t})
	}
	for _, p := range params {
		ft.Inputs = append(ft.Inputs, p.t)
		inNames = append(inNames, niro.Name(p.name))
	}
	f := c.mod.AddFunction(fname, ft)
	c.fn = f
	f.InputNames = inNames
	for i, p := range params {
		if data, ok := c.opts.Values[p.name]; ok {
			c.recordKnown(f.Args()[i], data)
		}
	}
	var defaults niro.ListAttr
	haveDefault := false
	k := 0
	for _, in := range g.Inputs {
		if cp, ok := comps[in]; ok {
			var fix func(cp *composite)
			fix = func(cp *composite) {
				for j, e := range cp.elems {
					if e.c != nil {
						fix(e.c)
						continue
					}
					cp.elems[j].t = f.Args()[e.t.ID]
					defaults = append(defaults, niro.StringAttr(""))
					k++
				}
			}
			fix(cp)
			sc.comps[in] = cp
			continue
		}
		sc.vals[in] = f.Args()[k]
		k++
		def := niro.StringAttr("")
		if in.Initializer != nil {
			gl, err := c.global(in.Initializer, in.Name)
			if err != nil {
				return fmt.Errorf("initializer %q: %w", in.Name, err)
			}
			def = niro.StringAttr(gl.Name)
			haveDefault = true
		}
		defaults = append(defaults, def)
	}
	if haveDefault {
		f.Attrs = niro.Attrs{"input_defaults": defaults}
	}

	e := &emitter{blk: f.Entry()}
	items, err := c.convertGraphItems(g, e, sc)
	if err != nil {
		return err
	}
	var outs []niro.Value
	for i, it := range items {
		name := g.Outputs[i].Name
		// A declaration the value's node was checked against (a graph
		// output with no value_info) and overrode is not reported twice.
		if decl := g.OutputTypes[i]; !c.hinted[decl] {
			if err := c.checkItem(decl, it, "", fmt.Sprintf("graph output %q", name)); err != nil {
				return err
			}
		}
		// A sequence or optional output is flattened as inputs are.
		vals := it.flatten(nil)
		for j, name := range flatOutputNames(name, it) {
			f.Type.Outputs = append(f.Type.Outputs, vals[j].Type)
			f.OutputNames = append(f.OutputNames, niro.Name(name))
		}
		outs = append(outs, vals...)
	}
	e.loc = ""
	e.add(&niro.Return{Values: outs})

	c.mod.Attrs = niro.Attrs{"entry": niro.StringAttr(fname)}
	if len(c.m.Opsets) > 0 {
		var ops niro.ListAttr
		for _, s := range c.m.Opsets.entries() {
			ops = append(ops, niro.StringAttr(s))
		}
		c.mod.Attrs["onnx.opset_import"] = ops
	}
	c.mod.Attrs["onnx.ir_version"] = niro.IntAttr(c.m.IRVersion)
	if c.m.ProducerName != "" {
		c.mod.Attrs["onnx.producer"] = niro.StringAttr(strings.TrimSpace(c.m.ProducerName + " " + c.m.ProducerVersion))
	}
	return nil
}

// convertGraphBody converts the initializers and nodes of g into e's block
// and returns the Niro values of g's outputs. The caller terminates the
// block.
func (c *converter) convertGraphBody(g *Graph, e *emitter, sc *scope) ([]niro.Value, error) {
	if err := c.convertGraphNodes(g, e, sc); err != nil {
		return nil, err
	}
	outs := make([]niro.Value, len(g.Outputs))
	for i, v := range g.Outputs {
		if cp, ok := sc.lookupComp(v); ok {
			return nil, fmt.Errorf("graph output %q is %s; niro resolves sequences and optionals at import, where an If's condition or a Loop's trip count is known at compile time", v.Name, cp.what())
		}
		val, ok, _ := sc.lookup(v)
		if !ok {
			return nil, fmt.Errorf("graph output %q has no value (it is an omitted function input)", v.Name)
		}
		outs[i] = val
	}
	return outs, nil
}

// convertGraphNodes converts the initializers and nodes of g into e's
// block.
func (c *converter) convertGraphNodes(g *Graph, e *emitter, sc *scope) error {
	outputSet := map[*Value]bool{}
	for _, v := range g.Outputs {
		outputSet[v] = true
	}
	for _, v := range g.Initializers {
		if len(v.Uses) == 0 && !outputSet[v] {
			continue
		}
		gl, err := c.global(v.Initializer, v.Name)
		if err != nil {
			return fmt.Errorf("initializer %q: %w", v.Name, err)
		}
		e.loc = ""
		res := c.fn.NewValue(gl.Type)
		e.add(&niro.GetGlobal{Result: res, Global: gl.Name})
		c.recordKnown(res, v.Initializer.Bytes())
		sc.vals[v] = res
	}
	if c.release && g == c.m.Graph && sc.parent == nil {
		return c.convertReleasing(g, e, sc, outputSet)
	}
	for _, n := range g.Nodes {
		if err := c.convertNode(n, e, sc); err != nil {
			return err
		}
	}
	return nil
}

// inputType returns the Niro type of a main-graph input, applying
// Options.Shapes and Options.Dims.
func (c *converter) inputType(in *Value) (niro.Type, error) {
	what := fmt.Sprintf("graph input %q", in.Name)
	if in.Type == nil {
		return nil, fmt.Errorf("%s has no type", what)
	}
	return c.inputTypeOf(in.Name, in.Type, what)
}

// inputTypeOf returns the Niro type of the entry parameter name, of ONNX
// type ty, applying Options.Shapes and Options.Dims.
func (c *converter) inputTypeOf(name string, ty *Type, what string) (niro.Type, error) {
	in := &Value{Name: name, Type: ty}
	t, err := c.tensorType(in.Type, what)
	if err != nil {
		return nil, err
	}
	if t.Elem == niro.InvalidScalar {
		return nil, fmt.Errorf("%s has no element type", what)
	}
	shape, ok := c.opts.Shapes[in.Name]
	if !ok {
		return t, nil
	}
	if !t.Unranked && len(t.Dims) != len(shape) {
		return nil, fmt.Errorf("--shape %s=%s: the input has rank %d (%s)", in.Name, dimsString(shape), len(t.Dims), in.Type)
	}
	for i, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("--shape %s=%s: dimension %d is negative", in.Name, dimsString(shape), i)
		}
		if !t.Unranked && t.Dims[i] != niro.Dynamic && t.Dims[i] != d {
			return nil, fmt.Errorf("--shape %s=%s: dimension %d of the input is %d", in.Name, dimsString(shape), i, t.Dims[i])
		}
	}
	return niro.Tensor(t.Elem, shape...), nil
}

func dimsString(d []int64) string {
	parts := make([]string, len(d))
	for i, x := range d {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, "x")
}

// checkOptions rejects --shape entries naming no graph input and --dim
// entries naming no dimension parameter of the model.
func checkOptions(m *Model, opts Options) error {
	for name := range opts.Shapes {
		found := false
		for _, in := range m.Graph.Inputs {
			// An element of a sequence input is named NAME.K.
			seq := in.Type != nil && (in.Type.Kind == SequenceKind || in.Type.Kind == OptionalKind)
			found = found || in.Name == name || seq && strings.HasPrefix(name, in.Name+".")
		}
		if !found {
			return fmt.Errorf("--shape %s: the model has no graph input named %q", name, name)
		}
	}
	for name := range opts.Sequences {
		found := false
		for _, in := range m.Graph.Inputs {
			found = found || in.Name == name && in.Type != nil && (in.Type.Kind == SequenceKind || in.Type.Kind == OptionalKind)
		}
		if !found {
			return fmt.Errorf("--seq %s: the model has no graph input of sequence or optional type named %q", name, name)
		}
	}
	if len(opts.Dims) == 0 {
		return nil
	}
	params := map[string]bool{}
	var walk func(g *Graph)
	addType := func(t *Type) {
		for ; t != nil; t = t.Inner {
			for _, d := range t.Dims {
				if d.Param != "" {
					params[d.Param] = true
				}
			}
		}
	}
	walk = func(g *Graph) {
		for _, v := range g.Inputs {
			addType(v.Type)
		}
		for _, t := range g.OutputTypes {
			addType(t)
		}
		for _, n := range g.Nodes {
			for _, v := range n.Outputs {
				if v != nil {
					addType(v.Type)
				}
			}
			for _, sg := range n.Subgraphs() {
				walk(sg)
			}
		}
	}
	walk(m.Graph)
	for _, f := range m.Functions {
		walk(f.Body)
	}
	for name, v := range opts.Dims {
		if v < 0 {
			return fmt.Errorf("--dim %s=%d: the value is negative", name, v)
		}
		if !params[name] {
			return fmt.Errorf("--dim %s: the model has no dimension parameter named %q", name, name)
		}
	}
	return nil
}

// tensorType converts a declared ONNX type to a Niro tensor type. what
// names the value for messages. Non-tensor types and string elements are
// errors. An UNDEFINED element type yields InvalidScalar, for the caller to
// fill in.
func (c *converter) tensorType(t *Type, what string) (niro.TensorType, error) {
	if t.Kind != TensorKind {
		return niro.TensorType{}, fmt.Errorf("%s has type %s; niro supports tensors only", what, t)
	}
	var elem niro.ScalarType
	if t.Elem != dtUndefined {
		s, ok := ScalarType(t.Elem)
		if !ok {
			return niro.TensorType{}, fmt.Errorf("%s has element type %s, which niro does not support", what, dataTypeName(t.Elem))
		}
		elem = s
	}
	if !t.Ranked {
		return niro.UnrankedTensor(elem), nil
	}
	dims := make([]int64, len(t.Dims))
	for i, d := range t.Dims {
		switch {
		case d.Value >= 0:
			dims[i] = d.Value
		case d.Param != "":
			if v, ok := c.opts.Dims[d.Param]; ok {
				dims[i] = v
			} else {
				dims[i] = niro.Dynamic
			}
		default:
			dims[i] = niro.Dynamic
		}
	}
	return niro.TensorType{Elem: elem, Dims: dims}, nil
}

// checkDeclared checks that an inferred type agrees with a declared ONNX
// type (nil when none): the same element type, else an error; the same
// rank and static extents where both are known, else a warning (hint).
func checkDeclared(c *converter, declared *Type, got niro.Type, who, what string) error {
	if declared == nil {
		return nil
	}
	dt, err := c.tensorType(declared, what)
	if err != nil {
		return err
	}
	gt, ok := got.(niro.TensorType)
	if !ok {
		return fmt.Errorf("%s is declared as %s but is a scalar", what, declared)
	}
	if dt.Elem != niro.InvalidScalar && dt.Elem != gt.Elem {
		return fmt.Errorf("%s is declared with element type %s, but its value has %s", what, dataTypeName(declared.Elem), dataTypeName(dataTypeOf(gt.Elem)))
	}
	where := what
	if who != "" {
		where = who + ": " + what
	}
	c.hint(where, declared, dt, gt)
	return nil
}

// refine combines an inferred type with a declared one: where the inferred
// type is unranked or has a dynamic extent, the declared information is
// used. It fails when both know a rank or an extent and they differ.
func refine(inferred, declared niro.TensorType) (niro.TensorType, error) {
	if declared.Unranked {
		return inferred, nil
	}
	if inferred.Unranked {
		return niro.TensorType{Elem: inferred.Elem, Dims: append([]int64{}, declared.Dims...)}, nil
	}
	if len(inferred.Dims) != len(declared.Dims) {
		return inferred, fmt.Errorf("rank %d differs from the declared rank %d", len(inferred.Dims), len(declared.Dims))
	}
	out := niro.TensorType{Elem: inferred.Elem, Dims: make([]int64, len(inferred.Dims))}
	for i, d := range inferred.Dims {
		dd := declared.Dims[i]
		switch {
		case d == niro.Dynamic:
			out.Dims[i] = dd
		case dd == niro.Dynamic || dd == d:
			out.Dims[i] = d
		default:
			return inferred, fmt.Errorf("dimension %d is %d, declared %d", i, d, dd)
		}
	}
	return out, nil
}

// errFallback tells convertNode to keep a mapped op as an UnknownOp
// because Niro's op cannot express this instance (for example a Transpose
// of an unranked tensor).
var errFallback = errors.New("fallback to UnknownOp")

func (c *converter) convertNode(n *Node, e *emitter, sc *scope) error {
	nc := &nodeCtx{c: c, n: n, e: e, sc: sc, domain: n.Domain}
	ver, ok := sc.opsets.Version(n.Domain)
	if !ok {
		if v, mok := c.m.Opsets.Version(n.Domain); mok {
			ver, ok = v, true
		}
	}
	nc.opset = ver
	if !ok {
		return nc.errorf("domain %s is not imported by the model's opset_import", displayDomain(n.Domain))
	}
	e.loc = sc.loc + n.Location()
	if n.Name == "" {
		e.loc = sc.loc + sc.anonLoc + n.Location()
	}

	nc.args = make([]niro.Value, len(n.Inputs))
	nc.have = make([]bool, len(n.Inputs))
	nc.comps = make([]*composite, len(n.Inputs))
	anyComp := false
	for i, v := range n.Inputs {
		if v == nil {
			continue
		}
		if cp, ok := sc.lookupComp(v); ok {
			nc.comps[i], nc.have[i], anyComp = cp, true, true
			continue
		}
		val, found, absent := sc.lookup(v)
		if absent {
			continue
		}
		if !found {
			return nc.errorf("input %q has no value here (a bug in the importer's scoping)", v.Name)
		}
		nc.args[i], nc.have[i] = val, true
	}
	attrs, err := resolveAttrs(n, sc)
	if err != nil {
		return nc.errorf("%v", err)
	}
	nc.attrs = attrs

	if fn := c.findFunction(n); fn != nil {
		return c.inline(nc, fn)
	}
	if spec := lookupSpec(nc.domain, n.OpType, nc.opset); anyComp || spec != nil && spec.Composite {
		return nc.convertComposite(spec)
	}
	if err := nc.convertRegistered(); err != errFallback {
		return err
	}
	return nc.unknown()
}

// resolveAttrs returns the node's attributes with ref_attr_name references
// replaced by the calling node's attribute (dropped when the call does not
// set it and the function has no default).
func resolveAttrs(n *Node, sc *scope) ([]*Attr, error) {
	hasRef := false
	for _, a := range n.Attrs {
		hasRef = hasRef || a.RefAttrName != ""
	}
	if !hasRef {
		return n.Attrs, nil
	}
	out := make([]*Attr, 0, len(n.Attrs))
	for _, a := range n.Attrs {
		if a.RefAttrName == "" {
			out = append(out, a)
			continue
		}
		b, ok := sc.bindings[a.RefAttrName]
		if !ok {
			continue
		}
		if a.Type != 0 && b.Type != a.Type {
			return nil, fmt.Errorf("attribute %q refers to %q, which has type %s, want %s", a.Name, a.RefAttrName, b.Type, a.Type)
		}
		cp := *b
		cp.Name = a.Name
		cp.RefAttrName = ""
		out = append(out, &cp)
	}
	return out, nil
}
