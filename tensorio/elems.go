package tensorio

import (
	"encoding/binary"
	"math"

	"github.com/niro-dev/niro/niro"
)

// Element access on packed little-endian data. The callers have checked
// the data length with Tensor.Check.

// floatAt returns element i of a real floating-point tensor as float64
// (exactly: every supported format is a subset of float64).
func floatAt(elem niro.ScalarType, data []byte, i int64) float64 {
	switch elem {
	case niro.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])))
	case niro.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	case niro.F16:
		return F16ToFloat64(binary.LittleEndian.Uint16(data[2*i:]))
	case niro.BF16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(data[2*i:])) << 16))
	case niro.F4E2M1FN:
		return decodeMini(nibble(data, i), fmtF4E2M1FN)
	}
	f, _ := minifloatFormat(elem)
	return decodeMini(uint32(data[i]), f)
}

// complexAt returns element i of a complex tensor.
func complexAt(elem niro.ScalarType, data []byte, i int64) complex128 {
	if elem == niro.C64 {
		re := math.Float32frombits(binary.LittleEndian.Uint32(data[8*i:]))
		im := math.Float32frombits(binary.LittleEndian.Uint32(data[8*i+4:]))
		return complex(float64(re), float64(im))
	}
	re := math.Float64frombits(binary.LittleEndian.Uint64(data[16*i:]))
	im := math.Float64frombits(binary.LittleEndian.Uint64(data[16*i+8:]))
	return complex(re, im)
}

// intAt returns element i of an integer or bool tensor. A U64 element is
// returned as its two's-complement bits; callers treat U64 as unsigned.
func intAt(elem niro.ScalarType, data []byte, i int64) int64 {
	switch elem {
	case niro.Bool, niro.U8:
		return int64(data[i])
	case niro.I8:
		return int64(int8(data[i]))
	case niro.I16:
		return int64(int16(binary.LittleEndian.Uint16(data[2*i:])))
	case niro.U16:
		return int64(binary.LittleEndian.Uint16(data[2*i:]))
	case niro.I32:
		return int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
	case niro.U32:
		return int64(binary.LittleEndian.Uint32(data[4*i:]))
	case niro.I64, niro.U64:
		return int64(binary.LittleEndian.Uint64(data[8*i:]))
	case niro.I4:
		return int64(int8(nibble(data, i)<<4) >> 4)
	case niro.U4:
		return int64(nibble(data, i))
	case niro.I2:
		return int64(int8(crumb(data, i)<<6) >> 6)
	case niro.U2:
		return int64(crumb(data, i))
	}
	panic("tensorio: intAt on " + elem.String())
}

// nibble returns 4-bit element i (low nibble first).
func nibble(data []byte, i int64) uint32 {
	return uint32(data[i/2]>>(4*(i%2))) & 0xf
}

// crumb returns 2-bit element i (lowest bits first).
func crumb(data []byte, i int64) uint32 {
	return uint32(data[i/4]>>(2*(i%4))) & 0x3
}

// F16ToFloat64 converts IEEE half-precision bits to float64.
func F16ToFloat64(h uint16) float64 { return decodeMini(uint32(h), fmtF16) }

// F16FromFloat32 converts a float32 to IEEE half precision, rounding to
// nearest even; overflow gives inf and NaN stays NaN.
func F16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	switch {
	case e >= 0x1f:
		return sign | 0x7c00
	case e <= 0:
		if e < -10 {
			return sign
		}
		// A subnormal half: the value is r * 2^-24.
		m := man | 0x800000
		shift := uint(14 - e)
		r := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && r&1 == 1 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	if rem := man & 0x1fff; rem > 0x1000 || rem == 0x1000 && r&1 == 1 {
		r++ // a carry into the exponent is the correct rounding, up to inf
	}
	return sign | uint16(r)
}

// BF16FromFloat32 converts a float32 to bfloat16, rounding to nearest even
// (NaN stays NaN).
func BF16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// minifloat describes a small binary floating-point format.
type minifloat struct {
	exp, man int  // exponent and mantissa bits
	bias     int  // exponent bias
	signed   bool // has a sign bit
	// ieee: the all-ones exponent is inf (mantissa 0) or NaN.
	ieee bool
	// fnNaN: only the all-ones exponent with all-ones mantissa is NaN (no inf).
	fnNaN bool
	// uzNaN: the pattern "negative zero" (sign only) is the single NaN.
	uzNaN bool
	// noMan: exponent-only format; the all-ones pattern is NaN.
	noMan bool
}

var (
	fmtF16        = minifloat{exp: 5, man: 10, bias: 15, signed: true, ieee: true}
	fmtF8E4M3FN   = minifloat{exp: 4, man: 3, bias: 7, signed: true, fnNaN: true}
	fmtF8E4M3FNUZ = minifloat{exp: 4, man: 3, bias: 8, signed: true, uzNaN: true}
	fmtF8E5M2     = minifloat{exp: 5, man: 2, bias: 15, signed: true, ieee: true}
	fmtF8E5M2FNUZ = minifloat{exp: 5, man: 2, bias: 16, signed: true, uzNaN: true}
	fmtF8E8M0FNU  = minifloat{exp: 8, man: 0, bias: 127, noMan: true}
	fmtF4E2M1FN   = minifloat{exp: 2, man: 1, bias: 1, signed: true}
)

// minifloatFormat returns the format of a small float type.
func minifloatFormat(elem niro.ScalarType) (minifloat, bool) {
	switch elem {
	case niro.F16:
		return fmtF16, true
	case niro.F8E4M3FN:
		return fmtF8E4M3FN, true
	case niro.F8E4M3FNUZ:
		return fmtF8E4M3FNUZ, true
	case niro.F8E5M2:
		return fmtF8E5M2, true
	case niro.F8E5M2FNUZ:
		return fmtF8E5M2FNUZ, true
	case niro.F8E8M0FNU:
		return fmtF8E8M0FNU, true
	case niro.F4E2M1FN:
		return fmtF4E2M1FN, true
	}
	return minifloat{}, false
}

// bits returns the width of the format.
func (f minifloat) bits() int {
	n := f.exp + f.man
	if f.signed {
		n++
	}
	return n
}

// decodeMini converts bits of format f to float64.
func decodeMini(v uint32, f minifloat) float64 {
	manMask := uint32(1)<<f.man - 1
	expMask := uint32(1)<<f.exp - 1
	man := v & manMask
	e := (v >> f.man) & expMask
	neg := f.signed && v>>(f.exp+f.man)&1 == 1
	switch {
	case f.noMan && e == expMask:
		return math.NaN()
	case f.uzNaN && neg && e == 0 && man == 0:
		return math.NaN()
	case f.ieee && e == expMask:
		if man != 0 {
			return math.NaN()
		}
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case f.fnNaN && e == expMask && man == manMask:
		return math.NaN()
	}
	var x float64
	if e == 0 && !f.noMan {
		x = math.Ldexp(float64(man), 1-f.bias-f.man) // subnormal
	} else {
		x = math.Ldexp(float64(man|1<<f.man), int(e)-f.bias-f.man)
	}
	if neg {
		x = -x
	}
	return x
}
