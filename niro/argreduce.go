package niro

import "fmt"

// ArgReduceKind selects what an [ArgReduce] looks for.
type ArgReduceKind uint8

// The kinds: the index of the largest or of the smallest element.
const (
	ArgMax ArgReduceKind = iota
	ArgMin
	numArgReduceKinds
)

var argReduceNames = [numArgReduceKinds]string{ArgMax: "argmax", ArgMin: "argmin"}

func (k ArgReduceKind) String() string {
	if k >= numArgReduceKinds {
		return fmt.Sprintf("<argreduce %d>", k)
	}
	return argReduceNames[k]
}

// ArgReduce returns, as i64, the index along Axis of the largest (ArgMax)
// or smallest (ArgMin) element of a numeric tensor: the first such index,
// or the last with SelectLast. A NaN counts as the extreme, so the first
// NaN wins (numpy's argmax). With KeepDims the axis stays with extent 1,
// otherwise it is dropped.
//
// Example printed form:
//
//	%1 = argmax %0 {axis = 1, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xi64>
type ArgReduce struct {
	Loc
	noRegions
	noSuccessors
	Kind       ArgReduceKind
	Axis       int
	KeepDims   bool
	SelectLast bool
	Result     Value
	X          Value
}

func (*ArgReduce) isOp()                   {}
func (o *ArgReduce) Name() string          { return o.Kind.String() }
func (o *ArgReduce) refs() []*Value        { return []*Value{&o.X} }
func (o *ArgReduce) Operands() []Value     { return valuesOf(o.refs()) }
func (o *ArgReduce) Results() []Value      { return []Value{o.Result} }
func (o *ArgReduce) setResults(vs []Value) { o.Result = vs[0] }
func (o *ArgReduce) print(p *printer)      { p.generic(o) }
func (o *ArgReduce) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *ArgReduce) params() Attrs {
	a := Attrs{"axis": IntAttr(o.Axis)}
	if o.KeepDims {
		a["keep_dims"] = BoolAttr(true)
	}
	if o.SelectLast {
		a["select_last"] = BoolAttr(true)
	}
	return a
}

func (o *ArgReduce) inferTypes() ([]Type, error) {
	if o.Kind >= numArgReduceKinds {
		return nil, fmt.Errorf("invalid argreduce kind %d", o.Kind)
	}
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	if ClassOf(xt.Elem)&ClassNumeric == 0 {
		return nil, fmt.Errorf("%s is not defined on element type %s", o.Kind, xt.Elem)
	}
	if o.Axis < 0 || o.Axis >= xt.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
	}
	dims := append([]int64{}, xt.Dims[:o.Axis]...)
	if o.KeepDims {
		dims = append(dims, 1)
	}
	dims = append(dims, xt.Dims[o.Axis+1:]...)
	return []Type{TensorType{Elem: I64, Dims: dims}}, nil
}

func init() {
	for k := ArgReduceKind(0); k < numArgReduceKinds; k++ {
		name := k.String()
		defineOp(name, &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &ArgReduce{Kind: k, X: ins[0], Axis: r.int("axis", 0), KeepDims: r.bool("keep_dims"), SelectLast: r.bool("select_last")}
			return op, r.done(name)
		}})
	}
}
