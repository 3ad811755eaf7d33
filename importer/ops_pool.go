package importer

import (
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// Pooling: MaxPool, AveragePool and LpPool map to Niro Pool;
// GlobalAveragePool, GlobalMaxPool and GlobalLpPool to Reduce over the
// spatial axes (keeping them) with the pre and post steps of Lp.

func init() {
	base := []string{"auto_pad", "kernel_shape", "pads", "strides"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	pool := func(k niro.PoolKind) func(*nodeCtx) error {
		return func(nc *nodeCtx) error { return nc.pool(k) }
	}
	mp := pool(niro.PoolMax)
	register("MaxPool",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: base, Convert: mp},
		opSpec{Since: 8, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: with("storage_order"), Convert: mp},
		opSpec{Since: 10, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: with("storage_order", "ceil_mode", "dilations"), Convert: mp},
		opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: with("storage_order", "ceil_mode", "dilations"), Convert: mp},
		opSpec{Since: 12, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: with("storage_order", "ceil_mode", "dilations"), Convert: mp},
		opSpec{Since: 22, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: with("storage_order", "ceil_mode", "dilations"), Convert: mp})
	ap := pool(niro.PoolAvg)
	register("AveragePool",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: base, Convert: ap},
		opSpec{Since: 7, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("count_include_pad"), Convert: ap},
		opSpec{Since: 10, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("count_include_pad", "ceil_mode"), Convert: ap},
		opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("count_include_pad", "ceil_mode"), Convert: ap},
		opSpec{Since: 19, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("count_include_pad", "ceil_mode", "dilations"), Convert: ap},
		opSpec{Since: 22, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("count_include_pad", "ceil_mode", "dilations"), Convert: ap})
	lp := pool(niro.PoolLp)
	register("LpPool",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("p"), Convert: lp},
		opSpec{Since: 2, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("p"), Convert: lp},
		opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("p"), Convert: lp},
		opSpec{Since: 18, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("p", "ceil_mode", "dilations"), Convert: lp},
		opSpec{Since: 22, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: with("p", "ceil_mode", "dilations"), Convert: lp})
	global := func(name string, attrs []string, f func(*nodeCtx) error, since ...int64) {
		specs := make([]opSpec, len(since))
		for i, s := range since {
			specs[i] = opSpec{Since: s, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: attrs, Convert: f}
		}
		register(name, specs...)
	}
	global("GlobalAveragePool", []string{}, (*nodeCtx).globalAvgPool, 1, 22)
	global("GlobalMaxPool", []string{}, (*nodeCtx).globalMaxPool, 1, 22)
	global("GlobalLpPool", []string{"p"}, (*nodeCtx).globalLpPool, 1, 2, 22)
}

// lpExponent returns attribute p (a float at opset 1, an integer later;
// default 2), failing for one that is not a positive integer.
func (nc *nodeCtx) lpExponent() int64 {
	a := nc.attr("p")
	if a == nil {
		return 2
	}
	p := a.Int
	if a.Type == onnxpb.AttributeProto_FLOAT {
		p = int64(a.Float)
		if float32(p) != a.Float {
			nc.notYet("LpPool with the non-integer p = %v is not supported yet", a.Float)
		}
	}
	if p < 1 {
		nc.notYet("LpPool with p = %d is not supported", p)
	}
	return p
}

// pool maps MaxPool, AveragePool and LpPool to Niro Pool.
func (nc *nodeCtx) pool(k niro.PoolKind) error {
	x := nc.in(0)
	if k != niro.PoolMax {
		nc.requireFloat(x)
	}
	xd := nc.staticSpatial(x, "input")
	if nc.err != nil {
		return nc.err
	}
	s := len(xd) - 2
	kernel, ok := nc.attrInts("kernel_shape")
	if !ok || len(kernel) != s {
		return nc.errorf("kernel_shape %v needs %d entries", kernel, s)
	}
	strides := nc.listAttr("strides", s, 1)
	dilations := nc.listAttr("dilations", s, 1)
	pads := nc.windowPads(xd[2:], kernel, strides, dilations)
	op := &niro.Pool{Kind: k, Kernel: append([]int64{}, kernel...), Strides: strides, Dilations: dilations, Pads: pads,
		CeilMode: nc.attrInt("ceil_mode", 0) != 0, CountIncludePad: k == niro.PoolAvg && nc.attrInt("count_include_pad", 0) != 0, X: x}
	if k == niro.PoolLp {
		op.P = nc.lpExponent()
	}
	nc.out(0, nc.op(op))
	if len(nc.n.Outputs) > 1 && nc.n.Outputs[1] != nil && nc.n.Outputs[1].Name != "" {
		nc.out(1, nc.op(&niro.MaxPoolIndices{Kernel: op.Kernel, Strides: strides, Dilations: dilations, Pads: pads,
			CeilMode: op.CeilMode, StorageOrder: nc.attrInt("storage_order", 0), X: x}))
	}
	return nc.err
}

// spatialAxes returns the axes 2… of v, failing for rank below 3... or 2.
func (nc *nodeCtx) spatialAxes(v niro.Value) []int {
	r := nc.rank(v)
	if nc.err == nil && r < 2 {
		nc.fail("input %s needs rank 2 or more", v.Type)
	}
	return axesFrom(2, r)
}

// globalAvgPool is the mean over the spatial axes (computed in f32 for
// f16 and bf16, rounded once).
func (nc *nodeCtx) globalAvgPool() error {
	x := nc.in(0)
	nc.requireFloat(x)
	e := elem(x)
	axes := nc.spatialAxes(x)
	nc.out(0, nc.cast(nc.mean(nc.cast(x, computeElem(e)), axes), e))
	return nc.err
}

// globalMaxPool is reduce_max over the spatial axes.
func (nc *nodeCtx) globalMaxPool() error {
	x := nc.in(0)
	nc.out(0, nc.reduce(niro.ReduceMax, x, nc.spatialAxes(x), true))
	return nc.err
}

// globalLpPool is (Σ |x|^p)^(1/p) over the spatial axes: Σ|x| for p = 1,
// sqrt(Σ x·x) for p = 2.
func (nc *nodeCtx) globalLpPool() error {
	x := nc.in(0)
	nc.requireFloat(x)
	e := elem(x)
	p := nc.lpExponent()
	axes := nc.spatialAxes(x)
	xs := nc.cast(x, computeElem(e))
	var t, y niro.Value
	switch p {
	case 1:
		t = nc.un(niro.Abs, xs)
	case 2:
		t = nc.bin(niro.Mul, xs, xs)
	default:
		t = nc.bin(niro.Pow, nc.un(niro.Abs, xs), nc.like(xs, float64(p)))
	}
	sum := nc.reduce(niro.ReduceSum, t, axes, true)
	switch p {
	case 1:
		y = sum
	case 2:
		y = nc.un(niro.Sqrt, sum)
	default:
		y = nc.bin(niro.Pow, sum, nc.like(sum, 1/float64(p)))
	}
	nc.out(0, nc.cast(y, e))
	return nc.err
}
