package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Generators and index-driven ops: Range, Trilu, EyeLike and OneHot are
// built from Iota with Compare, Select, Binary and Cast; CumSum, CumProd and Pad map
// to their Niro ops. Values that fix a shape (Range's bounds, OneHot's
// depth, Pad's pads and axes) must be known at import, or the extent must
// be declared by the output's type; values that do not (Trilu's k,
// OneHot's depth for wrapping, CumSum's axis) may be computed at run time.

// declaredExtent returns the static extent of output 0's declared type at
// axis, if it has one.
func (nc *nodeCtx) declaredExtent(axis, rank int) (int64, bool) {
	d, ok, err := nc.declared(0)
	if err != nil || !ok || d.Unranked || d.Rank() != rank || d.Dims[axis] < 0 {
		return 0, false
	}
	return d.Dims[axis], true
}

// oneElem checks that input i holds one element (a scalar or a
// one-element vector); an unknown shape leaves the node uncompiled.
func (nc *nodeCtx) oneElem(i int) bool {
	t := tensorOf(nc.in(i))
	if t.Unranked || !t.HasStaticShape() {
		nc.notYet("input %d (%q) has type %s, but the op needs a scalar there", i, nc.n.Inputs[i].Name, t)
		return false
	}
	if t.NumElements() != 1 {
		nc.fail("input %d (%q) must hold one element, has type %s", i, nc.n.Inputs[i].Name, t)
		return false
	}
	return true
}

// rank0 returns v, which holds one element, as a rank-0 tensor.
func (nc *nodeCtx) rank0(v niro.Value) niro.Value {
	if tensorOf(v).Rank() == 0 {
		return v
	}
	return nc.reshape(v, []int64{})
}

// rangeCount returns the number of elements of Range(start, limit, delta)
// on known values: max(ceil((limit-start)/delta), 0), in exact integer
// arithmetic for integers and rounded to the element type for floats.
func rangeCount(s, l, d *known) (int64, bool) {
	if s.elem.IsFloat() {
		diff := roundTo(s.elem, l.floats[0]-s.floats[0])
		q := math.Ceil(roundTo(s.elem, diff/d.floats[0]))
		if d.floats[0] == 0 || math.IsNaN(q) || math.IsInf(q, 0) {
			return 0, false
		}
		return max(int64(q), 0), true
	}
	a, b, step := s.ints[0], l.ints[0], d.ints[0]
	switch {
	case step == 0:
		return 0, false
	case step > 0 && b > a:
		return (b - a + step - 1) / step, true
	case step < 0 && b < a:
		return (a - b - step - 1) / -step, true
	}
	return 0, true
}

func rangeConv(nc *nodeCtx) error {
	start, limit, delta := nc.in(0), nc.in(1), nc.in(2)
	nc.sameElem(0, 1)
	nc.sameElem(0, 2)
	e := elem(start)
	if !nc.oneElem(0) || !nc.oneElem(1) || !nc.oneElem(2) || nc.err != nil {
		return nc.err
	}
	var n int64
	s, ok0 := nc.knownOf(start)
	l, ok1 := nc.knownOf(limit)
	d, ok2 := nc.knownOf(delta)
	ok := ok0 && ok1 && ok2
	if ok {
		if n, ok = rangeCount(s, l, d); !ok {
			return nc.errorf("delta must be nonzero and the count finite")
		}
	} else if n, ok = nc.declaredExtent(0, 1); !ok {
		nc.notYet("the number of elements of Range depends on start, limit and delta, which must be known at compile time (or the output's declared type fix it) but are computed at run time")
		return nc.err
	}
	start, delta = nc.rank0(start), nc.rank0(delta)
	i := nc.iota(e, []int64{n}, 0)
	nc.out(0, nc.bin(niro.Add, start, nc.bin(niro.Mul, i, delta)))
	return nil
}

// diagonals returns the i64 tensor col - row of shape [rows, cols].
func (nc *nodeCtx) diagonals(rows, cols int64) niro.Value {
	dims := []int64{rows, cols}
	return nc.bin(niro.Sub, nc.iota(niro.I64, dims, 1), nc.iota(niro.I64, dims, 0))
}

func triluConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	r := len(dims)
	if r < 2 {
		return nc.errorf("input must have rank 2 or more, has rank %d", r)
	}
	k := nc.scalar(niro.I64, 0)
	if nc.has(1) {
		if !nc.oneElem(1) {
			return nc.err
		}
		k = nc.rank0(nc.cast(nc.in(1), niro.I64))
	}
	diag := nc.diagonals(dims[r-2], dims[r-1])
	pred := niro.Le
	if nc.attrInt("upper", 1) != 0 {
		pred = niro.Ge
	}
	nc.out(0, nc.sel(nc.cmp(pred, diag, k), x, nc.like(x, 0)))
	return nil
}

func eyeLikeConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	if len(dims) != 2 {
		return nc.errorf("input must have rank 2, has rank %d", len(dims))
	}
	to := elem(x)
	if a := nc.attr("dtype"); a != nil {
		s, ok := ScalarType(DataType(a.Int))
		if !ok || niro.ClassOf(s) == 0 {
			return errFallback
		}
		to = s
	}
	diag := nc.diagonals(dims[0], dims[1])
	eq := nc.cmp(niro.Eq, diag, nc.scalar(niro.I64, float64(nc.attrInt("k", 0))))
	nc.out(0, nc.cast(eq, to))
	return nil
}

// lowest returns a rank-0 constant of type e below or equal to every
// value: −inf, the type's lowest integer, or false.
func (nc *nodeCtx) lowest(e niro.ScalarType) niro.Value {
	if e.IsFloat() {
		return nc.scalar(e, math.Inf(-1))
	}
	lo := int64(0)
	if e.IsSigned() {
		lo, _ = e.IntRange()
	}
	return nc.constInts(e, []int64{}, []int64{lo})
}

// pick returns element i of the two-element vector v as a rank-0 tensor:
// the maximum of v with the other element replaced by the lowest value.
func (nc *nodeCtx) pick(v niro.Value, i int) niro.Value {
	mask := []int64{0, 0}
	mask[i] = 1
	m := nc.constInts(niro.Bool, []int64{2}, mask)
	return nc.op(&niro.Reduce{Kind: niro.ReduceMax, Axes: []int{0}, X: nc.sel(m, v, nc.lowest(elem(v)))})
}

func oneHotConv(nc *nodeCtx) error {
	indices, depth, values := nc.in(0), nc.in(1), nc.in(2)
	dims, ok := nc.staticDims(indices)
	if !ok {
		return nc.err
	}
	if !nc.oneElem(1) {
		return nc.err
	}
	if t := tensorOf(values); t.Unranked || t.Rank() != 1 || t.Dims[0] == niro.Dynamic {
		nc.notYet("values has type %s, but the op needs shape [2]", t)
		return nc.err
	} else if t.Dims[0] != 2 {
		return nc.errorf("values must have shape [2], has type %s", t)
	}
	r := len(dims)
	axis := nc.attrInt("axis", -1)
	if axis < -int64(r)-1 || axis > int64(r) {
		return nc.errorf("axis %d is out of range for rank %d", axis, r+1)
	}
	if axis < 0 {
		axis += int64(r) + 1
	}
	a := int(axis)
	var n int64
	if k, ok := nc.knownOf(depth); ok {
		n = k.int(0)
		if n < 0 {
			return nc.errorf("depth %d is negative", n)
		}
	} else if n, ok = nc.declaredExtent(a, r+1); !ok {
		nc.notYet("depth is computed at run time and the output's declared type does not fix it")
		return nc.err
	}
	// Negative indices count from the end; indices out of [-depth, depth)
	// match no position and give the off value everywhere.
	idx := nc.cast(indices, niro.I64)
	d := nc.rank0(nc.cast(depth, niro.I64))
	zero := nc.scalar(niro.I64, 0)
	idx = nc.sel(nc.cmp(niro.Lt, idx, zero), nc.bin(niro.Add, idx, d), idx)
	at := append(append(append([]int64{}, dims[:a]...), 1), dims[a:]...)
	idx = nc.reshape(idx, at)
	posDims := make([]int64, r-a+1)
	for i := range posDims {
		posDims[i] = 1
	}
	posDims[0] = n
	hit := nc.cmp(niro.Eq, idx, nc.iota(niro.I64, posDims, 0))
	nc.out(0, nc.sel(hit, nc.pick(values, 1), nc.pick(values, 0)))
	return nil
}

