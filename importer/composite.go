package importer

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// Sequences and optionals (docs/importer.md, "Sequences and optionals").
// Niro compiles static programs, so an ONNX value of sequence or optional
// type is resolved at import: it is a list, known to the importer, of the
// Niro values of its elements (an optional holds none or one). The
// sequence ops become plain Niro ops on the elements, with the positions
// they take known at import, and a graph input or output of such a type
// is flattened into one tensor parameter per element.

// item is one ONNX value as the importer holds it: a tensor (t) or a
// sequence or optional (c).
type item struct {
	t niro.Value
	c *composite
}

// composite is a sequence or optional value resolved at import.
type composite struct {
	kind TypeKind // SequenceKind or OptionalKind
	// elems are a sequence's elements, or an optional's value (none or
	// one).
	elems []item
	// elem is the declared type of the elements, when known: what an empty
	// sequence or optional is of.
	elem *Type
}

func (c *composite) what() string {
	if c.kind == OptionalKind {
		return "an optional"
	}
	return "a sequence"
}

// NeedsDataError reports a model that cannot be imported until facts that
// only the data it runs on give are known at compile time: the element
// count of a sequence input, whether an optional input holds a value, or
// the value of an input that a sequence position, a loop's trip count or
// an If's condition depends on. `niro run` and `niro test` import such a
// model again for the inputs given (Options.Sequences, Options.Values).
type NeedsDataError struct{ Err error }

func (e *NeedsDataError) Error() string { return e.Err.Error() }
func (e *NeedsDataError) Unwrap() error { return e.Err }

// needsData wraps err as a NeedsDataError.
func needsData(err error) error { return &NeedsDataError{Err: err} }

// Layout gives a graph input of sequence or optional type the structure
// of the value it is passed (Options.Sequences).
type Layout struct {
	// None says that an optional input holds no value.
	None bool
	// Len is the element count of a sequence input (or of the sequence an
	// optional input holds).
	Len int
}

// maxSeqElems bounds the elements of one sequence and the iterations of a
// Loop unrolled at import.
const maxSeqElems = 4096

// lookupComp returns the composite value of v.
func (s *scope) lookupComp(v *Value) (*composite, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if c, ok := sc.comps[v]; ok {
			return c, true
		}
		if _, ok := sc.vals[v]; ok || sc.absent[v] {
			return nil, false
		}
	}
	return nil, false
}

// lookupItem returns v's value, tensor or composite.
func (s *scope) lookupItem(v *Value) (item, bool) {
	if c, ok := s.lookupComp(v); ok {
		return item{c: c}, true
	}
	if t, ok, _ := s.lookup(v); ok {
		return item{t: t}, true
	}
	return item{}, false
}

// bind records v's value in s.
func (s *scope) bind(v *Value, it item) {
	if it.c != nil {
		s.comps[v] = it.c
		return
	}
	s.vals[v] = it.t
}

// flatName returns the name of tensor parameter i of a graph input name of
// the given kind: NAME.I for a sequence's elements, NAME for an optional's
// tensor.
func flatName(name string, kind TypeKind, i int) string {
	if kind == OptionalKind {
		return name
	}
	return fmt.Sprintf("%s.%d", name, i)
}

// compositeInput builds the value of a main-graph input of sequence or
// optional type from its layout, adding one entry parameter per tensor.
func (c *converter) compositeInput(in *Value, add func(name string, t niro.Type) niro.Value) (*composite, error) {
	l, ok := c.opts.Sequences[in.Name]
	if !ok {
		return nil, needsData(fmt.Errorf("graph input %q has type %s: its element count must be known at compile time (niro run and niro test take it from the data given)", in.Name, in.Type))
	}
	if in.Type.Inner == nil {
		return nil, fmt.Errorf("graph input %q has type %s with no element type", in.Name, in.Type)
	}
	mk := func(t *Type, name string, kind TypeKind, n int) (*composite, error) {
		cp := &composite{kind: kind, elem: t}
		if t.Kind != TensorKind {
			return nil, fmt.Errorf("graph input %q has type %s; niro takes sequences and optionals of tensors (or an optional sequence of tensors) as inputs", in.Name, in.Type)
		}
		if n < 0 || n > maxSeqElems {
			return nil, fmt.Errorf("graph input %q: %d elements (at most %d)", in.Name, n, maxSeqElems)
		}
		for i := 0; i < n; i++ {
			pn := flatName(name, kind, i)
			tt, err := c.inputTypeOf(pn, t, fmt.Sprintf("graph input %q element %d", in.Name, i))
			if err != nil {
				return nil, err
			}
			cp.elems = append(cp.elems, item{t: add(pn, tt)})
		}
		return cp, nil
	}
	t := in.Type
	switch {
	case t.Kind == SequenceKind:
		return mk(t.Inner, in.Name, SequenceKind, l.Len)
	case t.Kind == OptionalKind && l.None:
		return &composite{kind: OptionalKind, elem: t.Inner}, nil
	case t.Kind == OptionalKind && t.Inner.Kind == SequenceKind && t.Inner.Inner != nil:
		s, err := mk(t.Inner.Inner, in.Name, SequenceKind, l.Len)
		if err != nil {
			return nil, err
		}
		return &composite{kind: OptionalKind, elem: t.Inner, elems: []item{{c: s}}}, nil
	case t.Kind == OptionalKind:
		return mk(t.Inner, in.Name, OptionalKind, 1)
	}
	return nil, fmt.Errorf("graph input %q has type %s; niro supports tensors, sequences and optionals only", in.Name, t)
}

