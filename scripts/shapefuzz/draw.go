package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/niro-dev/niro/onnxpb"
)

// A family draws one random model piece into a builder and describes it
// in one line.
type family struct {
	name   string
	weight int
	draw   func(b *builder) string
}

// families are the scheduled families the fuzzer draws from, with their
// relative weights.
var families = []family{
	{"conv", 8, drawConv},
	{"pool", 3, drawPool},
	{"resize", 2, drawResize},
	{"matmul", 3, drawMatMul},
	{"gemm", 2, drawGemm},
	{"reduce", 3, drawReduce},
	{"eltwise", 2, drawElementwise},
	{"move", 3, drawMovement},
}

// drawRand is the random source of draw k of seed s: every draw is
// reproducible on its own.
func drawRand(seed uint64, k int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(k)*0x9E3779B97F4A7C15+1))
}

// pickFamily draws a family by weight, or the one named only (when not
// empty).
func pickFamily(r *rand.Rand, only string) family {
	total := 0
	for _, f := range families {
		if only == "" || f.name == only {
			total += f.weight
		}
	}
	n := r.IntN(total)
	for _, f := range families {
		if only != "" && f.name != only {
			continue
		}
		if n < f.weight {
			return f
		}
		n -= f.weight
	}
	panic("unreachable")
}

// drawInto writes draw k of seed s into g and returns its description.
func drawInto(g *graph, seed uint64, k int, only string) string {
	r := drawRand(seed, k)
	f := pickFamily(r, only)
	b := &builder{g: g, r: r, prefix: fmt.Sprintf("d%d_", k), draw: k, seed: seed<<20 ^ uint64(k)<<8}
	return f.name + ": " + f.draw(b)
}

// floatElem draws f32 mostly, f64 and f16 sometimes.
func floatElem(r *rand.Rand) onnxpb.TensorProto_DataType {
	switch n := r.IntN(10); {
	case n < 7:
		return f32
	case n < 9:
		return f64
	}
	return f16
}

// extent draws a spatial extent: small, powers of two, 16k+1 and 32k+1.
func extent(r *rand.Rand, big bool) int64 {
	small := []int64{1, 2, 3, 4, 5, 7, 8, 9, 14, 16, 17}
	if big {
		small = append(small, 28, 32, 33, 48, 65)
	}
	return pick(r, small...)
}

// channels draws a channel count: 1, small, 16k, 16k+1.
func channels(r *rand.Rand) int64 {
	return pick[int64](r, 1, 1, 2, 3, 4, 8, 16, 16, 17, 32, 33)
}

// convGeom is one convolution's geometry.
type convGeom struct {
	n, c, m, group   int64
	in, k, s, d, out []int64
	padsB, padsE     []int64
	elem             onnxpb.TensorProto_DataType
}

// outExtent is ONNX's output extent of a convolution or pool axis (floor).
func outExtent(in, k, s, d, pb, pe int64) int64 {
	return (in+pb+pe-((k-1)*d+1))/s + 1
}

