package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Vision ops that decompose into the existing families: LRN,
// CenterCropPad, MaxUnpool, Col2Im, AffineGrid. Each follows the ONNX
// reference's order of operations.

// lrnConv maps LRN: square_sum[c] = Σ x[j]² over the channels j in
// [c − ⌊(size−1)/2⌋, c + ⌈(size−1)/2⌉] ∩ [0, C), summed from the lowest
// channel (the channel axis zero-padded, then size shifted slices added in
// order: the zeros add exactly), then y = x / (bias + (alpha/size)·ss)^beta.
func lrnConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(dims) < 2 {
		return nc.errorf("input must have rank 2 or more, has %s", x.Type)
	}
	size := nc.attrInt("size", 0)
	if size < 1 {
		return nc.errorf("attribute size must be positive")
	}
	alpha := nc.attrFloat("alpha", 0.0001)
	beta := nc.attrFloat("beta", 0.75)
	bias := nc.attrFloat("bias", 1)
	c1 := (size - 1) / 2
	c2 := (size-1+1)/2 + 1 // ⌈(size−1)/2⌉ + 1
	r := len(dims)
	nc.out(0, nc.inF32(x, func(x niro.Value) niro.Value {
		sq := nc.bin(niro.Mul, x, x)
		low, high := make([]int64, r), make([]int64, r)
		low[1], high[1] = c1, c2-1
		p := nc.op(&niro.Pad{Mode: "constant", Low: low, High: high, X: sq, Value: nc.like(x, 0)})
		var ss niro.Value
		starts, steps := make([]int64, r), make([]int64, r)
		for i := range steps {
			steps[i] = 1
		}
		for k := int64(0); k < size; k++ {
			starts[1] = k
			t := nc.op(&niro.Slice{Starts: append([]int64{}, starts...), Steps: steps, Shape: dims, X: p})
			if k == 0 {
				ss = t
			} else {
				ss = nc.bin(niro.Add, ss, t)
			}
		}
		d := nc.bin(niro.Add, nc.like(x, bias), nc.bin(niro.Mul, nc.like(x, alpha/float64(size)), ss))
		return nc.bin(niro.Div, x, nc.bin(niro.Pow, d, nc.like(x, beta)))
	}))
	return nc.err
}

// centerCropPadConv maps CenterCropPad: per axis, a crop of (in − out)/2
// elements before (rounded down) or a zero pad of (out − in)/2 before,
// the rest after: one Pad with negative counts for the crops.
func centerCropPadConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	shape, ok := nc.knownInts(1)
	if !ok {
		nc.needKnown(1, "shape")
		return nc.err
	}
	r := len(dims)
	list := make([]int, r)
	for i := range list {
		list[i] = i
	}
	if ax, ok := nc.attrInts("axes"); ok {
		list = list[:0]
		for _, a := range ax {
			list = append(list, nc.axis(a, r))
		}
	}
	if len(shape) != len(list) {
		return nc.errorf("shape has %d elements, want %d", len(shape), len(list))
	}
	low, high := make([]int64, r), make([]int64, r)
	for i, a := range list {
		in, out := dims[a], shape[i]
		if out < 0 {
			return nc.errorf("shape %v is negative", shape)
		}
		if out <= in {
			b := (in - out) / 2
			low[a], high[a] = -b, -(in - out - b)
		} else {
			b := (out - in) / 2
			low[a], high[a] = b, out-in-b
		}
	}
	if nc.err != nil {
		return nc.err
	}
	nc.out(0, nc.op(&niro.Pad{Mode: "constant", Low: low, High: high, X: x, Value: nc.like(x, 0)}))
	return nc.err
}

// poolAttrs reads kernel_shape, strides (default 1), pads (default 0) and
// dilations (default 1) for n spatial axes.
func (nc *nodeCtx) poolAttrs(name string, n int) (kernel, strides, pads, dil []int64) {
	fill := func(attr string, v int64, k int) []int64 {
		if a, ok := nc.attrInts(attr); ok {
			if len(a) != k {
				nc.fail("attribute %s has %d elements, want %d", attr, len(a), k)
				return make([]int64, k)
			}
			return a
		}
		out := make([]int64, k)
		for i := range out {
			out[i] = v
		}
		return out
	}
	if name != "" {
		kernel, _ = nc.attrInts(name)
		if len(kernel) != n {
			nc.fail("attribute %s has %d elements, want %d", name, len(kernel), n)
			kernel = make([]int64, n)
		}
	}
	return kernel, fill("strides", 1, n), fill("pads", 0, 2*n), fill("dilations", 1, n)
}

