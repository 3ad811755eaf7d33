package main

import (
	"encoding/binary"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// packedInt describes a 4- or 2-bit integer for the reference below.
type packedInt struct {
	elem   niro.ScalarType
	onnx   onnxpb.TensorProto_DataType
	bits   int
	signed bool
}

var packedInts = []packedInt{
	{niro.I4, onnxpb.TensorProto_INT4, 4, true},
	{niro.U4, onnxpb.TensorProto_UINT4, 4, false},
	{niro.I2, onnxpb.TensorProto_INT2, 2, true},
	{niro.U2, onnxpb.TensorProto_UINT2, 2, false},
}

// value returns the value of code c.
func (p packedInt) value(c int) int64 {
	if p.signed && c >= 1<<(p.bits-1) {
		return int64(c) - 1<<p.bits
	}
	return int64(c)
}

// wrap returns the code of the integer v modulo 2^bits.
func (p packedInt) wrap(v int64) int { return int(v & (1<<p.bits - 1)) }

// packCodes packs codes row-major, low bits first.
func (p packedInt) packCodes(codes []int) []byte {
	out := make([]byte, niro.PackedBytes(p.elem, int64(len(codes))))
	per := 8 / p.bits
	for k, c := range codes {
		out[k/per] |= byte(c) << (k % per * p.bits)
	}
	return out
}

// TestPackedIntCasts compiles, for each 4- and 2-bit integer, a Cast from
// every code (an odd count of elements, so the last byte is half used) to
// i32 and back, and Casts from f32 and i32 values to it, and checks every
// result bit for bit: the decoded values, the packed round trip (high
// bits of the last byte zero), and wrapping (a float converting toward
// zero first).
func TestPackedIntCasts(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	cast := func(in, out string, to onnxpb.TensorProto_DataType) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{in}, Output: []string{out},
			Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(to))}}}
	}
	for _, p := range packedInts {
		t.Run("decode_"+p.elem.String(), func(t *testing.T) {
			// Every code, then the codes again reversed, then one more:
			// an odd count.
			var codes []int
			for c := 0; c < 1<<p.bits; c++ {
				codes = append(codes, c)
			}
			for c := 1<<p.bits - 1; c >= 0; c-- {
				codes = append(codes, c)
			}
			codes = append(codes, 1)
			n := int64(len(codes))
			path := f8Model(t, "decode", []*onnxpb.NodeProto{cast("x", "y", onnxpb.TensorProto_INT32), cast("y", "z", p.onnx)},
				f8ValueInfo("x", p.onnx, n), []*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_INT32, n), f8ValueInfo("z", p.onnx, n)})
			packed := p.packCodes(codes)
			got := run(t, path, tensorio.Tensor{Elem: p.elem, Dims: []int64{n}, Data: packed})
			for k, c := range codes {
				if g := int64(int32(binary.LittleEndian.Uint32(got[0].Data[4*k:]))); g != p.value(c) {
					t.Errorf("element %d (code %d): got %d, want %d", k, c, g, p.value(c))
				}
			}
			if string(got[1].Data) != string(packed) {
				t.Errorf("round trip: got %x, want %x", got[1].Data, packed)
			}
		})
		t.Run("encode_"+p.elem.String(), func(t *testing.T) {
			var fs []float32
			var is []int32
			for v := -40; v <= 40; v++ {
				fs = append(fs, float32(v), float32(v)+0.5, float32(v)+0.25, float32(v)-0.75)
				is = append(is, int32(v))
			}
			fs = append(fs, float32(math.Copysign(0, -1)), 1e6, -1e6)
			is = append(is, math.MaxInt32, math.MinInt32, 1<<20+5)
			nf, ni := int64(len(fs)), int64(len(is))
			path := f8Model(t, "encode", []*onnxpb.NodeProto{cast("x", "y", p.onnx), cast("x", "i", onnxpb.TensorProto_INT32), cast("i", "z", p.onnx)},
				f8ValueInfo("x", onnxpb.TensorProto_FLOAT, nf), []*onnxpb.ValueInfoProto{f8ValueInfo("y", p.onnx, nf), f8ValueInfo("i", onnxpb.TensorProto_INT32, nf), f8ValueInfo("z", p.onnx, nf)})
			data := make([]byte, 4*nf)
			for k, x := range fs {
				binary.LittleEndian.PutUint32(data[4*k:], math.Float32bits(x))
			}
			got := run(t, path, tensorio.Tensor{Elem: niro.F32, Dims: []int64{nf}, Data: data})
			want := make([]int, nf)
			for k, x := range fs {
				want[k] = p.wrap(int64(math.Trunc(float64(x))))
			}
			if w := p.packCodes(want); string(got[0].Data) != string(w) {
				t.Errorf("from f32 %v: got %x, want %x", fs, got[0].Data, w)
			}
			// Through i32 (the truncated values) the codes are the same.
			if string(got[2].Data) != string(got[0].Data) {
				t.Errorf("through i32: got %x, want %x", got[2].Data, got[0].Data)
			}
			ipath := f8Model(t, "encodei", []*onnxpb.NodeProto{cast("x", "y", p.onnx)},
				f8ValueInfo("x", onnxpb.TensorProto_INT32, ni), []*onnxpb.ValueInfoProto{f8ValueInfo("y", p.onnx, ni)})
			idata := make([]byte, 4*ni)
			iwant := make([]int, ni)
			for k, v := range is {
				binary.LittleEndian.PutUint32(idata[4*k:], uint32(v))
				iwant[k] = p.wrap(int64(v))
			}
			igot := run(t, ipath, tensorio.Tensor{Elem: niro.I32, Dims: []int64{ni}, Data: idata})
			if w := p.packCodes(iwant); string(igot[0].Data) != string(w) {
				t.Errorf("from i32 %v: got %x, want %x", is, igot[0].Data, w)
			}
		})
	}
}

