package niro

import "fmt"

// DynSlice reads a window of X whose bounds are known at run time only:
// along Axes[k], the elements from Starts[k] up to Ends[k] (step 1), the
// bounds read from two rank-1 tensors of i32 or i64 with len(Axes)
// elements, resolved as ONNX Slice does: a negative bound counts from the
// end (+ extent), then both are clamped to [0, extent]; the window holds
// max(end − start, 0) elements. The other axes are whole. The result has
// X's type with a dynamic extent on every sliced axis (a more precise
// result type asserts the extent the bounds give).
//
// Example printed form:
//
//	%3 = dyn_slice %0, %1, %2 {axes = [0]} : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
type DynSlice struct {
	Loc
	noRegions
	noSuccessors
	Axes            []int
	Result          Value
	X, Starts, Ends Value
}

func (*DynSlice) isOp()                   {}
func (*DynSlice) Name() string            { return "dyn_slice" }
func (o *DynSlice) refs() []*Value        { return []*Value{&o.X, &o.Starts, &o.Ends} }
func (o *DynSlice) Operands() []Value     { return valuesOf(o.refs()) }
func (o *DynSlice) Results() []Value      { return []Value{o.Result} }
func (o *DynSlice) setResults(vs []Value) { o.Result = vs[0] }
func (o *DynSlice) params() Attrs         { return Attrs{"axes": intsAttr(o.Axes)} }
func (o *DynSlice) print(p *printer)      { p.generic(o) }
func (o *DynSlice) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *DynSlice) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	for _, b := range []struct {
		what string
		v    Value
	}{{"starts", o.Starts}, {"ends", o.Ends}} {
		t, err := rankedOperand(b.what, b.v.Type)
		if err != nil {
			return nil, err
		}
		if t.Elem != I32 && t.Elem != I64 || t.Rank() != 1 || t.Dims[0] != int64(len(o.Axes)) {
			return nil, fmt.Errorf("%s has type %s, want tensor<%dxi64> or tensor<%dxi32>", b.what, t, len(o.Axes), len(o.Axes))
		}
	}
	dims := append([]int64{}, xt.Dims...)
	seen := map[int]bool{}
	for _, a := range o.Axes {
		if a < 0 || a >= xt.Rank() || seen[a] {
			return nil, fmt.Errorf("axes %v: each must be a distinct axis of %s", o.Axes, xt)
		}
		seen[a] = true
		dims[a] = Dynamic
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	defineOp("dyn_slice", &opDef{results: 1, operands: 3, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		o := &DynSlice{Axes: r.ints("axes", true), X: ins[0], Starts: ins[1], Ends: ins[2]}
		return o, r.done("dyn_slice")
	}})
}