// drawConvGeom draws the spatial geometry for rank rank with channels
// fixed; it keeps the work (multiply-adds) under a bound. Two draws in
// five are the blocks of real networks: a square odd kernel, "same"
// padding, stride 1 or 2, a square input; the others draw every axis on
// its own (asymmetric pads, dilations, any stride).
func drawConvGeom(r *rand.Rand, g *convGeom, rank int) {
	for try := 0; ; try++ {
		g.in, g.k, g.s, g.d, g.padsB, g.padsE, g.out = nil, nil, nil, nil, nil, nil, nil
		work := g.n * g.m * (g.c / g.group)
		same := chance(r, 0.4)
		sk, ss, sin := pick[int64](r, 1, 3, 3, 3, 5, 7), pick[int64](r, 1, 1, 1, 2), extent(r, rank < 3 && try < 5)
		if rank == 3 {
			sk, sin = pick[int64](r, 1, 3), pick[int64](r, 2, 3, 4, 5, 8)
		}
		for i := 0; i < rank; i++ {
			in := extent(r, rank == 1 || try < 5 && rank == 2)
			if rank == 3 {
				in = pick[int64](r, 1, 2, 3, 4, 5, 8)
			}
			k := pick[int64](r, 1, 1, 2, 3, 3, 3, 5, 7)
			if rank == 3 {
				k = pick[int64](r, 1, 2, 3)
			}
			s := pick[int64](r, 1, 1, 1, 2, 2, 3)
			d := pick[int64](r, 1, 1, 1, 1, 2)
			eff := (k-1)*d + 1
			var pb, pe int64
			if chance(r, 0.6) && eff > 1 {
				pb, pe = r.Int64N(eff), r.Int64N(eff)
				if chance(r, 0.5) {
					pe = pb
				}
			}
			if same {
				in, k, s, d, eff = sin, sk, ss, 1, sk
				pb, pe = (k-1)/2, (k-1)/2
			}
			if in+pb+pe < eff {
				// Grow the input to hold the kernel.
				in = eff - pb - pe
			}
			o := outExtent(in, k, s, d, pb, pe)
			g.in, g.k, g.s, g.d = append(g.in, in), append(g.k, k), append(g.s, s), append(g.d, d)
			g.padsB, g.padsE, g.out = append(g.padsB, pb), append(g.padsE, pe), append(g.out, o)
			work *= o * k
		}
		if work <= 1_500_000 || try > 40 {
			return
		}
	}
}

// convNode adds a Conv of geometry g reading x (and a bias when bias).
func (b *builder) convNode(x string, g *convGeom, bias bool) string {
	wd := append([]int64{g.m, g.c / g.group}, g.k...)
	ins := []string{x, b.weight(g.elem, wd...)}
	if bias {
		ins = append(ins, b.weight(g.elem, g.m))
	}
	return b.node("Conv", ins, attrIs("kernel_shape", g.k...), attrIs("strides", g.s...), attrIs("dilations", g.d...),
		attrIs("pads", append(append([]int64{}, g.padsB...), g.padsE...)...), attrI("group", g.group))
}

func (g *convGeom) String() string {
	form := "dense"
	switch {
	case g.group == g.c && g.group > 1 && g.m == g.c:
		form = "depthwise"
	case g.group == g.c && g.group > 1:
		form = fmt.Sprintf("depthwise×%d", g.m/g.c)
	case g.group > 1:
		form = fmt.Sprintf("group%d", g.group)
	}
	var pads []string
	for i := range g.padsB {
		pads = append(pads, fmt.Sprintf("%d/%d", g.padsB[i], g.padsE[i]))
	}
	return fmt.Sprintf("%s %s %dx%dx%s→%d k%s s%s d%s p%s out%s", form, elemName(g.elem), g.n, g.c, dimsString(g.in), g.m,
		dimsString(g.k), dimsString(g.s), dimsString(g.d), strings.Join(pads, ","), dimsString(g.out))
}

// drawChannels sets c, m and group: dense, depthwise (with a channel
// multiplier) or grouped.
func drawChannels(r *rand.Rand, g *convGeom) {
	switch r.IntN(4) {
	case 0, 1:
		g.c, g.m, g.group = channels(r), channels(r), 1
	case 2:
		g.c = pick[int64](r, 2, 3, 8, 16, 17, 32)
		g.group, g.m = g.c, g.c*pick[int64](r, 1, 1, 1, 2, 3)
	default:
		g.group = pick[int64](r, 2, 3, 4)
		g.c, g.m = g.group*pick[int64](r, 1, 2, 4, 8), g.group*pick[int64](r, 1, 2, 3, 8)
	}
}

