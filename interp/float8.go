package interp

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// The 8-bit floats (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ) are held as
// their codes (0 to 255) in the integer slice, so the ops that move data
// move them as bytes; Cast is the one op that computes on them, with the
// conversions of emit/narrow.go (docs/ops.md, "8-bit floats").

// f8Format describes one 8-bit float format (emit's miniFormat).
type f8Format struct {
	man      int     // mantissa bits
	bias     int     // exponent bias
	max      uint8   // code of the largest finite magnitude
	nan      uint8   // code of NaN (the sign bit is or-ed in unless uz)
	inf      int     // code of +infinity, or -1 when the format has none
	uz       bool    // no negative zero; 0x80 is the one NaN
	maxValue float64 // the largest finite magnitude
}

var f8Formats = map[niro.ScalarType]f8Format{
	niro.F8E4M3FN:   {man: 3, bias: 7, max: 0x7E, nan: 0x7F, inf: -1, maxValue: 448},
	niro.F8E4M3FNUZ: {man: 3, bias: 8, max: 0x7F, nan: 0x80, inf: -1, uz: true, maxValue: 240},
	niro.F8E5M2:     {man: 2, bias: 15, max: 0x7B, nan: 0x7F, inf: 0x7C, maxValue: 57344},
	niro.F8E5M2FNUZ: {man: 2, bias: 16, max: 0x7F, nan: 0x80, inf: -1, uz: true, maxValue: 57344},
}

// f8Decode returns the value of code c: exact, ±mantissa·2^exponent.
func f8Decode(f f8Format, c uint8) float32 {
	M := f.man
	e := int(c>>M) & (1<<(7-M) - 1)
	m := int(c) & (1<<M - 1)
	exp := e - f.bias - M
	if e == 0 {
		exp = 1 - f.bias - M
	} else {
		m |= 1 << M
	}
	v := float32(math.Ldexp(float64(m), exp))
	if c >= 0x80 {
		v = -v
	}
	mag := int(c & 0x7F)
	switch {
	case f.uz:
		if c == 0x80 {
			return float32(math.NaN())
		}
	case f.inf >= 0:
		if mag > f.inf {
			return float32(math.NaN())
		}
		if mag == f.inf {
			return float32(math.Inf(1 - 2*int(c>>7)))
		}
	default:
		if mag == int(f.nan) {
			return float32(math.NaN())
		}
	}
	return v
}

// f8Encode rounds x (a value of the wide float the conversion runs in, f32
// or f64, held exactly in a float64) to format f, to nearest, ties to even,
// in one step: with e the exponent of |x| (at least the smallest normal
// one), |x|/2^(e−M) is exact, rounds once, and the product back is exact;
// the code is read off the rounded magnitude. Past the largest finite
// value it saturates, or with noSaturate gives ±inf or NaN; NaN gives NaN;
// the FNUZ formats give +0 for a zero. signBit is x's sign.
func f8Encode(f f8Format, x float64, signBit bool, noSaturate bool) uint8 {
	emin := 1 - f.bias
	M := f.man
	ax := math.Abs(x)
	e := emin
	if ax != 0 && !math.IsInf(ax, 0) && !math.IsNaN(ax) {
		e = max(math.Ilogb(ax), emin)
	}
	var code uint8
	var r float64
	if math.IsInf(ax, 0) || math.IsNaN(ax) {
		r = ax
	} else {
		q := math.Ldexp(1, e-M)
		r = math.RoundToEven(ax/q) * q
		if r != 0 && math.Ilogb(r) >= emin {
			re := math.Ilogb(r)
			mant := (math.Float64bits(r) >> (52 - M)) & (1<<M - 1)
			code = uint8(((re+f.bias)<<M | int(mant)) & 0xFF)
		} else {
			code = uint8(r * math.Ldexp(1, M-emin))
		}
	}
	if r > f.maxValue {
		code = f.max
		if noSaturate {
			code = f.nan
			if f.inf >= 0 {
				code = uint8(f.inf)
			}
		}
	}
	isNaN := math.IsNaN(x)
	if isNaN {
		code = f.nan
	}
	sign := uint8(0)
	if signBit {
		sign = 0x80
	}
	if f.uz && (code == 0 || isNaN) {
		sign = 0
	}
	return code | sign
}

// castF8 converts x to type to where one of them is an 8-bit float, as
// emit does: from one through f32; to one from f32, or from f64 for f64
// and integers wider than 16 bits (so nothing rounds twice).
func castF8(x *tensor, to niro.ScalarType, noSaturate bool) *tensor {
	if f, ok := f8Formats[x.elem]; ok {
		v := newTensor(niro.F32, x.dims)
		for i, c := range x.ints {
			v.f32[i] = f8Decode(f, uint8(c))
		}
		if _, ok := f8Formats[to]; ok {
			return castF8(v, to, noSaturate)
		}
		return cast(v, to)
	}
	f := f8Formats[to]
	out := newTensor(to, x.dims)
	if x.elem == niro.F64 || (x.elem.IsInt() && x.elem.Bits() > 16) {
		w := x
		if x.elem != niro.F64 {
			w = cast(x, niro.F64)
		}
		for i, v := range w.f64 {
			out.ints[i] = int64(f8Encode(f, v, math.Signbit(v), noSaturate))
		}
		return out
	}
	w := x
	if x.elem != niro.F32 {
		w = cast(x, niro.F32)
	}
	for i, v := range w.f32 {
		out.ints[i] = int64(f8Encode(f, float64(v), math.Float32bits(v)>>31 != 0, noSaturate))
	}
	return out
}

// castOp is Cast: f4E2M1FN and f8E8M0FNU through their f32 values and
// their encoders (packed.go), the 8-bit floats by castF8, every other pair
// (the 4- and 2-bit integers, which wrap, included) by cast.
func castOp(x *tensor, to niro.ScalarType, noSaturate bool) *tensor {
	switch {
	case x.elem == to:
		return cast(x, to)
	case x.elem == niro.F4E2M1FN:
		return castOp(decodeF4(x), to, noSaturate)
	case x.elem == niro.F8E8M0FNU:
		return castOp(decodeE8M0(x), to, noSaturate)
	case to == niro.F4E2M1FN:
		return castF4(x)
	case to == niro.F8E8M0FNU:
		return castE8M0(x, noSaturate)
	case niro.IsFloat8(x.elem) || niro.IsFloat8(to):
		return castF8(x, to, noSaturate)
	}
	return cast(x, to)
}

// movesCastOnly reports whether op may have operands or results of the
// types only Cast computes on (niro.IsCastOnly):
// Cast, and the ops that only move data, copy or select elements.
func movesCastOnly(op niro.Op) bool {
	switch op := op.(type) {
	case *niro.Cast, *niro.Const, *niro.GetGlobal, *niro.Reshape, *niro.Broadcast, *niro.Transpose,
		*niro.Concat, *niro.Slice, *niro.DynSlice, *niro.Gather, *niro.GatherElements, *niro.GatherND,
		*niro.Select, *niro.Pad, *niro.TensorExtract, *niro.Call, *niro.Return, *niro.Yield,
		*niro.If, *niro.Loop, *niro.Branch, *niro.CondBranch:
		return true
	case *niro.Scatter:
		return op.Reduction == niro.ScatterNone
	}
	return false
}
