package interp

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// tensor is one runtime value: a flat row-major typed slice. Exactly one
// of f32 (f16, bf16, f32), f64 (f64) and ints (integers and bool) is used.
type tensor struct {
	elem   niro.ScalarType
	dims   []int64
	scalar bool // a Niro scalar rather than a tensor
	f32    []float32
	f64    []float64
	ints   []int64
}

// store is the slice kind an element type uses.
type store uint8

const (
	sF32 store = iota
	sF64
	sInt
)

func storeOf(e niro.ScalarType) store {
	switch e {
	case niro.F16, niro.BF16, niro.F32:
		return sF32
	case niro.F64:
		return sF64
	}
	return sInt
}

func numel(dims []int64) int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	return n
}

// newTensor returns a zero tensor.
func newTensor(e niro.ScalarType, dims []int64) *tensor {
	t := &tensor{elem: e, dims: dims}
	n := numel(dims)
	switch storeOf(e) {
	case sF32:
		t.f32 = make([]float32, n)
	case sF64:
		t.f64 = make([]float64, n)
	default:
		t.ints = make([]int64, n)
	}
	return t
}

func (t *tensor) n() int {
	switch storeOf(t.elem) {
	case sF32:
		return len(t.f32)
	case sF64:
		return len(t.f64)
	}
	return len(t.ints)
}

// reshaped shares t's data under new dims.
func (t *tensor) reshaped(dims []int64) *tensor {
	c := *t
	c.dims = dims
	c.scalar = false
	return &c
}

// setFloat stores v rounded once to t's float type.
func (t *tensor) setFloat(i int, v float64) {
	switch t.elem {
	case niro.F64:
		t.f64[i] = v
	case niro.F32:
		t.f32[i] = float32(v)
	case niro.F16:
		t.f32[i] = f16ToF32(uint16(niro.FloatBits(niro.F16, v)))
	case niro.BF16:
		t.f32[i] = bf16ToF32(uint16(niro.FloatBits(niro.BF16, v)))
	}
}

// copyElem copies element j of src to element i of dst (same type).
func copyElem(dst *tensor, i int, src *tensor, j int) {
	switch storeOf(dst.elem) {
	case sF32:
		dst.f32[i] = src.f32[j]
	case sF64:
		dst.f64[i] = src.f64[j]
	default:
		dst.ints[i] = src.ints[j]
	}
}

// gatherIdx returns a tensor of type src's holding src[idx[i]].
func gatherIdx(src *tensor, dims []int64, idx []int) *tensor {
	out := newTensor(src.elem, dims)
	switch storeOf(src.elem) {
	case sF32:
		for i, j := range idx {
			out.f32[i] = src.f32[j]
		}
	case sF64:
		for i, j := range idx {
			out.f64[i] = src.f64[j]
		}
	default:
		for i, j := range idx {
			out.ints[i] = src.ints[j]
		}
	}
	return out
}

func f16ToF32(h uint16) float32  { return float32(tensorio.F16ToFloat64(h)) }
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// round16 rounds f32 values in place to the 16-bit float e (once each);
// other types are left alone.
func round16(e niro.ScalarType, s []float32) {
	switch e {
	case niro.F16:
		for i, v := range s {
			s[i] = f16ToF32(tensorio.F16FromFloat32(v))
		}
	case niro.BF16:
		for i, v := range s {
			s[i] = bf16ToF32(tensorio.BF16FromFloat32(v))
		}
	}
}

// round1 rounds one f32 value to e.
func round1(e niro.ScalarType, v float32) float32 {
	switch e {
	case niro.F16:
		return f16ToF32(tensorio.F16FromFloat32(v))
	case niro.BF16:
		return bf16ToF32(tensorio.BF16FromFloat32(v))
	}
	return v
}

// wrap reduces v to the integer type e (two's complement, sign- or
// zero-extended into int64); bool becomes 0 or 1.
func wrap(e niro.ScalarType, v int64) int64 {
	switch e {
	case niro.Bool:
		if v != 0 {
			return 1
		}
		return 0
	case niro.I8:
		return int64(int8(v))
	case niro.I16:
		return int64(int16(v))
	case niro.I32:
		return int64(int32(v))
	case niro.U8:
		return int64(uint8(v))
	case niro.U16:
		return int64(uint16(v))
	case niro.U32:
		return int64(uint32(v))
	case niro.I4, niro.I2:
		sh := 64 - e.Bits()
		return v << sh >> sh
	case niro.U4, niro.U2:
		return v & (1<<e.Bits() - 1)
	}
	return v
}

