package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Normalizations: BatchNormalization, InstanceNormalization,
// LayerNormalization, RMSNormalization, GroupNormalization,
// MeanVarianceNormalization and LpNormalization. Each is decomposed into
// reductions and element-wise ops in the order the ONNX reference
// computes it; means divide by the static element count of the reduced
// axes. 16-bit float inputs are widened to f32 once, the whole
// decomposition runs in f32 and each output is rounded back once.

// computeElem returns the element type a decomposition on e runs in: f32
// for the 16-bit floats, e otherwise.
func computeElem(e niro.ScalarType) niro.ScalarType {
	if e == niro.F16 || e == niro.BF16 {
		return niro.F32
	}
	return e
}

// reduce builds a Niro Reduce over axes (sorted, distinct).
func (nc *nodeCtx) reduce(k niro.ReduceKind, x niro.Value, axes []int, keep bool) niro.Value {
	return nc.op(&niro.Reduce{Kind: k, Axes: axes, KeepDims: keep, X: x})
}

// count returns the number of elements of x along axes, failing the node
// when one of those extents is not static.
func (nc *nodeCtx) count(x niro.Value, axes []int) int64 {
	t := tensorOf(x)
	n := int64(1)
	for _, a := range axes {
		if t.Unranked || t.Dims[a] < 0 {
			nc.notYet("input %s has type %s, but %s divides by the static extent of axis %d (bind symbolic dimensions with --dim NAME=VALUE or --shape INPUT=DxD...)", x, x.Type, nc.n.OpType, a)
			return 1
		}
		n *= t.Dims[a]
	}
	return n
}

// mean returns ReduceMean of x over axes, keeping them: the in-order sum
// divided by the element count.
func (nc *nodeCtx) mean(x niro.Value, axes []int) niro.Value {
	n := nc.count(x, axes)
	return nc.bin(niro.Div, nc.reduce(niro.ReduceSum, x, axes, true), nc.like(x, float64(n)))
}

// axesFrom returns [from, r).
func axesFrom(from, r int) []int {
	out := []int{}
	for a := from; a < r; a++ {
		out = append(out, a)
	}
	return out
}

// channelParam reshapes a per-channel parameter of one axis to [C, 1, ...]
// so that it broadcasts against an input of rank r laid out N×C×D1×...;
// other parameters are used as they are.
func (nc *nodeCtx) channelParam(p niro.Value, r int) niro.Value {
	t := tensorOf(p)
	if t.Unranked || t.Rank() != 1 || r <= 2 {
		return p
	}
	dims := []int64{t.Dims[0]}
	for i := 2; i < r; i++ {
		dims = append(dims, 1)
	}
	return nc.reshape(p, dims)
}

// batchNormConv maps BatchNormalization before opset 14: the inference
// form only.
func batchNormConv(nc *nodeCtx) error {
	if len(nc.n.Outputs) > 1 {
		nc.notYet("BatchNormalization in training mode (the saved statistics outputs before opset 14) is not supported yet")
		return nc.err
	}
	return batchNorm(nc, false)
}

// batchNorm14Conv maps BatchNormalization from opset 14: the inference
// form, or with training_mode the batch statistics and the running
// statistics outputs.
func batchNorm14Conv(nc *nodeCtx) error {
	training := nc.attrInt("training_mode", 0) != 0
	if !training && len(nc.n.Outputs) > 1 {
		return nc.errorf("the running statistics outputs need training_mode = 1")
	}
	return batchNorm(nc, training)
}

