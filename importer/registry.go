package importer

import (
	"fmt"
	"sort"

	"github.com/niro-dev/niro/niro"
)

// The converters: graph model → Niro IR. Each ONNX op is registered, per
// domain and first opset version, with the inputs, outputs and attributes
// that version defines and one converter function. The dispatcher
// (convertRegistered) runs the shared prologue (opset, arity, attribute
// checks) before the converter and, where every input's value is known at
// import, the op's folding rule instead of it. Converters build Niro ops
// with nodeCtx.op and define node outputs with nodeCtx.out, which refines
// the result with the declared type (value_info). One file per family
// (ops_elementwise.go, ops_reduce.go, ops_shape.go, ...) registers its ops
// from an init function.

// opSpec describes one version range of an ONNX op: from opset Since to
// the next registered Since.
type opSpec struct {
	// Since is the first opset version the entry covers.
	Since int64
	// In is the number of inputs (present or omitted) the version takes:
	// In[0] required, up to In[1]; In[1] < 0 means variadic.
	In [2]int
	// Out is the number of outputs: Out[0] to Out[1].
	Out [2]int
	// Attrs lists the attributes the version defines; []string{anyAttrs}
	// leaves the check to the converter.
	Attrs []string
	// Convert maps the node. It may return errFallback to keep the node
	// as an UnknownOp (an instance niro cannot express yet).
	Convert func(nc *nodeCtx) error
	// Float8 marks a version whose converter takes the 8-bit floats and
	// f8E8M0FNU (niro.IsCastOnly) on its inputs and outputs, as Cast does;
	// other nodes on them stay UnknownOps.
	Float8 bool
	// Fold, if set, computes the outputs from known input values; it
	// returns nil outputs when it cannot fold this instance.
	Fold func(nc *nodeCtx, in []*known) ([]*known, error)
	// Composite marks an op on sequences or optionals (ops_sequence.go):
	// it is converted by convertComposite, at import, whatever its inputs.
	Composite bool
}

var registry = map[string][]opSpec{}

// anyAttrs as the only entry of opSpec.Attrs skips the attribute check.
const anyAttrs = "*"

// register adds the version ranges of one op of the default domain.
func register(opType string, specs ...opSpec) {
	key := opType
	if _, dup := registry[key]; dup {
		panic("importer: BUG: " + opType + " registered twice")
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Since < specs[j].Since })
	registry[key] = specs
}

// registerDomain adds the version ranges of an op of another domain; it
// is registered as DOMAIN.OP.
func registerDomain(domain, opType string, specs ...opSpec) {
	register(domain+"."+opType, specs...)
}

// lookupSpec returns the entry of the newest version at most opset.
func lookupSpec(domain, opType string, opset int64) *opSpec {
	key := opType
	if domain != "" {
		key = domain + "." + opType
	}
	specs := registry[key]
	for i := len(specs) - 1; i >= 0; i-- {
		if specs[i].Since <= opset {
			return &specs[i]
		}
	}
	return nil
}

// Registered reports whether niro converts ONNX op opType (of the default
// domain, or written DOMAIN.OP) at some opset.
func Registered(opType string) bool { return len(registry[opType]) > 0 }

