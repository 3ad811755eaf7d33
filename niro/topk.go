package niro

import "fmt"

// TopK selects the K largest (or, without Largest, smallest) elements of
// X along Axis, in order: Values holds them, best first, and Indices (i64)
// their positions along the axis. Equal elements come in the order of
// their indices, the lower first, as ONNX TopK specifies; a NaN counts as
// larger than every number (and equal to another NaN), so the order is
// total. Both results have X's shape with extent K along the axis, which
// must not exceed the axis's static extent. The results are always sorted;
// Sorted records ONNX's attribute (unsorted order is unspecified there, so
// the sorted one is valid).
//
// Example printed form:
//
//	%1, %2 = topk %0 {axis = 1, k = 2, largest = true, sorted = true} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
type TopK struct {
	Loc
	noRegions
	noSuccessors
	Axis    int
	K       int64
	Largest bool
	Sorted  bool
	Values  Value
	Indices Value
	X       Value
}

func (*TopK) isOp()                   {}
func (*TopK) Name() string            { return "topk" }
func (o *TopK) refs() []*Value        { return []*Value{&o.X} }
func (o *TopK) Operands() []Value     { return valuesOf(o.refs()) }
func (o *TopK) Results() []Value      { return []Value{o.Values, o.Indices} }
func (o *TopK) setResults(vs []Value) { o.Values, o.Indices = vs[0], vs[1] }
func (o *TopK) print(p *printer)      { p.generic(o) }
func (o *TopK) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *TopK) params() Attrs {
	a := Attrs{"axis": IntAttr(o.Axis), "k": IntAttr(o.K)}
	if o.Largest {
		a["largest"] = BoolAttr(true)
	}
	if o.Sorted {
		a["sorted"] = BoolAttr(true)
	}
	return a
}

func (o *TopK) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	if ClassOf(xt.Elem)&ClassNumeric == 0 {
		return nil, fmt.Errorf("topk is not defined on element type %s", xt.Elem)
	}
	if o.Axis < 0 || o.Axis >= xt.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
	}
	if n := xt.Dims[o.Axis]; n < 0 {
		return nil, fmt.Errorf("topk needs a static extent along axis %d, got %s", o.Axis, xt)
	} else if o.K < 0 || o.K > n {
		return nil, fmt.Errorf("k = %d is out of range for axis %d of %s", o.K, o.Axis, xt)
	}
	dims := append([]int64{}, xt.Dims...)
	dims[o.Axis] = o.K
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}, TensorType{Elem: I64, Dims: append([]int64{}, dims...)}}, nil
}

func init() {
	defineOp("topk", &opDef{results: 2, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		op := &TopK{Axis: r.int("axis", 0), K: int64(r.int("k", 0)), Largest: r.bool("largest"), Sorted: r.bool("sorted"), X: ins[0]}
		return op, r.done("topk")
	}})
}
