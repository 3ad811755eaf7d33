package emit

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// This file holds niro's own f32 exp, log, tanh and erf: range reduction
// and polynomials built from separately rounded arith multiplies, adds and
// divides (no fast-math flags, so nothing contracts into an FMA), integer
// bit operations on the f32 bits, compares and selects. Every lane of a
// vector computes the same operations, so the element-wise loops
// vectorize (MLIR 22 lowers math.exp on a vector to one scalar libm call
// per lane) and the results have the same bits on every target. Each
// function is written once against [mathOps]: the emitter writes it as
// MLIR (mlirOps) and [EvalMathPoly] evaluates it in Go with the same
// roundings, which is what TestMathPolyULP measures against a correctly
// rounded reference (docs/ops.md has the table). The coefficients come
// from scripts/mathfit.

// Math selects how the transcendental functions exp, log, tanh and erf are
// computed on f32 (and on f16 and bf16, which compute in f32).
const (
	// MathPoly is niro's own polynomials (the default).
	MathPoly = "poly"
	// MathLibm is the math dialect: LLVM intrinsics and libm calls, one
	// scalar call per element.
	MathLibm = "libm"
)

// polyKind reports whether niro computes k on f32 with its own polynomial.
func polyKind(k niro.UnaryKind) bool {
	switch k {
	case niro.Exp, niro.Log, niro.Tanh, niro.Erf:
		return true
	}
	return false
}

// mathOps is what the functions are built from. Floats are f32, integers
// i32 and conditions i1; V names a value.
type mathOps[V any] interface {
	f(c float32) V // f32 constant
	i(c int32) V   // i32 constant
	add(a, b V) V
	sub(a, b V) V
	mul(a, b V) V
	div(a, b V) V
	maximum(a, b V) V // NaN-propagating
	minimum(a, b V) V // NaN-propagating
	abs(a V) V
	bits(a V) V  // f32 -> i32 bitcast
	float(a V) V // i32 -> f32 bitcast
	itof(a V) V  // i32 -> f32 conversion (sitofp)
	iadd(a, b V) V
	isub(a, b V) V
	and(a, b V) V
	or(a, b V) V
	shl(a V, n int32) V
	ashr(a V, n int32) V
	lshr(a V, n int32) V
	lt(a, b V) V // ordered a < b
	eq(a, b V) V // ordered a == b
	nan(a V) V   // a is NaN
	fsel(c, a, b V) V
	isel(c, a, b V) V
}

// horner evaluates c[0] + v·(c[1] + v·(...)).
func horner[V any](o mathOps[V], v V, c ...float32) V {
	p := o.f(c[len(c)-1])
	for j := len(c) - 2; j >= 0; j-- {
		p = o.add(o.mul(p, v), o.f(c[j]))
	}
	return p
}

// copySign gives r the sign bit of x.
func copySign[V any](o mathOps[V], r, x V) V {
	return o.float(o.or(o.bits(r), o.and(o.bits(x), o.i(math.MinInt32))))
}

// polyExp computes e^x: k = round(x·log2 e), r = x − k·ln2 (Cody–Waite,
// the high part of ln2 has 16 bits so k·ln2hi is exact), e^r = 1 + r +
// r²·P(r) on |r| ≤ ln2/2, scaled by 2^k as two exact powers of two so
// that overflow gives +inf and underflow rounds once into the denormals.
// x is clamped to [−104, 89] first (beyond, e^x rounds to 0 or +inf);
// NaN propagates.
func polyExp[V any](o mathOps[V], x V) V {
	x = o.minimum(o.maximum(x, o.f(-104)), o.f(89))
	const magic = 0x1.8p23 // adding it rounds to an integer
	t := o.add(o.mul(x, o.f(math.Log2E)), o.f(magic))
	kf := o.sub(t, o.f(magic))
	k := o.isub(o.bits(t), o.bits(o.f(magic)))
	r := o.sub(x, o.mul(kf, o.f(0x1.62e4p-1))) // ln2hi = 0.693145751953125
	r = o.sub(r, o.mul(kf, o.f(float32(math.Ln2-0x1.62e4p-1))))
	p := horner(o, r, 0.5, 0.166666657, 0.0416662954, 0.00833349675, 0.00139446568, 0.000197903442)
	y := o.add(o.add(o.mul(p, o.mul(r, r)), r), o.f(1))
	k1 := o.ashr(k, 1)
	k2 := o.isub(k, k1)
	s1 := o.float(o.shl(o.iadd(k1, o.i(127)), 23))
	s2 := o.float(o.shl(o.iadd(k2, o.i(127)), 23))
	return o.mul(o.mul(y, s1), s2)
}