// epilogue adds an element-wise op after a convolution result y of shape
// dims (channels on axis 1) and returns its result and name.
func (b *builder) epilogue(y string, elem onnxpb.TensorProto_DataType, dims []int64) (string, string) {
	r := b.r
	m := dims[1]
	bshape := make([]int64, len(dims))
	for i := range bshape {
		bshape[i] = 1
	}
	bshape[1] = m
	switch r.IntN(9) {
	case 0:
		vals := make([]float64, m)
		for i := range vals {
			vals[i] = 0.5 + float64(i%7)*0.25
		}
		return b.node("BatchNormalization", []string{y, b.weight(elem, m), b.weight(elem, m), b.weight(elem, m), b.floats(elem, []int64{m}, vals)},
			attrF("epsilon", 1e-3)), "BN"
	case 1:
		return b.node("Relu", []string{y}), "Relu"
	case 2:
		return b.node("Clip", []string{y, b.floats(elem, nil, []float64{-0.25}), b.floats(elem, nil, []float64{0.5})}), "Clip"
	case 3:
		return b.node("HardSwish", []string{y}), "HardSwish"
	case 4:
		return b.node("HardSigmoid", []string{y}, attrF("alpha", 0.2), attrF("beta", 0.5)), "HardSigmoid"
	case 5:
		if elem == f64 {
			return b.node("Relu", []string{y}), "Relu"
		}
		return b.node("Sigmoid", []string{y}), "Sigmoid"
	case 6:
		return b.node("Add", []string{y, b.input(elem, dims...)}), "Add(residual)"
	case 7:
		return b.node("Mul", []string{y, b.weight(elem, bshape[1:]...)}), "Mul(bcast)"
	default:
		return b.node("Add", []string{y, b.weight(elem, bshape...)}), "Add(bcast)"
	}
}

func drawConv(b *builder) string {
	r := b.r
	rank := pick(r, 1, 2, 2, 2, 2, 2, 3)
	g := &convGeom{n: pick[int64](r, 1, 1, 1, 2), elem: floatElem(r)}
	drawChannels(r, g)
	drawConvGeom(r, g, rank)
	x := b.input(g.elem, append([]int64{g.n, g.c}, g.in...)...)
	bias := chance(r, 0.6)
	y := b.convNode(x, g, bias)
	desc := g.String()
	if bias {
		desc += " +bias"
	}
	dims := append([]int64{g.n, g.m}, g.out...)
	if chance(r, 0.3) {
		// A chain: dense → depthwise, depthwise → 1×1, ...
		h := &convGeom{n: g.n, c: g.m, elem: g.elem}
		switch r.IntN(3) {
		case 0: // depthwise 3×3 (or 1-D/3-D 3), pad 1
			h.group, h.m = h.c, h.c
		case 1: // pointwise
			h.group, h.m = 1, channels(r)
		default:
			h.group, h.m = 1, channels(r)
		}
		if chance(r, 0.5) {
			y, _ = b.epilogue(y, g.elem, dims)
			desc += " →relu-ish"
		}
		k := int64(3)
		if h.group == 1 && h.m != h.c && chance(r, 0.6) {
			k = 1
		}
		for i := 0; i < rank; i++ {
			p := (k - 1) / 2
			h.in, h.k, h.s, h.d = append(h.in, g.out[i]), append(h.k, k), append(h.s, 1), append(h.d, 1)
			h.padsB, h.padsE = append(h.padsB, p), append(h.padsE, p)
			h.out = append(h.out, outExtent(g.out[i], k, 1, 1, p, p))
		}
		y = b.convNode(y, h, chance(r, 0.5))
		desc += " ⇒ " + h.String()
		dims = append([]int64{h.n, h.m}, h.out...)
	}
	for i, n := 0, r.IntN(3); i < n; i++ {
		var what string
		y, what = b.epilogue(y, g.elem, dims)
		desc += " +" + what
	}
	b.output(y, g.elem)
	return desc
}

