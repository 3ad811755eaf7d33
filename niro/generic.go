package niro

import (
	"fmt"
	"sort"
	"strings"
)

// This file holds the machinery that every op without special syntax
// shares: one text form, one parser entry, one result-type rule used by the
// builder, the verifier and the importer, and settable operand slots.
//
// A generic op prints as
//
//	%r = reduce_sum %x {axes = [1], keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
//
// and is parsed by one routine that reads the results, the mnemonic, the
// operands, the optional attribute dictionary and the signature, then hands
// them to the op's definition ([opDef]). docs/ops.md lists the families.

// genericOp is implemented by every op kind that uses the generic text
// form.
type genericOp interface {
	Op
	// params returns the op's parameters as printed attributes; nil or
	// empty when it has none. Parameters carried by the result type (the
	// target element type of a cast, the shape of a reshape) are not
	// repeated here.
	params() Attrs
	// inferTypes returns the result types that the op's rule gives for
	// its operands and parameters.
	inferTypes() ([]Type, error)
	// setResults replaces the op's results (same count as Results).
	setResults(vs []Value)
}

// opDef describes how the parser makes one generic op from its parts.
type opDef struct {
	// results is the number of results the op defines.
	results int
	// operands is the number of operands, or -1 for any number (at least
	// one).
	operands int
	// make builds the op from its typed operands, its typed results and
	// its attribute dictionary, decoding the parameters.
	make func(ins, outs []Value, a Attrs) (genericOp, error)
}

// opDefs maps each generic mnemonic to its definition. Each family
// registers its mnemonics from its own file.
var opDefs = map[string]*opDef{}

func defineOp(name string, d *opDef) {
	if _, dup := opDefs[name]; dup {
		panic("niro: BUG: mnemonic " + name + " defined twice")
	}
	opDefs[name] = d
}