// polyLog computes log x: x = m·2^e with m in [√½, √2) (denormals scaled
// by 2^23 first), f = m − 1 exactly, log(1+f) = f − f²/2 + f³·P(f), plus
// e·ln2 in two parts (the high part has 9 bits, so e·ln2hi is exact).
// log(±0) = −inf, log(x < 0) = NaN, log(+inf) = +inf; NaN propagates.
func polyLog[V any](o mathOps[V], x V) V {
	den := o.lt(x, o.f(0x1p-126))
	xs := o.fsel(den, o.mul(x, o.f(0x1p23)), x)
	b := o.bits(xs)
	e := o.isub(o.lshr(b, 23), o.isel(den, o.i(126+23), o.i(126)))
	m := o.float(o.or(o.and(b, o.i(0x007fffff)), o.i(0x3f000000))) // [0.5, 1)
	small := o.lt(m, o.f(math.Sqrt2/2))
	e = o.isub(e, o.isel(small, o.i(1), o.i(0)))
	m = o.fsel(small, o.add(m, m), m)
	f := o.sub(m, o.f(1))
	z := o.mul(f, f)
	p := horner(o, f, 0.333333135, -0.250000089, 0.200021192, -0.166679963, 0.142195523, -0.124055892, 0.11888162, -0.116756521, 0.067466408)
	ef := o.itof(e)
	y := o.mul(o.mul(p, z), f)
	y = o.add(y, o.mul(ef, o.f(float32(math.Ln2-0x1.63p-1))))
	y = o.sub(y, o.mul(z, o.f(0.5)))
	r := o.add(f, y)
	r = o.add(r, o.mul(ef, o.f(0x1.63p-1))) // ln2hi = 0.693359375
	r = o.fsel(o.eq(x, o.f(float32(math.Inf(1)))), x, r)
	r = o.fsel(o.lt(x, o.f(0)), o.float(o.i(0x7fc00000)), r)
	r = o.fsel(o.eq(x, o.f(0)), o.f(float32(math.Inf(-1))), r)
	return o.fsel(o.nan(x), x, r)
}

// polyTanh computes tanh x on a = |x| and copies x's sign: a + a³·P(a²)
// for a < 0.625, else 1 − 2/(e^{2a} + 1), with a clamped to 10 (where
// tanh rounds to 1). −0 and NaN keep their sign.
func polyTanh[V any](o mathOps[V], x V) V {
	a := o.minimum(o.abs(x), o.f(10))
	z := o.mul(a, a)
	p := horner(o, z, -0.333332807, 0.133314416, -0.0537397154, 0.020639088, -0.00570498733)
	small := o.add(o.mul(o.mul(p, z), a), a)
	e := polyExp(o, o.add(a, a))
	big := o.sub(o.f(1), o.div(o.f(2), o.add(e, o.f(1))))
	return copySign(o, o.fsel(o.lt(a, o.f(0.625)), small, big), x)
}

