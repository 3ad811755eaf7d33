package importer

import (
	"math"
	"sort"

	"github.com/niro-dev/niro/niro"
)

// Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9): separable
// interpolation, one axis at a time, as the ONNX reference
// (onnx/reference/ops/op_resize.py) nests it: the last interpolated axis
// first, the first one last. Along an axis, every output position x has a
// source coordinate x_ori, a set of neighbour indices and their
// coefficients, which depend only on the shapes, the scales or sizes, the
// roi and the attributes; the importer computes them in float64 exactly
// as the reference does, and the axis step is a Gather of the input at
// each neighbour index (clamped: the reference pads with edge values)
// times the coefficient, summed in the reference's order. Linear and cubic
// modes compute in f64 (the reference's np.dot of float64 coefficients)
// and round once to the input type at the end; nearest is a Gather alone,
// exact. The scales, sizes and roi must be known at compile time (`niro
// test` binds small inputs).

// resizeAttrs are the attributes of one Resize instance.
type resizeAttrs struct {
	mode      string // nearest, linear, cubic
	ctm       string // coordinate_transformation_mode
	nearest   string // nearest_mode, or "simple" (opset 10, Upsample)
	a         float64
	exclude   bool
	extrap    float64
	antialias bool
	policy    string
}

// resizeAxis is the plan for one axis: per output position, the source
// indices (clamped into the input) and their coefficients, or outside
// (tf_crop_and_resize: the extrapolation value).
type resizeAxis struct {
	axis    int
	in, out int64
	idx     [][]int64   // [tap][x]
	w       [][]float64 // [tap][x]
	outside []bool      // [x]
}

func nearestCoeffs(ratio float64, mode string, scale float64) []float64 {
	if ratio == math.Trunc(ratio) {
		return []float64{0, 1}
	}
	b := func(c bool) float64 {
		if c {
			return 1
		}
		return 0
	}
	switch mode {
	case "round_prefer_floor":
		return []float64{b(ratio <= 0.5), b(ratio > 0.5)}
	case "round_prefer_ceil":
		return []float64{b(ratio < 0.5), b(ratio >= 0.5)}
	case "floor":
		return []float64{1, 0}
	case "simple":
		if scale < 1 {
			return []float64{0, 1}
		}
		return []float64{1, 0}
	}
	return []float64{0, 1} // ceil
}

func cubicCoeffs(r, A float64) []float64 {
	return []float64{
		((A*(r+1)-5*A)*(r+1)+8*A)*(r+1) - 4*A,
		((A+2)*r-(A+3))*r*r + 1,
		((A+2)*(1-r)-(A+3))*(1-r)*(1-r) + 1,
		((A*((1-r)+1)-5*A)*((1-r)+1)+8*A)*((1-r)+1) - 4*A,
	}
}

func normalize(c []float64) []float64 {
	s := 0.0
	for _, v := range c {
		s += v
	}
	for i := range c {
		c[i] /= s
	}
	return c
}

func cubicCoeffsAntialias(r, scale, A float64) []float64 {
	scale = math.Min(scale, 1)
	coeff := func(x float64) float64 {
		x = math.Abs(x)
		x2 := x * x
		x3 := x * x2
		if x <= 1 {
			return (A+2)*x3 - (A+3)*x2 + 1
		}
		if x < 2 {
			return A*x3 - 5*A*x2 + 8*A*x - 4*A
		}
		return 0
	}
	start := int(math.Floor(-2/scale) + 1)
	var c []float64
	for i := start; i < 2-start; i++ {
		c = append(c, coeff(scale*(float64(i)-r)))
	}
	return normalize(c)
}

func linearCoeffsAntialias(r, scale float64) []float64 {
	scale = math.Min(scale, 1)
	start := int(math.Floor(-1/scale) + 1)
	n := 2 - 2*start
	c := make([]float64, n)
	for i := range c {
		c[i] = math.Max(0, math.Min(1, 1-math.Abs((float64(start+i)-r)*scale)))
	}
	return normalize(c)
}

