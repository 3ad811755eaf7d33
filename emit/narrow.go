package emit

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// The 8-bit floats (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ) have MLIR
// types but no LLVM lowering of their conversions, so niro stores them as
// i8 (their bit patterns) and converts them with integer and float
// operations of its own, here. Cast is the only op that computes on them;
// data movement treats them as bytes.
//
// Decoding is exact: sign, exponent field and mantissa give
// ±mantissa·2^exponent, built as an f32 from an integer and a power of two.
//
// Encoding rounds to nearest, ties to even, in one step: with e the
// exponent of |x| (at least the format's smallest normal exponent), the
// quantum q = 2^(e − M) is a power of two, so |x|/q is exact,
// math.roundeven rounds it once, and ·q is exact again. The rounded
// magnitude r is then a value of the format (or one past its largest), and
// its code is read off r's own bits. A magnitude beyond the largest finite
// value (infinity included) saturates to ±max, or, with no_saturate,
// becomes ±infinity where the format has one (f8E5M2) and NaN elsewhere. NaN
// becomes NaN. The FNUZ formats have no −0: a zero result is +0.

// miniFormat describes one 8-bit float format.
type miniFormat struct {
	man      int   // mantissa bits
	bias     int   // exponent bias
	max      int64 // code of the largest finite magnitude
	nan      int64 // code of NaN (the sign bit is or-ed in unless uz)
	inf      int64 // code of +infinity, or -1 when the format has none
	uz       bool  // no negative zero; 0x80 is the one NaN
	maxValue float64
}

var miniFormats = map[niro.ScalarType]miniFormat{
	niro.F8E4M3FN:   {man: 3, bias: 7, max: 0x7E, nan: 0x7F, inf: -1, maxValue: 448},
	niro.F8E4M3FNUZ: {man: 3, bias: 8, max: 0x7F, nan: 0x80, inf: -1, uz: true, maxValue: 240},
	niro.F8E5M2:     {man: 2, bias: 15, max: 0x7B, nan: 0x7F, inf: 0x7C, maxValue: 57344},
	niro.F8E5M2FNUZ: {man: 2, bias: 16, max: 0x7F, nan: 0x80, inf: -1, uz: true, maxValue: 57344},
}

// isMini reports whether s is an 8-bit float niro converts itself.
func isMini(s niro.ScalarType) bool {
	_, ok := miniFormats[s]
	return ok
}

// wideFloat describes the float a conversion to or from a minifloat runs
// in: f32, or f64 for f64 and for integers wider than 16 bits (which f32
// would round before the minifloat rounds again).
type wideFloat struct {
	name     string // f32 or f64
	ints     string // i32 or i64
	bits     int
	mantBits int
	bias     int
}

var (
	wideF32 = wideFloat{"f32", "i32", 32, 23, 127}
	wideF64 = wideFloat{"f64", "i64", 64, 52, 1023}
)

// castMini converts a between from and to, at least one of them an 8-bit
// float.
func (fe *funcEmitter) castMini(from, to niro.ScalarType, a string, noSaturate bool) (string, error) {
	if isMini(from) {
		f := fe.decodeMini(miniFormats[from], a)
		if isMini(to) {
			return fe.encodeMini(miniFormats[to], wideF32, f, noSaturate), nil
		}
		return fe.castScalar(niro.F32, to, f)
	}
	w, wt := wideF32, niro.F32
	if from == niro.F64 || (from.IsInt() && from.Bits() > 16) {
		w, wt = wideF64, niro.F64
	}
	x, err := fe.castScalar(from, wt, a)
	if err != nil {
		return "", err
	}
	return fe.encodeMini(miniFormats[to], w, x, noSaturate), nil
}

// iconst writes an integer constant of MLIR type t.
func (fe *funcEmitter) iconst(t string, v int64) string {
	c := fe.tmp()
	fe.line("%s = arith.constant %d : %s", c, v, t)
	return c
}

// pow2 returns 2^e as a float of w, for an exponent e (an integer of w's
// width) within w's normal range.
func (fe *funcEmitter) pow2(w wideFloat, e string) string {
	b, s, r := fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.addi %s, %s : %s", b, e, fe.iconst(w.ints, int64(w.bias)), w.ints)
	fe.line("%s = arith.shli %s, %s : %s", s, b, fe.iconst(w.ints, int64(w.mantBits)), w.ints)
	fe.line("%s = arith.bitcast %s : %s to %s", r, s, w.ints, w.name)
	return r
}

