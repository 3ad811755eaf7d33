package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Softmax, LogSoftmax and Hardmax. From opset 13 they work along one axis
// (default −1); before, the input is coerced to 2-D at axis (default 1),
// [prod(dims[:axis]), prod(dims[axis:])], the op works along axis 1 of
// that and the result takes the input's shape back.

// softmax returns exp(x − max) / sum(exp(x − max)) along axis a.
func (nc *nodeCtx) softmax(x niro.Value, a int) niro.Value {
	e := nc.un(niro.Exp, nc.bin(niro.Sub, x, nc.reduce(niro.ReduceMax, x, []int{a}, true)))
	return nc.bin(niro.Div, e, nc.reduce(niro.ReduceSum, e, []int{a}, true))
}

// logSoftmax returns (x − max) − log(sum(exp(x − max))) along axis a.
func (nc *nodeCtx) logSoftmax(x niro.Value, a int) niro.Value {
	d := nc.bin(niro.Sub, x, nc.reduce(niro.ReduceMax, x, []int{a}, true))
	s := nc.reduce(niro.ReduceSum, nc.un(niro.Exp, d), []int{a}, true)
	return nc.bin(niro.Sub, d, nc.un(niro.Log, s))
}

// hardmax returns the one-hot of the first maximum along axis a: the
// lowest index whose element equals the maximum.
func (nc *nodeCtx) hardmax(x niro.Value, a int) niro.Value {
	dims, ok := nc.staticDims(x)
	if !ok {
		return x
	}
	eq := nc.cmp(niro.Eq, x, nc.reduce(niro.ReduceMax, x, []int{a}, true))
	idx := nc.iota(niro.I64, dims, a)
	first := nc.reduce(niro.ReduceMin, nc.sel(eq, idx, nc.scalar(niro.I64, float64(dims[a]))), []int{a}, true)
	return nc.cast(nc.cmp(niro.Eq, idx, first), elem(x))
}

// softmaxFamily wraps one of the three along-an-axis functions into a
// converter for both axis semantics.
func softmaxFamily(f func(nc *nodeCtx, x niro.Value, a int) niro.Value) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		x := nc.in(0)
		nc.requireFloat(x)
		r := nc.rank(x)
		if nc.opset >= 13 {
			a := nc.axis(nc.attrInt("axis", -1), r)
			nc.out(0, nc.inF32(x, func(x niro.Value) niro.Value { return f(nc, x, a) }))
			return nil
		}
		a := nc.attrInt("axis", 1)
		if a < 0 {
			a += int64(r)
		}
		if nc.err == nil && (a < 0 || a > int64(r)) {
			return nc.errorf("axis %d is out of range for rank %d", nc.attrInt("axis", 1), r)
		}
		dims, ok := nc.staticDims(x)
		if !ok {
			return nc.err
		}
		nc.out(0, nc.inF32(x, func(x niro.Value) niro.Value {
			flat := nc.reshape(x, []int64{product(dims[:a]), product(dims[a:])})
			return nc.reshape(f(nc, flat, 1), dims)
		}))
		return nil
	}
}

func init() {
	for name, f := range map[string]func(nc *nodeCtx, x niro.Value, a int) niro.Value{
		"Softmax":    (*nodeCtx).softmax,
		"LogSoftmax": (*nodeCtx).logSoftmax,
		"Hardmax":    (*nodeCtx).hardmax,
	} {
		conv := softmaxFamily(f)
		var specs []opSpec
		for _, since := range []int64{1, 11, 13} {
			specs = append(specs, opSpec{Since: since, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: conv})
		}
		register(name, specs...)
	}
}