// batchNorm maps BatchNormalization as the ONNX reference computes it.
// Inference: y = scale·(x − mean) / sqrt(var + ε) + B. Training: the mean
// and the population variance over every axis but the channel axis 1
// (mean = ReduceMean(x), d = x − mean, var = ReduceMean(d·d)) replace the
// given ones in y, and the outputs 1 and 2 are the running statistics
// input_mean·momentum + mean·(1 − momentum), likewise for the variance.
func batchNorm(nc *nodeCtx, training bool) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	e := elem(x)
	ct := computeElem(e)
	var p [5]niro.Value
	for i := 1; i <= 4; i++ {
		nc.requireFloat(nc.in(i))
		p[i] = nc.channelParam(nc.cast(nc.in(i), ct), r)
	}
	xs := nc.cast(x, ct)
	eps := nc.scalar(ct, nc.attrFloat("epsilon", 1e-5))
	mean, variance := p[3], p[4]
	var axes []int
	if training {
		if nc.err == nil && r < 2 {
			return nc.errorf("input must have rank 2 or more in training mode, has rank %d", r)
		}
		axes = append([]int{0}, axesFrom(2, r)...)
		mean = nc.mean(xs, axes)
		d := nc.bin(niro.Sub, xs, mean)
		variance = nc.mean(nc.bin(niro.Mul, d, d), axes)
	}
	y := nc.bin(niro.Mul, p[1], nc.bin(niro.Sub, xs, mean))
	y = nc.bin(niro.Div, y, nc.un(niro.Sqrt, nc.bin(niro.Add, variance, eps)))
	y = nc.bin(niro.Add, y, p[2])
	nc.out(0, nc.cast(y, e))
	if !training || len(nc.n.Outputs) < 2 || nc.err != nil {
		return nc.err
	}
	momentum := nc.attrFloat("momentum", 0.9)
	c := tensorOf(x).Dims[1]
	if c < 0 {
		nc.notYet("input %s has type %s, but the running statistics need the static extent of the channel axis 1", x, x.Type)
		return nc.err
	}
	for i, stat := range []niro.Value{mean, variance} {
		in := nc.cast(nc.in(3+i), ct)
		saved := nc.reshape(stat, []int64{c})
		run := nc.bin(niro.Add, nc.bin(niro.Mul, in, nc.scalar(ct, momentum)), nc.bin(niro.Mul, saved, nc.scalar(ct, 1-momentum)))
		nc.out(1+i, nc.cast(run, elem(nc.in(3+i))))
	}
	return nc.err
}

// instanceNormConv maps InstanceNormalization: the mean and variance over
// the spatial axes, then scale·(x − mean) / sqrt(var + ε) + B.
func instanceNormConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	if nc.err == nil && r < 3 {
		return nc.errorf("input must have rank 3 or more, has rank %d", r)
	}
	e := elem(x)
	ct := computeElem(e)
	xs := nc.cast(x, ct)
	s := nc.channelParam(nc.cast(nc.in(1), ct), r)
	b := nc.channelParam(nc.cast(nc.in(2), ct), r)
	axes := axesFrom(2, r)
	m := nc.mean(xs, axes)
	d := nc.bin(niro.Sub, xs, m)
	v := nc.mean(nc.bin(niro.Mul, d, d), axes)
	eps := nc.scalar(ct, nc.attrFloat("epsilon", 1e-5))
	y := nc.bin(niro.Div, nc.bin(niro.Mul, s, d), nc.un(niro.Sqrt, nc.bin(niro.Add, v, eps)))
	nc.out(0, nc.cast(nc.bin(niro.Add, y, b), e))
	return nil
}

// layerNormConv maps LayerNormalization as the reference computes it:
// mean = ReduceMean(x), d = x − mean, var = ReduceMean(d·d),
// inv = 1 / sqrt(var + ε), y = (d·inv)·scale + B; Mean and InvStdDev are
// the optional outputs, in the stash type.
func layerNormConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	a := nc.axis(nc.attrInt("axis", -1), r)
	stash, err := nc.dtypeAttr("stash_type", niro.F32)
	if err != nil {
		return err
	}
	e := elem(x)
	ct := computeElem(e)
	xs := nc.cast(x, ct)
	axes := axesFrom(a, r)
	m := nc.mean(xs, axes)
	d := nc.bin(niro.Sub, xs, m)
	v := nc.mean(nc.bin(niro.Mul, d, d), axes)
	eps := nc.scalar(ct, nc.attrFloat("epsilon", 1e-5))
	std := nc.un(niro.Sqrt, nc.bin(niro.Add, v, eps))
	inv := nc.bin(niro.Div, nc.scalar(ct, 1), std)
	y := nc.bin(niro.Mul, nc.bin(niro.Mul, d, inv), nc.cast(nc.in(1), ct))
	if nc.has(2) {
		y = nc.bin(niro.Add, y, nc.cast(nc.in(2), ct))
	}
	nc.out(0, nc.cast(y, e))
	nc.out(1, nc.cast(m, stash))
	nc.out(2, nc.cast(inv, stash))
	return nil
}

