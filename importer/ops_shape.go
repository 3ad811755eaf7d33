package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Shape ops whose result shape follows from known values: Shape, Size,
// Reshape, Flatten, Squeeze, Unsqueeze, Expand, ConstantOfShape and
// Dropout (inference). They need static input shapes (Shape and Size fold
// to constants) and known shape operands; otherwise the node is refused
// with a --dim/--shape hint.

// staticDims returns v's static shape, failing the node with a hint when
// it is not static.
func (nc *nodeCtx) staticDims(v niro.Value) ([]int64, bool) {
	t := tensorOf(v)
	if t.Unranked || !t.HasStaticShape() {
		nc.notYet("input %s has type %s, but the op needs a static shape here (bind symbolic dimensions with --dim NAME=VALUE or --shape INPUT=DxD...)", v, v.Type)
		return nil, false
	}
	return t.Dims, true
}

// shapeOperand returns the values of input i (a shape or axes list),
// failing the node when they are not known at import.
func (nc *nodeCtx) shapeOperand(i int) ([]int64, bool) {
	vals, ok := nc.knownInts(i)
	if !ok {
		nc.notYet("input %d (%q) must be known at compile time, but it is computed at run time", i, nc.n.Inputs[i].Name)
		return nil, false
	}
	return vals, true
}

func product(dims []int64) int64 {
	p := int64(1)
	for _, d := range dims {
		p *= d
	}
	return p
}

func shapeConv(nc *nodeCtx) error {
	dims, ok := nc.staticDims(nc.in(0))
	if !ok {
		return nc.err
	}
	r := int64(len(dims))
	clampAxis := func(a int64) int64 {
		if a < 0 {
			a += r
		}
		return max(0, min(a, r))
	}
	start, end := clampAxis(nc.attrInt("start", 0)), clampAxis(nc.attrInt("end", r))
	if end < start {
		end = start
	}
	sub := dims[start:end]
	nc.out(0, nc.constInts(niro.I64, []int64{int64(len(sub))}, sub))
	return nil
}

// reshapeTarget resolves an ONNX Reshape shape (0 copies the input extent
// unless allowzero, -1 is inferred) against the input's static dims.
func (nc *nodeCtx) reshapeTarget(in, shape []int64, allowZero bool) []int64 {
	out := make([]int64, len(shape))
	infer := -1
	known := int64(1)
	for i, s := range shape {
		switch {
		case s == 0 && !allowZero:
			if i >= len(in) {
				nc.fail("shape %v copies extent %d, but the input has rank %d", shape, i, len(in))
				return nil
			}
			out[i] = in[i]
		case s == -1:
			if infer >= 0 {
				nc.fail("shape %v has more than one -1", shape)
				return nil
			}
			infer = i
			continue
		case s < 0:
			nc.fail("shape %v has a negative extent", shape)
			return nil
		default:
			out[i] = s
		}
		known *= out[i]
	}
	total := product(in)
	if infer >= 0 {
		if known == 0 || total%known != 0 {
			nc.fail("cannot infer the -1 extent of shape %v for %d elements", shape, total)
			return nil
		}
		out[infer] = total / known
	} else if known != total {
		nc.fail("shape %v holds %d elements, the input %v holds %d", shape, known, in, total)
		return nil
	}
	return out
}

func reshapeConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	var shape []int64
	if nc.opset < 5 {
		shape, _ = nc.attrInts("shape")
	} else if shape, ok = nc.shapeOperand(1); !ok {
		return nc.err
	}
	target := nc.reshapeTarget(dims, shape, nc.attrInt("allowzero", 0) != 0)
	if target == nil {
		return nc.err
	}
	nc.out(0, nc.reshape(x, target))
	return nil
}

func flattenConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	r := len(dims)
	a := nc.attrInt("axis", 1)
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a > int64(r) {
		return nc.errorf("axis %d is out of range for rank %d", nc.attrInt("axis", 1), r)
	}
	nc.out(0, nc.reshape(x, []int64{product(dims[:a]), product(dims[a:])}))
	return nil
}

// axesList returns the axes of Squeeze/Unsqueeze: the attribute before
// opset 13, input 1 from then on; present reports whether any were given.
func (nc *nodeCtx) axesList() (axes []int64, present bool) {
	if nc.opset < 13 {
		return nc.attrInts("axes")
	}
	if !nc.has(1) {
		return nil, false
	}
	a, ok := nc.shapeOperand(1)
	return a, ok
}

func squeezeConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	axes, given := nc.axesList()
	if nc.err != nil {
		return nc.err
	}
	drop := map[int]bool{}
	for _, a := range axes {
		i := nc.axis(a, len(dims))
		if dims[i] != 1 {
			return nc.errorf("cannot squeeze axis %d of extent %d", a, dims[i])
		}
		drop[i] = true
	}
	var out []int64
	for i, d := range dims {
		if drop[i] || !given && d == 1 {
			continue
		}
		out = append(out, d)
	}
	nc.out(0, nc.reshape(x, append([]int64{}, out...)))
	return nil
}

func unsqueezeConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	axes, _ := nc.axesList()
	if nc.err != nil {
		return nc.err
	}
	r := len(dims) + len(axes)
	ins := map[int]bool{}
	for _, a := range axes {
		i := nc.axis(a, r)
		if ins[i] {
			return nc.errorf("axes %v repeat an axis", axes)
		}
		ins[i] = true
	}
	out := make([]int64, 0, r)
	j := 0
	for i := 0; i < r; i++ {
		if ins[i] {
			out = append(out, 1)
		} else {
			out = append(out, dims[j])
			j++
		}
	}
	nc.out(0, nc.reshape(x, out))
	return nil
}

func expandConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	shape, ok := nc.shapeOperand(1)
	if !ok {
		return nc.err
	}
	out, err := niro.BroadcastShape(dims, shape)
	if err != nil {
		return nc.errorf("input shape %v does not broadcast with %v: %v", dims, shape, err)
	}
	if len(out) == len(dims) && equalDims(out, dims) {
		nc.out(0, x)
		return nil
	}
	nc.out(0, nc.op(&niro.Broadcast{Shape: out, X: x}))
	return nil
}

func equalDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func constantOfShapeConv(nc *nodeCtx) error {
	shape, ok := nc.shapeOperand(0)
	if !ok {
		return nc.err
	}
	for _, d := range shape {
		if d < 0 {
			return nc.errorf("shape %v has a negative extent", shape)
		}
	}
	k := &known{elem: niro.F32, dims: []int64{}, floats: []float64{0}}
	if a := nc.attr("value"); a != nil && a.Tensor != nil {
		t := a.Tensor
		tt, err := t.NiroType()
		if err != nil {
			return nc.errorf("attribute value: %v", err)
		}
		if tt.NumElements() != 1 {
			return nc.errorf("attribute value must hold one element, has %d", tt.NumElements())
		}
		if niro.ClassOf(tt.Elem) == 0 {
			return errFallback
		}
		v := nc.c.fn.NewValue(niro.Tensor(tt.Elem))
		nc.e.add(&niro.Const{Result: v, Lit: niro.BytesLit(t.Bytes())})
		nc.c.recordKnown(v, t.Bytes())
		nc.out(0, nc.op(&niro.Broadcast{Shape: shape, X: v}))
		return nil
	}
	nc.out(0, nc.op(&niro.Broadcast{Shape: shape, X: nc.constKnown(k)}))
	return nil
}

func dropoutConv(nc *nodeCtx) error {
	x := nc.in(0)
	if nc.has(2) {
		t, ok := nc.knownInts(2)
		if !ok {
			nc.notYet("input 2 (%q), training_mode, must be known at compile time, but it is computed at run time", nc.n.Inputs[2].Name)
			return nc.err
		}
		if len(t) == 1 && t[0] != 0 {
			ratio, known := 0.5, true
			if nc.has(1) {
				k, ok := nc.knownOf(nc.in(1))
				known = ok && k.len() == 1 && k.elem.IsFloat()
				if known {
					ratio = k.floats[0]
				}
			}
			if !known || ratio != 0 {
				// A random mask, from niro's generator (ops_random.go).
				return dropoutTraining(nc, x, ratio, known)
			}
		}
	}
	nc.out(0, x)
	if len(nc.n.Outputs) > 1 && nc.n.Outputs[1] != nil {
		dims, ok := nc.staticDims(x)
		if !ok {
			return nc.err
		}
		t := nc.constInts(niro.Bool, []int64{}, []int64{1})
		nc.out(1, nc.op(&niro.Broadcast{Shape: dims, X: t}))
	}
	return nil
}

func init() {
	register("Shape",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: shapeConv},
		opSpec{Since: 15, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"start", "end"}, Convert: shapeConv})
	register("Size", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: func(nc *nodeCtx) error {
		dims, ok := nc.staticDims(nc.in(0))
		if ok {
			nc.out(0, nc.constInts(niro.I64, []int64{}, []int64{product(dims)}))
		}
		return nc.err
	}})
	register("Reshape",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"shape", "consumed_inputs"}, Convert: reshapeConv},
		opSpec{Since: 5, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: reshapeConv},
		opSpec{Since: 14, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"allowzero"}, Convert: reshapeConv})
	register("Flatten", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: flattenConv})
	register("Squeeze",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axes"}, Convert: squeezeConv},
		opSpec{Since: 13, In: [2]int{1, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: squeezeConv})
	register("Unsqueeze",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axes"}, Convert: unsqueezeConv},
		opSpec{Since: 13, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: unsqueezeConv})
	register("Expand", opSpec{Since: 8, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: expandConv})
	register("ConstantOfShape", opSpec{Since: 9, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"value"}, Convert: constantOfShapeConv})
	register("Dropout",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: []string{"is_test", "ratio", "consumed_inputs"}, Convert: dropoutConv},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: []string{"is_test", "ratio"}, Convert: dropoutConv},
		opSpec{Since: 7, In: [2]int{1, 1}, Out: [2]int{1, 2}, Attrs: []string{"ratio"}, Convert: dropoutConv},
		opSpec{Since: 12, In: [2]int{1, 3}, Out: [2]int{1, 2}, Attrs: []string{"seed"}, Convert: dropoutConv})
}