// maxUnpoolConv maps MaxUnpool: a zero tensor of the inferred shape
// ((in − 1)·stride − pads + kernel per spatial axis), flattened, with X
// written at the flat positions of I in order (scatter_elements: the later
// of two writes to one position wins, as in the reference's loop), then
// zero-padded at the end of each axis to output_shape when given.
func maxUnpoolConv(nc *nodeCtx) error {
	x, ind := nc.in(0), nc.indexInput(1)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(dims) < 3 {
		return nc.errorf("input must have rank 3 or more, has %s", x.Type)
	}
	n := len(dims) - 2
	kernel, strides, pads, _ := nc.poolAttrs("kernel_shape", n)
	if nc.err != nil {
		return nc.err
	}
	inferred := append([]int64{}, dims[:2]...)
	for i := 0; i < n; i++ {
		inferred = append(inferred, (dims[i+2]-1)*strides[i]-(pads[i]+pads[n+i])+kernel[i])
	}
	shape := inferred
	if nc.has(2) {
		s, ok := nc.knownInts(2)
		if !ok {
			nc.needKnown(2, "output_shape")
			return nc.err
		}
		if len(s) != len(dims) {
			return nc.errorf("output_shape has %d elements, want %d", len(s), len(dims))
		}
		shape = s
	}
	m, total := product(dims), product(inferred)
	if total <= 0 || m <= 0 {
		nc.notYet("MaxUnpool of an empty tensor is not compiled yet")
		return nc.err
	}
	if it := tensorOf(ind); it.Unranked || !it.HasStaticShape() || it.NumElements() != m {
		return nc.errorf("indices %s must have as many elements as X %s", ind.Type, x.Type)
	}
	zero := nc.op(&niro.Broadcast{Shape: []int64{1, total}, X: nc.like(x, 0)})
	ii := nc.reshape(nc.cast(ind, niro.I64), []int64{1, m})
	y := nc.op(&niro.Scatter{Kind: niro.ScatterElements, Axis: 1, X: zero, Indices: ii, Updates: nc.reshape(x, []int64{1, m})})
	y = nc.reshape(y, inferred)
	low, high := make([]int64, len(dims)), make([]int64, len(dims))
	pad := false
	for i := range shape {
		high[i] = shape[i] - inferred[i]
		pad = pad || high[i] != 0
		if high[i] < 0 {
			return nc.errorf("output_shape %v is smaller than the inferred shape %v", shape, inferred)
		}
	}
	if pad {
		y = nc.op(&niro.Pad{Mode: "constant", Low: low, High: high, X: y, Value: nc.like(x, 0)})
	}
	nc.out(0, y)
	return nc.err
}

// col2imConv maps Col2Im: input [N, C·∏block, L] viewed as [N·C, ∏block·L];
// every element is added (scatter_elements with add, in row-major order,
// so each image position sums its blocks in ascending kernel offset from
// 0, as the reference does) at its image position, or at one extra
// trailing position (dropped afterwards) where it falls into the padding.
func col2imConv(nc *nodeCtx) error {
	x := nc.in(0)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	img, ok1 := nc.knownInts(1)
	block, ok2 := nc.knownInts(2)
	if !ok1 || !ok2 {
		nc.needKnown(1, "image_shape")
		nc.needKnown(2, "block_shape")
		return nc.err
	}
	n := len(img)
	if len(block) != n || len(dims) != 3 {
		return nc.errorf("image_shape %v, block_shape %v and input %s do not agree", img, block, x.Type)
	}
	_, strides, pads, dil := nc.poolAttrs("", n)
	if nc.err != nil {
		return nc.err
	}
	bl := product(block)
	if bl <= 0 || dims[1]%bl != 0 {
		return nc.errorf("input %s: axis 1 is not a multiple of the block size %d", x.Type, bl)
	}
	cols := make([]int64, n)
	for i := range cols {
		cols[i] = (img[i]+pads[i]+pads[n+i]-(dil[i]*(block[i]-1)+1))/strides[i] + 1
		if cols[i] < 1 {
			return nc.errorf("no sliding blocks fit axis %d", i)
		}
	}
	L := product(cols)
	if L != dims[2] {
		return nc.errorf("input %s: axis 2 must be the block count %d", x.Type, L)
	}
	P := product(img)
	idx := make([]int64, 0, bl*L)
	off := make([]int64, n)
	pos := make([]int64, n)
	for c := int64(0); c < bl; c++ {
		rest := c
		for i := n - 1; i >= 0; i-- {
			off[i] = rest % block[i]
			rest /= block[i]
		}
		for l := int64(0); l < L; l++ {
			rest := l
			for i := n - 1; i >= 0; i-- {
				pos[i] = rest % cols[i]
				rest /= cols[i]
			}
			flat, out := int64(0), false
			for i := 0; i < n; i++ {
				v := pos[i]*strides[i] - pads[i] + off[i]*dil[i]
				if v < 0 || v >= img[i] {
					out = true
				}
				flat = flat*img[i] + v
			}
			if out {
				flat = P
			}
			idx = append(idx, flat)
		}
	}
	N, C := dims[0], dims[1]/bl
	rows := N * C
	ik := &known{elem: niro.I64, dims: []int64{1, bl * L}, ints: idx}
	ii := nc.op(&niro.Broadcast{Shape: []int64{rows, bl * L}, X: nc.constKnown(ik)})
	zero := nc.op(&niro.Broadcast{Shape: []int64{rows, P + 1}, X: nc.like(x, 0)})
	y := nc.op(&niro.Scatter{Kind: niro.ScatterElements, Axis: 1, Reduction: niro.ScatterAdd, X: zero, Indices: ii,
		Updates: nc.reshape(x, []int64{rows, bl * L})})
	y = nc.op(&niro.Slice{Starts: []int64{0, 0}, Steps: []int64{1, 1}, Shape: []int64{rows, P}, X: y})
	nc.out(0, nc.reshape(y, append([]int64{N, C}, img...)))
	return nc.err
}

