package niro

import "fmt"

// ScatterKind selects how a [Scatter] finds the positions it writes.
type ScatterKind uint8

// The scatter kinds.
const (
	// ScatterElements writes Updates[p] at X's position p with coordinate
	// Axis replaced by Indices[p] (Indices and Updates share a shape of
	// X's rank).
	ScatterElements ScatterKind = iota
	// ScatterND writes the slice Updates[m] at the position named by the
	// k-tuple Indices[m] (Indices has shape M + [k], Updates M + X[k:]).
	ScatterND
	numScatterKinds
)

var scatterNames = [numScatterKinds]string{ScatterElements: "scatter_elements", ScatterND: "scatter_nd"}

func (k ScatterKind) String() string {
	if k >= numScatterKinds {
		return fmt.Sprintf("<scatter %d>", k)
	}
	return scatterNames[k]
}

// ScatterReduction combines an update with the element it lands on.
type ScatterReduction uint8

// The reductions: None replaces the element, the others combine it with
// the update (max and min as the binary max and min, NaN propagating).
const (
	ScatterNone ScatterReduction = iota
	ScatterAdd
	ScatterMul
	ScatterMax
	ScatterMin
	numScatterReductions
)

var scatterReductionNames = [numScatterReductions]string{"none", "add", "mul", "max", "min"}

func (r ScatterReduction) String() string {
	if r >= numScatterReductions {
		return fmt.Sprintf("<reduction %d>", r)
	}
	return scatterReductionNames[r]
}

// ParseScatterReduction returns the reduction named s ("none", "add",
// "mul", "max" or "min").
func ParseScatterReduction(s string) (ScatterReduction, bool) {
	for i, n := range scatterReductionNames {
		if n == s {
			return ScatterReduction(i), true
		}
	}
	return 0, false
}

// Scatter returns a copy of X with Updates written at the positions
// Indices names (i32 or i64; a negative index counts from the end). The
// updates apply one at a time in row-major order of Updates, so of two
// updates of one position the later wins (None) or both combine in that
// order.
//
// Example printed form:
//
//	%3 = scatter_elements %0, %1, %2 {axis = 1, reduction = "add"} : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
//	%3 = scatter_nd %0, %1, %2 {reduction = "none"} : (tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4xf32>
type Scatter struct {
	Loc
	noRegions
	noSuccessors
	Kind                ScatterKind
	Axis                int // ScatterElements only
	Reduction           ScatterReduction
	Result              Value
	X, Indices, Updates Value
}

func (*Scatter) isOp()                   {}
func (o *Scatter) Name() string          { return o.Kind.String() }
func (o *Scatter) refs() []*Value        { return []*Value{&o.X, &o.Indices, &o.Updates} }
func (o *Scatter) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Scatter) Results() []Value      { return []Value{o.Result} }
func (o *Scatter) setResults(vs []Value) { o.Result = vs[0] }
func (o *Scatter) print(p *printer)      { p.generic(o) }
func (o *Scatter) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Scatter) params() Attrs {
	a := Attrs{"reduction": StringAttr(o.Reduction.String())}
	if o.Kind == ScatterElements {
		a["axis"] = IntAttr(o.Axis)
	}
	return a
}

func (o *Scatter) inferTypes() ([]Type, error) {
	if o.Kind >= numScatterKinds {
		return nil, fmt.Errorf("invalid scatter kind %d", o.Kind)
	}
	if o.Reduction >= numScatterReductions {
		return nil, fmt.Errorf("invalid scatter reduction %d", o.Reduction)
	}
	xt, err := rankedOperand("data", o.X.Type)
	if err != nil {
		return nil, err
	}
	it, err := rankedOperand("indices", o.Indices.Type)
	if err != nil {
		return nil, err
	}
	ut, err := rankedOperand("updates", o.Updates.Type)
	if err != nil {
		return nil, err
	}
	if err := checkIndexType("indices", it); err != nil {
		return nil, err
	}
	if ut.Elem != xt.Elem {
		return nil, fmt.Errorf("updates %s and data %s differ in element type", ut, xt)
	}
	if o.Reduction != ScatterNone && ClassOf(xt.Elem)&ClassNumeric == 0 {
		return nil, fmt.Errorf("reduction %s is not defined on element type %s", o.Reduction, xt.Elem)
	}
	var want []int64
	switch o.Kind {
	case ScatterElements:
		if it.Rank() != xt.Rank() {
			return nil, fmt.Errorf("indices %s and data %s differ in rank", it, xt)
		}
		if o.Axis < 0 || o.Axis >= xt.Rank() {
			return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
		}
		want = it.Dims
	case ScatterND:
		if it.Rank() < 1 {
			return nil, fmt.Errorf("indices %s must have rank at least 1", it)
		}
		k := it.Dims[it.Rank()-1]
		if k < 1 || int(k) > xt.Rank() {
			return nil, fmt.Errorf("the last extent of indices %s must be static and in [1, %d]", it, xt.Rank())
		}
		want = append(append([]int64{}, it.Dims[:it.Rank()-1]...), xt.Dims[k:]...)
	}
	if !TypeRefines(ut, TensorType{Elem: ut.Elem, Dims: want}) {
		return nil, fmt.Errorf("updates %s must have shape %s", ut, TensorType{Elem: ut.Elem, Dims: want})
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: append([]int64{}, xt.Dims...)}}, nil
}

func init() {
	for k := ScatterKind(0); k < numScatterKinds; k++ {
		name := k.String()
		defineOp(name, &opDef{results: 1, operands: 3, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &Scatter{Kind: k, X: ins[0], Indices: ins[1], Updates: ins[2]}
			if k == ScatterElements {
				op.Axis = r.int("axis", 0)
			}
			red := r.str("reduction", "none")
			var ok bool
			if op.Reduction, ok = ParseScatterReduction(red); !ok {
				r.fail("reduction %q is not one of none, add, mul, max, min", red)
			}
			return op, r.done(name)
		}})
	}
}