func wrapAll(e niro.ScalarType, s []int64) {
	switch e {
	case niro.I64, niro.U64:
		return
	}
	for i, v := range s {
		s[i] = wrap(e, v)
	}
}

// decode reads packed little-endian data of type e and shape dims.
func decode(e niro.ScalarType, dims []int64, b []byte) (*tensor, error) {
	n := numel(dims)
	if want := niro.PackedBytes(e, int64(n)); want != int64(len(b)) {
		return nil, fmt.Errorf("%s data of shape %v needs %d bytes, has %d", e, dims, want, len(b))
	}
	t := newTensor(e, dims)
	switch e {
	case niro.F32:
		for i := range t.f32 {
			t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case niro.F16:
		for i := range t.f32 {
			t.f32[i] = f16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case niro.BF16:
		for i := range t.f32 {
			t.f32[i] = bf16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case niro.F64:
		for i := range t.f64 {
			t.f64[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case niro.Bool:
		for i := range t.ints {
			if b[i] != 0 {
				t.ints[i] = 1
			}
		}
	case niro.I8:
		for i := range t.ints {
			t.ints[i] = int64(int8(b[i]))
		}
	case niro.U8, niro.F8E4M3FN, niro.F8E4M3FNUZ, niro.F8E5M2, niro.F8E5M2FNUZ, niro.F8E8M0FNU:
		for i := range t.ints {
			t.ints[i] = int64(b[i])
		}
	case niro.I4, niro.U4, niro.I2, niro.U2, niro.F4E2M1FN:
		for i := range t.ints {
			t.ints[i] = unpackCode(e, b, i)
		}
	case niro.I16:
		for i := range t.ints {
			t.ints[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		}
	case niro.U16:
		for i := range t.ints {
			t.ints[i] = int64(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case niro.I32:
		for i := range t.ints {
			t.ints[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case niro.U32:
		for i := range t.ints {
			t.ints[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case niro.I64, niro.U64:
		for i := range t.ints {
			t.ints[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	default:
		return nil, fmt.Errorf("%w: element type %s", ErrUnsupported, e)
	}
	return t, nil
}

// encode writes t as a packed tensor.
func (t *tensor) encode() tensorio.Tensor {
	n := t.n()
	out := tensorio.Tensor{Elem: t.elem, Dims: append([]int64{}, t.dims...)}
	b := make([]byte, niro.PackedBytes(t.elem, int64(n)))
	switch t.elem {
	case niro.F32:
		for i, v := range t.f32 {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
	case niro.F16:
		for i, v := range t.f32 {
			binary.LittleEndian.PutUint16(b[2*i:], tensorio.F16FromFloat32(v))
		}
	case niro.BF16:
		for i, v := range t.f32 {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(v)>>16))
		}
	case niro.F64:
		for i, v := range t.f64 {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
	case niro.I4, niro.U4, niro.I2, niro.U2, niro.F4E2M1FN:
		packCodes(t.elem, t.ints, b)
	default:
		size := t.elem.Bits() / 8
		for i, v := range t.ints {
			switch size {
			case 1:
				b[i] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
			case 8:
				binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
			}
		}
	}
	out.Data = b
	return out
}

// strides returns row-major strides of dims.
func strides(dims []int64) []int {
	s := make([]int, len(dims))
	acc := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= int(dims[i])
	}
	return s
}

// bcastIndex returns, for each element of the result shape rdims, the
// flat index of the operand element (of shape dims, trailing-axis
// broadcasting) it reads, or nil when the shapes are equal.
func bcastIndex(dims, rdims []int64) []int {
	if len(dims) == len(rdims) {
		same := true
		for i := range dims {
			same = same && dims[i] == rdims[i]
		}
		if same {
			return nil
		}
	}
	R := len(rdims)
	st := make([]int, R)
	os := strides(dims)
	for j := 0; j < R; j++ {
		a := j - (R - len(dims))
		if a >= 0 && dims[a] != 1 {
			st[j] = os[a]
		}
	}
	n := numel(rdims)
	idx := make([]int, n)
	if n == 0 {
		return idx
	}
	cnt := make([]int64, R)
	off := 0
	for i := 0; i < n; i++ {
		idx[i] = off
		for j := R - 1; j >= 0; j-- {
			cnt[j]++
			off += st[j]
			if cnt[j] < rdims[j] {
				break
			}
			off -= st[j] * int(cnt[j])
			cnt[j] = 0
		}
	}
	return idx
}
