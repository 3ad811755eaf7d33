package niro

import "fmt"

// Data movement: Concat joins tensors along an axis; Slice reads a static
// strided window. ONNX Concat, Split, Slice and their uses in exporters'
// shape arithmetic map to these.

// Concat joins its operands along Axis. They have the same element type
// and rank, and agree in every extent but Axis's; the result's extent
// along Axis is the sum of theirs.
//
// Example printed form:
//
//	%2 = concat %0, %1 {axis = 0} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
type Concat struct {
	Loc
	noRegions
	noSuccessors
	Axis   int
	Result Value
	Inputs []Value
}

// Slice reads, along every axis a, Shape[a] elements of X starting at
// index Starts[a] and Steps[a] apart (a negative step walks backwards):
// result element i reads operand element Starts[a] + i*Steps[a] on axis
// a. The result shape is the result type's; every index read lies inside
// the operand.
//
// Example printed form:
//
//	%1 = slice %0 {starts = [1, 3], steps = [1, -2]} : (tensor<4x5xf32>) -> tensor<2x2xf32>
type Slice struct {
	Loc
	noRegions
	noSuccessors
	Starts []int64
	Steps  []int64
	// Shape is the result shape, static.
	Shape  []int64
	Result Value
	X      Value
}

func (*Concat) isOp()                   {}
func (*Slice) isOp()                    {}
func (*Concat) Name() string            { return "concat" }
func (*Slice) Name() string             { return "slice" }
func (o *Concat) refs() []*Value        { return valueRefs(o.Inputs) }
func (o *Slice) refs() []*Value         { return []*Value{&o.X} }
func (o *Concat) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Slice) Operands() []Value      { return valuesOf(o.refs()) }
func (o *Concat) Results() []Value      { return []Value{o.Result} }
func (o *Slice) Results() []Value       { return []Value{o.Result} }
func (o *Concat) setResults(vs []Value) { o.Result = vs[0] }
func (o *Slice) setResults(vs []Value)  { o.Result = vs[0] }
func (o *Concat) params() Attrs         { return Attrs{"axis": IntAttr(o.Axis)} }
func (o *Slice) params() Attrs {
	return Attrs{"starts": intsAttr(o.Starts), "steps": intsAttr(o.Steps)}
}
func (o *Concat) print(p *printer)     { p.generic(o) }
func (o *Slice) print(p *printer)      { p.generic(o) }
func (o *Concat) verify(v *opVerifier) { verifyGeneric(v, o) }
func (o *Slice) verify(v *opVerifier)  { verifyGeneric(v, o) }

func valueRefs(vs []Value) []*Value {
	out := make([]*Value, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

func (o *Concat) inferTypes() ([]Type, error) {
	if len(o.Inputs) == 0 {
		return nil, fmt.Errorf("concat needs at least one operand")
	}
	first, err := rankedOperand("operand #0", o.Inputs[0].Type)
	if err != nil {
		return nil, err
	}
	r := first.Rank()
	if o.Axis < 0 || o.Axis >= r {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, first)
	}
	dims := append([]int64{}, first.Dims...)
	for i, in := range o.Inputs[1:] {
		t, err := rankedOperand(fmt.Sprintf("operand #%d", i+1), in.Type)
		if err != nil {
			return nil, err
		}
		if t.Elem != first.Elem || t.Rank() != r {
			return nil, fmt.Errorf("operand #%d has type %s, but operand #0 has type %s", i+1, t, first)
		}
		for a, d := range t.Dims {
			switch {
			case a == o.Axis:
				if dims[a] == Dynamic || d == Dynamic {
					dims[a] = Dynamic
				} else {
					dims[a] += d
				}
			case dims[a] == Dynamic:
				dims[a] = d
			case d != Dynamic && d != dims[a]:
				return nil, fmt.Errorf("operand #%d has type %s, which disagrees with %s at axis %d", i+1, t, first, a)
			}
		}
	}
	return []Type{TensorType{Elem: first.Elem, Dims: dims}}, nil
}

func (o *Slice) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	r := xt.Rank()
	if len(o.Starts) != r || len(o.Steps) != r || len(o.Shape) != r {
		return nil, fmt.Errorf("slice of %s: starts %v, steps %v and shape %v need %d entries", xt, o.Starts, o.Steps, o.Shape, r)
	}
	for a := 0; a < r; a++ {
		s, st, n := o.Starts[a], o.Steps[a], o.Shape[a]
		if st == 0 {
			return nil, fmt.Errorf("slice of %s: step 0 at axis %d", xt, a)
		}
		if n < 0 {
			return nil, fmt.Errorf("slice of %s: the result shape %v is not static", xt, o.Shape)
		}
		if n == 0 {
			continue
		}
		last := s + (n-1)*st
		if s < 0 || last < 0 {
			return nil, fmt.Errorf("slice of %s reads a negative index at axis %d", xt, a)
		}
		if d := xt.Dims[a]; d != Dynamic && (s >= d || last >= d) {
			return nil, fmt.Errorf("slice of %s reads past extent %d at axis %d", xt, d, a)
		}
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: append([]int64{}, o.Shape...)}}, nil
}

func init() {
	defineOp("concat", &opDef{results: 1, operands: -1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &Concat{Axis: r.int("axis", 0), Inputs: append([]Value{}, ins...)}, r.done("concat")
	}})
	defineOp("slice", &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &Slice{Starts: r.int64s("starts", true), Steps: r.int64s("steps", true), Shape: resultShape(outs), X: ins[0]}, r.done("slice")
	}})
}