// exponentOf returns the unbiased exponent field of the float x of w (as
// an integer of w's width): floor(log2 |x|) for a normal x, −bias for zero
// and subnormals.
func (fe *funcEmitter) exponentOf(w wideFloat, x string) string {
	b, sh, m, e := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.bitcast %s : %s to %s", b, x, w.name, w.ints)
	fe.line("%s = arith.shrui %s, %s : %s", sh, b, fe.iconst(w.ints, int64(w.mantBits)), w.ints)
	fe.line("%s = arith.andi %s, %s : %s", m, sh, fe.iconst(w.ints, int64(1)<<(w.bits-w.mantBits-1)-1), w.ints)
	fe.line("%s = arith.subi %s, %s : %s", e, m, fe.iconst(w.ints, int64(w.bias)), w.ints)
	return e
}

// encodeMini rounds the float x of w to the format f and returns its code
// as an i8.
func (fe *funcEmitter) encodeMini(f miniFormat, w wideFloat, x string, noSaturate bool) string {
	emin := int64(1 - f.bias)
	M := int64(f.man)
	t, it := w.name, w.ints
	line := func(format string, args ...any) string {
		r := fe.tmp()
		fe.line("%s = "+format, append([]any{r}, args...)...)
		return r
	}
	ax := line("math.absf %s : %s", x, t)
	// The quantum at |x|'s exponent (at least emin), and the rounding.
	e := fe.exponentOf(w, ax)
	e = line("arith.maxsi %s, %s : %s", e, fe.iconst(it, emin), it)
	q := fe.pow2(w, line("arith.subi %s, %s : %s", e, fe.iconst(it, M), it))
	n := line("arith.divf %s, %s : %s", ax, q, t)
	n = line("math.roundeven %s : %s", n, t)
	r := line("arith.mulf %s, %s : %s", n, q, t)
	// The code of r: a normal one from r's exponent and top mantissa bits,
	// a subnormal one (or zero) as the count of quanta 2^(emin − M).
	re := fe.exponentOf(w, r)
	rb := line("arith.bitcast %s : %s to %s", r, t, it)
	field := line("arith.addi %s, %s : %s", re, fe.iconst(it, int64(f.bias)), it)
	field = line("arith.shli %s, %s : %s", field, fe.iconst(it, M), it)
	mant := line("arith.shrui %s, %s : %s", rb, fe.iconst(it, int64(w.mantBits)-M), it)
	mant = line("arith.andi %s, %s : %s", mant, fe.iconst(it, 1<<M-1), it)
	normal := line("arith.ori %s, %s : %s", field, mant, it)
	subScale := fe.pow2(w, fe.iconst(it, M-emin))
	sub := line("arith.mulf %s, %s : %s", r, subScale, t)
	sub = line("arith.fptoui %s : %s to %s", sub, t, it)
	isSub := line("arith.cmpi slt, %s, %s : %s", re, fe.iconst(it, emin), it)
	code := line("arith.select %s, %s, %s : %s", isSub, sub, normal, it)
	code = line("arith.trunci %s : %s to i8", code, it)
	// Overflow (infinity included) and NaN.
	over := line("arith.cmpf ogt, %s, %s : %s", r, fe.scalarConstF(t, f.maxValue), t)
	overCode := f.max
	if noSaturate {
		overCode = f.nan
		if f.inf >= 0 {
			overCode = f.inf
		}
	}
	code = line("arith.select %s, %s, %s : i8", over, fe.iconst("i8", int64(int8(uint8(overCode)))), code)
	isNaN := line("arith.cmpf uno, %s, %s : %s", x, x, t)
	code = line("arith.select %s, %s, %s : i8", isNaN, fe.iconst("i8", int64(int8(uint8(f.nan)))), code)
	// The sign: x's sign bit, except on an FNUZ zero or NaN.
	xb := line("arith.bitcast %s : %s to %s", x, t, it)
	sign := line("arith.shrui %s, %s : %s", xb, fe.iconst(it, int64(w.bits-8)), it)
	sign = line("arith.trunci %s : %s to i8", sign, it)
	sign = line("arith.andi %s, %s : i8", sign, fe.iconst("i8", -128))
	if f.uz {
		zero := line("arith.cmpi eq, %s, %s : i8", code, fe.iconst("i8", 0))
		keep := line("arith.ori %s, %s : i1", zero, isNaN)
		sign = line("arith.select %s, %s, %s : i8", keep, fe.iconst("i8", 0), sign)
	}
	return line("arith.ori %s, %s : i8", code, sign)
}

