package niro

import (
	"fmt"
	"strconv"
)

// Loop runs its body region, one block, a number of times, threading
// loop-carried values through it and stacking per-iteration slices into
// scan outputs. It models ONNX Loop and Scan (docs/ops.md, "Loop").
//
// Operands, in order: the maximum trip count Trip (tensor<i64> of rank 0)
// when HasTrip; the initial condition Cond (tensor<i1> of rank 0) when
// HasCond; the initial carried values Init; the scan inputs Scans. Results:
// the final carried values (the types of Init), then one scan output per
// entry of ScanOutAxes.
//
// The body block takes the iteration number (tensor<i64>, counting from
// 0), the condition (tensor<i1>, only when HasCond), the carried values
// and one slice of each scan input (its ScanInAxes axis removed, read from
// the end when ScanInReverse), and ends in a Yield of the next condition
// (when HasCond), the next carried values and one slice per scan output.
// The number of iterations N is the smallest of Trip, the extent of the
// scan inputs along their axes and, when HasCond, the first iteration
// whose incoming condition is false; scan output j has N slices stacked
// along axis ScanOutAxes[j] (from the end when ScanOutReverse[j]). A scan
// output whose type gives that axis a static extent E holds E slices: the
// loop stops after E iterations at the latest, and slices it did not run
// are zero.
//
// Example printed form:
//
//	%4, %5 = loop %0, %1, %2 {cond = true, scan_out_axes = [0], scan_out_reverse = [false], trip = true} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
//	^bb1(%6: tensor<i64>, %7: tensor<i1>, %8: tensor<2xf32>):
//	  %9 = add %8, %8 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
//	  yield %7, %9, %8 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
//	}
type Loop struct {
	Loc
	noSuccessors
	Res            []Value
	Trip           Value
	HasTrip        bool
	Cond           Value
	HasCond        bool
	Init           []Value
	Scans          []Value
	ScanInAxes     []int
	ScanInReverse  []bool
	ScanOutAxes    []int
	ScanOutReverse []bool
	Body           *Region
}

func (*Loop) isOp()                {}
func (*Loop) Name() string         { return "loop" }
func (o *Loop) Results() []Value   { return o.Res }
func (o *Loop) Regions() []*Region { return []*Region{o.Body} }
func (o *Loop) Operands() []Value  { return valuesOf(o.refs()) }
func (o *Loop) NumCarried() int    { return len(o.Init) }
func (o *Loop) CarriedResults() []Value {
	if len(o.Res) < len(o.Init) {
		return o.Res
	}
	return o.Res[:len(o.Init)]
}

// ScanResults returns the scan outputs.
func (o *Loop) ScanResults() []Value {
	if len(o.Res) < len(o.Init) {
		return nil
	}
	return o.Res[len(o.Init):]
}

func (o *Loop) refs() []*Value {
	var out []*Value
	if o.HasTrip {
		out = append(out, &o.Trip)
	}
	if o.HasCond {
		out = append(out, &o.Cond)
	}
	for i := range o.Init {
		out = append(out, &o.Init[i])
	}
	for i := range o.Scans {
		out = append(out, &o.Scans[i])
	}
	return out
}

// params returns the printed attributes.
func (o *Loop) params() Attrs {
	a := Attrs{}
	if o.HasTrip {
		a["trip"] = BoolAttr(true)
	}
	if o.HasCond {
		a["cond"] = BoolAttr(true)
	}
	bools := func(bs []bool) ListAttr {
		l := make(ListAttr, len(bs))
		for i, b := range bs {
			l[i] = BoolAttr(b)
		}
		return l
	}
	if len(o.ScanInAxes) > 0 || len(o.ScanInReverse) > 0 {
		a["scan_in_axes"] = intsAttr(o.ScanInAxes)
		a["scan_in_reverse"] = bools(o.ScanInReverse)
	}
	if len(o.ScanOutAxes) > 0 || len(o.ScanOutReverse) > 0 {
		a["scan_out_axes"] = intsAttr(o.ScanOutAxes)
		a["scan_out_reverse"] = bools(o.ScanOutReverse)
	}
	return a
}

