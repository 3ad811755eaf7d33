package niro

import "fmt"

// Conv is the N-dimensional convolution of ONNX (a cross-correlation): X
// is N×C×D1×…×Ds, W is M×(C/Groups)×K1×…×Ks and the optional bias B has
// extent M; the result is N×M×O1×…×Os with
//
//	Oi = (Di + Pads[i] + Pads[s+i] − Dilations[i]·(Ki − 1) − 1) / Strides[i] + 1
//
// (integer division; at least 1 after padding). Pads holds the zeros
// added before each spatial axis, then those after (ONNX's layout);
// Strides and Dilations have one entry per spatial axis; the spatial rank
// s is 1, 2 or 3. Every result element (n, m, o…) of group g = m / (M/G)
// is the sum, starting from 0, over c in [0, C/G), then k1, then k2, …
// (c outermost, ascending; each product and sum rounded, no fused
// multiply-add) of X[n, g·C/G + c, o1·s1 + k1·d1 − p1, …]·W[m, c, k…],
// where reads outside X give 0; the bias B[m] is added last. f16 and bf16
// accumulate in f32 and round once.
//
// Example printed form:
//
//	%3 = conv %0, %1, %2 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
type Conv struct {
	Loc
	noRegions
	noSuccessors
	Strides   []int64
	Dilations []int64
	Pads      []int64
	Groups    int64
	Result    Value
	X         Value
	W         Value
	// B is the optional bias (Type nil when absent).
	B Value
}

// HasBias reports whether the convolution adds a bias.
func (o *Conv) HasBias() bool { return o.B.Type != nil }

func (*Conv) isOp()        {}
func (*Conv) Name() string { return "conv" }
func (o *Conv) refs() []*Value {
	if o.HasBias() {
		return []*Value{&o.X, &o.W, &o.B}
	}
	return []*Value{&o.X, &o.W}
}
func (o *Conv) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Conv) Results() []Value      { return []Value{o.Result} }
func (o *Conv) setResults(vs []Value) { o.Result = vs[0] }
func (o *Conv) print(p *printer)      { p.generic(o) }
func (o *Conv) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Conv) params() Attrs {
	return Attrs{"strides": intsAttr(o.Strides), "dilations": intsAttr(o.Dilations), "pads": intsAttr(o.Pads), "group": IntAttr(o.Groups)}
}

// windowParams checks strides, dilations and pads for s spatial axes.
func windowParams(s int, strides, dilations, pads []int64) error {
	if len(strides) != s || len(dilations) != s || len(pads) != 2*s {
		return fmt.Errorf("%d spatial axes need %d strides, %d dilations and %d pads, have %d, %d and %d", s, s, s, 2*s, len(strides), len(dilations), len(pads))
	}
	for i := 0; i < s; i++ {
		if strides[i] < 1 || dilations[i] < 1 {
			return fmt.Errorf("strides %v and dilations %v must be positive", strides, dilations)
		}
		if pads[i] < 0 || pads[s+i] < 0 {
			return fmt.Errorf("pads %v must not be negative", pads)
		}
	}
	return nil
}

func (o *Conv) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("input", o.X.Type)
	if err != nil {
		return nil, err
	}
	wt, err := rankedOperand("weight", o.W.Type)
	if err != nil {
		return nil, err
	}
	if !xt.Elem.IsFloat() || wt.Elem != xt.Elem {
		return nil, fmt.Errorf("conv needs float operands of one type, has %s and %s", xt.Elem, wt.Elem)
	}
	s := xt.Rank() - 2
	if s < 1 || s > 3 || wt.Rank() != xt.Rank() {
		return nil, fmt.Errorf("conv needs input and weight of rank 3 to 5, has %s and %s", xt, wt)
	}
	if err := windowParams(s, o.Strides, o.Dilations, o.Pads); err != nil {
		return nil, err
	}
	g := o.Groups
	if g < 1 {
		return nil, fmt.Errorf("group %d must be positive", g)
	}
	c, m := xt.Dims[1], wt.Dims[0]
	if c != Dynamic && (c%g != 0 || (wt.Dims[1] != Dynamic && c/g != wt.Dims[1])) {
		return nil, fmt.Errorf("input %s in %d groups does not match weight %s", xt, g, wt)
	}
	if m != Dynamic && m%g != 0 {
		return nil, fmt.Errorf("weight %s has %d output channels, not a multiple of group %d", wt, m, g)
	}
	if o.HasBias() {
		bt, err := rankedOperand("bias", o.B.Type)
		if err != nil {
			return nil, err
		}
		if bt.Elem != xt.Elem || bt.Rank() != 1 || !dimsCompatible(bt.Dims[0], m) {
			return nil, fmt.Errorf("bias has type %s, want tensor<%dx%s>", bt, m, xt.Elem)
		}
	}
	dims := []int64{xt.Dims[0], m}
	for i := 0; i < s; i++ {
		d, k := xt.Dims[2+i], wt.Dims[2+i]
		if d == Dynamic || k == Dynamic {
			dims = append(dims, Dynamic)
			continue
		}
		span := d + o.Pads[i] + o.Pads[s+i] - o.Dilations[i]*(k-1) - 1
		if span < 0 {
			return nil, fmt.Errorf("kernel %s with dilations %v does not fit input %s padded by %v", wt, o.Dilations, xt, o.Pads)
		}
		dims = append(dims, span/o.Strides[i]+1)
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	defineOp("conv", &opDef{results: 1, operands: -1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		if len(ins) != 2 && len(ins) != 3 {
			return nil, fmt.Errorf("conv takes 2 or 3 operands, has %d", len(ins))
		}
		r := readAttrs(a)
		op := &Conv{Strides: r.int64s("strides", true), Dilations: r.int64s("dilations", true), Pads: r.int64s("pads", true),
			Groups: int64(r.int("group", 1)), X: ins[0], W: ins[1]}
		if len(ins) == 3 {
			op.B = ins[2]
		}
		return op, r.done("conv")
	}})
}
