package niro

import "fmt"

// Reshape gives a tensor's elements, in row-major order, a new shape: the
// result type's. Where both shapes are static they hold the same number of
// elements.
//
// Example printed form:
//
//	%1 = reshape %0 : (tensor<2x3xf32>) -> tensor<6xf32>
type Reshape struct {
	Loc
	noRegions
	noSuccessors
	// Shape is the result shape; Dynamic marks an extent known at run
	// time only.
	Shape  []int64
	Result Value
	X      Value
}

// Broadcast stretches a tensor to Shape under trailing-axis broadcasting:
// the operand's rank is at most len(Shape), and each of its extents is 1 or
// the result's.
//
// Example printed form:
//
//	%1 = broadcast %0 : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
type Broadcast struct {
	Loc
	noRegions
	noSuccessors
	Shape  []int64
	Result Value
	X      Value
}

func (*Reshape) isOp()                     {}
func (*Broadcast) isOp()                   {}
func (*Reshape) Name() string              { return "reshape" }
func (*Broadcast) Name() string            { return "broadcast" }
func (o *Reshape) refs() []*Value          { return []*Value{&o.X} }
func (o *Broadcast) refs() []*Value        { return []*Value{&o.X} }
func (o *Reshape) Operands() []Value       { return valuesOf(o.refs()) }
func (o *Broadcast) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Reshape) Results() []Value        { return []Value{o.Result} }
func (o *Broadcast) Results() []Value      { return []Value{o.Result} }
func (o *Reshape) setResults(vs []Value)   { o.Result = vs[0] }
func (o *Broadcast) setResults(vs []Value) { o.Result = vs[0] }
func (*Reshape) params() Attrs             { return nil }
func (*Broadcast) params() Attrs           { return nil }
func (o *Reshape) print(p *printer)        { p.generic(o) }
func (o *Broadcast) print(p *printer)      { p.generic(o) }
func (o *Reshape) verify(v *opVerifier)    { verifyGeneric(v, o) }
func (o *Broadcast) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Reshape) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	rt := TensorType{Elem: xt.Elem, Dims: append([]int64{}, o.Shape...)}
	for _, d := range o.Shape {
		if d < Dynamic {
			return nil, fmt.Errorf("reshape to %v: negative extent", o.Shape)
		}
	}
	if xt.HasStaticShape() && rt.HasStaticShape() && xt.NumElements() != rt.NumElements() {
		return nil, fmt.Errorf("reshape of %s (%d elements) to %s (%d elements)", xt, xt.NumElements(), rt, rt.NumElements())
	}
	return []Type{rt}, nil
}

func (o *Broadcast) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	R := len(o.Shape)
	if xt.Rank() > R {
		return nil, fmt.Errorf("broadcast of %s to rank %d: the operand has a higher rank", xt, R)
	}
	for i, d := range xt.Dims {
		r := o.Shape[R-xt.Rank()+i]
		if r < Dynamic {
			return nil, fmt.Errorf("broadcast to %v: negative extent", o.Shape)
		}
		if d != 1 && d != Dynamic && r != Dynamic && d != r {
			return nil, fmt.Errorf("%s does not broadcast to shape %v: extent %d at axis %d", xt, o.Shape, d, i)
		}
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: append([]int64{}, o.Shape...)}}, nil
}

// resultShape returns the dims of a ranked result type, or nil.
func resultShape(outs []Value) []int64 {
	if t, ok := outs[0].Type.(TensorType); ok && !t.Unranked {
		return append([]int64{}, t.Dims...)
	}
	return []int64{}
}

func init() {
	defineOp("reshape", &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		return &Reshape{Shape: resultShape(outs), X: ins[0]}, readAttrs(a).done("reshape")
	}})
	defineOp("broadcast", &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		return &Broadcast{Shape: resultShape(outs), X: ins[0]}, readAttrs(a).done("broadcast")
	}})
}
