package niro

import "fmt"

// PoolKind selects what a [Pool] computes over each window.
type PoolKind uint8

// The pooling kinds.
const (
	// PoolMax is the largest element of the window (NaN propagates);
	// padding never wins.
	PoolMax PoolKind = iota
	// PoolAvg is the in-order sum of the window divided by its count: the
	// window positions inside the input, or with CountIncludePad inside
	// the padded input (positions beyond the end padding, which ceil_mode
	// adds, never count).
	PoolAvg
	// PoolLp is (Σ |x|^P)^(1/P) over the window, in order.
	PoolLp
	numPoolKinds
)

var poolNames = [numPoolKinds]string{"max_pool", "avg_pool", "lp_pool"}

func (k PoolKind) String() string {
	if k >= numPoolKinds {
		return fmt.Sprintf("<pool %d>", k)
	}
	return poolNames[k]
}

// PoolKinds returns every pooling kind.
func PoolKinds() []PoolKind { return []PoolKind{PoolMax, PoolAvg, PoolLp} }

// Pool slides a window of extent Kernel (dilated by Dilations, moved by
// Strides) over the spatial axes of X (N×C×D1×…×Ds, s = 1, 2 or 3) padded
// by Pads (before each axis, then after), and reduces each window per
// Kind. The result extent is
//
//	Oi = ⌊(Di + Pads[i] + Pads[s+i] − Dilations[i]·(Kernel[i] − 1) − 1) / Strides[i]⌋ + 1
//
// or, with CeilMode, ⌈…⌉ + 1 less one where the last window would start
// in the end padding. Every window is visited in ascending row-major order
// of its kernel positions (k1 outermost); f16 and bf16 compute in f32 and
// round once.
//
// Example printed form:
//
//	%1 = avg_pool %0 {dilations = [1, 1], kernel = [2, 2], pads = [0, 0, 1, 1], strides = [2, 2]} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
type Pool struct {
	Loc
	noRegions
	noSuccessors
	Kind            PoolKind
	Kernel          []int64
	Strides         []int64
	Dilations       []int64
	Pads            []int64
	CeilMode        bool
	CountIncludePad bool
	// P is the norm's exponent (PoolLp only).
	P      int64
	Result Value
	X      Value
}

func (*Pool) isOp()                   {}
func (o *Pool) Name() string          { return o.Kind.String() }
func (o *Pool) refs() []*Value        { return []*Value{&o.X} }
func (o *Pool) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Pool) Results() []Value      { return []Value{o.Result} }
func (o *Pool) setResults(vs []Value) { o.Result = vs[0] }
func (o *Pool) print(p *printer)      { p.generic(o) }
func (o *Pool) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Pool) params() Attrs {
	a := Attrs{"kernel": intsAttr(o.Kernel), "strides": intsAttr(o.Strides), "dilations": intsAttr(o.Dilations), "pads": intsAttr(o.Pads)}
	if o.CeilMode {
		a["ceil_mode"] = BoolAttr(true)
	}
	if o.CountIncludePad {
		a["count_include_pad"] = BoolAttr(true)
	}
	if o.Kind == PoolLp {
		a["p"] = IntAttr(o.P)
	}
	return a
}

// PoolExtent returns the result extent of a pooling window over an axis of
// extent d: kernel k, stride s, dilation dl, pads lo and hi.
func PoolExtent(d, k, s, dl, lo, hi int64, ceil bool) int64 {
	span := d + lo + hi - dl*(k-1) - 1
	if span < 0 {
		return 0
	}
	n := span/s + 1
	if ceil && span%s != 0 {
		n++
		if (n-1)*s >= d+lo {
			n--
		}
	}
	return n
}