// neighbours returns the n indices nearest to x among [-pad, in+pad)
// (pad = ⌈n/2⌉), ties to the smaller, in ascending order: the reference's
// _get_neighbor on the edge-padded array.
func neighbours(x float64, n int, in int64) []int64 {
	pad := int64((n + 1) / 2)
	limit := in + 2*pad
	xp := x + float64(pad)
	c := int64(math.Floor(xp))
	c = max(0, min(c, limit-1))
	var cand []int64
	for i := c - int64(n) - 1; i <= c+int64(n)+1; i++ {
		if i >= 0 && i < limit {
			cand = append(cand, i)
		}
	}
	sort.Slice(cand, func(i, j int) bool {
		di, dj := math.Abs(xp-float64(cand[i])), math.Abs(xp-float64(cand[j]))
		if di != dj {
			return di < dj
		}
		return cand[i] < cand[j]
	})
	cand = cand[:min(n, len(cand))]
	sort.Slice(cand, func(i, j int) bool { return cand[i] < cand[j] })
	for i := range cand {
		cand[i] -= pad
	}
	return cand
}

// planAxis computes the taps of one axis. scale is the axis's scale
// factor; f32 says it came from a float32 scales input (the reference
// then computes the output width in float32); roi is [start, end] or nil,
// rounded by roundRoi as the roi's type.
func planAxis(at *resizeAttrs, axis int, in, out int64, scale float64, f32 bool, roi []float64, roundRoi func(float64) float64) resizeAxis {
	p := resizeAxis{axis: axis, in: in, out: out, outside: make([]bool, out)}
	ow := scale * float64(in)
	if f32 {
		ow = float64(float32(scale) * float32(in))
	}
	owm1 := ow - 1
	if f32 {
		owm1 = float64(float32(ow) - 1)
	}
	var taps int
	for x := int64(0); x < out; x++ {
		fx := float64(x)
		var xo float64
		switch at.ctm {
		case "align_corners":
			if ow == 1 {
				xo = 0
			} else {
				xo = float64(x*(in-1)) / owm1
			}
		case "asymmetric":
			xo = fx / scale
		case "tf_crop_and_resize":
			d := roundRoi(roi[1] - roi[0])
			if ow == 1 {
				xo = roundRoi(roundRoi(d*float64(in-1)) / 2)
				xo = roundRoi(xo + roundRoi(roi[0]*float64(in-1)))
			} else {
				xo = fx * d * float64(in-1) / owm1
				xo += roundRoi(roi[0] * float64(in-1))
			}
			if xo < 0 || xo > float64(in-1) {
				p.outside[x] = true
			}
		case "pytorch_half_pixel":
			if ow == 1 {
				xo = -0.5
			} else {
				xo = (fx+0.5)/scale - 0.5
			}
		case "half_pixel_symmetric":
			adj := float64(out) / ow
			center := float64(in) / 2
			off := center * (1 - adj)
			xo = off + (fx+0.5)/scale - 0.5
		default: // half_pixel
			xo = (fx+0.5)/scale - 0.5
		}
		ratio := 1.0
		if xo != math.Trunc(xo) {
			ratio = xo - math.Floor(xo)
		}
		var c []float64
		switch {
		case at.mode == "nearest":
			c = nearestCoeffs(ratio, at.nearest, scale)
		case at.mode == "cubic" && at.antialias:
			c = cubicCoeffsAntialias(ratio, scale, at.a)
		case at.mode == "cubic":
			c = cubicCoeffs(ratio, at.a)
		case at.antialias:
			c = linearCoeffsAntialias(ratio, scale)
		default:
			c = []float64{1 - ratio, ratio}
		}
		idx := neighbours(xo, len(c), in)
		if at.exclude && at.mode != "nearest" {
			for i, j := range idx {
				if j < 0 || j >= in {
					c[i] = 0
				}
			}
			normalize(c)
		}
		if taps == 0 {
			taps = len(c)
			p.idx = make([][]int64, taps)
			p.w = make([][]float64, taps)
			for k := range p.idx {
				p.idx[k] = make([]int64, out)
				p.w[k] = make([]float64, out)
			}
		}
		for k := 0; k < taps && k < len(c); k++ {
			p.idx[k][x] = max(0, min(idx[k], in-1))
			p.w[k][x] = c[k]
		}
	}
	return p
}

