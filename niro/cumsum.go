package niro

import "fmt"

// CumSum computes running sums (running products when Prod) of X along
// Axis: result element i along the axis is the sum of the elements up to i
// (before i when Exclusive; from the end down to i, or past i, when
// Reverse), added one at a time in the order of the running sum, starting
// from 0 (multiplied, starting from 1, when Prod). The result has X's
// type. It prints as cumsum, or cumprod when Prod.
//
// Example printed form:
//
//	%1 = cumsum %0 {axis = 1, exclusive = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
//	%2 = cumprod %0 {axis = 0, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
type CumSum struct {
	Loc
	noRegions
	noSuccessors
	Axis      int
	Exclusive bool
	Reverse   bool
	Prod      bool // running products instead of sums
	Result    Value
	X         Value
}

func (*CumSum) isOp() {}
func (o *CumSum) Name() string {
	if o.Prod {
		return "cumprod"
	}
	return "cumsum"
}
func (o *CumSum) refs() []*Value        { return []*Value{&o.X} }
func (o *CumSum) Operands() []Value     { return valuesOf(o.refs()) }
func (o *CumSum) Results() []Value      { return []Value{o.Result} }
func (o *CumSum) setResults(vs []Value) { o.Result = vs[0] }
func (o *CumSum) print(p *printer)      { p.generic(o) }
func (o *CumSum) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *CumSum) params() Attrs {
	a := Attrs{"axis": IntAttr(o.Axis)}
	if o.Exclusive {
		a["exclusive"] = BoolAttr(true)
	}
	if o.Reverse {
		a["reverse"] = BoolAttr(true)
	}
	return a
}

func (o *CumSum) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	if ClassOf(xt.Elem)&ClassNumeric == 0 {
		return nil, fmt.Errorf("%s is not defined on element type %s", o.Name(), xt.Elem)
	}
	if o.Axis < 0 || o.Axis >= xt.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: append([]int64{}, xt.Dims...)}}, nil
}

func init() {
	for _, prod := range []bool{false, true} {
		name := (&CumSum{Prod: prod}).Name()
		defineOp(name, &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &CumSum{Axis: r.int("axis", 0), Exclusive: r.bool("exclusive"), Reverse: r.bool("reverse"), Prod: prod, X: ins[0]}
			return op, r.done(name)
		}})
	}
}