// GenericMnemonics returns the mnemonics of every op in the generic text
// form, sorted.
func GenericMnemonics() []string {
	names := make([]string, 0, len(opDefs))
	for n := range opDefs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// InferResults returns the result types of op under its type rule, from
// its operands and parameters. It reports an error for operands the rule
// rejects and for op kinds whose results are not inferred (Const, Call,
// If, UnknownOp and the terminators).
func InferResults(op Op) ([]Type, error) {
	g, ok := op.(genericOp)
	if !ok {
		return nil, fmt.Errorf("%s has no result-type rule", op.Name())
	}
	return g.inferTypes()
}

// printGeneric writes the generic form of op.
func (p *printer) generic(op genericOp) {
	p.results(op.Results())
	p.str(op.Name())
	if ins := op.Operands(); len(ins) > 0 {
		p.str(" ")
		p.values(ins)
	}
	if a := op.params(); len(a) > 0 {
		p.str(" ")
		p.attrDict(a)
	}
	p.str(" : ")
	p.funcType(op.Operands(), op.Results(), len(op.Results()) != 1)
}

// verifyGeneric checks op's results against its type rule: the element
// types and ranks must be equal and each static extent must agree.
func verifyGeneric(v *opVerifier, op genericOp) {
	want, err := op.inferTypes()
	if err != nil {
		v.errorf("%v", err)
		return
	}
	res := op.Results()
	if len(want) != len(res) {
		v.errorf("%d results, but the rule gives %d", len(res), len(want))
		return
	}
	for i, r := range res {
		if !TypeRefines(r.Type, want[i]) {
			v.errorf("result #%d has type %s, but the operands give %s", i, typeString(r.Type), typeString(want[i]))
		}
	}
}

// TypeRefines reports whether a value of type got may have type want: the
// same scalar type, or tensors with the same element type whose ranks and
// static extents agree (a dynamic or unranked side agrees with anything).
func TypeRefines(got, want Type) bool {
	switch w := want.(type) {
	case ScalarType:
		return got == Type(w)
	case TensorType:
		g, ok := got.(TensorType)
		if !ok || g.Elem != w.Elem {
			return false
		}
		if g.Unranked || w.Unranked {
			return true
		}
		if len(g.Dims) != len(w.Dims) {
			return false
		}
		for i := range g.Dims {
			if !dimsCompatible(g.Dims[i], w.Dims[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// Attribute decoding for opDef.make.

type attrReader struct {
	a    Attrs
	used map[string]bool
	err  error
}

func readAttrs(a Attrs) *attrReader { return &attrReader{a: a, used: map[string]bool{}} }

func (r *attrReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *attrReader) ints(name string, required bool) []int {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		if required {
			r.fail("attribute %s is required", name)
		}
		return nil
	}
	l, ok := at.(ListAttr)
	if !ok {
		r.fail("attribute %s must be a list of integers", name)
		return nil
	}
	out := make([]int, len(l))
	for i, e := range l {
		n, ok := e.(IntAttr)
		if !ok || int64(int(n)) != int64(n) {
			r.fail("attribute %s must be a list of integers", name)
			return nil
		}
		out[i] = int(n)
	}
	return out
}

func (r *attrReader) int64s(name string, required bool) []int64 {
	xs := r.ints(name, required)
	if xs == nil {
		return nil
	}
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func (r *attrReader) int(name string, def int) int {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return def
	}
	n, ok := at.(IntAttr)
	if !ok || int64(int(n)) != int64(n) {
		r.fail("attribute %s must be an integer", name)
		return def
	}
	return int(n)
}

func (r *attrReader) bool(name string) bool {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return false
	}
	b, ok := at.(BoolAttr)
	if !ok {
		r.fail("attribute %s must be true or false", name)
	}
	return bool(b)
}

func (r *attrReader) str(name string, def string) string {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return def
	}
	s, ok := at.(StringAttr)
	if !ok {
		r.fail("attribute %s must be a string", name)
		return def
	}
	return string(s)
}

// done reports the first decoding error, or an attribute the op does not
// define.
func (r *attrReader) done(op string) error {
	if r.err != nil {
		return fmt.Errorf("%s: %w", op, r.err)
	}
	var extra []string
	for n := range r.a {
		if !r.used[n] {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("%s has no attribute %s", op, strings.Join(extra, ", "))
	}
	return nil
}

// intsAttr returns a list attribute of integers.
func intsAttr[T ~int | ~int64](xs []T) ListAttr {
	l := make(ListAttr, len(xs))
	for i, x := range xs {
		l[i] = IntAttr(x)
	}
	return l
}

// Type helpers shared by the rules.

// rankedOperand returns t as a ranked tensor type, or an error naming the
// role of the operand.
func rankedOperand(what string, t Type) (TensorType, error) {
	tt, ok := t.(TensorType)
	if !ok || tt.Unranked {
		return TensorType{}, fmt.Errorf("%s must be a ranked tensor, has type %s", what, typeString(t))
	}
	return tt, nil
}

// Users lists, for every value of f, the ops that read it and at which
// operand index, in program order (nested regions included).
type Use struct {
	Op    Op
	Index int
}

// Users returns the uses of every value defined or read in f.
func Users(f *Function) map[ValueID][]Use {
	uses := map[ValueID][]Use{}
	var walk func(r *Region)
	walk = func(r *Region) {
		if r == nil {
			return
		}
		for _, b := range r.Blocks {
			if b == nil {
				continue
			}
			for _, op := range b.Ops {
				if op == nil {
					continue
				}
				for i, v := range op.Operands() {
					uses[v.ID] = append(uses[v.ID], Use{Op: op, Index: i})
				}
				for _, sub := range op.Regions() {
					walk(sub)
				}
			}
		}
	}
	walk(f.Body)
	return uses
}

// SetOperand replaces operand i of op (in Operands order) with v. It
// reports false when op has no such operand slot.
func SetOperand(op Op, i int, v Value) bool {
	refs := operandRefs(op)
	if i < 0 || i >= len(refs) {
		return false
	}
	*refs[i] = v
	return true
}

// operandRefs returns pointers to op's operand slots, in Operands order.
func operandRefs(op Op) []*Value {
	slots := func(vs []Value) []*Value {
		out := make([]*Value, len(vs))
		for i := range vs {
			out[i] = &vs[i]
		}
		return out
	}
	switch o := op.(type) {
	case interface{ refs() []*Value }:
		return o.refs()
	case *Transpose:
		return []*Value{&o.X}
	case *TensorExtract:
		return append([]*Value{&o.X}, slots(o.Indices)...)
	case *MatMul:
		return []*Value{&o.LHS, &o.RHS}
	case *Call:
		return slots(o.Args)
	case *Branch:
		return slots(o.Args)
	case *CondBranch:
		out := append([]*Value{&o.Cond}, slots(o.TrueArgs)...)
		return append(out, slots(o.FalseArgs)...)
	case *Return:
		return slots(o.Values)
	case *Yield:
		return slots(o.Values)
	case *If:
		return []*Value{&o.Cond}
	case *UnknownOp:
		return slots(o.Args)
	}
	return nil
}

// valuesOf returns the values behind refs.
func valuesOf(refs []*Value) []Value {
	out := make([]Value, len(refs))
	for i, r := range refs {
		out[i] = *r
	}
	return out
}