func drawPool(b *builder) string {
	r := b.r
	elem := floatElem(r)
	rank := pick(r, 1, 2, 2, 2, 3)
	n, c := pick[int64](r, 1, 1, 2), channels(r)
	if rank == 3 {
		c = pick[int64](r, 1, 2, 3, 4)
	}
	kind := pick(r, "MaxPool", "MaxPool", "AveragePool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool")
	var in, k, s, d, pb, pe []int64
	for i := 0; i < rank; i++ {
		e := extent(r, rank == 1)
		if rank == 3 {
			e = pick[int64](r, 1, 2, 3, 5, 8)
		}
		kk := min(pick[int64](r, 1, 2, 2, 3, 3, 5), e)
		ss := pick[int64](r, 1, 1, 2, 2, 3)
		dd := int64(1)
		if kind == "MaxPool" && chance(r, 0.2) && e >= 2*kk {
			dd = 2
		}
		var a, z int64
		if chance(r, 0.5) {
			a, z = r.Int64N(kk), r.Int64N(kk)
		}
		in, k, s, d, pb, pe = append(in, e), append(k, kk), append(s, ss), append(d, dd), append(pb, a), append(pe, z)
	}
	x := b.input(elem, append([]int64{n, c}, in...)...)
	desc := fmt.Sprintf("%s %s %dx%dx%s", kind, elemName(elem), n, c, dimsString(in))
	var y string
	if strings.HasPrefix(kind, "Global") {
		y = b.node(kind, []string{x})
	} else {
		ceil := int64(0)
		if chance(r, 0.3) {
			ceil = 1
			// ONNX: the last window must start inside the input or its
			// left padding.
			for i := range in {
				eff := (k[i]-1)*d[i] + 1
				o := (in[i]+pb[i]+pe[i]-eff+s[i]-1)/s[i] + 1
				if (o-1)*s[i] >= in[i]+pb[i] {
					ceil = 0
				}
			}
		}
		attrs := []*onnxpb.AttributeProto{attrIs("kernel_shape", k...), attrIs("strides", s...),
			attrIs("pads", append(append([]int64{}, pb...), pe...)...), attrI("ceil_mode", ceil)}
		desc += fmt.Sprintf(" k%s s%s p%s/%s ceil%d", dimsString(k), dimsString(s), dimsString(pb), dimsString(pe), ceil)
		if kind == "MaxPool" {
			attrs = append(attrs, attrIs("dilations", d...))
			desc += " d" + dimsString(d)
		} else {
			cip := int64(r.IntN(2))
			attrs = append(attrs, attrI("count_include_pad", cip))
			desc += fmt.Sprintf(" cip%d", cip)
		}
		y = b.node(kind, []string{x}, attrs...)
	}
	b.output(y, elem)
	return desc
}

