package interp

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// The 4- and 2-bit integers (i4, ui4, i2, ui2) are held one element per
// int64, a signed one sign-extended and an unsigned one zero-extended;
// f4E2M1FN and f8E8M0FNU are held as their codes (0 to 15, 0 to 255), like
// the 8-bit floats (float8.go). Tensors of the 4- and 2-bit types are
// packed only at the boundary (decode and encode: row-major, two or four
// elements a byte, low bits first), as emit/packed.go packs them at the
// entry function's. Cast is the one op that computes on them, with the
// conversions of emit/packed.go and emit/narrow.go (docs/ops.md).

// isPacked reports whether s is a sub-byte type packed at the boundary.
func isPacked(s niro.ScalarType) bool {
	switch s {
	case niro.I4, niro.U4, niro.I2, niro.U2, niro.F4E2M1FN:
		return true
	}
	return false
}

// unpackCode returns element k of the packed data b of type s: its low
// bits, sign-extended for i4 and i2.
func unpackCode(s niro.ScalarType, b []byte, k int) int64 {
	bits := s.Bits()
	per := 8 / bits
	v := int64(b[k/per]>>(uint(k%per)*uint(bits))) & (1<<bits - 1)
	if s.IsSigned() && v>>(bits-1) != 0 {
		v -= 1 << bits
	}
	return v
}

// packCodes writes the elements vs of type s into b, packed (b starts
// zeroed, so an odd count leaves the last byte's high bits zero).
func packCodes(s niro.ScalarType, vs []int64, b []byte) {
	bits := s.Bits()
	per := 8 / bits
	for k, v := range vs {
		b[k/per] |= byte(v&(1<<bits-1)) << (uint(k%per) * uint(bits))
	}
}

// f4Format is f4E2M1FN on its code widened to an 8-bit layout (the sign
// moved from bit 3 to bit 7), as emit converts it: one mantissa bit, bias
// 1, largest 6, no infinity; NaN encodes as 0x80 (0b1000 once narrowed).
var f4Format = f8Format{man: 1, bias: 1, max: 0x07, nan: 0x80, inf: -1, maxValue: 6}

// f4To8 and f8To4 move a code's sign between bit 3 and bit 7.
func f4To8(c int64) uint8 { return uint8(c&7 | (c&8)<<4) }
func f8To4(c uint8) int64 { return int64(c&7 | (c>>4)&8) }

// castF4 converts x, not f4E2M1FN, to f4E2M1FN: through f32, or f64 for
// f64 and integers wider than 16 bits; to nearest even, saturating always.
func castF4(x *tensor) *tensor {
	out := newTensor(niro.F4E2M1FN, x.dims)
	if x.elem == niro.F64 || (x.elem.IsInt() && x.elem.Bits() > 16) {
		w := castOp(x, niro.F64, false)
		for i, v := range w.f64 {
			out.ints[i] = f8To4(f8Encode(f4Format, v, math.Signbit(v), false))
		}
		return out
	}
	w := castOp(x, niro.F32, false)
	for i, v := range w.f32 {
		out.ints[i] = f8To4(f8Encode(f4Format, float64(v), math.Float32bits(v)>>31 != 0, false))
	}
	return out
}

// decodeF4 returns the f32 values of the f4E2M1FN tensor x (exact).
func decodeF4(x *tensor) *tensor {
	v := newTensor(niro.F32, x.dims)
	for i, c := range x.ints {
		v.f32[i] = f8Decode(f4Format, f4To8(c))
	}
	return v
}

// e8m0Decode returns the value of the f8E8M0FNU code c, 2^(c − 127): the
// f32 with exponent field c (code 0 is the subnormal 2^−127); 255 is NaN.
func e8m0Decode(c uint8) float32 {
	switch c {
	case 255:
		return float32(math.NaN())
	case 0:
		return math.Float32frombits(0x00400000)
	}
	return math.Float32frombits(uint32(c) << 23)
}

// e8m0Encode rounds |x| up to f8E8M0FNU from the bits of x, a float with
// mantBits mantissa bits and exponent bias bias (f32 or f64): the biased
// exponent, plus one unless the mantissa is zero; an f32 subnormal gives
// code 0 up to 2^−127 and 1 above. Past code 254 it saturates to 254, or
// gives 255 with noSaturate; NaN gives 255.
func e8m0Encode(bits uint64, mantBits, expBits, bias int, noSaturate bool) uint8 {
	ef := int64(bits>>mantBits) & (1<<expBits - 1)
	mant := bits & (1<<mantBits - 1)
	if ef == 1<<expBits-1 && mant != 0 {
		return 255
	}
	code := ef + int64(127-bias)
	if mant != 0 {
		code++
	}
	if mantBits == 23 && ef == 0 {
		code = 0
		if mant > 1<<22 {
			code = 1
		}
	}
	code = max(code, 0)
	over := int64(254)
	if noSaturate {
		over = 255
	}
	return uint8(min(code, over))
}

// castE8M0 converts x, not f8E8M0FNU, to f8E8M0FNU: floats of at most 32
// bits (the 8-bit floats and f4E2M1FN included) through f32, f64 and the
// integers through f64.
func castE8M0(x *tensor, noSaturate bool) *tensor {
	out := newTensor(niro.F8E8M0FNU, x.dims)
	if x.elem.IsFloat() && x.elem.Bits() <= 32 || niro.IsFloat8(x.elem) {
		w := castOp(x, niro.F32, false)
		for i, v := range w.f32 {
			out.ints[i] = int64(e8m0Encode(uint64(math.Float32bits(v)), 23, 8, 127, noSaturate))
		}
		return out
	}
	w := castOp(x, niro.F64, false)
	for i, v := range w.f64 {
		out.ints[i] = int64(e8m0Encode(math.Float64bits(v), 52, 11, 1023, noSaturate))
	}
	return out
}

// decodeE8M0 returns the f32 values of the f8E8M0FNU tensor x (exact).
func decodeE8M0(x *tensor) *tensor {
	v := newTensor(niro.F32, x.dims)
	for i, c := range x.ints {
		v.f32[i] = e8m0Decode(uint8(c))
	}
	return v
}
