package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// The random ops: RandomUniform, RandomNormal, their Like forms,
// Bernoulli and Multinomial. They draw from niro's own seeded generator,
// built from Niro ops (iota, integer add, mul, xor, shr and casts) so the
// compiled code computes every random number itself and the same model,
// seed and shape always give the same values. docs/ops.md ("Random ops")
// specifies the generator bit for bit:
//
//	key   = the IEEE-754 bits of the seed attribute as a double (0 when absent)
//	z     = key + (c + 1)·γ (mod 2⁶⁴), γ = 0x9E3779B97F4A7C15
//	z     = (z ^ z>>30)·0xBF58476D1CE4E5B9
//	z     = (z ^ z>>27)·0x94D049BB133111EB
//	bits  = z ^ z>>31
//
// which is output c of SplitMix64 started at key: a counter-based stream,
// c being the element's row-major index times the draws per element plus
// the draw. A uniform in [0, 1) is (bits>>40)·2⁻²⁴ in f32 (f32, f16 and
// bf16 results) or (bits>>11)·2⁻⁵³ in f64.

// SplitMix64's constants.
const (
	rngGamma uint64 = 0x9E3779B97F4A7C15
	rngMul1  uint64 = 0xBF58476D1CE4E5B9
	rngMul2  uint64 = 0x94D049BB133111EB
)

// rngKey returns the generator's key for the node's seed attribute (a
// float, or an integer for Dropout): the bits of its value as a double.
func (nc *nodeCtx) rngKey() uint64 {
	if a := nc.attr("seed"); a != nil {
		if a.Type == onnxpb.AttributeProto_INT {
			return math.Float64bits(float64(a.Int))
		}
		return math.Float64bits(float64(a.Float))
	}
	return 0
}

// u64 returns a rank-0 ui64 constant.
func (nc *nodeCtx) u64(v uint64) niro.Value {
	return nc.constInts(niro.U64, []int64{}, []int64{int64(v)})
}

// randomBits returns the generator's 64-bit outputs for the elements of
// shape dims, draw j of per draws each: counter c = i·per + j for the
// element of row-major index i.
func (nc *nodeCtx) randomBits(key uint64, dims []int64, per, j int64) niro.Value {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	c := nc.iota(niro.U64, []int64{n}, 0)
	if per != 1 {
		c = nc.bin(niro.Mul, c, nc.u64(uint64(per)))
	}
	c = nc.bin(niro.Add, c, nc.u64(uint64(j)+1))
	z := nc.bin(niro.Add, nc.bin(niro.Mul, c, nc.u64(rngGamma)), nc.u64(key))
	mix := func(z niro.Value, shift, mul uint64) niro.Value {
		x := nc.bin(niro.Xor, z, nc.bin(niro.Shr, z, nc.u64(shift)))
		if mul == 0 {
			return x
		}
		return nc.bin(niro.Mul, x, nc.u64(mul))
	}
	z = mix(z, 30, rngMul1)
	z = mix(z, 27, rngMul2)
	z = mix(z, 31, 0)
	return nc.reshape(z, dims)
}

// computeType is the float type random values of element type e are
// computed in: f64 for f64, f32 otherwise.
func computeType(e niro.ScalarType) niro.ScalarType {
	if e == niro.F64 {
		return niro.F64
	}
	return niro.F32
}

// randomUniform01 returns uniforms in [0, 1) of float type f (f32 or f64)
// for shape dims, draw j of per.
func (nc *nodeCtx) randomUniform01(f niro.ScalarType, key uint64, dims []int64, per, j int64) niro.Value {
	z := nc.randomBits(key, dims, per, j)
	if f == niro.F64 {
		u := nc.cast(nc.bin(niro.Shr, z, nc.u64(11)), niro.F64)
		return nc.bin(niro.Mul, u, nc.scalar(niro.F64, 0x1p-53))
	}
	u := nc.cast(nc.bin(niro.Shr, z, nc.u64(40)), niro.F32)
	return nc.bin(niro.Mul, u, nc.scalar(niro.F32, 0x1p-24))
}