// RegisteredOps returns the registered op types, sorted.
func RegisteredOps() []string {
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// convertRegistered maps a node through its registry entry. It returns
// errFallback when the op is not registered at this opset or the converter
// cannot express the instance.
func (nc *nodeCtx) convertRegistered() error {
	spec := lookupSpec(nc.domain, nc.n.OpType, nc.opset)
	if spec == nil {
		return errFallback
	}
	if err := nc.checkNewest(); err != nil {
		return err
	}
	if err := nc.checkSpecArity(spec); err != nil {
		return err
	}
	if len(spec.Attrs) != 1 || spec.Attrs[0] != anyAttrs {
		if err := nc.checkAttrs(spec.Attrs...); err != nil {
			return err
		}
	}
	if !nc.typesSupported(spec.Float8) {
		return errFallback
	}
	mark := len(nc.e.blk.Ops)
	if spec.Fold != nil {
		if ins, ok := nc.knownInputs(); ok {
			outs, err := spec.Fold(nc, ins)
			if err != nil {
				return nc.errorf("%v", err)
			}
			if outs != nil {
				for i, k := range outs {
					if k != nil {
						nc.out(i, nc.constKnown(k))
					}
				}
				return nc.err
			}
		}
	}
	err := spec.Convert(nc)
	if err == nil {
		err = nc.err
	}
	if ny, ok := err.(*notYetError); ok {
		nc.reason = ny.msg
		err = errFallback
	}
	if err == errFallback {
		nc.e.blk.Ops = nc.e.blk.Ops[:mark]
		nc.err = nil
	}
	return err
}

// typesSupported reports whether every present input and every declared
// output has an element type the Niro op families compute on (bool,
// integers of 8 to 64 bits, f16, bf16, f32, f64). Nodes on other types
// (complex, 4-bit, and the 8-bit floats and f8E8M0FNU unless float8 is
// set) stay UnknownOps, which
// emit refuses by name.
func (nc *nodeCtx) typesSupported(float8 bool) bool {
	ok := func(s niro.ScalarType) bool { return niro.ClassOf(s) != 0 || float8 && niro.IsCastOnly(s) }
	for i, v := range nc.args {
		if nc.have[i] && !ok(elem(v)) {
			return false
		}
	}
	for i := range nc.n.Outputs {
		if d, declared, err := nc.declared(i); err == nil && declared && d.Elem != niro.InvalidScalar && !ok(d.Elem) {
			return false
		}
	}
	if a := nc.attr("to"); a != nil && nc.n.OpType == "Cast" {
		if s, known := ScalarType(attrDataType(a)); !known || !ok(s) {
			return false
		}
	}
	return true
}

// checkSpecArity checks the node's inputs and outputs against spec.
func (nc *nodeCtx) checkSpecArity(spec *opSpec) error {
	n := len(nc.args)
	if spec.In[1] >= 0 && n > spec.In[1] {
		return nc.errorf("takes at most %d inputs, has %d", spec.In[1], n)
	}
	for i := 0; i < spec.In[0]; i++ {
		if i >= n || !nc.have[i] {
			return nc.errorf("input %d is required", i)
		}
	}
	if k := len(nc.n.Outputs); k < spec.Out[0] || k > spec.Out[1] {
		if spec.Out[0] == spec.Out[1] {
			return nc.errorf("has %d outputs, want %d", k, spec.Out[0])
		}
		return nc.errorf("has %d outputs, want %d to %d", k, spec.Out[0], spec.Out[1])
	}
	return nil
}

// fail records the first conversion error; later ops of the node become
// no-ops, so a converter reads straight through and returns nc.err.
func (nc *nodeCtx) fail(format string, args ...any) {
	if nc.err == nil {
		nc.err = nc.errorf(format, args...)
	}
}

// notYet records that niro cannot compile this instance of the op yet
// (a shape known only at run time, for example). The node then stays an
// UnknownOp that carries the reason, and emit refuses it with that reason.
func (nc *nodeCtx) notYet(format string, args ...any) {
	if nc.err == nil {
		nc.err = &notYetError{msg: fmt.Sprintf(format, args...)}
	}
}

// notYetError is the reason a node stays an UnknownOp.
type notYetError struct{ msg string }

func (e *notYetError) Error() string { return e.msg }

// op infers the results of a generic Niro op, adds it to the block and
// returns its first result. After a failure it adds nothing.
func (nc *nodeCtx) op(op niro.Op) niro.Value {
	if nc.err != nil {
		return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
	}
	ts, err := niro.InferResults(op)
	if err != nil {
		// An operand of unknown rank is an instance niro cannot
		// compile (the node stays an UnknownOp typed by its rank
		// rule, ops_rank.go), not a bad model.
		for _, v := range op.Operands() {
			if t, ok := v.Type.(niro.TensorType); ok && t.Unranked {
				nc.notYet("input %s has an unknown rank", v)
				return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
			}
		}
		nc.fail("%v", err)
		return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
	}
	if ins, ok := nc.knownOperands(op); ok && len(ts) == 1 {
		if rt, ok := ts[0].(niro.TensorType); ok {
			if k := evalNiro(op, ins, rt); k != nil {
				return nc.constKnown(k)
			}
		}
	}
	vs, err := niro.Define(nc.c.fn, op, nil)
	if err != nil {
		nc.fail("%v", err)
		return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
	}
	nc.e.add(op)
	return vs[0]
}

// knownOperands returns the known values of op's operands, if all are
// known.
func (nc *nodeCtx) knownOperands(op niro.Op) ([]*known, bool) {
	ops := op.Operands()
	out := make([]*known, len(ops))
	for i, v := range ops {
		k, ok := nc.knownOf(v)
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

// out defines node output i as v, checking v's type against the output's
// declared type.
func (nc *nodeCtx) out(i int, v niro.Value) {
	if nc.err != nil || i >= len(nc.n.Outputs) || nc.n.Outputs[i] == nil {
		return
	}
	t, err := nc.resultType(i, tensorOf(v))
	if err != nil {
		if nc.err == nil {
			nc.err = err
		}
		return
	}
	// The declared type may know more (a static extent, a rank) than
	// inference: give it to the op that just defined v, which has no
	// users yet.
	if !niro.TypesEqual(t, v.Type) {
		if ops := nc.e.blk.Ops; len(ops) > 0 {
			last := ops[len(ops)-1]
			if rs := last.Results(); len(rs) == 1 && rs[0].ID == v.ID && niro.Retype(last, []niro.Type{t}) == nil {
				v = niro.Value{ID: v.ID, Type: t}
			}
		}
	}
	nc.setResult(i, v)
}

// in returns input i, which the spec made required or the converter
// checked present.
func (nc *nodeCtx) in(i int) niro.Value { return nc.args[i] }

// has reports whether input i is present.
func (nc *nodeCtx) has(i int) bool { return i < len(nc.have) && nc.have[i] }

// Attribute readers with defaults.

func (nc *nodeCtx) attrInt(name string, def int64) int64 {
	if a := nc.attr(name); a != nil {
		return a.Int
	}
	return def
}

func (nc *nodeCtx) attrFloat(name string, def float64) float64 {
	if a := nc.attr(name); a != nil {
		return float64(a.Float)
	}
	return def
}

func (nc *nodeCtx) attrInts(name string) ([]int64, bool) {
	if a := nc.attr(name); a != nil {
		return a.Ints, true
	}
	return nil, false
}

func (nc *nodeCtx) attrString(name, def string) string {
	if a := nc.attr(name); a != nil {
		return string(a.String)
	}
	return def
}

// rank returns the rank of v, failing the node when it is unranked.
func (nc *nodeCtx) rank(v niro.Value) int {
	t := tensorOf(v)
	if t.Unranked {
		nc.notYet("input %s has an unknown rank", v)
		return 0
	}
	return t.Rank()
}

// axis normalizes an ONNX axis against rank r, failing when out of range.
func (nc *nodeCtx) axis(a int64, r int) int {
	if a < -int64(r) || a >= int64(r) {
		nc.fail("axis %d is out of range for rank %d", a, r)
		return 0
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a)
}

// scalar returns a rank-0 tensor constant of element type e holding v.
func (nc *nodeCtx) scalar(e niro.ScalarType, v float64) niro.Value {
	k := &known{elem: e, dims: []int64{}}
	if e.IsFloat() {
		k.floats = []float64{v}
	} else {
		k.ints = []int64{int64(v)}
	}
	return nc.constKnown(k)
}

// Shorthands for the element-wise families.

func (nc *nodeCtx) bin(k niro.BinaryKind, x, y niro.Value) niro.Value {
	return nc.op(&niro.Binary{Kind: k, LHS: x, RHS: y})
}

func (nc *nodeCtx) un(k niro.UnaryKind, x niro.Value) niro.Value {
	return nc.op(&niro.Unary{Kind: k, X: x})
}

func (nc *nodeCtx) cmp(p niro.Predicate, x, y niro.Value) niro.Value {
	return nc.op(&niro.Compare{Pred: p, LHS: x, RHS: y})
}

func (nc *nodeCtx) sel(c, x, y niro.Value) niro.Value {
	return nc.op(&niro.Select{Cond: c, X: x, Y: y})
}

func (nc *nodeCtx) cast(x niro.Value, to niro.ScalarType) niro.Value {
	if tensorOf(x).Elem == to {
		return x
	}
	return nc.op(&niro.Cast{To: to, X: x})
}

// iota returns a tensor of element type e and shape dims holding each
// element's index along axis.
func (nc *nodeCtx) iota(e niro.ScalarType, dims []int64, axis int) niro.Value {
	return nc.op(&niro.Iota{Axis: axis, Type: niro.TensorType{Elem: e, Dims: append([]int64{}, dims...)}})
}

func (nc *nodeCtx) reshape(x niro.Value, dims []int64) niro.Value {
	return nc.op(&niro.Reshape{Shape: dims, X: x})
}

// elem returns the element type of v.
func elem(v niro.Value) niro.ScalarType { return tensorOf(v).Elem }

// requireFloat fails the node unless v has float elements.
func (nc *nodeCtx) requireFloat(v niro.Value) {
	if !elem(v).IsFloat() {
		nc.fail("needs float elements, input has %s", elem(v))
	}
}