func drawResize(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f64)
	n, c := pick[int64](r, 1, 2), pick[int64](r, 1, 2, 3, 16)
	h, w := extent(r, false), extent(r, true)
	x := b.input(elem, n, c, h, w)
	mode := pick(r, "nearest", "linear", "cubic")
	ctm := pick(r, "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "half_pixel_symmetric")
	attrs := []*onnxpb.AttributeProto{attrS("mode", mode), attrS("coordinate_transformation_mode", ctm)}
	desc := fmt.Sprintf("%s %dx%dx%dx%d %s %s", elemName(elem), n, c, h, w, mode, ctm)
	if mode == "nearest" {
		nm := pick(r, "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
		attrs = append(attrs, attrS("nearest_mode", nm))
		desc += " " + nm
	}
	if mode == "cubic" && chance(r, 0.5) {
		attrs = append(attrs, attrF("cubic_coeff_a", -0.5), attrI("exclude_outside", 1))
		desc += " a-0.5 excl"
	}
	var y string
	if chance(r, 0.5) {
		sh, sw := pick(r, 0.5, 1, 2, 3, 1.5, 0.75), pick(r, 0.5, 1, 2, 3, 1.5, 0.75, 0.6)
		if int64(float64(h)*sh) < 1 {
			sh = 1
		}
		if int64(float64(w)*sw) < 1 {
			sw = 1
		}
		y = b.node("Resize", []string{x, "", b.floats(f32, []int64{4}, []float64{1, 1, sh, sw})}, attrs...)
		desc += fmt.Sprintf(" scales %g,%g", sh, sw)
	} else {
		oh, ow := pick[int64](r, 1, 2, 3, 5, 7, 8, 16, 17), pick[int64](r, 1, 3, 4, 9, 16, 31, 33)
		y = b.node("Resize", []string{x, "", "", b.ints(n, c, oh, ow)}, attrs...)
		desc += fmt.Sprintf(" sizes %dx%d", oh, ow)
	}
	b.output(y, elem)
	return desc
}

// mnk draws a matrix extent: 1, primes, powers of two and their
// neighbours.
func mnk(r *rand.Rand) int64 {
	return pick[int64](r, 1, 1, 2, 3, 4, 5, 7, 8, 13, 15, 16, 17, 31, 32, 33, 47, 64, 65, 97, 128)
}

func drawMatMul(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f32, f64, f16)
	m, k, n := mnk(r), mnk(r), mnk(r)
	var ba, bb []int64
	switch r.IntN(4) {
	case 1:
		p := pick[int64](r, 1, 2, 3, 5)
		ba, bb = []int64{p}, []int64{p}
	case 2:
		p := pick[int64](r, 2, 3)
		ba = []int64{p}
		if chance(r, 0.5) {
			bb = []int64{1}
		}
	case 3:
		p, q := pick[int64](r, 1, 2), pick[int64](r, 2, 3)
		ba, bb = []int64{p, q}, []int64{1, q}
		if chance(r, 0.5) {
			ba, bb = bb, ba
		}
	}
	ta, tb := chance(r, 0.25), chance(r, 0.25)
	operand := func(batch []int64, rows, cols int64, trans, weight bool) string {
		d := append(append([]int64{}, batch...), rows, cols)
		if trans {
			d[len(d)-1], d[len(d)-2] = d[len(d)-2], d[len(d)-1]
		}
		var v string
		if weight {
			v = b.weight(elem, d...)
		} else {
			v = b.input(elem, d...)
		}
		if trans {
			perm := make([]int64, len(d))
			for i := range perm {
				perm[i] = int64(i)
			}
			perm[len(d)-1], perm[len(d)-2] = perm[len(d)-2], perm[len(d)-1]
			v = b.node("Transpose", []string{v}, attrIs("perm", perm...))
		}
		return v
	}
	wb := chance(r, 0.5)
	a := operand(ba, m, k, ta, false)
	bv := operand(bb, k, n, tb, wb)
	y := b.node("MatMul", []string{a, bv})
	desc := fmt.Sprintf("%s [%s]%dx%d · [%s]%dx%d", elemName(elem), dimsString(ba), m, k, dimsString(bb), k, n)
	if ta {
		desc += " Aᵀ"
	}
	if tb {
		desc += " Bᵀ"
	}
	if wb {
		desc += " B const"
	}
	if chance(r, 0.3) {
		y = b.node("Add", []string{y, b.weight(elem, n)})
		desc += " +bias"
	}
	b.output(y, elem)
	return desc
}

func drawGemm(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f64)
	m, k, n := mnk(r), mnk(r), mnk(r)
	ta, tb := int64(r.IntN(2)), int64(r.IntN(2))
	ad, bd := []int64{m, k}, []int64{k, n}
	if ta == 1 {
		ad = []int64{k, m}
	}
	if tb == 1 {
		bd = []int64{n, k}
	}
	ins := []string{b.input(elem, ad...), b.weight(elem, bd...)}
	cshape := pick(r, "none", "n", "mn", "1n", "m1", "scalar")
	switch cshape {
	case "n":
		ins = append(ins, b.weight(elem, n))
	case "mn":
		ins = append(ins, b.input(elem, m, n))
	case "1n":
		ins = append(ins, b.weight(elem, 1, n))
	case "m1":
		ins = append(ins, b.weight(elem, m, 1))
	case "scalar":
		ins = append(ins, b.weight(elem))
	}
	alpha, beta := pick[float32](r, 1, 1, 0.5, -2), pick[float32](r, 1, 1, 0.25)
	y := b.node("Gemm", ins, attrI("transA", ta), attrI("transB", tb), attrF("alpha", alpha), attrF("beta", beta))
	b.output(y, elem)
	return fmt.Sprintf("%s M%d K%d N%d tA%d tB%d C:%s α%g β%g", elemName(elem), m, k, n, ta, tb, cshape, alpha, beta)
}