// affineGridConv maps AffineGrid: the base grid of normalized coordinates
// (linspace(−1, 1) per axis, or ((2i + 1)/n − 1) without align_corners,
// computed in float64 as the reference's numpy code does), with a column
// of ones, times theta transposed, in float64, rounded once:
// [N, ∏spatial, r+1] × [N, r+1, r] by a MatMul.
func affineGridConv(nc *nodeCtx) error {
	theta := nc.in(0)
	nc.requireFloat(theta)
	size, ok := nc.knownInts(1)
	if !ok {
		nc.needKnown(1, "size")
		return nc.err
	}
	if nc.err != nil {
		return nc.err
	}
	align := nc.attrInt("align_corners", 0) != 0
	r := len(size) - 2
	if r != 2 && r != 3 {
		return nc.errorf("size %v must have 4 or 5 elements", size)
	}
	N, sp := size[0], size[2:]
	e := elem(theta)
	lin := func(n int64) []float64 {
		// numpy's arange(start, stop, step): start + i·step, in float64.
		out := make([]float64, n)
		for i := range out {
			switch {
			case align && n == 1:
				out[i] = -1
			case align:
				out[i] = -1 + float64(i)*(2.0/float64(n-1))
			default:
				step := 2.0 / float64(n)
				out[i] = (-1 + step/2) + float64(i)*step
			}
		}
		return out
	}
	// Spatial order is D, H, W (or H, W); the grid's last axis is x, y(, z)
	// = W, H(, D).
	cnt := product(sp)
	g := make([]float64, 0, cnt*int64(r+1))
	coords := make([][]float64, r)
	for i := range coords {
		coords[i] = lin(sp[i])
	}
	pos := make([]int64, r)
	for p := int64(0); p < cnt; p++ {
		rest := p
		for i := r - 1; i >= 0; i-- {
			pos[i] = rest % sp[i]
			rest /= sp[i]
		}
		for i := r - 1; i >= 0; i-- {
			g = append(g, coords[i][pos[i]])
		}
		g = append(g, 1)
	}
	ce := niro.F64
	base := nc.constKnown(&known{elem: ce, dims: []int64{1, cnt, int64(r + 1)}, floats: g})
	base = nc.op(&niro.Broadcast{Shape: []int64{N, cnt, int64(r + 1)}, X: base})
	th := nc.cast(theta, ce)
	tt := nc.transposeOp(th, []int{0, 2, 1})
	y := nc.matmulOp(base, tt)
	y = nc.reshape(y, append(append([]int64{N}, sp...), int64(r)))
	nc.out(0, nc.cast(y, e))
	return nc.err
}

func init() {
	register("LRN",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "beta", "bias", "size"}, Convert: lrnConv},
		opSpec{Since: 13, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "beta", "bias", "size"}, Convert: lrnConv})
	register("CenterCropPad",
		opSpec{Since: 18, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"axes"}, Convert: centerCropPadConv})
	register("MaxUnpool",
		opSpec{Since: 9, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: []string{"kernel_shape", "pads", "strides"}, Convert: maxUnpoolConv},
		opSpec{Since: 11, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: []string{"kernel_shape", "pads", "strides"}, Convert: maxUnpoolConv},
		opSpec{Since: 22, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: []string{"kernel_shape", "pads", "strides"}, Convert: maxUnpoolConv})
	register("Col2Im",
		opSpec{Since: 18, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{"dilations", "pads", "strides"}, Convert: col2imConv})
	register("AffineGrid",
		opSpec{Since: 20, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"align_corners"}, Convert: affineGridConv})
}

// GridSample maps to per-axis coordinate arithmetic on the grid (f32, as
// the reference computes x), one GatherND per corner of the interpolation
// footprint on X transposed to [N, spatial..., C] (batch_dims 1), and the
// weighted sums nested as the reference's recursion: the last spatial
// axis first. Zeros padding selects 0 for a tap outside the input; border
// clamps it; reflection reflects it at the borders (in f64, as the
// reference's Python floats).

// gsAxis is one spatial axis of a GridSample: its taps' indices
// (clamped), validity (zeros padding) and weights.
type gsAxis struct {
	idx   []niro.Value // [N, O..., 1] i64
	valid []niro.Value // [N, O..., 1] bool, or nil
	w     []niro.Value // [N, O..., 1] compute type, or nil (nearest)
}

// gsReflect reflects v (f32 values, computed in f64) into [lo, hi] as the
// reference's _gs_reflect does; it returns f64 values.
func (nc *nodeCtx) gsReflect(v niro.Value, lo, hi float64) niro.Value {
	f := nc.cast(v, niro.F64)
	c := func(x float64) niro.Value { return nc.scalar(niro.F64, x) }
	rng := hi - lo
	below := nc.cmp(niro.Lt, f, c(lo))
	above := nc.cmp(niro.Gt, f, c(hi))
	dx := nc.sel(below, nc.bin(niro.Sub, c(lo), f), nc.bin(niro.Sub, f, c(hi)))
	n := nc.un(niro.Floor, nc.bin(niro.Div, dx, c(rng)))
	r := nc.bin(niro.Sub, dx, nc.bin(niro.Mul, n, c(rng)))
	half := nc.un(niro.Floor, nc.bin(niro.Div, n, c(2)))
	even := nc.cmp(niro.Eq, nc.bin(niro.Sub, n, nc.bin(niro.Mul, half, c(2))), c(0))
	loR, hiR := nc.bin(niro.Add, c(lo), r), nc.bin(niro.Sub, c(hi), r)
	low := nc.sel(even, loR, hiR)
	high := nc.sel(even, hiR, loR)
	return nc.sel(below, low, nc.sel(above, high, f))
}

