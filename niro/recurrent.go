package niro

import (
	"fmt"
	"strings"
)

// RecurrentKind names the cell of a [Recurrent] op.
type RecurrentKind int

const (
	LSTM RecurrentKind = iota // gates i, o, f, c; state h and c
	GRU                       // gates z, r, h; state h
	RNN                       // one gate; state h
)

// recurrentInfo is the table row of one cell kind.
var recurrentInfo = [...]struct {
	mnemonic string
	gates    int // gate blocks in W and R
	acts     int // activations per direction
	operands int
	results  int
}{
	LSTM: {"lstm", 4, 3, 8, 3},
	GRU:  {"gru", 3, 2, 6, 2},
	RNN:  {"rnn", 1, 1, 6, 2},
}

func (k RecurrentKind) String() string { return recurrentInfo[k].mnemonic }

// Gates returns the number of gate blocks of W and R (4 for LSTM, 3 for
// GRU, 1 for RNN).
func (k RecurrentKind) Gates() int { return recurrentInfo[k].gates }

// Activations returns the number of activation functions per direction
// (f, g, h for LSTM; f, g for GRU; f for RNN).
func (k RecurrentKind) Activations() int { return recurrentInfo[k].acts }

// RecurrentActivations lists the activation functions a recurrent cell may
// use, with the ONNX spelling.
var RecurrentActivations = []string{"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
	"ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"}

// Recurrent runs one layer of an LSTM, GRU or simple RNN over a sequence,
// as the ONNX operators of those names with layout 0 specify.
//
// Operands: X [S, N, I] (S steps, N batch rows, I inputs); Wᵀ [D, I, G·H]
// and Rᵀ [D, H, G·H], ONNX's W and R with their last two axes swapped (so
// a step's products read them along rows), the gate blocks of each
// direction in ONNX order (LSTM i, o, f, c; GRU z, r, h) along the last
// axis; B [D, 2·G·H], the W biases then the R
// biases; SeqLens [N] (i32), each batch row's length, at most S; H0
// [D, N, H], the initial hidden state; and for LSTM C0 [D, N, H], the
// initial cell state, and P [D, 3·H], the peephole weights (i, o, f). D is
// 2 for Direction "bidirectional" (forward, then reverse), else 1. Absent
// ONNX inputs are given as zeros (and SeqLens as S).
//
// Results: Y [S, D, N, H], every step's hidden state (zero at steps at or
// past the row's length), YH [D, N, H], the hidden state after each row's
// last valid step, and for LSTM YC [D, N, H], the cell state after it. The
// reverse direction of a row starts at its own last valid step, SeqLens−1,
// and writes Y at the step it reads.
//
// Activations holds Kind.Activations() names per direction (f, g and h),
// forward first; Alpha and Beta hold each activation's parameters (ignored
// by those that take none). Clip, when HasClip, bounds every gate's input
// to [−Clip, Clip] before its activation. InputForget (LSTM) couples the
// forget gate to 1 − i; LinearBeforeReset (GRU) applies the reset gate
// after the recurrent product of the h gate.
//
// Each gate's input is (X_t·Wᵀ + H·Rᵀ) + (Wb + Rb) (plus P ⊙ C for the
// LSTM's peepholes), every sum in order and every product rounded
// separately, as the ONNX reference computes it.
//
// Example printed form:
//
//	%7, %8 = rnn %0, %1, %2, %3, %4, %5 {activations = ["Tanh"], alpha = [0.0], beta = [0.0], direction = "forward", hidden_size = 4} : (tensor<3x2x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<2xi32>, tensor<1x2x4xf32>) -> (tensor<3x1x2x4xf32>, tensor<1x2x4xf32>)
type Recurrent struct {
	Loc
	noRegions
	noSuccessors
	Kind              RecurrentKind
	Direction         string // forward, reverse or bidirectional
	HiddenSize        int64
	Activations       []string
	Alpha, Beta       []float64
	HasClip           bool
	Clip              float64
	InputForget       bool // LSTM only
	LinearBeforeReset bool // GRU only

	X, W, R, B, SeqLens, H0 Value
	C0, P                   Value // LSTM only

	Y, YH Value
	YC    Value // LSTM only
}

