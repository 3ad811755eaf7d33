package niro

import (
	"fmt"
	"sort"
)

// ReduceKind selects the combining operation of a [Reduce].
type ReduceKind uint8

// The reduction kinds. Sum and Prod fold in ascending index order from 0
// and 1; Max and Min start from the lowest and highest value of the type
// (-inf and +inf for floats) and propagate NaN.
const (
	ReduceSum ReduceKind = iota
	ReduceProd
	ReduceMax
	ReduceMin
	numReduceKinds
)

var reduceInfos = [numReduceKinds]KindInfo{
	ReduceSum:  {"reduce_sum", Spelling{"arith.addf", "arith.addi", "arith.addi", ""}, ClassNumeric},
	ReduceProd: {"reduce_prod", Spelling{"arith.mulf", "arith.muli", "arith.muli", ""}, ClassNumeric},
	ReduceMax:  {"reduce_max", Spelling{"arith.maximumf", "arith.maxsi", "arith.maxui", "arith.ori"}, ClassAll},
	ReduceMin:  {"reduce_min", Spelling{"arith.minimumf", "arith.minsi", "arith.minui", "arith.andi"}, ClassAll},
}

// Info returns the kind's table row.
func (k ReduceKind) Info() KindInfo {
	if k >= numReduceKinds {
		return KindInfo{Name: fmt.Sprintf("<reduce %d>", k)}
	}
	return reduceInfos[k]
}

func (k ReduceKind) String() string { return k.Info().Name }

// ReduceKinds returns every reduction kind.
func ReduceKinds() []ReduceKind {
	out := make([]ReduceKind, numReduceKinds)
	for i := range out {
		out[i] = ReduceKind(i)
	}
	return out
}

// Reduce folds a ranked tensor over Axes (sorted, distinct, in range; an
// empty list reduces nothing and copies). With KeepDims the reduced axes
// stay with extent 1, otherwise they are dropped.
//
// Example printed form:
//
//	%1 = reduce_sum %0 {axes = [1], keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
type Reduce struct {
	Loc
	noRegions
	noSuccessors
	Kind     ReduceKind
	Axes     []int
	KeepDims bool
	Result   Value
	X        Value
}

func (*Reduce) isOp()                   {}
func (o *Reduce) Name() string          { return o.Kind.Info().Name }
func (o *Reduce) refs() []*Value        { return []*Value{&o.X} }
func (o *Reduce) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Reduce) Results() []Value      { return []Value{o.Result} }
func (o *Reduce) setResults(vs []Value) { o.Result = vs[0] }
func (o *Reduce) print(p *printer)      { p.generic(o) }
func (o *Reduce) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Reduce) params() Attrs {
	a := Attrs{"axes": intsAttr(o.Axes)}
	if o.KeepDims {
		a["keep_dims"] = BoolAttr(true)
	}
	return a
}

// IsReduced reports whether axis is one of the reduced axes.
func (o *Reduce) IsReduced(axis int) bool {
	for _, a := range o.Axes {
		if a == axis {
			return true
		}
	}
	return false
}

// ReduceLanes is the number of reduction lanes: a run longer than this
// folds lane by lane first (docs/ops.md, "Reduce").
const ReduceLanes = 4096

// LaneRun returns the length of every result element's run when it folds
// lane by lane: the product of the reduced extents when they are all static
// and it exceeds ReduceLanes, else 0 (the run folds in order).
func (o *Reduce) LaneRun() int64 {
	xt, ok := o.X.Type.(TensorType)
	if !ok || xt.Unranked {
		return 0
	}
	n := int64(1)
	for _, a := range o.Axes {
		if a < 0 || a >= len(xt.Dims) || xt.Dims[a] < 0 {
			return 0
		}
		n *= xt.Dims[a]
	}
	if n <= ReduceLanes {
		return 0
	}
	return n
}

func (o *Reduce) inferTypes() ([]Type, error) {
	info := o.Kind.Info()
	if o.Kind >= numReduceKinds {
		return nil, fmt.Errorf("invalid reduction kind %d", o.Kind)
	}
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	if ClassOf(xt.Elem)&info.Types == 0 {
		return nil, fmt.Errorf("%s is not defined on element type %s", info.Name, xt.Elem)
	}
	if !sort.IntsAreSorted(o.Axes) {
		return nil, fmt.Errorf("axes %v are not sorted", o.Axes)
	}
	for i, a := range o.Axes {
		if a < 0 || a >= xt.Rank() {
			return nil, fmt.Errorf("axis %d is out of range for %s", a, xt)
		}
		if i > 0 && o.Axes[i-1] == a {
			return nil, fmt.Errorf("axes %v repeat %d", o.Axes, a)
		}
	}
	dims := []int64{}
	for i, d := range xt.Dims {
		switch {
		case !o.IsReduced(i):
			dims = append(dims, d)
		case o.KeepDims:
			dims = append(dims, 1)
		}
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	for _, k := range ReduceKinds() {
		name := k.Info().Name
		defineOp(name, &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &Reduce{Kind: k, X: ins[0], Axes: r.ints("axes", true), KeepDims: r.bool("keep_dims")}
			if op.Axes == nil {
				op.Axes = []int{}
			}
			return op, r.done(name)
		}})
	}
}