// rmsNormConv maps RMSNormalization: y = x / sqrt(ReduceMean(x²) + ε) ·
// scale.
func rmsNormConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	a := nc.axis(nc.attrInt("axis", -1), r)
	e := elem(x)
	ct := computeElem(e)
	xs := nc.cast(x, ct)
	ms := nc.mean(nc.bin(niro.Mul, xs, xs), axesFrom(a, r))
	rms := nc.un(niro.Sqrt, nc.bin(niro.Add, ms, nc.scalar(ct, nc.attrFloat("epsilon", 1e-5))))
	y := nc.bin(niro.Mul, nc.bin(niro.Div, xs, rms), nc.cast(nc.in(1), ct))
	nc.out(0, nc.cast(y, e))
	return nil
}

// groupNormConv maps GroupNormalization: x viewed as N×G×(C/G·D1·...),
// mean and variance over the last axis, (x − mean) / sqrt(var + ε), then
// the scale and bias: one per group at opset 18, one per channel from 21.
func groupNormConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	if len(dims) < 2 {
		return nc.errorf("input must have rank 2 or more, has rank %d", len(dims))
	}
	g := nc.attrInt("num_groups", 0)
	if g <= 0 || dims[1]%g != 0 {
		return nc.errorf("num_groups %d must be positive and divide the %d channels", g, dims[1])
	}
	e := elem(x)
	ct := computeElem(e)
	xs := nc.reshape(nc.cast(x, ct), []int64{dims[0], g, product(dims[1:]) / g})
	m := nc.mean(xs, []int{2})
	d := nc.bin(niro.Sub, xs, m)
	v := nc.mean(nc.bin(niro.Mul, d, d), []int{2})
	eps := nc.scalar(ct, nc.attrFloat("epsilon", 1e-5))
	norm := nc.bin(niro.Div, d, nc.un(niro.Sqrt, nc.bin(niro.Add, v, eps)))
	s, b := nc.cast(nc.in(1), ct), nc.cast(nc.in(2), ct)
	var y niro.Value
	if nc.opset < 21 {
		s, b = nc.reshape(s, []int64{g, 1}), nc.reshape(b, []int64{g, 1})
		y = nc.reshape(nc.bin(niro.Add, nc.bin(niro.Mul, s, norm), b), dims)
	} else {
		norm = nc.reshape(norm, dims)
		s, b = nc.channelParam(s, len(dims)), nc.channelParam(b, len(dims))
		y = nc.bin(niro.Add, nc.bin(niro.Mul, s, norm), b)
	}
	nc.out(0, nc.cast(y, e))
	return nil
}

// mvnConv maps MeanVarianceNormalization as its function body computes
// it: (x − E[x]) / (sqrt(E[x²] − E[x]²) + 1e-9).
func mvnConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	list, given := nc.attrInts("axes")
	if !given {
		list = []int64{0, 2, 3}
	}
	axes := nc.sortedAxes(list, r)
	e := elem(x)
	ct := computeElem(e)
	xs := nc.cast(x, ct)
	m := nc.mean(xs, axes)
	ex2 := nc.mean(nc.bin(niro.Mul, xs, xs), axes)
	std := nc.un(niro.Sqrt, nc.bin(niro.Sub, ex2, nc.bin(niro.Mul, m, m)))
	y := nc.bin(niro.Div, nc.bin(niro.Sub, xs, m), nc.bin(niro.Add, std, nc.scalar(ct, 1e-9)))
	nc.out(0, nc.cast(y, e))
	return nil
}

// sortedAxes normalizes ONNX axes against rank r into a sorted, distinct
// list.
func (nc *nodeCtx) sortedAxes(list []int64, r int) []int {
	seen := make([]bool, r)
	for _, a := range list {
		seen[nc.axis(a, r)] = true
	}
	out := []int{}
	for a, ok := range seen {
		if ok {
			out = append(out, a)
		}
	}
	return out
}