func cumSumConv(nc *nodeCtx) error  { return cumConv(nc, false) }
func cumProdConv(nc *nodeCtx) error { return cumConv(nc, true) }

// cumConv maps CumSum, or CumProd when prod, to a Niro CumSum.
func cumConv(nc *nodeCtx, prod bool) error {
	x := nc.in(0)
	r := nc.rank(x)
	if nc.err != nil {
		return nc.err
	}
	if r == 0 {
		return nc.errorf("input must have rank 1 or more")
	}
	at := nc.in(1)
	if !nc.oneElem(1) {
		return nc.err
	}
	if !elem(at).IsInt() {
		return nc.errorf("axis must be an integer, has type %s", at.Type)
	}
	excl, rev := nc.attrInt("exclusive", 0) != 0, nc.attrInt("reverse", 0) != 0
	along := func(a int) niro.Value {
		return nc.op(&niro.CumSum{Axis: a, Exclusive: excl, Reverse: rev, Prod: prod, X: x})
	}
	if vals, ok := nc.knownInts(1); ok {
		nc.out(0, along(nc.axis(vals[0], r)))
		return nil
	}
	// The axis is computed at run time: scan along every axis and select
	// the one it names (as a or a - rank).
	if r > 4 {
		nc.notYet("axis is computed at run time and the input has rank %d (at most 4 are scanned)", r)
		return nc.err
	}
	ae := elem(at)
	at = nc.rank0(at)
	y := along(r - 1)
	for a := r - 2; a >= 0; a-- {
		is := nc.bin(niro.Or,
			nc.cmp(niro.Eq, at, nc.constInts(ae, []int64{}, []int64{int64(a)})),
			nc.cmp(niro.Eq, at, nc.constInts(ae, []int64{}, []int64{int64(a - r)})))
		y = nc.sel(is, along(a), y)
	}
	nc.out(0, y)
	return nil
}

func padConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	r := len(dims)
	mode := nc.attrString("mode", "constant")
	valid := false
	for _, m := range niro.PadModes {
		valid = valid || m == mode
	}
	if !valid || mode == "wrap" && nc.opset < 19 {
		return nc.errorf("mode %q is not defined at opset %d", mode, nc.opset)
	}
	var pads []int64
	switch {
	case nc.opset < 2:
		pads, _ = nc.attrInts("paddings")
	case nc.opset < 11:
		pads, _ = nc.attrInts("pads")
	default:
		if pads, ok = nc.shapeOperand(1); !ok {
			return nc.err
		}
	}
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if nc.opset >= 18 && nc.has(3) {
		as, ok := nc.shapeOperand(3)
		if !ok {
			return nc.err
		}
		axes = make([]int, len(as))
		seen := map[int]bool{}
		for i, a := range as {
			axes[i] = nc.axis(a, r)
			if seen[axes[i]] {
				return nc.errorf("axes %v repeat an axis", as)
			}
			seen[axes[i]] = true
		}
	}
	if len(pads) != 2*len(axes) {
		return nc.errorf("pads has %d entries, want %d", len(pads), 2*len(axes))
	}
	low, high := make([]int64, r), make([]int64, r)
	zero := true
	for i, a := range axes {
		low[a], high[a] = pads[i], pads[i+len(axes)]
		zero = zero && low[a] == 0 && high[a] == 0
	}
	v := nc.like(x, 0)
	switch {
	case mode != "constant":
	case nc.opset < 11:
		v = nc.like(x, nc.attrFloat("value", 0))
	case nc.has(2):
		nc.sameElem(0, 2)
		if !nc.oneElem(2) {
			return nc.err
		}
		v = nc.rank0(nc.in(2))
	}
	if zero {
		nc.out(0, x)
		return nil
	}
	nc.out(0, nc.op(&niro.Pad{Mode: mode, Low: low, High: high, X: x, Value: v}))
	return nil
}