// gsFetch maps integer tap indices i (i64) of an axis of extent d under the
// padding mode: the clamped index and, for zeros padding, its validity.
func (nc *nodeCtx) gsFetch(i niro.Value, d int64, pad string, lo, hi float64) (niro.Value, niro.Value) {
	ci := func(x int64) niro.Value { return nc.scalar(niro.I64, float64(x)) }
	clamp := func(v niro.Value) niro.Value {
		return nc.bin(niro.Min, nc.bin(niro.Max, v, ci(0)), ci(d-1))
	}
	switch pad {
	case "zeros":
		valid := nc.bin(niro.And, nc.cmp(niro.Ge, i, ci(0)), nc.cmp(niro.Lt, i, ci(d)))
		return clamp(i), valid
	case "reflection":
		if hi > lo {
			i = nc.cast(nc.gsReflect(nc.cast(i, niro.F32), lo, hi), niro.I64)
		}
	}
	return clamp(i), niro.Value{}
}

func gridSampleConv(nc *nodeCtx) error {
	x, grid := nc.in(0), nc.in(1)
	nc.requireFloat(x)
	nc.requireFloat(grid)
	xd, ok1 := nc.staticDims(x)
	gd, ok2 := nc.staticDims(grid)
	if !ok1 || !ok2 || nc.err != nil {
		return nc.err
	}
	k := len(xd) - 2
	if k < 1 || len(gd) != k+2 || gd[0] != xd[0] || gd[k+1] != int64(k) {
		return nc.errorf("X %s and grid %s do not agree", x.Type, grid.Type)
	}
	mode := nc.attrString("mode", "linear")
	switch mode {
	case "bilinear":
		mode = "linear"
	case "bicubic":
		mode = "cubic"
	}
	if mode != "linear" && mode != "cubic" && mode != "nearest" {
		return nc.errorf("mode %q is not one of linear, cubic, nearest", mode)
	}
	pad := nc.attrString("padding_mode", "zeros")
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return nc.errorf("padding_mode %q is not one of zeros, border, reflection", pad)
	}
	align := nc.attrInt("align_corners", 0) != 0
	N := xd[0]
	odims := gd[1 : k+1]
	cdims := append(append([]int64{N}, odims...), 1) // [N, O..., 1]
	ce := computeElem(elem(x))
	g := nc.cast(grid, niro.F32)
	f := func(v float64) niro.Value { return nc.scalar(niro.F32, v) }
	axes := make([]gsAxis, k)
	for a := 0; a < k; a++ {
		d := xd[2+a]
		starts := make([]int64, k+2)
		steps := make([]int64, k+2)
		for i := range steps {
			steps[i] = 1
		}
		starts[k+1] = int64(k - 1 - a)
		n := nc.op(&niro.Slice{Starts: starts, Steps: steps, Shape: cdims, X: g})
		var v niro.Value
		if align {
			v = nc.bin(niro.Mul, nc.bin(niro.Div, nc.bin(niro.Add, n, f(1)), f(2)), f(float64(d-1)))
		} else {
			v = nc.bin(niro.Div, nc.bin(niro.Sub, nc.bin(niro.Mul, nc.bin(niro.Add, n, f(1)), f(float64(d))), f(1)), f(2))
		}
		lo, hi := -0.5, float64(d)-0.5
		if align {
			lo, hi = 0, float64(d-1)
		}
		if mode == "nearest" {
			// Half to even (np.rint), on every rank: the ONNX test data
			// for 3-D grids has it too (the reference's std::round for 3-D
			// disagrees with them).
			v = nc.un(niro.Round, v)
		}
		outside := nc.bin(niro.Or, nc.cmp(niro.Lt, v, f(lo)), nc.cmp(niro.Gt, v, f(hi)))
		switch pad {
		case "border":
			v = nc.sel(outside, nc.bin(niro.Min, nc.bin(niro.Max, v, f(0)), f(float64(d-1))), v)
		case "reflection":
			if hi > lo {
				v = nc.cast(nc.gsReflect(v, lo, hi), niro.F32)
			}
		}
		ax := &axes[a]
		if mode == "nearest" {
			i, ok := nc.gsFetch(nc.cast(v, niro.I64), d, pad, lo, hi)
			ax.idx, ax.valid = []niro.Value{i}, []niro.Value{ok}
			continue
		}
		x0 := nc.un(niro.Floor, v)
		t := nc.bin(niro.Sub, v, x0)
		i0 := nc.cast(x0, niro.I64)
		var ws []niro.Value
		var offs []int64
		if mode == "linear" {
			ws = []niro.Value{nc.bin(niro.Sub, f(1), t), t}
			offs = []int64{0, 1}
		} else {
			A := -0.75
			cub := func(u niro.Value, far bool) niro.Value {
				// far: ((A·u − 5A)·u + 8A)·u − 4A; near: ((A+2)·u − (A+3))·u·u + 1
				if far {
					return nc.bin(niro.Sub, nc.bin(niro.Mul, nc.bin(niro.Add, nc.bin(niro.Mul, nc.bin(niro.Sub, nc.bin(niro.Mul, f(A), u), f(5*A)), u), f(8*A)), u), f(4*A))
				}
				return nc.bin(niro.Add, nc.bin(niro.Mul, nc.bin(niro.Mul, nc.bin(niro.Sub, nc.bin(niro.Mul, f(A+2), u), f(A+3)), u), u), f(1))
			}
			t = nc.un(niro.Abs, t)
			one := nc.bin(niro.Sub, f(1), t)
			ws = []niro.Value{cub(nc.bin(niro.Add, t, f(1)), true), cub(t, false), cub(one, false), cub(nc.bin(niro.Sub, f(2), t), true)}
			offs = []int64{-1, 0, 1, 2}
		}
		for j, o := range offs {
			i, ok := nc.gsFetch(nc.bin(niro.Add, i0, nc.scalar(niro.I64, float64(o))), d, pad, lo, hi)
			ax.idx = append(ax.idx, i)
			ax.valid = append(ax.valid, ok)
			ax.w = append(ax.w, nc.cast(ws[j], ce))
		}
	}
	if nc.err != nil {
		return nc.err
	}
	// X as [N, spatial..., C] in the compute type.
	perm := []int{0}
	for a := 0; a < k; a++ {
		perm = append(perm, 2+a)
	}
	perm = append(perm, 1)
	xt := nc.transposeOp(nc.cast(x, ce), perm)
	zero := nc.scalar(ce, 0)
	// corner gathers the value at the taps ts (one per axis).
	corner := func(ts []int) niro.Value {
		parts := make([]niro.Value, k)
		var valid niro.Value
		for a, t := range ts {
			parts[a] = axes[a].idx[t]
			if v := axes[a].valid[t]; v.Type != nil {
				if valid.Type == nil {
					valid = v
				} else {
					valid = nc.bin(niro.And, valid, v)
				}
			}
		}
		ind := parts[0]
		if k > 1 {
			ind = nc.op(&niro.Concat{Axis: k + 1, Inputs: parts})
		}
		y := nc.op(&niro.GatherND{BatchDims: 1, X: xt, Indices: ind})
		if valid.Type != nil {
			y = nc.sel(valid, y, zero)
		}
		return y
	}
	// interp sums over the taps of axis a and deeper, with the outer taps
	// fixed in ts.
	var interp func(a int, ts []int) niro.Value
	interp = func(a int, ts []int) niro.Value {
		if a == k {
			return corner(ts)
		}
		if axes[a].w == nil {
			return interp(a+1, append(ts, 0))
		}
		var acc niro.Value
		for t := range axes[a].idx {
			term := nc.bin(niro.Mul, axes[a].w[t], interp(a+1, append(append([]int{}, ts...), t)))
			if t == 0 {
				acc = term
			} else {
				acc = nc.bin(niro.Add, acc, term)
			}
		}
		return acc
	}
	y := interp(0, nil) // [N, O..., C]
	back := []int{0, k + 1}
	for a := 0; a < k; a++ {
		back = append(back, 1+a)
	}
	y = nc.transposeOp(y, back)
	nc.out(0, nc.cast(y, elem(x)))
	return nc.err
}