func (*Recurrent) isOp()          {}
func (o *Recurrent) Name() string { return o.Kind.String() }
func (o *Recurrent) refs() []*Value {
	r := []*Value{&o.X, &o.W, &o.R, &o.B, &o.SeqLens, &o.H0}
	if o.Kind == LSTM {
		r = append(r, &o.C0, &o.P)
	}
	return r
}
func (o *Recurrent) Operands() []Value { return valuesOf(o.refs()) }
func (o *Recurrent) Results() []Value {
	if o.Kind == LSTM {
		return []Value{o.Y, o.YH, o.YC}
	}
	return []Value{o.Y, o.YH}
}
func (o *Recurrent) setResults(vs []Value) {
	o.Y, o.YH = vs[0], vs[1]
	if o.Kind == LSTM {
		o.YC = vs[2]
	}
}
func (o *Recurrent) print(p *printer)     { p.generic(o) }
func (o *Recurrent) verify(v *opVerifier) { verifyGeneric(v, o) }

// Directions returns D: 2 for a bidirectional op, else 1.
func (o *Recurrent) Directions() int {
	if o.Direction == "bidirectional" {
		return 2
	}
	return 1
}

// Reversed reports whether direction d runs from the last step to the
// first.
func (o *Recurrent) Reversed(d int) bool {
	return o.Direction == "reverse" || (o.Direction == "bidirectional" && d == 1)
}

func (o *Recurrent) params() Attrs {
	acts := make(ListAttr, len(o.Activations))
	for i, s := range o.Activations {
		acts[i] = StringAttr(s)
	}
	floats := func(xs []float64) ListAttr {
		l := make(ListAttr, len(xs))
		for i, x := range xs {
			l[i] = FloatAttr(x)
		}
		return l
	}
	a := Attrs{"direction": StringAttr(o.Direction), "hidden_size": IntAttr(o.HiddenSize),
		"activations": acts, "alpha": floats(o.Alpha), "beta": floats(o.Beta)}
	if o.HasClip {
		a["clip"] = FloatAttr(o.Clip)
	}
	if o.InputForget {
		a["input_forget"] = BoolAttr(true)
	}
	if o.LinearBeforeReset {
		a["linear_before_reset"] = BoolAttr(true)
	}
	return a
}

func (o *Recurrent) inferTypes() ([]Type, error) {
	k := o.Kind
	if k < LSTM || k > RNN {
		return nil, fmt.Errorf("recurrent kind %d is invalid", k)
	}
	switch o.Direction {
	case "forward", "reverse", "bidirectional":
	default:
		return nil, fmt.Errorf("%s: direction %q must be forward, reverse or bidirectional", k, o.Direction)
	}
	D, G, H := int64(o.Directions()), int64(k.Gates()), o.HiddenSize
	if H <= 0 {
		return nil, fmt.Errorf("%s: hidden_size %d must be positive", k, H)
	}
	if want := k.Activations() * int(D); len(o.Activations) != want || len(o.Alpha) != want || len(o.Beta) != want {
		return nil, fmt.Errorf("%s: needs %d activations, alphas and betas, has %d, %d and %d", k, want, len(o.Activations), len(o.Alpha), len(o.Beta))
	}
	for _, a := range o.Activations {
		if !isRecurrentActivation(a) {
			return nil, fmt.Errorf("%s: activation %q is not one of %s", k, a, strings.Join(RecurrentActivations, ", "))
		}
	}
	if o.HasClip && !(o.Clip > 0) {
		return nil, fmt.Errorf("%s: clip %v must be positive", k, o.Clip)
	}
	if o.InputForget && k != LSTM {
		return nil, fmt.Errorf("%s: input_forget is defined on lstm only", k)
	}
	if o.LinearBeforeReset && k != GRU {
		return nil, fmt.Errorf("%s: linear_before_reset is defined on gru only", k)
	}
	xt, err := rankedOperand("X", o.X.Type)
	if err != nil {
		return nil, err
	}
	if xt.Elem != F32 && xt.Elem != F64 {
		return nil, fmt.Errorf("%s is defined on f32 and f64, not %s", k, xt.Elem)
	}
	if xt.Rank() != 3 || !xt.HasStaticShape() {
		return nil, fmt.Errorf("%s: X must have a static shape [steps, batch, inputs], has type %s", k, xt)
	}
	S, N, I := xt.Dims[0], xt.Dims[1], xt.Dims[2]
	check := func(what string, v Value, elem ScalarType, dims ...int64) error {
		t, err := rankedOperand(what, v.Type)
		if err != nil {
			return err
		}
		want := TensorType{Elem: elem, Dims: dims}
		if !TypesEqual(t, want) {
			return fmt.Errorf("%s: %s must have type %s, has type %s", k, what, want, t)
		}
		return nil
	}
	e := xt.Elem
	for _, c := range []struct {
		what string
		v    Value
		elem ScalarType
		dims []int64
	}{
		{"Wᵀ", o.W, e, []int64{D, I, G * H}},
		{"Rᵀ", o.R, e, []int64{D, H, G * H}},
		{"B", o.B, e, []int64{D, 2 * G * H}},
		{"sequence lengths", o.SeqLens, I32, []int64{N}},
		{"initial h", o.H0, e, []int64{D, N, H}},
	} {
		if err := check(c.what, c.v, c.elem, c.dims...); err != nil {
			return nil, err
		}
	}
	state := TensorType{Elem: e, Dims: []int64{D, N, H}}
	res := []Type{TensorType{Elem: e, Dims: []int64{S, D, N, H}}, state}
	if k == LSTM {
		if err := check("initial c", o.C0, e, D, N, H); err != nil {
			return nil, err
		}
		if err := check("P", o.P, e, D, 3*H); err != nil {
			return nil, err
		}
		res = append(res, TensorType{Elem: e, Dims: []int64{D, N, H}})
	}
	return res, nil
}