func drawReduce(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f64, f16)
	rank := 1 + r.IntN(4)
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = pick[int64](r, 1, 2, 3, 5, 8, 16, 17, 33)
	}
	if chance(r, 0.1) {
		dims[r.IntN(rank)] = pick[int64](r, 4097, 5000, 8200)
	}
	for prod(dims) > 60000 {
		i := r.IntN(rank)
		dims[i] = (dims[i] + 1) / 2
	}
	op := pick(r, "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1")
	var axes []int64
	for i := 0; i < rank; i++ {
		if chance(r, 0.5) {
			a := int64(i)
			if chance(r, 0.3) {
				a -= int64(rank)
			}
			axes = append(axes, a)
		}
	}
	keep := int64(r.IntN(2))
	x := b.input(elem, dims...)
	ins := []string{x}
	if len(axes) > 0 {
		ins = append(ins, b.ints(axes...))
	}
	y := b.node(op, ins, attrI("keepdims", keep))
	b.output(y, elem)
	return fmt.Sprintf("%s %s %s axes%v keep%d", op, elemName(elem), dimsString(dims), axes, keep)
}

// bcastShape draws a shape that broadcasts to dims: leading axes dropped,
// some extents set to 1.
func bcastShape(r *rand.Rand, dims []int64) []int64 {
	drop := 0
	if chance(r, 0.3) {
		drop = r.IntN(len(dims) + 1)
	}
	out := append([]int64{}, dims[drop:]...)
	for i := range out {
		if chance(r, 0.3) {
			out[i] = 1
		}
	}
	return out
}

func drawElementwise(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f64, f16)
	rank := 1 + r.IntN(4)
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = pick[int64](r, 1, 2, 3, 4, 7, 16, 17, 33)
	}
	y := b.input(elem, dims...)
	var ops []string
	for i, n := 0, 2+r.IntN(4); i < n; i++ {
		op := pick(r, "Add", "Sub", "Mul", "Div", "Max", "Min", "Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Sqrt")
		if elem == f64 && (op == "Sigmoid" || op == "Tanh") {
			op = "Abs"
		}
		switch op {
		case "Relu", "Sigmoid", "Tanh", "Abs", "Neg":
			y = b.node(op, []string{y})
		case "Sqrt":
			y = b.node("Sqrt", []string{b.node("Abs", []string{y})})
		default:
			other := bcastShape(r, dims)
			var o string
			if chance(r, 0.5) {
				o = b.input(elem, other...)
			} else {
				o = b.weight(elem, other...)
			}
			if chance(r, 0.3) && op != "Div" {
				y = b.node(op, []string{o, y})
			} else {
				y = b.node(op, []string{y, o})
			}
			op += "[" + dimsString(other) + "]"
		}
		ops = append(ops, op)
	}
	b.output(y, elem)
	return fmt.Sprintf("%s %s %s", elemName(elem), dimsString(dims), strings.Join(ops, " "))
}