// polyErf computes erf x on a = |x| and copies x's sign: a + a·R(a²) for
// a < 0.875, else 1 − e^{−a² + U(a − 2.4375)} (U fits log erfc(a) + a²)
// with a clamped to 4 (where erf rounds to 1).
func polyErf[V any](o mathOps[V], x V) V {
	a := o.minimum(o.abs(x), o.f(4))
	s := o.mul(a, a)
	r := horner(o, s, 0.128379166, -0.376126349, 0.11283733, -0.0268615857, 0.00520674791, -0.000821110909, 8.67541166e-05)
	small := o.add(o.mul(a, r), a)
	u := horner(o, o.sub(a, o.f(2.4375)), -1.53455091, -0.359823257, 0.0581942499, -0.011417672, 0.00229669502,
		-0.000455238274, 8.54823375e-05, -6.17002888e-06, 7.04758486e-06, 1.20457878e-06)
	big := o.sub(o.f(1), polyExp(o, o.sub(u, s)))
	return copySign(o, o.fsel(o.lt(a, o.f(0.875)), small, big), x)
}

// polyF32 builds k(x) with o.
func polyF32[V any](o mathOps[V], k niro.UnaryKind, x V) V {
	switch k {
	case niro.Exp:
		return polyExp(o, x)
	case niro.Log:
		return polyLog(o, x)
	case niro.Tanh:
		return polyTanh(o, x)
	default:
		return polyErf(o, x)
	}
}

// EvalMathPoly evaluates niro's polynomial for k (exp, log, tanh or erf) on
// one f32 with exactly the roundings of the emitted code. ok is false for
// other kinds.
func EvalMathPoly(k niro.UnaryKind, x float32) (y float32, ok bool) {
	if !polyKind(k) {
		return 0, false
	}
	return math.Float32frombits(polyF32[uint32](goOps{}, k, math.Float32bits(x))), true
}

// goOps evaluates mathOps on bit patterns: f32 and i32 as their 32 bits,
// i1 as 0 or 1. Every float result goes through an explicit float32
// conversion, which Go rounds and never fuses.
type goOps struct{}

func fl(a uint32) float32 { return math.Float32frombits(a) }
func bt(a float32) uint32 { return math.Float32bits(a) }
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
func isNaN32(a float32) bool { return a != a }

func (goOps) f(c float32) uint32      { return bt(c) }
func (goOps) i(c int32) uint32        { return uint32(c) }
func (goOps) add(a, b uint32) uint32  { return bt(float32(fl(a) + fl(b))) }
func (goOps) sub(a, b uint32) uint32  { return bt(float32(fl(a) - fl(b))) }
func (goOps) mul(a, b uint32) uint32  { return bt(float32(fl(a) * fl(b))) }
func (goOps) div(a, b uint32) uint32  { return bt(float32(fl(a) / fl(b))) }
func (goOps) abs(a uint32) uint32     { return a &^ (1 << 31) }
func (goOps) bits(a uint32) uint32    { return a }
func (goOps) float(a uint32) uint32   { return a }
func (goOps) itof(a uint32) uint32    { return bt(float32(int32(a))) }
func (goOps) iadd(a, b uint32) uint32 { return a + b }
func (goOps) isub(a, b uint32) uint32 { return a - b }
func (goOps) and(a, b uint32) uint32  { return a & b }
func (goOps) or(a, b uint32) uint32   { return a | b }
func (goOps) shl(a uint32, n int32) uint32 {
	return a << n
}
func (goOps) ashr(a uint32, n int32) uint32 { return uint32(int32(a) >> n) }
func (goOps) lshr(a uint32, n int32) uint32 { return a >> n }
func (goOps) lt(a, b uint32) uint32         { return b2u(fl(a) < fl(b)) }
func (goOps) eq(a, b uint32) uint32         { return b2u(fl(a) == fl(b)) }
func (goOps) nan(a uint32) uint32           { return b2u(isNaN32(fl(a))) }
func (goOps) fsel(c, a, b uint32) uint32 {
	if c != 0 {
		return a
	}
	return b
}
func (o goOps) isel(c, a, b uint32) uint32 { return o.fsel(c, a, b) }