// scalarConstF writes a float constant of the MLIR float type t (f32 or
// f64).
func (fe *funcEmitter) scalarConstF(t string, v float64) string {
	if t == "f64" {
		return fe.scalarConst(niro.F64, v)
	}
	return fe.scalarConst(niro.F32, v)
}

// decodeMini returns the value of the code c (an i8) of format f as an f32.
func (fe *funcEmitter) decodeMini(f miniFormat, c string) string {
	line := func(format string, args ...any) string {
		r := fe.tmp()
		fe.line("%s = "+format, append([]any{r}, args...)...)
		return r
	}
	M := int64(f.man)
	emask := int64(1)<<(7-M) - 1
	ci := line("arith.extui %s : i8 to i32", c)
	e := line("arith.shrui %s, %s : i32", ci, fe.iconst("i32", M))
	e = line("arith.andi %s, %s : i32", e, fe.iconst("i32", emask))
	m := line("arith.andi %s, %s : i32", ci, fe.iconst("i32", 1<<M-1))
	isSub := line("arith.cmpi eq, %s, %s : i32", e, fe.iconst("i32", 0))
	mImplicit := line("arith.ori %s, %s : i32", m, fe.iconst("i32", 1<<M))
	mant := line("arith.select %s, %s, %s : i32", isSub, m, mImplicit)
	exp := line("arith.subi %s, %s : i32", e, fe.iconst("i32", int64(f.bias)+M))
	exp = line("arith.select %s, %s, %s : i32", isSub, fe.iconst("i32", 1-int64(f.bias)-M), exp)
	v := line("arith.uitofp %s : i32 to f32", mant)
	v = line("arith.mulf %s, %s : f32", v, fe.pow2(wideF32, exp))
	neg := line("arith.cmpi uge, %s, %s : i32", ci, fe.iconst("i32", 0x80))
	nv := line("arith.negf %s : f32", v)
	v = line("arith.select %s, %s, %s : f32", neg, nv, v)
	// Infinity and NaN.
	mag := line("arith.andi %s, %s : i32", ci, fe.iconst("i32", 0x7F))
	var isNaN string
	switch {
	case f.uz:
		isNaN = line("arith.cmpi eq, %s, %s : i32", ci, fe.iconst("i32", 0x80))
	case f.inf >= 0:
		isNaN = line("arith.cmpi ugt, %s, %s : i32", mag, fe.iconst("i32", f.inf))
		isInf := line("arith.cmpi eq, %s, %s : i32", mag, fe.iconst("i32", f.inf))
		inf := line("arith.select %s, %s, %s : f32", neg, fe.scalarConst(niro.F32, math.Inf(-1)), fe.scalarConst(niro.F32, math.Inf(1)))
		v = line("arith.select %s, %s, %s : f32", isInf, inf, v)
	default:
		isNaN = line("arith.cmpi eq, %s, %s : i32", mag, fe.iconst("i32", f.nan))
	}
	return line("arith.select %s, %s, %s : f32", isNaN, fe.scalarConst(niro.F32, math.NaN()), v)
}

// f8E8M0FNU, the power of two 2^(code − 127) (no sign, no zero; code 255
// is NaN), is stored as its code in an i8 too. Decoding builds the f32
// with exponent field code (code 0, 2^−127, is the f32 subnormal
// 0x00400000). Encoding rounds |x| up, as ONNX's default round_mode "up":
// the smallest code whose value is at least |x|, which for a normal x is
// its biased exponent plus one unless its mantissa is zero. Past code 254
// (2^127; infinity included) it saturates to 254, or gives 255 with
// no_saturate; NaN gives 255.