func init() {
	gs := []string{"align_corners", "mode", "padding_mode"}
	register("GridSample",
		opSpec{Since: 16, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: gs, Convert: gridSampleConv},
		opSpec{Since: 20, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: gs, Convert: gridSampleConv},
		opSpec{Since: 22, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: gs, Convert: gridSampleConv})
}

// roiAlignConv maps RoiAlign when the rois and batch indices are known at
// compile time (`niro test` binds small inputs): the sample positions and
// bilinear weights of every output bin are computed at import in float32,
// as the reference's numpy scalars do; X viewed as [N, H·W, C] is read by
// one GatherND at the four corners of every sample, the products summed
// over the corners and the samples in order and divided by the count
// (avg), or their maximum taken (max).
func roiAlignConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	xd, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(xd) != 4 {
		return nc.errorf("input must have rank 4, has %s", x.Type)
	}
	rois, ok1 := nc.knownFloatsOf(1)
	bidx, ok2 := nc.knownInts(2)
	if !ok1 || !ok2 {
		nc.needKnown(1, "rois")
		nc.needKnown(2, "batch_indices")
		return nc.err
	}
	R := int64(len(bidx))
	if int64(len(rois)) != 4*R {
		return nc.errorf("rois has %d elements, want %d", len(rois), 4*R)
	}
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	PH, PW := nc.attrInt("output_height", 1), nc.attrInt("output_width", 1)
	sr := nc.attrInt("sampling_ratio", 0)
	scale := float32(nc.attrFloat("spatial_scale", 1))
	mode := nc.attrString("mode", "avg")
	if mode != "avg" && mode != "max" {
		return nc.errorf("mode %q is not one of avg, max", mode)
	}
	half := nc.opset >= 16 && nc.attrString("coordinate_transformation_mode", "half_pixel") == "half_pixel"
	var off float32
	if half {
		off = 0.5
	}
	// The sample grid must be the same size for every roi to form one
	// tensor; rois with smaller grids repeat a zero-weight sample.
	type bin struct {
		pos [][4]int64
		w   [][4]float32
	}
	bins := make([][]bin, R)
	counts := make([]int64, R)
	S := int64(1)
	for n := int64(0); n < R; n++ {
		b := bidx[n]
		if b < 0 || b >= N {
			return nc.errorf("batch index %d is out of range [0, %d)", b, N)
		}
		r := rois[4*n : 4*n+4]
		sw, sh := float32(r[0])*scale-off, float32(r[1])*scale-off
		ew, eh := float32(r[2])*scale-off, float32(r[3])*scale-off
		rw, rh := ew-sw, eh-sh
		if !half {
			rw, rh = max(rw, 1), max(rh, 1)
		}
		bh, bw := rh/float32(PH), rw/float32(PW)
		gh, gw := sr, sr
		if sr <= 0 {
			gh = int64(math.Ceil(float64(rh / float32(PH))))
			gw = int64(math.Ceil(float64(rw / float32(PW))))
		}
		counts[n] = max(gh*gw, 1)
		S = max(S, gh*gw)
		for ph := int64(0); ph < PH; ph++ {
			for pw := int64(0); pw < PW; pw++ {
				var bn bin
				for iy := int64(0); iy < gh; iy++ {
					yy := sh + float32(ph)*bh + float32(float64(iy)+0.5)*bh/float32(gh)
					for ix := int64(0); ix < gw; ix++ {
						xx := sw + float32(pw)*bw + float32(float64(ix)+0.5)*bw/float32(gw)
						y, xv := yy, xx
						if y < -1 || y > float32(H) || xv < -1 || xv > float32(W) {
							bn.pos = append(bn.pos, [4]int64{})
							bn.w = append(bn.w, [4]float32{})
							continue
						}
						y, xv = max(y, 0), max(xv, 0)
						yl, xl := int64(y), int64(xv)
						yh, xh := yl+1, xl+1
						if yl >= H-1 {
							yl, yh = H-1, H-1
							y = float32(yl)
						}
						if xl >= W-1 {
							xl, xh = W-1, W-1
							xv = float32(xl)
						}
						ly, lx := y-float32(yl), xv-float32(xl)
						hy, hx := 1-ly, 1-lx
						bn.pos = append(bn.pos, [4]int64{yl*W + xl, yl*W + xh, yh*W + xl, yh*W + xh})
						bn.w = append(bn.w, [4]float32{hy * hx, hy * lx, ly * hx, ly * lx})
					}
				}
				bins[n] = append(bins[n], bn)
			}
		}
	}
	if mode == "max" {
		for n := range bins {
			for _, bn := range bins[n] {
				if int64(len(bn.pos)) != S {
					nc.notYet("RoiAlign max with sample grids of different sizes is not compiled yet")
					return nc.err
				}
			}
		}
	}
	ce := computeElem(elem(x))
	ind := make([]int64, 0, R*PH*PW*S*4*2)
	ws := make([]float64, 0, R*PH*PW*S*4)
	for n := int64(0); n < R; n++ {
		for _, bn := range bins[n] {
			for s := int64(0); s < S; s++ {
				for c := 0; c < 4; c++ {
					p, w := int64(0), float32(0)
					if s < int64(len(bn.pos)) {
						p, w = bn.pos[s][c], bn.w[s][c]
					}
					ind = append(ind, bidx[n], p)
					ws = append(ws, float64(w))
				}
			}
		}
	}
	xt := nc.transposeOp(nc.reshape(nc.cast(x, ce), []int64{N, C, H * W}), []int{0, 2, 1})
	ik := nc.constKnown(&known{elem: niro.I64, dims: []int64{R, PH, PW, S, 4, 2}, ints: ind})
	g := nc.op(&niro.GatherND{X: xt, Indices: ik}) // [R, PH, PW, S, 4, C]
	wk := nc.constKnown(&known{elem: ce, dims: []int64{R, PH, PW, S, 4, 1}, floats: ws})
	prod := nc.bin(niro.Mul, wk, g)
	var y niro.Value
	if mode == "avg" {
		y = nc.reduce(niro.ReduceSum, nc.reduce(niro.ReduceSum, prod, []int{4}, false), []int{3}, false)
		cnt := make([]float64, R)
		for i, c := range counts {
			cnt[i] = float64(c)
		}
		y = nc.bin(niro.Div, y, nc.constKnown(&known{elem: ce, dims: []int64{R, 1, 1, 1}, floats: cnt}))
	} else {
		y = nc.reduce(niro.ReduceMax, nc.reduce(niro.ReduceMax, prod, []int{4}, false), []int{3}, false)
	}
	y = nc.transposeOp(y, []int{0, 3, 1, 2})
	nc.out(0, nc.cast(y, elem(x)))
	return nc.err
}