// lpNormConv maps LpNormalization: x / sum(|x|) for p = 1 and
// x / sqrt(sum(x²)) for p = 2 along one axis, and 0 where the norm is 0
// (as the reference gives, instead of 0/0).
func lpNormConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	a := nc.axis(nc.attrInt("axis", -1), r)
	p := nc.attrInt("p", 2)
	if p != 1 && p != 2 {
		return nc.errorf("p must be 1 or 2, is %d", p)
	}
	nc.out(0, nc.inF32(x, func(x niro.Value) niro.Value {
		var norm niro.Value
		if p == 1 {
			norm = nc.reduce(niro.ReduceSum, nc.un(niro.Abs, x), []int{a}, true)
		} else {
			norm = nc.un(niro.Sqrt, nc.reduce(niro.ReduceSum, nc.bin(niro.Mul, x, x), []int{a}, true))
		}
		zero := nc.like(x, 0)
		return nc.sel(nc.cmp(niro.Eq, norm, zero), zero, nc.bin(niro.Div, x, norm))
	}))
	return nil
}

func init() {
	one := [2]int{1, 1}
	register("BatchNormalization",
		opSpec{Since: 1, In: [2]int{5, 5}, Out: [2]int{1, 5}, Attrs: []string{"consumed_inputs", "epsilon", "is_test", "momentum", "spatial"}, Convert: batchNormConv},
		opSpec{Since: 6, In: [2]int{5, 5}, Out: [2]int{1, 5}, Attrs: []string{"epsilon", "is_test", "momentum", "spatial"}, Convert: batchNormConv},
		opSpec{Since: 7, In: [2]int{5, 5}, Out: [2]int{1, 5}, Attrs: []string{"epsilon", "momentum", "spatial"}, Convert: batchNormConv},
		opSpec{Since: 9, In: [2]int{5, 5}, Out: [2]int{1, 5}, Attrs: []string{"epsilon", "momentum"}, Convert: batchNormConv},
		opSpec{Since: 14, In: [2]int{5, 5}, Out: [2]int{1, 3}, Attrs: []string{"epsilon", "momentum", "training_mode"}, Convert: batchNorm14Conv},
		opSpec{Since: 15, In: [2]int{5, 5}, Out: [2]int{1, 3}, Attrs: []string{"epsilon", "momentum", "training_mode"}, Convert: batchNorm14Conv})
	register("InstanceNormalization",
		opSpec{Since: 1, In: [2]int{3, 3}, Out: one, Attrs: []string{"consumed_inputs", "epsilon"}, Convert: instanceNormConv},
		opSpec{Since: 6, In: [2]int{3, 3}, Out: one, Attrs: []string{"epsilon"}, Convert: instanceNormConv},
		opSpec{Since: 22, In: [2]int{3, 3}, Out: one, Attrs: []string{"epsilon"}, Convert: instanceNormConv})
	register("LayerNormalization",
		opSpec{Since: 17, In: [2]int{2, 3}, Out: [2]int{1, 3}, Attrs: []string{"axis", "epsilon", "stash_type"}, Convert: layerNormConv})
	register("RMSNormalization",
		opSpec{Since: 23, In: [2]int{2, 2}, Out: one, Attrs: []string{"axis", "epsilon", "stash_type"}, Convert: rmsNormConv})
	register("GroupNormalization",
		opSpec{Since: 18, In: [2]int{3, 3}, Out: one, Attrs: []string{"epsilon", "num_groups"}, Convert: groupNormConv},
		opSpec{Since: 21, In: [2]int{3, 3}, Out: one, Attrs: []string{"epsilon", "num_groups", "stash_type"}, Convert: groupNormConv})
	register("MeanVarianceNormalization",
		opSpec{Since: 9, In: one, Out: one, Attrs: []string{"axes"}, Convert: mvnConv},
		opSpec{Since: 13, In: one, Out: one, Attrs: []string{"axes"}, Convert: mvnConv})
	register("LpNormalization",
		opSpec{Since: 1, In: one, Out: one, Attrs: []string{"axis", "p"}, Convert: lpNormConv},
		opSpec{Since: 22, In: one, Out: one, Attrs: []string{"axis", "p"}, Convert: lpNormConv})
}