// maximum and minimum propagate NaN and order −0 below +0, as
// arith.maximumf and arith.minimumf do.
func (goOps) maximum(a, b uint32) uint32 {
	x, y := fl(a), fl(b)
	switch {
	case isNaN32(x):
		return a
	case isNaN32(y):
		return b
	case x > y || (x == y && a&(1<<31) == 0):
		return a
	}
	return b
}

func (goOps) minimum(a, b uint32) uint32 {
	x, y := fl(a), fl(b)
	switch {
	case isNaN32(x):
		return a
	case isNaN32(y):
		return b
	case x < y || (x == y && a&(1<<31) != 0):
		return a
	}
	return b
}

// mlirOps writes mathOps as arith and math ops into the function body.
type mlirOps struct{ fe *funcEmitter }

func (o mlirOps) op(format string, args ...any) string {
	r := o.fe.tmp()
	o.fe.line("%s = "+format, append([]any{r}, args...)...)
	return r
}
func (o mlirOps) f(c float32) string      { return o.fe.scalarConst(niro.F32, float64(c)) }
func (o mlirOps) i(c int32) string        { return o.fe.scalarConst(niro.I32, float64(c)) }
func (o mlirOps) add(a, b string) string  { return o.op("arith.addf %s, %s : f32", a, b) }
func (o mlirOps) sub(a, b string) string  { return o.op("arith.subf %s, %s : f32", a, b) }
func (o mlirOps) mul(a, b string) string  { return o.op("arith.mulf %s, %s : f32", a, b) }
func (o mlirOps) div(a, b string) string  { return o.op("arith.divf %s, %s : f32", a, b) }
func (o mlirOps) abs(a string) string     { return o.op("math.absf %s : f32", a) }
func (o mlirOps) bits(a string) string    { return o.op("arith.bitcast %s : f32 to i32", a) }
func (o mlirOps) float(a string) string   { return o.op("arith.bitcast %s : i32 to f32", a) }
func (o mlirOps) itof(a string) string    { return o.op("arith.sitofp %s : i32 to f32", a) }
func (o mlirOps) iadd(a, b string) string { return o.op("arith.addi %s, %s : i32", a, b) }
func (o mlirOps) isub(a, b string) string { return o.op("arith.subi %s, %s : i32", a, b) }
func (o mlirOps) and(a, b string) string  { return o.op("arith.andi %s, %s : i32", a, b) }
func (o mlirOps) or(a, b string) string   { return o.op("arith.ori %s, %s : i32", a, b) }
func (o mlirOps) shl(a string, n int32) string {
	return o.op("arith.shli %s, %s : i32", a, o.i(n))
}
func (o mlirOps) ashr(a string, n int32) string {
	return o.op("arith.shrsi %s, %s : i32", a, o.i(n))
}
func (o mlirOps) lshr(a string, n int32) string {
	return o.op("arith.shrui %s, %s : i32", a, o.i(n))
}
func (o mlirOps) maximum(a, b string) string { return o.op("arith.maximumf %s, %s : f32", a, b) }
func (o mlirOps) minimum(a, b string) string { return o.op("arith.minimumf %s, %s : f32", a, b) }
func (o mlirOps) lt(a, b string) string      { return o.op("arith.cmpf olt, %s, %s : f32", a, b) }
func (o mlirOps) eq(a, b string) string      { return o.op("arith.cmpf oeq, %s, %s : f32", a, b) }
func (o mlirOps) nan(a string) string        { return o.op("arith.cmpf uno, %s, %s : f32", a, a) }
func (o mlirOps) fsel(c, a, b string) string {
	return o.op("arith.select %s, %s, %s : f32", c, a, b)
}
func (o mlirOps) isel(c, a, b string) string {
	return o.op("arith.select %s, %s, %s : i32", c, a, b)
}

// mathPoly reports whether k on e is computed with niro's polynomial.
func (fe *funcEmitter) mathPoly(k niro.UnaryKind, e niro.ScalarType) bool {
	return e == niro.F32 && polyKind(k) && fe.e.opts.Math != MathLibm
}
