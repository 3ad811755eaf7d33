package niro

import "fmt"

// Iota fills a tensor of type Type with each element's index along Axis,
// converted to the element type (exactly, for indices the type holds).
// Range, Trilu, EyeLike, OneHot and one-hot selections are built on it.
//
// Example printed form:
//
//	%0 = iota {axis = 1} : () -> tensor<2x3xi64>
type Iota struct {
	Loc
	noRegions
	noSuccessors
	Axis   int
	Type   TensorType
	Result Value
}

func (*Iota) isOp()                   {}
func (*Iota) Name() string            { return "iota" }
func (o *Iota) refs() []*Value        { return nil }
func (o *Iota) Operands() []Value     { return nil }
func (o *Iota) Results() []Value      { return []Value{o.Result} }
func (o *Iota) setResults(vs []Value) { o.Result = vs[0] }
func (o *Iota) params() Attrs         { return Attrs{"axis": IntAttr(o.Axis)} }
func (o *Iota) print(p *printer)      { p.generic(o) }
func (o *Iota) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Iota) inferTypes() ([]Type, error) {
	if o.Type.Unranked {
		return nil, fmt.Errorf("iota needs a ranked result type")
	}
	if ClassOf(o.Type.Elem)&ClassNumeric == 0 {
		return nil, fmt.Errorf("iota is not defined on element type %s", o.Type.Elem)
	}
	if o.Axis < 0 || o.Axis >= o.Type.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, o.Type)
	}
	return []Type{TensorType{Elem: o.Type.Elem, Dims: append([]int64{}, o.Type.Dims...)}}, nil
}

func init() {
	defineOp("iota", &opDef{results: 1, operands: 0, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		t, _ := outs[0].Type.(TensorType)
		return &Iota{Axis: r.int("axis", 0), Type: t}, r.done("iota")
	}})
}