// identity reports whether the axis step leaves its input unchanged.
func (p *resizeAxis) identity() bool {
	if p.in != p.out {
		return false
	}
	for x := int64(0); x < p.out; x++ {
		if p.outside[x] {
			return false
		}
		hit := false
		for k := range p.idx {
			switch {
			case p.w[k][x] == 0:
			case p.w[k][x] == 1 && p.idx[k][x] == x && !hit:
				hit = true
			default:
				return false
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// knownFloatsOf returns input i's known values as float64 (f32 and f64
// inputs).
func (nc *nodeCtx) knownFloatsOf(i int) ([]float64, bool) {
	if !nc.has(i) {
		return nil, false
	}
	k, ok := nc.knownOf(nc.args[i])
	if !ok || !k.elem.IsFloat() {
		return nil, false
	}
	return k.floats, true
}

// needKnown keeps the node an UnknownOp because input i (the op's
// parameter what) must be known at compile time; the reason names the
// ONNX value, quoted, so that `niro run` and `niro test` know which input
// to bind.
func (nc *nodeCtx) needKnown(i int, what string) {
	nc.notYet("input %d (%s, %q) must be known at compile time, but it is computed at run time", i, what, nc.n.Inputs[i].Name)
}

// emptyInput reports whether input i is absent or has no elements.
func (nc *nodeCtx) emptyInput(i int) bool {
	if !nc.has(i) {
		return true
	}
	t := tensorOf(nc.args[i])
	return !t.Unranked && t.HasStaticShape() && t.NumElements() == 0
}

// resizeCore plans and builds the interpolation. list holds the
// interpolated axes in the reference's order; scales or sizes (one per
// entry of list; sizes nil when scales are given) and roi (2·len(list)
// entries, or nil).
func (nc *nodeCtx) resizeCore(at *resizeAttrs, x niro.Value, list []int, scales []float64, f32 bool, sizes []int64, roi []float64, roundRoi func(float64) float64) {
	xt := tensorOf(x)
	if xt.Unranked {
		nc.notYet("input %s has an unknown rank", x)
		return
	}
	dims := xt.Dims
	n := len(list)
	// An axis of dynamic extent may only keep its size (scale 1, outside
	// tf_crop_and_resize), a step that is the identity: it is skipped.
	dynamic := func(i int) bool { return dims[list[i]] < 0 }
	for i := range list {
		if dynamic(i) && (sizes != nil || i >= len(scales) || scales[i] != 1 || at.ctm == "tf_crop_and_resize") {
			nc.staticDims(x)
			return
		}
	}
	outs := make([]int64, n)
	if sizes != nil {
		if len(sizes) != n {
			nc.fail("sizes has %d elements, want %d", len(sizes), n)
			return
		}
		scales = make([]float64, n)
		for i, a := range list {
			scales[i] = float64(sizes[i]) / float64(dims[a])
		}
		copy(outs, sizes)
		f32 = false
		if at.policy != "stretch" {
			s := scales[0]
			for _, v := range scales[1:] {
				if at.policy == "not_larger" {
					s = math.Min(s, v)
				} else {
					s = math.Max(s, v)
				}
			}
			for i, a := range list {
				scales[i] = s
				outs[i] = int64(s*float64(dims[a]) + 0.5)
			}
		}
	} else {
		if len(scales) != n {
			nc.fail("scales has %d elements, want %d", len(scales), n)
			return
		}
		for i, a := range list {
			if scales[i] <= 0 {
				nc.fail("scale %g must be positive", scales[i])
				return
			}
			outs[i] = int64(scales[i] * float64(dims[a]))
		}
	}
	if roi != nil && len(roi) != 2*n {
		nc.fail("roi has %d elements, want %d", len(roi), 2*n)
		return
	}
	if at.ctm == "tf_crop_and_resize" && roi == nil {
		nc.fail("tf_crop_and_resize needs roi")
		return
	}
	for i, a := range list {
		if dynamic(i) {
			continue
		}
		if dims[a] == 0 || outs[i] < 0 {
			nc.notYet("Resize of an empty axis is not compiled yet")
			return
		}
	}
	nearest := at.mode == "nearest"
	e := elem(x)
	y := x
	if !nearest && e != niro.F64 {
		y = nc.cast(x, niro.F64)
	}
	r := len(dims)
	for i := n - 1; i >= 0; i-- {
		var ri []float64
		if roi != nil {
			ri = []float64{roi[i], roi[n+i]}
		}
		if dynamic(i) {
			continue
		}
		p := planAxis(at, list[i], dims[list[i]], outs[i], scales[i], f32, ri, roundRoi)
		if p.identity() {
			continue
		}
		y = nc.resizeStep(at, &p, y, r)
	}
	if !nearest {
		y = nc.cast(y, e)
	}
	nc.out(0, y)
}

// resizeStep builds one axis step on y.
func (nc *nodeCtx) resizeStep(at *resizeAttrs, p *resizeAxis, y niro.Value, r int) niro.Value {
	nearest := at.mode == "nearest"
	e := elem(y)
	wdims := make([]int64, r)
	for i := range wdims {
		wdims[i] = 1
	}
	wdims[p.axis] = p.out
	gather := func(idx []int64) niro.Value {
		return nc.op(&niro.Gather{Axis: p.axis, X: y, Indices: nc.constInts(niro.I64, []int64{p.out}, idx)})
	}
	var acc niro.Value
	if nearest {
		pick := make([]int64, p.out)
		for x := range pick {
			for k := range p.idx {
				if p.w[k][x] != 0 {
					pick[x] = p.idx[k][x]
					break
				}
			}
		}
		acc = gather(pick)
	} else {
		for k := range p.idx {
			w := nc.constKnown(&known{elem: niro.F64, dims: wdims, floats: p.w[k]})
			t := nc.bin(niro.Mul, w, gather(p.idx[k]))
			if k == 0 {
				acc = t
			} else {
				acc = nc.bin(niro.Add, acc, t)
			}
		}
	}
	outside := false
	mask := make([]int64, p.out)
	for x, o := range p.outside {
		if o {
			mask[x] = 1
			outside = true
		}
	}
	if outside {
		m := nc.constInts(niro.Bool, wdims, mask)
		acc = nc.sel(m, nc.extrapValue(e, at.extrap), acc)
	}
	return acc
}

// extrapValue is the extrapolation value, a rank-0 tensor of element type
// e (the reference writes the float into the output array).
func (nc *nodeCtx) extrapValue(e niro.ScalarType, v float64) niro.Value {
	if e.IsFloat() {
		return nc.scalar(e, v)
	}
	return nc.scalar(e, math.Trunc(v))
}

func resizeAttrsOf(nc *nodeCtx) *resizeAttrs {
	at := &resizeAttrs{
		mode:    nc.attrString("mode", "nearest"),
		ctm:     nc.attrString("coordinate_transformation_mode", "half_pixel"),
		nearest: nc.attrString("nearest_mode", "round_prefer_floor"),
		a:       nc.attrFloat("cubic_coeff_a", -0.75),
		exclude: nc.attrInt("exclude_outside", 0) != 0,
		extrap:  nc.attrFloat("extrapolation_value", 0),
		policy:  nc.attrString("keep_aspect_ratio_policy", "stretch"),
	}
	at.antialias = nc.attrInt("antialias", 0) != 0
	switch at.mode {
	case "nearest", "linear", "cubic":
	default:
		nc.fail("mode %q is not one of nearest, linear, cubic", at.mode)
	}
	switch at.ctm {
	case "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize":
	case "half_pixel_symmetric":
		if nc.opset < 19 {
			nc.fail("coordinate_transformation_mode half_pixel_symmetric needs opset 19")
		}
	default:
		nc.fail("coordinate_transformation_mode %q is not supported", at.ctm)
	}
	switch at.nearest {
	case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		nc.fail("nearest_mode %q is not supported", at.nearest)
	}
	switch at.policy {
	case "stretch", "not_larger", "not_smaller":
	default:
		nc.fail("keep_aspect_ratio_policy %q is not supported", at.policy)
	}
	if at.antialias && at.mode == "nearest" {
		nc.fail("antialias is not defined for mode nearest")
	}
	return at
}

// resizeConv maps Resize from opset 11 on: inputs X, roi, scales, sizes.
func resizeConv(nc *nodeCtx) error {
	x := nc.in(0)
	r := nc.rank(x)
	at := resizeAttrsOf(nc)
	if nc.err != nil {
		return nc.err
	}
	list := make([]int, r)
	for i := range list {
		list[i] = i
	}
	if ax, ok := nc.attrInts("axes"); ok {
		list = list[:0]
		seen := map[int]bool{}
		for _, a := range ax {
			i := nc.axis(a, r)
			if seen[i] {
				return nc.errorf("axes %v repeat an axis", ax)
			}
			seen[i] = true
			list = append(list, i)
		}
	}
	var roi []float64
	roundRoi := func(v float64) float64 { return v }
	if at.ctm == "tf_crop_and_resize" && !nc.emptyInput(1) {
		v, ok := nc.knownFloatsOf(1)
		if !ok {
			nc.needKnown(1, "roi")
			return nc.err
		}
		roi = v
		if elem(nc.in(1)) == niro.F32 {
			roundRoi = func(v float64) float64 { return float64(float32(v)) }
		}
	}
	switch {
	case !nc.emptyInput(3):
		sizes, ok := nc.knownInts(3)
		if !ok {
			nc.needKnown(3, "sizes")
			return nc.err
		}
		nc.resizeCore(at, x, list, nil, false, sizes, roi, roundRoi)
	case !nc.emptyInput(2):
		scales, ok := nc.knownFloatsOf(2)
		if !ok {
			nc.needKnown(2, "scales")
			return nc.err
		}
		nc.resizeCore(at, x, list, scales, elem(nc.in(2)) == niro.F32, nil, roi, roundRoi)
	default:
		return nc.errorf("needs scales or sizes")
	}
	return nc.err
}

// upsampleConv maps Upsample (scales an attribute at opset 7, an input
// from 9) and Resize-10 (X, scales): asymmetric coordinates; nearest
// takes floor(x_ori) when upsampling and ceil when downsampling (the
// "simple" rule of onnxruntime; integer scales repeat each element, as
// the reference's Upsample does).
func upsampleConv(nc *nodeCtx) error {
	x := nc.in(0)
	r := nc.rank(x)
	mode := nc.attrString("mode", "nearest")
	if mode == "bilinear" {
		mode = "linear"
	}
	if mode != "nearest" && mode != "linear" {
		return nc.errorf("mode %q is not one of nearest, linear", mode)
	}
	at := &resizeAttrs{mode: mode, ctm: "asymmetric", nearest: "simple", policy: "stretch"}
	var scales []float64
	if a := nc.attr("scales"); a != nil && len(nc.args) < 2 {
		for _, v := range a.Floats {
			scales = append(scales, float64(v))
		}
	} else {
		v, ok := nc.knownFloatsOf(1)
		if !ok {
			nc.needKnown(1, "scales")
			return nc.err
		}
		scales = v
	}
	if nc.err != nil {
		return nc.err
	}
	list := make([]int, r)
	for i := range list {
		list[i] = i
	}
	nc.resizeCore(at, x, list, scales, true, nil, nil, nil)
	return nc.err
}

func init() {
	base := []string{"mode"}
	v11 := []string{"mode", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value", "nearest_mode"}
	v18 := append(append([]string{}, v11...), "antialias", "axes", "keep_aspect_ratio_policy")
	register("Resize",
		opSpec{Since: 10, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: base, Convert: upsampleConv},
		opSpec{Since: 11, In: [2]int{1, 4}, Out: [2]int{1, 1}, Attrs: v11, Convert: resizeConv},
		opSpec{Since: 13, In: [2]int{1, 4}, Out: [2]int{1, 1}, Attrs: v11, Convert: resizeConv},
		opSpec{Since: 18, In: [2]int{1, 4}, Out: [2]int{1, 1}, Attrs: v18, Convert: resizeConv},
		opSpec{Since: 19, In: [2]int{1, 4}, Out: [2]int{1, 1}, Attrs: v18, Convert: resizeConv})
	register("Upsample",
		opSpec{Since: 7, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"mode", "scales"}, Convert: upsampleConv},
		opSpec{Since: 9, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"mode"}, Convert: upsampleConv})
}