func isRecurrentActivation(s string) bool {
	for _, a := range RecurrentActivations {
		if a == s {
			return true
		}
	}
	return false
}

// floats reads a list of numbers.
func (r *attrReader) floats(name string) []float64 {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return nil
	}
	l, ok := at.(ListAttr)
	if !ok {
		r.fail("attribute %s must be a list of numbers", name)
		return nil
	}
	out := make([]float64, len(l))
	for i, e := range l {
		switch n := e.(type) {
		case FloatAttr:
			out[i] = float64(n)
		case IntAttr:
			out[i] = float64(n)
		default:
			r.fail("attribute %s must be a list of numbers", name)
			return nil
		}
	}
	return out
}

// strs reads a list of strings.
func (r *attrReader) strs(name string) []string {
	r.used[name] = true
	at, ok := r.a[name]
	if !ok {
		return nil
	}
	l, ok := at.(ListAttr)
	if !ok {
		r.fail("attribute %s must be a list of strings", name)
		return nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(StringAttr)
		if !ok {
			r.fail("attribute %s must be a list of strings", name)
			return nil
		}
		out[i] = string(s)
	}
	return out
}

// float reads a number.
func (r *attrReader) float(name string) (float64, bool) {
	r.used[name] = true
	switch n := r.a[name].(type) {
	case nil:
		return 0, false
	case FloatAttr:
		return float64(n), true
	case IntAttr:
		return float64(n), true
	}
	r.fail("attribute %s must be a number", name)
	return 0, false
}

func init() {
	for k := LSTM; k <= RNN; k++ {
		info := recurrentInfo[k]
		defineOp(info.mnemonic, &opDef{results: info.results, operands: info.operands, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &Recurrent{Kind: k, Direction: r.str("direction", "forward"), HiddenSize: int64(r.int("hidden_size", 0)),
				Activations: r.strs("activations"), Alpha: r.floats("alpha"), Beta: r.floats("beta"),
				InputForget: r.bool("input_forget"), LinearBeforeReset: r.bool("linear_before_reset"),
				X: ins[0], W: ins[1], R: ins[2], B: ins[3], SeqLens: ins[4], H0: ins[5]}
			op.Clip, op.HasClip = r.float("clip")
			if k == LSTM {
				op.C0, op.P = ins[6], ins[7]
			}
			return op, r.done(info.mnemonic)
		}})
	}
}