func (o *Loop) print(p *printer) {
	p.results(o.Res)
	p.str("loop")
	if ins := o.Operands(); len(ins) > 0 {
		p.str(" ")
		p.values(ins)
	}
	if a := o.params(); len(a) > 0 {
		p.str(" ")
		p.attrDict(a)
	}
	p.str(" : ")
	p.funcType(o.Operands(), o.Res, true)
	p.str(" ")
	p.region(o.Body)
}

// ScanSliceType returns the type of one slice of a scan input or output of
// type t along axis: t without that axis.
func ScanSliceType(t TensorType, axis int) TensorType {
	dims := append(append([]int64{}, t.Dims[:axis]...), t.Dims[axis+1:]...)
	return TensorType{Elem: t.Elem, Dims: dims}
}

// BodyArgTypes returns the types the body block's arguments must have, or
// an error when an operand is malformed.
func (o *Loop) BodyArgTypes() ([]Type, error) {
	ts := []Type{Tensor(I64)}
	if o.HasCond {
		ts = append(ts, Tensor(Bool))
	}
	for _, v := range o.Init {
		ts = append(ts, v.Type)
	}
	if len(o.ScanInAxes) != len(o.Scans) || len(o.ScanInReverse) != len(o.Scans) {
		return nil, fmt.Errorf("%d scan inputs, but %d scan_in_axes and %d scan_in_reverse", len(o.Scans), len(o.ScanInAxes), len(o.ScanInReverse))
	}
	for i, v := range o.Scans {
		t, err := rankedOperand("scan input #"+strconv.Itoa(i), v.Type)
		if err != nil {
			return nil, err
		}
		ax := o.ScanInAxes[i]
		if ax < 0 || ax >= t.Rank() {
			return nil, fmt.Errorf("scan input #%d of type %s has no axis %d", i, t, ax)
		}
		ts = append(ts, ScanSliceType(t, ax))
	}
	return ts, nil
}

func (o *Loop) verify(v *opVerifier) {
	if o.HasTrip && !TypesEqual(o.Trip.Type, Tensor(I64)) {
		v.errorf("trip count %s has type %s, want tensor<i64>", o.Trip, typeString(o.Trip.Type))
	}
	if o.HasCond && !TypesEqual(o.Cond.Type, Tensor(Bool)) {
		v.errorf("condition %s has type %s, want tensor<i1>", o.Cond, typeString(o.Cond.Type))
	}
	if !o.HasTrip && !o.HasCond && len(o.Scans) == 0 {
		v.errorf("loop has no trip count, no condition and no scan input, so it never ends")
	}
	if len(o.ScanOutReverse) != len(o.ScanOutAxes) {
		v.errorf("%d scan_out_axes, but %d scan_out_reverse", len(o.ScanOutAxes), len(o.ScanOutReverse))
		return
	}
	if len(o.Res) != len(o.Init)+len(o.ScanOutAxes) {
		v.errorf("%d results, but %d carried values and %d scan outputs", len(o.Res), len(o.Init), len(o.ScanOutAxes))
		return
	}
	for i, r := range o.CarriedResults() {
		if !TypesEqual(r.Type, o.Init[i].Type) {
			v.errorf("carried result #%d has type %s, but its initial value %s has type %s", i, typeString(r.Type), o.Init[i], typeString(o.Init[i].Type))
		}
	}
	want, err := o.BodyArgTypes()
	if err != nil {
		v.errorf("%v", err)
		return
	}
	var extent int64 = Dynamic // the common static scan input extent
	for i, s := range o.Scans {
		d := s.Type.(TensorType).Dims[o.ScanInAxes[i]]
		if d >= 0 && extent >= 0 && d != extent {
			v.errorf("scan input #%d has extent %d along its axis, but an earlier one has %d", i, d, extent)
		}
		if d >= 0 {
			extent = d
		}
	}
	if o.Body == nil || len(o.Body.Blocks) != 1 || o.Body.Blocks[0] == nil {
		v.errorf("body must be a region of exactly one block")
		return
	}
	b := o.Body.Blocks[0]
	if len(b.Args) != len(want) {
		v.errorf("body block has %d arguments, want %d", len(b.Args), len(want))
	} else {
		for i, a := range b.Args {
			if !TypesEqual(a.Type, want[i]) {
				v.errorf("body argument #%d (%s) has type %s, want %s", i, a, typeString(a.Type), typeString(want[i]))
			}
		}
	}
	y, ok := b.Terminator().(*Yield)
	if !ok {
		v.errorf("body must end with yield")
		return
	}
	first := 0
	if o.HasCond {
		first = 1
	}
	if len(y.Values) != first+len(o.Res) {
		v.errorf("body yields %d values, want %d", len(y.Values), first+len(o.Res))
		return
	}
	if o.HasCond && !TypesEqual(y.Values[0].Type, Tensor(Bool)) {
		v.errorf("body yields the condition %s of type %s, want tensor<i1>", y.Values[0], typeString(y.Values[0].Type))
	}
	for i, init := range o.Init {
		if yv := y.Values[first+i]; !TypesEqual(yv.Type, init.Type) {
			v.errorf("body yields %s of type %s as carried value #%d, which has type %s", yv, typeString(yv.Type), i, typeString(init.Type))
		}
	}
	for j, r := range o.ScanResults() {
		yv := y.Values[first+len(o.Init)+j]
		rt, ok1 := r.Type.(TensorType)
		st, ok2 := yv.Type.(TensorType)
		if !ok1 || !ok2 || rt.Unranked || st.Unranked {
			v.errorf("scan output #%d and its slice must be ranked tensors, have %s and %s", j, typeString(r.Type), typeString(yv.Type))
			continue
		}
		ax := o.ScanOutAxes[j]
		if o.ScanOutReverse[j] && o.HasCond {
			v.errorf("scan output #%d is reversed in a loop with a condition, whose iteration count is not known when the first slice is written", j)
		}
		if ax < 0 || ax >= rt.Rank() {
			v.errorf("scan output #%d of type %s has no axis %d", j, rt, ax)
			continue
		}
		if !TypesEqual(ScanSliceType(rt, ax), st) {
			v.errorf("scan output #%d has type %s, but its slice %s has type %s (axis %d)", j, rt, yv, st, ax)
		}
	}
}

