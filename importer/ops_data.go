package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Data movement: Concat, Split, Slice, Tile, DepthToSpace and
// SpaceToDepth. Concat and Slice map to the Niro ops of the same names;
// Split is one Slice per output; Tile is a reshape, a broadcast and a
// reshape; DepthToSpace and SpaceToDepth are a reshape, a transpose and a
// reshape. Slice bounds, Split sizes and Tile repeats must be known at
// import, and the sliced, split and tiled inputs need static shapes.

// permute adds a Transpose of x by perm.
func (nc *nodeCtx) permute(x niro.Value, perm []int) niro.Value { return nc.transposeOp(x, perm) }

// sliceRange returns the slice of x, static shape dims, that keeps
// sizes[a] elements from starts[a], steps[a] apart, on every axis a; x
// itself when that is all of x.
func (nc *nodeCtx) sliceRange(x niro.Value, dims, starts, steps, sizes []int64) niro.Value {
	whole := true
	for a := range dims {
		whole = whole && starts[a] == 0 && steps[a] == 1 && sizes[a] == dims[a]
	}
	if whole {
		return x
	}
	return nc.op(&niro.Slice{Starts: starts, Steps: steps, Shape: sizes, X: x})
}

func concatConv(nc *nodeCtx) error {
	ins := make([]niro.Value, 0, len(nc.args))
	for i := range nc.args {
		if !nc.has(i) {
			return nc.errorf("input %d is omitted", i)
		}
		ins = append(ins, nc.in(i))
	}
	if nc.opset >= 4 && nc.attr("axis") == nil {
		return nc.errorf("attribute axis is required")
	}
	r := nc.rank(ins[0])
	axis := nc.axis(nc.attrInt("axis", 1), r)
	if nc.err != nil {
		return nc.err
	}
	if len(ins) == 1 {
		nc.out(0, ins[0])
		return nil
	}
	nc.out(0, nc.op(&niro.Concat{Axis: axis, Inputs: ins}))
	return nil
}

// sliceBounds resolves ONNX Slice bounds on an axis of extent d: negative
// indices count from the end, then starts and ends are clamped to the
// axis ([0, d] for positive steps, [-1, d-1] for negative ones). It
// returns the first index read and the number of elements.
func sliceBounds(d, start, end, step int64) (first, n int64) {
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	if step > 0 {
		start, end = max(0, min(start, d)), max(0, min(end, d))
		if end > start {
			n = (end - start + step - 1) / step
		}
	} else {
		start, end = max(0, min(start, d-1)), max(-1, min(end, d-1))
		if start > end {
			n = (start - end + (-step) - 1) / (-step)
		}
	}
	if n == 0 {
		return 0, 0
	}
	return start, n
}

func sliceConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	var starts, ends, axes, steps []int64
	if nc.opset < 10 {
		var ok1, ok2 bool
		starts, ok1 = nc.attrInts("starts")
		ends, ok2 = nc.attrInts("ends")
		if !ok1 || !ok2 {
			return nc.errorf("attributes starts and ends are required")
		}
		axes, _ = nc.attrInts("axes")
	} else {
		_, sk := nc.knownInts(1)
		_, ek := nc.knownInts(2)
		if !sk || !ek {
			return dynSliceConv(nc, x, len(dims))
		}
		if starts, ok = nc.shapeOperand(1); !ok {
			return nc.err
		}
		if ends, ok = nc.shapeOperand(2); !ok {
			return nc.err
		}
		if nc.has(3) {
			if axes, ok = nc.shapeOperand(3); !ok {
				return nc.err
			}
		}
		if nc.has(4) {
			if steps, ok = nc.shapeOperand(4); !ok {
				return nc.err
			}
		}
	}
	if axes == nil {
		for a := range starts {
			axes = append(axes, int64(a))
		}
	}
	if steps == nil {
		for range starts {
			steps = append(steps, 1)
		}
	}
	if len(ends) != len(starts) || len(axes) != len(starts) || len(steps) != len(starts) {
		return nc.errorf("starts %v, ends %v, axes %v and steps %v differ in length", starts, ends, axes, steps)
	}
	r := len(dims)
	first := make([]int64, r)
	stride := make([]int64, r)
	sizes := append([]int64{}, dims...)
	for a := range stride {
		stride[a] = 1
	}
	seen := map[int]bool{}
	for i, a := range axes {
		ax := nc.axis(a, r)
		if nc.err != nil {
			return nc.err
		}
		if seen[ax] {
			return nc.errorf("axes %v repeat an axis", axes)
		}
		seen[ax] = true
		if steps[i] == 0 {
			return nc.errorf("steps %v hold 0", steps)
		}
		first[ax], sizes[ax] = sliceBounds(dims[ax], starts[i], ends[i], steps[i])
		stride[ax] = steps[i]
		if sizes[ax] <= 1 {
			stride[ax] = 1
		}
	}
	nc.out(0, nc.sliceRange(x, dims, first, stride, sizes))
	return nil
}