func (o *Pool) inferTypes() ([]Type, error) {
	if o.Kind >= numPoolKinds {
		return nil, fmt.Errorf("invalid pooling kind %d", o.Kind)
	}
	xt, err := rankedOperand("input", o.X.Type)
	if err != nil {
		return nil, err
	}
	s := xt.Rank() - 2
	if s < 1 || s > 3 {
		return nil, fmt.Errorf("%s needs an input of rank 3 to 5, has %s", o.Kind, xt)
	}
	if o.Kind == PoolMax && ClassOf(xt.Elem)&ClassNumeric == 0 || o.Kind != PoolMax && !xt.Elem.IsFloat() {
		return nil, fmt.Errorf("%s is not defined on element type %s", o.Kind, xt.Elem)
	}
	if o.Kind == PoolLp && o.P < 1 {
		return nil, fmt.Errorf("lp_pool needs p ≥ 1, has %d", o.P)
	}
	if len(o.Kernel) != s {
		return nil, fmt.Errorf("%d spatial axes need %d kernel extents, have %v", s, s, o.Kernel)
	}
	if err := windowParams(s, o.Strides, o.Dilations, o.Pads); err != nil {
		return nil, err
	}
	dims := []int64{xt.Dims[0], xt.Dims[1]}
	for i := 0; i < s; i++ {
		d := xt.Dims[2+i]
		if o.Kernel[i] < 1 {
			return nil, fmt.Errorf("kernel %v must be positive", o.Kernel)
		}
		if d == Dynamic {
			dims = append(dims, Dynamic)
			continue
		}
		n := PoolExtent(d, o.Kernel[i], o.Strides[i], o.Dilations[i], o.Pads[i], o.Pads[s+i], o.CeilMode)
		if n < 1 {
			return nil, fmt.Errorf("kernel %v with dilations %v does not fit input %s padded by %v", o.Kernel, o.Dilations, xt, o.Pads)
		}
		dims = append(dims, n)
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	for _, k := range PoolKinds() {
		name := k.String()
		defineOp(name, &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			r := readAttrs(a)
			op := &Pool{Kind: k, Kernel: r.int64s("kernel", true), Strides: r.int64s("strides", true), Dilations: r.int64s("dilations", true),
				Pads: r.int64s("pads", true), CeilMode: r.bool("ceil_mode"), CountIncludePad: r.bool("count_include_pad"), X: ins[0]}
			if k == PoolLp {
				op.P = int64(r.int("p", 2))
			}
			return op, r.done(name)
		}})
	}
}

// MaxPoolIndices gives, for each window of a max_pool with the same
// parameters, the i64 position in X of the window's first largest
// element (the first position inside X, and after it each strictly larger
// one: a NaN is taken only as the first), flattened as ONNX MaxPool's
// Indices output: (n·C + c)·D1⋯Ds plus the spatial position in row-major
// order (StorageOrder 0) or column-major order (1).
//
// Example printed form:
//
//	%1 = max_pool_indices %0 {dilations = [1, 1], kernel = [2, 2], pads = [0, 0, 0, 0], storage_order = 1, strides = [2, 2]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64>
type MaxPoolIndices struct {
	Loc
	noRegions
	noSuccessors
	Kernel       []int64
	Strides      []int64
	Dilations    []int64
	Pads         []int64
	CeilMode     bool
	StorageOrder int64
	Result       Value
	X            Value
}

func (*MaxPoolIndices) isOp()                   {}
func (*MaxPoolIndices) Name() string            { return "max_pool_indices" }
func (o *MaxPoolIndices) refs() []*Value        { return []*Value{&o.X} }
func (o *MaxPoolIndices) Operands() []Value     { return valuesOf(o.refs()) }
func (o *MaxPoolIndices) Results() []Value      { return []Value{o.Result} }
func (o *MaxPoolIndices) setResults(vs []Value) { o.Result = vs[0] }
func (o *MaxPoolIndices) print(p *printer)      { p.generic(o) }
func (o *MaxPoolIndices) verify(v *opVerifier)  { verifyGeneric(v, o) }

// Pool returns the max_pool whose windows o indexes.
func (o *MaxPoolIndices) Pool() *Pool {
	return &Pool{Kind: PoolMax, Kernel: o.Kernel, Strides: o.Strides, Dilations: o.Dilations, Pads: o.Pads, CeilMode: o.CeilMode, X: o.X}
}

func (o *MaxPoolIndices) params() Attrs {
	a := o.Pool().params()
	if o.StorageOrder != 0 {
		a["storage_order"] = IntAttr(o.StorageOrder)
	}
	return a
}

func (o *MaxPoolIndices) inferTypes() ([]Type, error) {
	if o.StorageOrder != 0 && o.StorageOrder != 1 {
		return nil, fmt.Errorf("storage_order %d is not 0 or 1", o.StorageOrder)
	}
	ts, err := o.Pool().inferTypes()
	if err != nil {
		return nil, err
	}
	t := ts[0].(TensorType)
	t.Elem = I64
	return []Type{t}, nil
}

func init() {
	defineOp("max_pool_indices", &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		op := &MaxPoolIndices{Kernel: r.int64s("kernel", true), Strides: r.int64s("strides", true), Dilations: r.int64s("dilations", true),
			Pads: r.int64s("pads", true), CeilMode: r.bool("ceil_mode"), StorageOrder: int64(r.int("storage_order", 0)), X: ins[0]}
		return op, r.done("max_pool_indices")
	}})
}