// parseLoop reads the rest of "loop %a, ... {attrs} : (...) -> (...) {region}".
func (p *parser) parseLoop(results []Value, depth int) (Op, error) {
	ins, err := p.valueList()
	if err != nil {
		return nil, err
	}
	a := Attrs{}
	if p.isPunct("{") {
		if a, err = p.attrDict(); err != nil {
			return nil, err
		}
	}
	if err := p.signature(ins, results); err != nil {
		return nil, err
	}
	r := readAttrs(a)
	o := &Loop{Res: results, HasTrip: r.bool("trip"), HasCond: r.bool("cond")}
	o.ScanInAxes = r.ints("scan_in_axes", false)
	o.ScanInReverse = r.bools("scan_in_reverse")
	o.ScanOutAxes = r.ints("scan_out_axes", false)
	o.ScanOutReverse = r.bools("scan_out_reverse")
	if err := r.done("loop"); err != nil {
		return nil, p.errf("%v", err)
	}
	need := len(o.ScanInAxes)
	if o.HasTrip {
		need++
	}
	if o.HasCond {
		need++
	}
	if len(ins) < need {
		return nil, p.errf("loop has %d operands, fewer than its trip count, condition and %d scan inputs", len(ins), len(o.ScanInAxes))
	}
	if o.HasTrip {
		o.Trip, ins = ins[0], ins[1:]
	}
	if o.HasCond {
		o.Cond, ins = ins[0], ins[1:]
	}
	nInit := len(ins) - len(o.ScanInAxes)
	o.Init = append([]Value{}, ins[:nInit]...)
	o.Scans = append([]Value{}, ins[nInit:]...)
	if o.Body, err = p.regionDepth(depth + 1); err != nil {
		return nil, err
	}
	return o, nil
}

func (r *attrReader) bools(name string) []bool {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return nil
	}
	l, ok := at.(ListAttr)
	if !ok {
		r.fail("attribute %s must be a list of booleans", name)
		return nil
	}
	out := make([]bool, len(l))
	for i, e := range l {
		b, ok := e.(BoolAttr)
		if !ok {
			r.fail("attribute %s must be a list of booleans", name)
			return nil
		}
		out[i] = bool(b)
	}
	return out
}