// randomValues returns the values of RandomUniform or RandomNormal (and
// their Like forms) of element type e and shape dims.
func (nc *nodeCtx) randomValues(normal bool, e niro.ScalarType, dims []int64) niro.Value {
	if !e.IsFloat() {
		nc.fail("dtype must be a float type, is %s", e)
		return niro.Value{}
	}
	f := computeType(e)
	key := nc.rngKey()
	var y niro.Value
	if normal {
		// Box–Muller: r = sqrt(−2·log(1 − u1)), θ = 2π·u2, r·cos(θ).
		u1 := nc.randomUniform01(f, key, dims, 2, 0)
		u2 := nc.randomUniform01(f, key, dims, 2, 1)
		one := nc.scalar(f, 1)
		r := nc.un(niro.Sqrt, nc.bin(niro.Mul, nc.scalar(f, -2), nc.un(niro.Log, nc.bin(niro.Sub, one, u1))))
		theta := nc.bin(niro.Mul, u2, nc.scalar(f, 2*math.Pi))
		y = nc.bin(niro.Mul, r, nc.un(niro.Cos, theta))
		y = nc.bin(niro.Add, nc.bin(niro.Mul, y, nc.scalar(f, nc.attrFloat("scale", 1))), nc.scalar(f, nc.attrFloat("mean", 0)))
	} else {
		lo, hi := nc.attrFloat("low", 0), nc.attrFloat("high", 1)
		u := nc.randomUniform01(f, key, dims, 1, 0)
		y = nc.bin(niro.Add, nc.bin(niro.Mul, u, nc.scalar(f, hi-lo)), nc.scalar(f, lo))
	}
	if e != f {
		y = nc.cast(y, e)
	}
	return y
}

// randomConv maps RandomUniform (normal false) or RandomNormal: the shape
// attribute fixes the output's shape, dtype (default f32) its type.
func randomConv(normal bool) func(*nodeCtx) error {
	return func(nc *nodeCtx) error {
		dims, ok := nc.attrInts("shape")
		if !ok {
			return nc.errorf("attribute shape is required")
		}
		for _, d := range dims {
			if d < 0 {
				return nc.errorf("shape %v has a negative extent", dims)
			}
		}
		e, err := nc.dtypeAttr("dtype", niro.F32)
		if err != nil {
			return err
		}
		nc.out(0, nc.randomValues(normal, e, append([]int64{}, dims...)))
		return nil
	}
}

// randomLikeConv maps RandomUniformLike or RandomNormalLike: the input
// gives the shape and, without dtype, the element type.
func randomLikeConv(normal bool) func(*nodeCtx) error {
	return func(nc *nodeCtx) error {
		x := nc.in(0)
		dims, ok := nc.staticDims(x)
		if !ok {
			return nc.err
		}
		e, err := nc.dtypeAttr("dtype", elem(x))
		if err != nil {
			return err
		}
		nc.out(0, nc.randomValues(normal, e, dims))
		return nil
	}
}

// bernoulliConv maps Bernoulli: 1 where a uniform u in [0, 1) is below
// the input's probability p (so P(1) = p, as the reference's binomial
// draw), cast to dtype (default: the input's type).
func bernoulliConv(nc *nodeCtx) error {
	p := nc.in(0)
	nc.requireFloat(p)
	dims, ok := nc.staticDims(p)
	if !ok || nc.err != nil {
		return nc.err
	}
	e, err := nc.dtypeAttr("dtype", elem(p))
	if err != nil {
		return err
	}
	f := computeType(elem(p))
	u := nc.randomUniform01(f, nc.rngKey(), dims, 1, 0)
	if elem(p) != f {
		p = nc.cast(p, f)
	}
	nc.out(0, nc.cast(nc.cmp(niro.Lt, u, p), e))
	return nil
}

// multinomialConv maps Multinomial: per batch row, sample_size draws from
// the classes with probabilities softmax(input). The running sums of
// exp(x − max) (in order) form the CDF; draw s picks the number of CDF
// entries at most u·total (u uniform in [0, 1)), the first class whose
// running sum exceeds u·total, capped at class_size − 1.
func multinomialConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	if len(dims) != 2 {
		return nc.errorf("input must have rank 2 [batch_size, class_size], has shape %v", dims)
	}
	b, c := dims[0], dims[1]
	if c == 0 {
		return nc.errorf("class_size is 0: there is no outcome to draw")
	}
	s := nc.attrInt("sample_size", 1)
	if s < 0 {
		return nc.errorf("sample_size %d is negative", s)
	}
	e, err := nc.dtypeAttr("dtype", niro.I32)
	if err != nil {
		return err
	}
	if e != niro.I32 && e != niro.I64 {
		return nc.errorf("dtype must be int32 or int64, is %s", e)
	}
	f := computeType(elem(x))
	if elem(x) != f {
		x = nc.cast(x, f)
	}
	m := nc.reduce(niro.ReduceMax, x, []int{1}, true)
	w := nc.un(niro.Exp, nc.bin(niro.Sub, x, m))
	cdf := nc.op(&niro.CumSum{Axis: 1, X: w})
	total := nc.sliceRange(cdf, dims, []int64{0, c - 1}, []int64{1, 1}, []int64{b, 1})
	u := nc.randomUniform01(f, nc.rngKey(), []int64{b, s}, 1, 0)
	t := nc.reshape(nc.bin(niro.Mul, u, total), []int64{b, s, 1})
	below := nc.cast(nc.cmp(niro.Le, nc.reshape(cdf, []int64{b, 1, c}), t), niro.I64)
	idx := nc.reduce(niro.ReduceSum, below, []int{2}, false)
	idx = nc.bin(niro.Min, idx, nc.constInts(niro.I64, []int64{}, []int64{c - 1}))
	nc.out(0, nc.cast(idx, e))
	return nil
}

