package niro

import "math"

// FloatBits returns the bit pattern of v rounded to nearest-even in the
// float type s (f16, bf16, f32 or f64).
func FloatBits(s ScalarType, v float64) uint64 {
	b, _ := floatBitsDigits(s, v)
	return b
}

func floatBitsDigits(s ScalarType, v float64) (uint64, int) {
	switch s {
	case F16:
		return roundFloat(v, 5, 10), 4
	case BF16:
		return roundFloat(v, 8, 7), 4
	case F32:
		return uint64(math.Float32bits(float32(v))), 8
	default:
		return math.Float64bits(v), 16
	}
}

// roundFloat rounds v to nearest-even in an IEEE-style binary format with
// expBits exponent bits and mantBits stored mantissa bits, and returns its
// bit pattern. NaN becomes the quiet NaN with the sign of v.
func roundFloat(v float64, expBits, mantBits uint) uint64 {
	var sign uint64
	if math.Signbit(v) {
		sign = 1 << (expBits + mantBits)
	}
	expAll := uint64(1)<<expBits - 1
	switch {
	case math.IsNaN(v):
		return sign | expAll<<mantBits | 1<<(mantBits-1)
	case math.IsInf(v, 0):
		return sign | expAll<<mantBits
	case v == 0:
		return sign
	}
	a := math.Abs(v)
	bias := int(1)<<(expBits-1) - 1
	_, e := math.Frexp(a) // a = f * 2^e, f in [0.5, 1)
	e--                   // a = 1.x * 2^e
	if e < 1-bias {
		// Subnormal: count units of the smallest subnormal. A count of
		// 2^mantBits is the smallest normal and has that bit pattern.
		q := math.RoundToEven(math.Ldexp(a, bias-1+int(mantBits)))
		return sign | uint64(q)
	}
	q := math.RoundToEven(math.Ldexp(a, int(mantBits)-e)) // in [2^m, 2^(m+1)]
	if q == math.Ldexp(1, int(mantBits)+1) {
		q /= 2
		e++
	}
	if e > bias {
		return sign | expAll<<mantBits
	}
	return sign | uint64(e+bias)<<mantBits | (uint64(q) - 1<<mantBits)
}
