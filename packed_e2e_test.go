package main

import (
	"context"
	"encoding/binary"
	"io"
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
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, path string, in tensorio.Tensor) []tensorio.Tensor {
		t.Helper()
		mf, err := openModel(path, ShapeFlags{})
		if err != nil {
			t.Fatal(err)
		}
		defer mf.close()
		m, err := mf.module(nil)
		if err != nil {
			t.Fatal(err)
		}
		hm, err := env.buildHost(ctx, tc, m, "host")
		if err != nil {
			t.Fatal(err)
		}
		defer hm.cleanup()
		res, err := env.execute(ctx, tc, hm, []tensorio.Tensor{in}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return res.Outputs
	}
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