// dropoutTraining maps Dropout in training mode with a nonzero ratio:
// keep = u ≥ ratio (u a uniform of x's compute type, so an element is
// kept with probability 1 − ratio), y = (cast(keep)·x)·scale in x's type,
// the reference's mask·X·scale, with scale = 1/(1 − ratio) (computed in
// f64 and rounded to x's type when the ratio is known, in the compute type
// otherwise), and the mask output keep.
func dropoutTraining(nc *nodeCtx, x niro.Value, ratio float64, known bool) error {
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if !ok || nc.err != nil {
		return nc.err
	}
	e := elem(x)
	f := computeType(e)
	var r, scale niro.Value
	if known {
		r, scale = nc.scalar(f, ratio), nc.scalar(e, 1/(1-ratio))
	} else {
		if !nc.oneElem(1) {
			return nc.err
		}
		nc.requireFloat(nc.in(1))
		r = nc.rank0(nc.in(1))
		if elem(r) != f {
			r = nc.cast(r, f)
		}
		one := nc.scalar(f, 1)
		scale = nc.bin(niro.Div, one, nc.bin(niro.Sub, one, r))
		if f != e {
			scale = nc.cast(scale, e)
		}
	}
	keep := nc.cmp(niro.Ge, nc.randomUniform01(f, nc.rngKey(), dims, 1, 0), r)
	nc.out(0, nc.bin(niro.Mul, nc.bin(niro.Mul, nc.cast(keep, e), x), scale))
	if len(nc.n.Outputs) > 1 && nc.n.Outputs[1] != nil {
		nc.out(1, keep)
	}
	return nil
}

func init() {
	one := [2]int{1, 1}
	none := [2]int{0, 0}
	gen := func(normal bool) []opSpec {
		attrs := []string{"low", "high", "seed", "dtype", "shape"}
		if normal {
			attrs = []string{"mean", "scale", "seed", "dtype", "shape"}
		}
		return []opSpec{
			{Since: 1, In: none, Out: one, Attrs: attrs, Convert: randomConv(normal)},
			{Since: 22, In: none, Out: one, Attrs: attrs, Convert: randomConv(normal)},
		}
	}
	like := func(normal bool) []opSpec {
		attrs := []string{"low", "high", "seed", "dtype"}
		if normal {
			attrs = []string{"mean", "scale", "seed", "dtype"}
		}
		return []opSpec{
			{Since: 1, In: one, Out: one, Attrs: attrs, Convert: randomLikeConv(normal)},
			{Since: 22, In: one, Out: one, Attrs: attrs, Convert: randomLikeConv(normal)},
		}
	}
	register("RandomUniform", gen(false)...)
	register("RandomNormal", gen(true)...)
	register("RandomUniformLike", like(false)...)
	register("RandomNormalLike", like(true)...)
	register("Bernoulli",
		opSpec{Since: 15, In: one, Out: one, Attrs: []string{"seed", "dtype"}, Convert: bernoulliConv},
		opSpec{Since: 22, In: one, Out: one, Attrs: []string{"seed", "dtype"}, Convert: bernoulliConv})
	register("Multinomial",
		opSpec{Since: 7, In: one, Out: one, Attrs: []string{"sample_size", "seed", "dtype"}, Convert: multinomialConv},
		opSpec{Since: 22, In: one, Out: one, Attrs: []string{"sample_size", "seed", "dtype"}, Convert: multinomialConv})
}