func init() {
	register("RoiAlign",
		opSpec{Since: 10, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{"mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"}, Convert: roiAlignConv},
		opSpec{Since: 16, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"}, Convert: roiAlignConv},
		opSpec{Since: 22, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: []string{"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"}, Convert: roiAlignConv})
}

// deformConvConv maps 2-D DeformConv: every kernel tap of every output
// position samples X bilinearly (zeros outside, as the reference's
// GridSample with align_corners) at its regular position plus the
// offset, in f32; the samples, times the mask, are contracted with the
// weights per group by a MatMul over (input channel, kernel row, kernel
// column), and the bias added.
func deformConvConv(nc *nodeCtx) error {
	x, w, offset := nc.in(0), nc.in(1), nc.in(2)
	nc.requireFloat(x)
	xd, ok1 := nc.staticDims(x)
	wd, ok2 := nc.staticDims(w)
	od, ok3 := nc.staticDims(offset)
	if !ok1 || !ok2 || !ok3 || nc.err != nil {
		return nc.err
	}
	if len(xd) != 4 || len(wd) != 4 || len(od) != 4 {
		nc.notYet("DeformConv is compiled for 2-D inputs only, has %s", x.Type)
		return nc.err
	}
	N, IC, H, W := xd[0], xd[1], xd[2], xd[3]
	OC, ICpg, KH, KW := wd[0], wd[1], wd[2], wd[3]
	if k, ok := nc.attrInts("kernel_shape"); ok && (len(k) != 2 || k[0] != KH || k[1] != KW) {
		return nc.errorf("kernel_shape %v disagrees with the weights %s", k, w.Type)
	}
	G := nc.attrInt("group", 1)
	OG := nc.attrInt("offset_group", 1)
	_, strides, pads, dil := nc.poolAttrs("", 2)
	if nc.err != nil {
		return nc.err
	}
	OH, OW := od[2], od[3]
	if G < 1 || OG < 1 || IC != ICpg*G || OC%G != 0 || IC%OG != 0 || od[0] != N || od[1] != OG*KH*KW*2 {
		return nc.errorf("X %s, W %s and offset %s disagree with group %d and offset_group %d", x.Type, w.Type, offset.Type, G, OG)
	}
	ce := computeElem(elem(x))
	f := func(v float64) niro.Value { return nc.scalar(ce, v) }
	ci := func(v int64) niro.Value { return nc.scalar(niro.I64, float64(v)) }
	off := nc.reshape(nc.cast(offset, ce), []int64{N, OG, KH, KW, 2, OH, OW})
	cdims := []int64{N, OG, KH, KW, 1, OH, OW}
	coord := func(c int, d, st, pad int64) niro.Value {
		// (oh·stride − pad + kh·dilation) + offset, the regular part exact.
		starts := []int64{0, 0, 0, 0, int64(c), 0, 0}
		o := nc.op(&niro.Slice{Starts: starts, Steps: []int64{1, 1, 1, 1, 1, 1, 1}, Shape: cdims, X: off})
		o = nc.reshape(o, []int64{N, OG, KH, KW, OH, OW, 1})
		kdims := []int64{1, 1, KH, KW, OH, OW, 1}
		ka, oa := 2, 4
		if c == 1 {
			ka, oa = 3, 5
		}
		reg := nc.bin(niro.Add, nc.bin(niro.Mul, nc.iota(ce, kdims, ka), f(float64(d))),
			nc.bin(niro.Sub, nc.bin(niro.Mul, nc.iota(ce, kdims, oa), f(float64(st))), f(float64(pad))))
		return nc.bin(niro.Add, reg, o)
	}
	py := coord(0, dil[0], strides[0], pads[0])
	px := coord(1, dil[1], strides[1], pads[1])
	taps := func(v niro.Value, d int64) (idx, valid [2]niro.Value, wt [2]niro.Value) {
		v0 := nc.un(niro.Floor, v)
		l := nc.bin(niro.Sub, v, v0)
		i0 := nc.cast(v0, niro.I64)
		wt = [2]niro.Value{nc.bin(niro.Sub, f(1), l), l}
		for t := 0; t < 2; t++ {
			i := nc.bin(niro.Add, i0, ci(int64(t)))
			valid[t] = nc.bin(niro.And, nc.cmp(niro.Ge, i, ci(0)), nc.cmp(niro.Lt, i, ci(d)))
			idx[t] = nc.bin(niro.Min, nc.bin(niro.Max, i, ci(0)), ci(d-1))
		}
		return
	}
	yi, yv, yw := taps(py, H)
	xi, xv, xw := taps(px, W)
	ICo := IC / OG
	// X as [N, OG, H, W, ICo]; the gathers give [N, OG, KH, KW, OH, OW, ICo].
	xt := nc.transposeOp(nc.reshape(nc.cast(x, ce), []int64{N, OG, ICo, H, W}), []int{0, 1, 3, 4, 2})
	zero := f(0)
	var s niro.Value
	for a := 0; a < 2; a++ {
		var row niro.Value
		for b := 0; b < 2; b++ {
			ind := nc.op(&niro.Concat{Axis: 6, Inputs: []niro.Value{yi[a], xi[b]}})
			g := nc.op(&niro.GatherND{BatchDims: 2, X: xt, Indices: ind})
			g = nc.sel(nc.bin(niro.And, yv[a], xv[b]), g, zero)
			t := nc.bin(niro.Mul, xw[b], g)
			if b == 0 {
				row = t
			} else {
				row = nc.bin(niro.Add, row, t)
			}
		}
		t := nc.bin(niro.Mul, yw[a], row)
		if a == 0 {
			s = t
		} else {
			s = nc.bin(niro.Add, s, t)
		}
	}
	if nc.has(4) {
		m := nc.reshape(nc.cast(nc.in(4), ce), []int64{N, OG, KH, KW, OH, OW, 1})
		s = nc.bin(niro.Mul, s, m)
	}
	// [N, OG, ICo, KH, KW, OH, OW] → [N, G, ICpg·KH·KW, OH·OW].
	s = nc.transposeOp(s, []int{0, 1, 6, 2, 3, 4, 5})
	s = nc.reshape(s, []int64{N, G, ICpg * KH * KW, OH * OW})
	wm := nc.reshape(nc.cast(w, ce), []int64{1, G, OC / G, ICpg * KH * KW})
	wm = nc.op(&niro.Broadcast{Shape: []int64{N, G, OC / G, ICpg * KH * KW}, X: wm})
	y := nc.matmulOp(wm, s)
	y = nc.reshape(y, []int64{N, OC, OH, OW})
	if nc.has(3) {
		y = nc.bin(niro.Add, y, nc.reshape(nc.cast(nc.in(3), ce), []int64{OC, 1, 1}))
	}
	nc.out(0, nc.cast(y, elem(x)))
	return nc.err
}

func init() {
	register("DeformConv",
		opSpec{Since: 19, In: [2]int{3, 5}, Out: [2]int{1, 1}, Attrs: []string{"dilations", "group", "kernel_shape", "offset_group", "pads", "strides"}, Convert: deformConvConv},
		opSpec{Since: 22, In: [2]int{3, 5}, Out: [2]int{1, 1}, Attrs: []string{"dilations", "group", "kernel_shape", "offset_group", "pads", "strides"}, Convert: deformConvConv})
}

// maxRoiPoolConv maps MaxRoiPool when the rois are known at compile time:
// each bin's window (the reference's rounding half away from zero of the
// scaled roi, floor and ceil of the bin edges, clipped to the input) is
// read by one GatherND per bin position list on X as [N, H·W, C], padded
// to the largest window by repeating its first position (max is
// idempotent), and reduce_max'ed; an empty bin gives 0.
func maxRoiPoolConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	xd, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(xd) != 4 {
		return nc.errorf("input must have rank 4, has %s", x.Type)
	}
	rois, ok := nc.knownFloatsOf(1)
	if !ok {
		nc.needKnown(1, "rois")
		return nc.err
	}
	ps, _ := nc.attrInts("pooled_shape")
	if len(ps) != 2 || ps[0] < 1 || ps[1] < 1 {
		return nc.errorf("attribute pooled_shape must hold two positive extents")
	}
	if len(rois)%5 != 0 {
		return nc.errorf("rois must have 5 columns")
	}
	N, C, H, W := xd[0], xd[1], xd[2], xd[3]
	PH, PW := ps[0], ps[1]
	R := int64(len(rois) / 5)
	f64 := elem(x) == niro.F64
	rf := func(v float64) float64 {
		if f64 {
			return v
		}
		return float64(float32(v))
	}
	scale := rf(nc.attrFloat("spatial_scale", 1))
	roundAway := func(v float64) int64 {
		m := math.Abs(v)
		i := math.Floor(m)
		r := int64(i)
		if m-i >= 0.5 {
			r++
		}
		if v < 0 {
			return -r
		}
		return r
	}
	type win struct{ pos [][2]int64 }
	wins := make([]win, 0, R*PH*PW)
	K := int64(1)
	for n := int64(0); n < R; n++ {
		roi := rois[5*n : 5*n+5]
		b := int64(rf(roi[0]))
		if b < 0 || b >= N {
			return nc.errorf("roi batch index %d is out of range for batch size %d", b, N)
		}
		sw, sh := roundAway(rf(rf(roi[1])*scale)), roundAway(rf(rf(roi[2])*scale))
		ew, eh := roundAway(rf(rf(roi[3])*scale)), roundAway(rf(rf(roi[4])*scale))
		rw, rh := max(ew-sw+1, 1), max(eh-sh+1, 1)
		bh, bw := rf(float64(rh)/float64(PH)), rf(float64(rw)/float64(PW))
		edge := func(i int64, b float64, ceil bool, start, lim int64) int64 {
			v := rf(float64(i) * b)
			if ceil {
				v = math.Ceil(v)
			} else {
				v = math.Floor(v)
			}
			return int64(math.Min(math.Max(v+float64(start), 0), float64(lim)))
		}
		for ph := int64(0); ph < PH; ph++ {
			hs, he := edge(ph, bh, false, sh, H), edge(ph+1, bh, true, sh, H)
			for pw := int64(0); pw < PW; pw++ {
				ws, we := edge(pw, bw, false, sw, W), edge(pw+1, bw, true, sw, W)
				var wn win
				for h := hs; h < he; h++ {
					for w := ws; w < we; w++ {
						wn.pos = append(wn.pos, [2]int64{b, h*W + w})
					}
				}
				K = max(K, int64(len(wn.pos)))
				wins = append(wins, wn)
			}
		}
	}
	ind := make([]int64, 0, int64(len(wins))*K*2)
	empty := make([]int64, len(wins))
	for i, wn := range wins {
		for k := int64(0); k < K; k++ {
			switch {
			case len(wn.pos) == 0:
				ind = append(ind, 0, 0)
				empty[i] = 1
			case k < int64(len(wn.pos)):
				ind = append(ind, wn.pos[k][0], wn.pos[k][1])
			default:
				ind = append(ind, wn.pos[0][0], wn.pos[0][1])
			}
		}
	}
	xt := nc.transposeOp(nc.reshape(x, []int64{N, C, H * W}), []int{0, 2, 1})
	ik := nc.constKnown(&known{elem: niro.I64, dims: []int64{R, PH, PW, K, 2}, ints: ind})
	y := nc.reduce(niro.ReduceMax, nc.op(&niro.GatherND{X: xt, Indices: ik}), []int{3}, false) // [R, PH, PW, C]
	y = nc.sel(nc.constInts(niro.Bool, []int64{R, PH, PW, 1}, empty), nc.like(x, 0), y)
	nc.out(0, nc.transposeOp(y, []int{0, 3, 1, 2}))
	return nc.err
}

func init() {
	register("MaxRoiPool",
		opSpec{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"pooled_shape", "spatial_scale"}, Convert: maxRoiPoolConv},
		opSpec{Since: 22, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"pooled_shape", "spatial_scale"}, Convert: maxRoiPoolConv})
}
