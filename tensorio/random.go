package tensorio

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/niro-dev/niro/niro"
)

// randomStream is the second PCG seed word, fixed so that a seed alone
// determines the data.
const randomStream = 0x6e69726f2d62656e // "niro-ben"

// Random returns a tensor of the given type and shape filled with
// pseudo-random values that depend only on seed: floats (and both parts of
// complex numbers) in [-1, 1), signed integers in [-4, 3], unsigned
// integers in [0, 7] (both clipped to the type's range), and bools 0 or 1.
// Use a different seed for each input of a model.
func Random(elem niro.ScalarType, dims []int64, seed uint64) (Tensor, error) {
	t := Tensor{Elem: elem, Dims: append([]int64{}, dims...)}
	if !elem.Valid() {
		return Tensor{}, fmt.Errorf("invalid element type %d", uint8(elem))
	}
	n := t.NumElements()
	size := niro.PackedBytes(elem, n)
	if n < 0 || size < 0 {
		return Tensor{}, fmt.Errorf("invalid shape %s for %s", FormatDims(dims), elem)
	}
	if err := CheckSize("", elem, dims); err != nil {
		return Tensor{}, err
	}
	t.Data = make([]byte, size)
	r := rand.New(rand.NewPCG(seed, randomStream))
	d := t.Data
	switch elem {
	case niro.F32, niro.C64:
		for i := 0; i < len(d); i += 4 {
			binary.LittleEndian.PutUint32(d[i:], math.Float32bits(randFloat32(r)))
		}
	case niro.F64, niro.C128:
		for i := 0; i < len(d); i += 8 {
			x := float64(r.Uint64()>>11)*0x1p-52 - 1
			binary.LittleEndian.PutUint64(d[i:], math.Float64bits(x))
		}
	case niro.F16, niro.BF16:
		one := uint16(0x3c00) // 1.0 after rounding up; use the value just below
		conv := F16FromFloat32
		if elem == niro.BF16 {
			one, conv = 0x3f80, BF16FromFloat32
		}
		for i := 0; i < len(d); i += 2 {
			h := conv(randFloat32(r))
			if h == one {
				h--
			}
			binary.LittleEndian.PutUint16(d[i:], h)
		}
	case niro.Bool:
		for i := range d {
			d[i] = byte(r.Uint64() >> 63)
		}
	default:
		if f, ok := minifloatFormat(elem); ok {
			// Pick uniformly among the bit patterns whose value is in [-1, 1).
			var pats []uint32
			for v := uint32(0); v < 1<<f.bits(); v++ {
				if x := decodeMini(v, f); x >= -1 && x < 1 {
					pats = append(pats, v)
				}
			}
			putSmall(d, elem, n, func() uint32 { return pats[r.IntN(len(pats))] })
			break
		}
		lo, hi := int64(-4), int64(3)
		if !elem.IsSigned() {
			lo, hi = 0, 7
		}
		tlo, thi := elem.IntRange()
		lo = max(lo, tlo)
		if thi < uint64(hi) {
			hi = int64(thi)
		}
		span := uint64(hi - lo + 1)
		bytesPer := elem.Bits() / 8
		if bytesPer == 0 {
			putSmall(d, elem, n, func() uint32 { return uint32(lo + int64(r.Uint64N(span))) })
			break
		}
		for i := 0; i < len(d); i += bytesPer {
			v := uint64(lo + int64(r.Uint64N(span)))
			for k := range bytesPer {
				d[i+k] = byte(v >> (8 * k))
			}
		}
	}
	return t, nil
}

// randFloat32 returns a float32 in [-1, 1), exactly k*2^-23 - 1.
func randFloat32(r *rand.Rand) float32 {
	return float32(r.Uint64()>>40)*0x1p-23 - 1
}

// putSmall stores n elements of at most 8 bits each, packing the sub-byte
// types low bits first.
func putSmall(d []byte, elem niro.ScalarType, n int64, next func() uint32) {
	bits := elem.Bits()
	mask := uint32(1)<<bits - 1
	for i := range n {
		v := next() & mask
		bit := i * int64(bits)
		d[bit/8] |= byte(v << (bit % 8))
	}
}