func init() {
	one := [2]int{1, 1}
	register("Range", opSpec{Since: 11, In: [2]int{3, 3}, Out: one, Attrs: []string{}, Convert: rangeConv})
	register("Trilu", opSpec{Since: 14, In: [2]int{1, 2}, Out: one, Attrs: []string{"upper"}, Convert: triluConv})
	register("EyeLike",
		opSpec{Since: 9, In: one, Out: one, Attrs: []string{"dtype", "k"}, Convert: eyeLikeConv},
		opSpec{Since: 22, In: one, Out: one, Attrs: []string{"dtype", "k"}, Convert: eyeLikeConv})
	register("OneHot",
		opSpec{Since: 9, In: [2]int{3, 3}, Out: one, Attrs: []string{"axis"}, Convert: oneHotConv},
		opSpec{Since: 11, In: [2]int{3, 3}, Out: one, Attrs: []string{"axis"}, Convert: oneHotConv})
	register("CumSum",
		opSpec{Since: 11, In: [2]int{2, 2}, Out: one, Attrs: []string{"exclusive", "reverse"}, Convert: cumSumConv},
		opSpec{Since: 14, In: [2]int{2, 2}, Out: one, Attrs: []string{"exclusive", "reverse"}, Convert: cumSumConv})
	register("CumProd",
		opSpec{Since: 26, In: [2]int{2, 2}, Out: one, Attrs: []string{"exclusive", "reverse"}, Convert: cumProdConv})
	pad := []opSpec{
		{Since: 1, In: one, Out: one, Attrs: []string{"mode", "paddings", "value"}, Convert: padConv},
		{Since: 2, In: one, Out: one, Attrs: []string{"mode", "pads", "value"}, Convert: padConv},
	}
	for _, since := range []int64{11, 13, 18, 19, 21, 23, 24} {
		in := [2]int{2, 3}
		if since >= 18 {
			in = [2]int{2, 4}
		}
		pad = append(pad, opSpec{Since: since, In: in, Out: one, Attrs: []string{"mode"}, Convert: padConv})
	}
	register("Pad", pad...)
}

// windowConv maps HannWindow, HammingWindow and BlackmanWindow (the
// generalized cosine windows a0 − a1·cos(θ) + a2·cos(2θ)) as their ONNX
// function bodies compute them, in f32: N = size (size − 1 unless
// periodic), θ = Range(0, size, 1)·(2π/N), then the cast to
// output_datatype. size fixes the shape, so it must be known at compile
// time.
func windowConv(a0, a1, a2 float64) func(*nodeCtx) error {
	return func(nc *nodeCtx) error {
		if !nc.oneElem(0) {
			return nc.err
		}
		if !elem(nc.in(0)).IsInt() {
			return nc.errorf("size must be an integer, has type %s", nc.in(0).Type)
		}
		sizes, ok := nc.knownInts(0)
		if !ok {
			nc.notYet("input 0 (%q) must be known at compile time, but it is computed at run time", nc.n.Inputs[0].Name)
			return nc.err
		}
		out, err := nc.dtypeAttr("output_datatype", niro.F32)
		if err != nil {
			return err
		}
		n := max(sizes[0], 0)
		period := float32(sizes[0])
		if nc.attrInt("periodic", 1) == 0 {
			period--
		}
		f := niro.F32
		inc := nc.scalar(f, float64(float32(6.2831855)/period))
		theta := nc.bin(niro.Mul, nc.iota(f, []int64{n}, 0), inc)
		c2 := nc.un(niro.Cos, nc.bin(niro.Mul, theta, nc.scalar(f, 2)))
		y := nc.bin(niro.Sub, nc.scalar(f, a0), nc.bin(niro.Mul, nc.scalar(f, a1), nc.un(niro.Cos, theta)))
		y = nc.bin(niro.Add, y, nc.bin(niro.Mul, nc.scalar(f, a2), c2))
		nc.out(0, nc.cast(y, out))
		return nil
	}
}

func init() {
	window := func(a0, a1, a2 float64) opSpec {
		return opSpec{Since: 17, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"output_datatype", "periodic"}, Convert: windowConv(a0, a1, a2)}
	}
	register("HannWindow", window(0.5, 0.5, 0))
	register("HammingWindow", window(25.0/46, 1-25.0/46, 0))
	register("BlackmanWindow", window(0.42, 0.5, 0.08))
}