// castE8M0 converts a between from and to, at least one of them
// f8E8M0FNU.
func (fe *funcEmitter) castE8M0(from, to niro.ScalarType, a string, noSaturate bool) (string, error) {
	if from == niro.F8E8M0FNU {
		f := fe.decodeE8M0(a)
		return fe.castScalarSat(niro.F32, to, f, noSaturate)
	}
	w, wt := wideF32, niro.F32
	if !(from.IsFloat() && from.Bits() <= 32 || isMini(from)) {
		w, wt = wideF64, niro.F64
	}
	x, err := fe.castScalar(from, wt, a)
	if err != nil {
		return "", err
	}
	return fe.encodeE8M0(w, x, noSaturate), nil
}

// castScalarSat is castScalar with the cast's no_saturate flag, which
// applies to a target that is an 8-bit float or f8E8M0FNU.
func (fe *funcEmitter) castScalarSat(from, to niro.ScalarType, a string, noSaturate bool) (string, error) {
	switch {
	case from == to:
		return a, nil
	case to == niro.F8E8M0FNU || from == niro.F8E8M0FNU:
		return fe.castE8M0(from, to, a, noSaturate)
	case isMini(to):
		return fe.castMini(from, to, a, noSaturate)
	}
	return fe.castScalar(from, to, a)
}

// decodeE8M0 returns the value of the code c (an i8) as an f32.
func (fe *funcEmitter) decodeE8M0(c string) string {
	line := func(format string, args ...any) string {
		r := fe.tmp()
		fe.line("%s = "+format, append([]any{r}, args...)...)
		return r
	}
	ci := line("arith.extui %s : i8 to i32", c)
	b := line("arith.shli %s, %s : i32", ci, fe.iconst("i32", 23))
	isMin := line("arith.cmpi eq, %s, %s : i32", ci, fe.iconst("i32", 0))
	b = line("arith.select %s, %s, %s : i32", isMin, fe.iconst("i32", 0x00400000), b)
	v := line("arith.bitcast %s : i32 to f32", b)
	isNaN := line("arith.cmpi eq, %s, %s : i32", ci, fe.iconst("i32", 255))
	return line("arith.select %s, %s, %s : f32", isNaN, fe.scalarConst(niro.F32, math.NaN()), v)
}

// encodeE8M0 rounds |x|, a float of w, up to f8E8M0FNU and returns its code
// as an i8.
func (fe *funcEmitter) encodeE8M0(w wideFloat, x string, noSaturate bool) string {
	it := w.ints
	line := func(format string, args ...any) string {
		r := fe.tmp()
		fe.line("%s = "+format, append([]any{r}, args...)...)
		return r
	}
	xb := line("arith.bitcast %s : %s to %s", x, w.name, it)
	ef := line("arith.shrui %s, %s : %s", xb, fe.iconst(it, int64(w.mantBits)), it)
	ef = line("arith.andi %s, %s : %s", ef, fe.iconst(it, int64(1)<<(w.bits-w.mantBits-1)-1), it)
	mant := line("arith.andi %s, %s : %s", xb, fe.iconst(it, int64(1)<<w.mantBits-1), it)
	inexact := line("arith.cmpi ne, %s, %s : %s", mant, fe.iconst(it, 0), it)
	up := line("arith.extui %s : i1 to %s", inexact, it)
	code := line("arith.addi %s, %s : %s", ef, fe.iconst(it, int64(127-w.bias)), it)
	code = line("arith.addi %s, %s : %s", code, up, it)
	if w.bits == 32 {
		// An f32 subnormal: code 0 up to 2^−127, else code 1.
		isSub := line("arith.cmpi eq, %s, %s : %s", ef, fe.iconst(it, 0), it)
		big := line("arith.cmpi ugt, %s, %s : %s", mant, fe.iconst(it, 1<<22), it)
		sub := line("arith.extui %s : i1 to %s", big, it)
		code = line("arith.select %s, %s, %s : %s", isSub, sub, code, it)
	}
	code = line("arith.maxsi %s, %s : %s", code, fe.iconst(it, 0), it)
	over := int64(254)
	if noSaturate {
		over = 255
	}
	code = line("arith.minsi %s, %s : %s", code, fe.iconst(it, over), it)
	code = line("arith.trunci %s : %s to i8", code, it)
	isNaN := line("arith.cmpf uno, %s, %s : %s", x, x, w.name)
	return line("arith.select %s, %s, %s : i8", isNaN, fe.iconst("i8", -1), code)
}