// dynSliceConv maps a Slice whose starts or ends are computed at run time
// (a loop's iteration number) to dyn_slice. Axes and steps must be known,
// and every step 1.
func dynSliceConv(nc *nodeCtx, x niro.Value, r int) error {
	n := int64(-1)
	for i := 1; i <= 2; i++ {
		t := tensorOf(nc.in(i))
		if t.Unranked || t.Rank() != 1 || t.Dims[0] < 0 || (t.Elem != niro.I64 && t.Elem != niro.I32) {
			nc.notYet("input %d (%q) must be known at compile time, or be a 1-D i32 or i64 tensor of static extent, but has type %s", i, nc.n.Inputs[i].Name, t)
			return nc.err
		}
		if n >= 0 && t.Dims[0] != n {
			return nc.errorf("starts and ends differ in length (%d and %d)", n, t.Dims[0])
		}
		n = t.Dims[0]
	}
	var axes []int
	if nc.has(3) {
		as, ok := nc.shapeOperand(3)
		if !ok {
			return nc.err
		}
		if int64(len(as)) != n {
			return nc.errorf("axes %v do not match %d starts", as, n)
		}
		for _, a := range as {
			axes = append(axes, nc.axis(a, r))
		}
	} else {
		for a := 0; a < int(n); a++ {
			axes = append(axes, a)
		}
	}
	if nc.has(4) {
		steps, ok := nc.shapeOperand(4)
		if !ok {
			return nc.err
		}
		for _, s := range steps {
			if s != 1 {
				nc.notYet("inputs 1 and 2 (%q, %q) must be known at compile time when a step is not 1 (steps %v), but they are computed at run time", nc.n.Inputs[1].Name, nc.n.Inputs[2].Name, steps)
				return nc.err
			}
		}
	}
	if nc.err != nil {
		return nc.err
	}
	nc.out(0, nc.op(&niro.DynSlice{Axes: axes, X: x, Starts: nc.in(1), Ends: nc.in(2)}))
	return nil
}

func splitConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	axis := nc.axis(nc.attrInt("axis", 0), len(dims))
	if nc.err != nil {
		return nc.err
	}
	d := dims[axis]
	k := int64(len(nc.n.Outputs))
	sizes, given := nc.attrInts("split")
	if nc.has(1) {
		if sizes, ok = nc.shapeOperand(1); !ok {
			return nc.err
		}
		given = true
	}
	if !given {
		// Equal parts; from opset 18 num_outputs parts of ceil(d/n), the
		// last one smaller.
		n := k
		if nc.opset >= 18 {
			if nc.attr("num_outputs") == nil {
				return nc.errorf("needs input split or attribute num_outputs")
			}
			n = nc.attrInt("num_outputs", k)
		}
		if n <= 0 || n != k {
			return nc.errorf("num_outputs %d for %d outputs", n, k)
		}
		chunk := (d + n - 1) / n
		sizes = nil
		for left := d; int64(len(sizes)) < n; left -= min(chunk, left) {
			sizes = append(sizes, min(chunk, left))
		}
	}
	if int64(len(sizes)) != k {
		return nc.errorf("split %v has %d parts for %d outputs", sizes, len(sizes), k)
	}
	sum := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nc.errorf("split %v has a negative part", sizes)
		}
		sum += s
	}
	if sum != d {
		return nc.errorf("split %v adds up to %d, axis %d has extent %d", sizes, sum, axis, d)
	}
	off := int64(0)
	for i, s := range sizes {
		starts := make([]int64, len(dims))
		steps := make([]int64, len(dims))
		shape := append([]int64{}, dims...)
		for a := range steps {
			steps[a] = 1
		}
		if s > 0 {
			starts[axis] = off
		}
		shape[axis] = s
		off += s
		nc.out(i, nc.sliceRange(x, dims, starts, steps, shape))
	}
	return nc.err
}

func tileConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	var reps []int64
	if nc.opset < 6 {
		tiles, ok1 := nc.shapeOperand(1)
		ax, ok2 := nc.shapeOperand(2)
		if !ok1 || !ok2 {
			return nc.err
		}
		if len(tiles) != 1 || len(ax) != 1 {
			return nc.errorf("tiles and axis must hold one value each")
		}
		a := nc.axis(ax[0], len(dims))
		reps = make([]int64, len(dims))
		for i := range reps {
			reps[i] = 1
		}
		reps[a] = tiles[0]
	} else if reps, ok = nc.shapeOperand(1); !ok {
		return nc.err
	}
	if nc.err != nil {
		return nc.err
	}
	if len(reps) != len(dims) {
		return nc.errorf("repeats %v need %d entries", reps, len(dims))
	}
	var inter, wide, out []int64
	same := true
	for i, r := range reps {
		if r < 0 {
			return nc.errorf("repeats %v hold a negative count", reps)
		}
		same = same && r == 1
		inter = append(inter, 1, dims[i])
		wide = append(wide, r, dims[i])
		out = append(out, r*dims[i])
	}
	if same {
		nc.out(0, x)
		return nil
	}
	b := nc.op(&niro.Broadcast{Shape: wide, X: nc.reshape(x, inter)})
	nc.out(0, nc.reshape(b, out))
	return nil
}

// blockDims checks that x is a static rank-4 tensor and returns its dims
// and the blocksize attribute.
func (nc *nodeCtx) blockDims(x niro.Value) (dims []int64, b int64, ok bool) {
	dims, ok = nc.staticDims(x)
	if !ok {
		return nil, 0, false
	}
	if len(dims) != 4 {
		nc.fail("needs a rank-4 input, has rank %d", len(dims))
		return nil, 0, false
	}
	b = nc.attrInt("blocksize", 0)
	if b <= 0 {
		nc.fail("blocksize %d must be positive", b)
		return nil, 0, false
	}
	return dims, b, true
}

func depthToSpaceConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, b, ok := nc.blockDims(x)
	if !ok {
		return nc.err
	}
	n, c, h, w := dims[0], dims[1], dims[2], dims[3]
	if c%(b*b) != 0 {
		return nc.errorf("channels %d are not a multiple of blocksize² %d", c, b*b)
	}
	var t niro.Value
	switch mode := nc.attrString("mode", "DCR"); mode {
	case "DCR":
		t = nc.permute(nc.reshape(x, []int64{n, b, b, c / (b * b), h, w}), []int{0, 3, 4, 1, 5, 2})
	case "CRD":
		t = nc.permute(nc.reshape(x, []int64{n, c / (b * b), b, b, h, w}), []int{0, 1, 4, 2, 5, 3})
	default:
		return nc.errorf("mode %q is neither DCR nor CRD", mode)
	}
	nc.out(0, nc.reshape(t, []int64{n, c / (b * b), h * b, w * b}))
	return nil
}

func spaceToDepthConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, b, ok := nc.blockDims(x)
	if !ok {
		return nc.err
	}
	n, c, h, w := dims[0], dims[1], dims[2], dims[3]
	if h%b != 0 || w%b != 0 {
		return nc.errorf("spatial extents %dx%d are not multiples of blocksize %d", h, w, b)
	}
	t := nc.permute(nc.reshape(x, []int64{n, c, h / b, b, w / b, b}), []int{0, 3, 5, 1, 2, 4})
	nc.out(0, nc.reshape(t, []int64{n, c * b * b, h / b, w / b}))
	return nil
}

func init() {
	concat := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{1, -1}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: concatConv}
	}
	register("Concat", concat(1), concat(4), concat(11), concat(13))
	many := [2]int{1, 1 << 20}
	register("Split",
		opSpec{Since: 1, In: [2]int{1, 2}, Out: many, Attrs: []string{"axis", "split"}, Convert: splitConv},
		opSpec{Since: 2, In: [2]int{1, 1}, Out: many, Attrs: []string{"axis", "split"}, Convert: splitConv},
		opSpec{Since: 11, In: [2]int{1, 1}, Out: many, Attrs: []string{"axis", "split"}, Convert: splitConv},
		opSpec{Since: 13, In: [2]int{1, 2}, Out: many, Attrs: []string{"axis"}, Convert: splitConv},
		opSpec{Since: 18, In: [2]int{1, 2}, Out: many, Attrs: []string{"axis", "num_outputs"}, Convert: splitConv})
	slice := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{3, 5}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: sliceConv}
	}
	register("Slice",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"starts", "ends", "axes"}, Convert: sliceConv},
		slice(10), slice(11), slice(13))
	register("Tile",
		opSpec{Since: 1, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: tileConv},
		opSpec{Since: 6, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: tileConv},
		opSpec{Since: 13, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: tileConv})
	register("DepthToSpace",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"blocksize"}, Convert: depthToSpaceConv},
		opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"blocksize", "mode"}, Convert: depthToSpaceConv},
		opSpec{Since: 13, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"blocksize", "mode"}, Convert: depthToSpaceConv})
	register("SpaceToDepth",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"blocksize"}, Convert: spaceToDepthConv},
		opSpec{Since: 13, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"blocksize"}, Convert: spaceToDepthConv})
}