func drawMovement(b *builder) string {
	r := b.r
	elem := pick(r, f32, f32, f64, f16)
	rank := 1 + r.IntN(5)
	dims := make([]int64, rank)
	for i := range dims {
		dims[i] = pick[int64](r, 1, 2, 3, 4, 5, 8, 16, 17, 33)
	}
	for prod(dims) > 40000 {
		i := r.IntN(rank)
		dims[i] = (dims[i] + 1) / 2
	}
	y := b.input(elem, dims...)
	cur := append([]int64{}, dims...)
	var ops []string
	for i, n := 0, 1+r.IntN(3); i < n; i++ {
		switch pick(r, "Transpose", "Concat", "Slice", "Pad") {
		case "Transpose":
			perm := r.Perm(len(cur))
			p64 := make([]int64, len(perm))
			nd := make([]int64, len(perm))
			for j, p := range perm {
				p64[j], nd[j] = int64(p), cur[p]
			}
			y, cur = b.node("Transpose", []string{y}, attrIs("perm", p64...)), nd
			ops = append(ops, fmt.Sprintf("Transpose%v", perm))
		case "Concat":
			axis := r.IntN(len(cur))
			ins := []string{y}
			total := cur[axis]
			for j, m := 0, 1+r.IntN(2); j < m; j++ {
				od := append([]int64{}, cur...)
				od[axis] = pick[int64](r, 1, 2, 3, 16, 17)
				total += od[axis]
				ins = append(ins, b.input(elem, od...))
			}
			if chance(r, 0.3) {
				ins[0], ins[len(ins)-1] = ins[len(ins)-1], ins[0]
			}
			a := int64(axis)
			if chance(r, 0.3) {
				a -= int64(len(cur))
			}
			y = b.node("Concat", ins, attrI("axis", a))
			cur[axis] = total
			ops = append(ops, fmt.Sprintf("Concat(axis %d, %d inputs)", a, len(ins)))
		case "Slice":
			var starts, ends, axes, steps []int64
			for ax, d := range cur {
				if !chance(r, 0.6) {
					continue
				}
				st := pick[int64](r, 1, 1, 1, 2, 3, -1, -2)
				var s0, e0 int64
				var ext int64
				if st > 0 {
					s0 = r.Int64N(d)
					e0 = s0 + 1 + r.Int64N(d-s0)
					ext = (e0 - s0 + st - 1) / st
					if chance(r, 0.2) {
						e0 = 1 << 40 // clamped to the end
						ext = (d - s0 + st - 1) / st
					}
				} else {
					s0 = r.Int64N(d)
					e0 = r.Int64N(s0+1) - 1 // -1 means before the start: but -1 is the last; use a large negative
					if e0 < 0 {
						e0 = -(1 << 40)
						ext = (s0 + 1 + (-st) - 1) / (-st)
					} else {
						ext = (s0 - e0 + (-st) - 1) / (-st)
					}
				}
				if ext < 1 {
					continue
				}
				starts, ends, axes, steps = append(starts, s0), append(ends, e0), append(axes, int64(ax)), append(steps, st)
				cur[ax] = ext
			}
			if len(axes) == 0 {
				continue
			}
			y = b.node("Slice", []string{y, b.ints(starts...), b.ints(ends...), b.ints(axes...), b.ints(steps...)})
			ops = append(ops, fmt.Sprintf("Slice(starts %v ends %v axes %v steps %v)", starts, ends, axes, steps))
		case "Pad":
			mode := pick(r, "constant", "constant", "reflect", "edge")
			pads := make([]int64, 2*len(cur))
			for ax, d := range cur {
				for side := 0; side < 2; side++ {
					if !chance(r, 0.5) {
						continue
					}
					p := pick[int64](r, 1, 2, 3)
					if mode == "reflect" {
						p = min(p, d-1)
					}
					if mode == "constant" && chance(r, 0.2) && d > 1 {
						p = -1 // a crop
					}
					pads[side*len(cur)+ax] = p
				}
			}
			for ax := range cur {
				if cur[ax]+pads[ax]+pads[len(cur)+ax] < 1 {
					pads[ax], pads[len(cur)+ax] = 0, 0
				}
				cur[ax] += pads[ax] + pads[len(cur)+ax]
			}
			ins := []string{y, b.ints(pads...)}
			if mode == "constant" {
				ins = append(ins, b.floats(elem, nil, []float64{0.75}))
			}
			y = b.node("Pad", ins, attrS("mode", mode))
			ops = append(ops, fmt.Sprintf("Pad(%s %v)", mode, pads))
		}
	}
	if len(ops) == 0 {
		y = b.node("Neg", []string{y})
		ops = append(ops, "Neg")
	}
	b.output(y, elem)
	return fmt.Sprintf("%s %s %s", elemName(elem), dimsString(dims), strings.Join(ops, " "))
}
