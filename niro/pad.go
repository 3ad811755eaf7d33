package niro

import "fmt"

// Pad extends X by Low[i] elements before and High[i] elements after each
// axis i; a negative count crops. Mode says what the new elements hold:
// "constant" the rank-0 tensor Value, "reflect" the mirror image without
// repeating the edge, "edge" the nearest edge element, "wrap" the
// elements from the other end (periodically). Value is read in constant
// mode only, but always present, with X's element type.
//
// Example printed form:
//
//	%2 = pad %0, %1 {high = [1, 0], low = [0, 2], mode = "constant"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
type Pad struct {
	Loc
	noRegions
	noSuccessors
	Mode   string
	Low    []int64
	High   []int64
	Result Value
	X      Value
	Value  Value
}

// PadModes lists the modes of Pad.
var PadModes = []string{"constant", "reflect", "edge", "wrap"}

func (*Pad) isOp()                   {}
func (*Pad) Name() string            { return "pad" }
func (o *Pad) refs() []*Value        { return []*Value{&o.X, &o.Value} }
func (o *Pad) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Pad) Results() []Value      { return []Value{o.Result} }
func (o *Pad) setResults(vs []Value) { o.Result = vs[0] }
func (o *Pad) print(p *printer)      { p.generic(o) }
func (o *Pad) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Pad) params() Attrs {
	return Attrs{"mode": StringAttr(o.Mode), "low": intsAttr(o.Low), "high": intsAttr(o.High)}
}

func (o *Pad) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("operand", o.X.Type)
	if err != nil {
		return nil, err
	}
	vt, err := rankedOperand("pad value", o.Value.Type)
	if err != nil {
		return nil, err
	}
	if vt.Rank() != 0 || vt.Elem != xt.Elem {
		return nil, fmt.Errorf("pad value has type %s, want tensor<%s>", vt, xt.Elem)
	}
	known := false
	for _, m := range PadModes {
		known = known || m == o.Mode
	}
	if !known {
		return nil, fmt.Errorf("pad mode %q is not one of %v", o.Mode, PadModes)
	}
	if len(o.Low) != xt.Rank() || len(o.High) != xt.Rank() {
		return nil, fmt.Errorf("pad of %s needs %d low and high counts, has %d and %d", xt, xt.Rank(), len(o.Low), len(o.High))
	}
	dims := make([]int64, xt.Rank())
	for i, d := range xt.Dims {
		if d == Dynamic {
			dims[i] = Dynamic
			continue
		}
		dims[i] = d + o.Low[i] + o.High[i]
		if dims[i] < 0 {
			return nil, fmt.Errorf("pad of %s by %v and %v gives a negative extent at axis %d", xt, o.Low, o.High, i)
		}
		if o.Mode != "constant" && d == 0 && dims[i] > 0 {
			return nil, fmt.Errorf("pad mode %s cannot extend the empty axis %d of %s", o.Mode, i, xt)
		}
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	defineOp("pad", &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		op := &Pad{Mode: r.str("mode", "constant"), Low: r.int64s("low", true), High: r.int64s("high", true), X: ins[0], Value: ins[1]}
		if op.Low == nil {
			op.Low = []int64{}
		}
		if op.High == nil {
			op.High = []int64{}
		}
		return op, r.done("pad")
	}})
}