// flatten appends the tensors of it to out, in order.
func (it item) flatten(out []niro.Value) []niro.Value {
	if it.c == nil {
		return append(out, it.t)
	}
	for _, e := range it.c.elems {
		out = e.flatten(out)
	}
	return out
}

// flatOutputNames returns the names of the entry outputs a graph output
// named name with value it flattens into.
func flatOutputNames(name string, it item) []string {
	if it.c == nil {
		return []string{name}
	}
	if it.c.kind == OptionalKind {
		if len(it.c.elems) == 0 {
			return nil
		}
		return flatOutputNames(name, it.c.elems[0])
	}
	var out []string
	for i, e := range it.c.elems {
		// A sequence of sequences flattens to NAME.I.J.
		out = append(out, flatOutputNames(fmt.Sprintf("%s.%d", name, i), e)...)
	}
	return out
}

// checkItem checks a value against a declared type: a tensor against a
// tensor type, a composite against a sequence or optional type of the
// same kind, and each element against the element type. A tensor's shape
// is a hint (hints.go): one that differs is a warning, "who: what declared
// ...", who naming the node ("" for a graph output).
func (c *converter) checkItem(declared *Type, it item, who, what string) error {
	if declared == nil {
		return nil
	}
	if it.c == nil {
		if declared.Kind != TensorKind {
			return fmt.Errorf("%s is declared as %s but is a tensor", what, declared)
		}
		return checkDeclared(c, declared, it.t.Type, who, what)
	}
	if declared.Kind != it.c.kind {
		// ONNX lets an optional hold what a sequence does and a Loop carry
		// an optional sequence into a sequence; only a tensor declared
		// where a composite is, or the reverse, is an error.
		if declared.Kind == TensorKind {
			return fmt.Errorf("%s is declared as %s but is %s", what, declared, it.c.what())
		}
		if declared.Kind == OptionalKind && declared.Inner != nil {
			return c.checkItem(declared.Inner, it, who, what)
		}
		return nil
	}
	for i, e := range it.c.elems {
		if err := c.checkElem(declared.Inner, e, who, fmt.Sprintf("%s element %d", what, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkElem checks an element of a composite against the declared element
// type: its kind and element type only, since the shapes exporters declare
// for a sequence's elements are often those of one element (or of the
// first iteration of a loop), where the elements differ.
func (c *converter) checkElem(declared *Type, it item, who, what string) error {
	if declared == nil {
		return nil
	}
	if it.c != nil {
		return c.checkItem(declared, it, who, what)
	}
	if declared.Kind != TensorKind {
		return fmt.Errorf("%s is declared as %s but is a tensor", what, declared)
	}
	if s, ok := ScalarType(declared.Elem); ok && s != elem(it.t) {
		return fmt.Errorf("%s is declared with element type %s, but its value has %s", what, dataTypeName(declared.Elem), elem(it.t))
	}
	return nil
}

// convertGraphItems converts the initializers and nodes of g into e's
// block and returns the values of g's outputs, tensors or composites.
func (c *converter) convertGraphItems(g *Graph, e *emitter, sc *scope) ([]item, error) {
	if err := c.convertGraphNodes(g, e, sc); err != nil {
		return nil, err
	}
	outs := make([]item, len(g.Outputs))
	for i, v := range g.Outputs {
		it, ok := sc.lookupItem(v)
		if !ok {
			return nil, fmt.Errorf("graph output %q has no value (it is an omitted function input)", v.Name)
		}
		outs[i] = it
	}
	return outs, nil
}