// f4Values are the magnitudes of f4E2M1FN's codes 0 to 7.
var f4Values = []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}

// f4Decode returns the value of a code by its definition.
func f4Decode(c int) float64 {
	v := f4Values[c&7]
	if c&8 != 0 {
		return -v
	}
	return v
}

// f4Encode is the reference for a cast to f4E2M1FN: the nearest
// magnitude (ties to the even code), ±6 past it (infinity included), the
// sign kept (−0 is 0b1000); NaN gives 0b1000.
func f4Encode(x float64) int {
	if math.IsNaN(x) {
		return 8
	}
	ax := math.Abs(x)
	best, bestD := 0, math.Inf(1)
	for c, v := range f4Values {
		d := math.Abs(ax - v)
		if d < bestD || d == bestD && c%2 == 0 {
			best, bestD = c, d
		}
	}
	if ax >= 6 {
		best = 7 // saturated (the distances above lose precision far out)
	}
	if math.Signbit(x) {
		best |= 8
	}
	return best
}

// f4Codes returns every f4E2M1FN code and one more (an odd count, so the
// last byte holds a single code).
func f4Codes() []int {
	var codes []int
	for c := 0; c < 16; c++ {
		codes = append(codes, c)
	}
	return append(codes, 7)
}

// f4Probes returns the f32 values the f4E2M1FN encode tests cast: each
// code's value and each midpoint between neighbours with their two f32
// neighbours, values past the largest code, a subnormal, their negations,
// the infinities, NaN and the largest f32.
func f4Probes() []float32 {
	var xs []float32
	add := func(v float64) {
		f := float32(v)
		xs = append(xs, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
	}
	for i, v := range f4Values {
		add(v)
		if i+1 < len(f4Values) {
			add((v + f4Values[i+1]) / 2)
		}
	}
	add(7)
	add(1e6)
	add(1e-40)
	n := len(xs)
	for i := 0; i < n; i++ {
		xs = append(xs, -xs[i])
	}
	return append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32)
}

// TestF4E2M1Casts checks Cast from every f4E2M1FN code (an odd count) to
// f32 and back, and from f32 values at, around and between every code
// (midpoints and their neighbours), past the largest, infinities and NaN,
// bit for bit against the reference above.
func TestF4E2M1Casts(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	cast := func(in, out string, to onnxpb.TensorProto_DataType) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{in}, Output: []string{out},
			Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(to))}}}
	}
	f4 := packedInt{elem: niro.F4E2M1FN, onnx: onnxpb.TensorProto_FLOAT4E2M1, bits: 4}
	t.Run("decode", func(t *testing.T) {
		codes := f4Codes()
		n := int64(len(codes))
		path := f8Model(t, "decode", []*onnxpb.NodeProto{cast("x", "y", onnxpb.TensorProto_FLOAT), cast("y", "z", f4.onnx)},
			f8ValueInfo("x", f4.onnx, n), []*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_FLOAT, n), f8ValueInfo("z", f4.onnx, n)})
		packed := f4.packCodes(codes)
		got := run(t, path, tensorio.Tensor{Elem: f4.elem, Dims: []int64{n}, Data: packed})
		for k, c := range codes {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[0].Data[4*k:]))
			if w := f4Decode(c); math.Float64bits(float64(g)) != math.Float64bits(w) {
				t.Errorf("code %#x: got %g, want %g", c, g, w)
			}
		}
		if string(got[1].Data) != string(packed) {
			t.Errorf("round trip: got %x, want %x", got[1].Data, packed)
		}
	})
	t.Run("encode", func(t *testing.T) {
		xs := f4Probes()
		nx := int64(len(xs))
		path := f8Model(t, "encode", []*onnxpb.NodeProto{cast("x", "y", f4.onnx)},
			f8ValueInfo("x", onnxpb.TensorProto_FLOAT, nx), []*onnxpb.ValueInfoProto{f8ValueInfo("y", f4.onnx, nx)})
		data := make([]byte, 4*nx)
		want := make([]int, nx)
		for k, x := range xs {
			binary.LittleEndian.PutUint32(data[4*k:], math.Float32bits(x))
			want[k] = f4Encode(float64(x))
		}
		got := run(t, path, tensorio.Tensor{Elem: niro.F32, Dims: []int64{nx}, Data: data})
		for k, x := range xs {
			if g := int(got[0].Data[k/2]>>(k%2*4)) & 15; g != want[k] {
				t.Errorf("cast(%g = %#08x) = %#x, want %#x", x, math.Float32bits(x), g, want[k])
			}
		}
		if w := f4.packCodes(want); string(got[0].Data) != string(w) {
			t.Errorf("packed: got %x, want %x", got[0].Data, w)
		}
	})
}
