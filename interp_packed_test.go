package main

import (
	"encoding/binary"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// interpModel runs the ONNX model at path under the interpreter.
func interpModel(t *testing.T, path string, in tensorio.Tensor) []tensorio.Tensor {
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
	outs, err := interp.Run(m, []tensorio.Tensor{in}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func onnxCast(in, out string, to onnxpb.TensorProto_DataType) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{in}, Output: []string{out},
		Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(to))}}}
}

func f32Tensor(xs []float32) tensorio.Tensor {
	t := tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(xs))}, Data: make([]byte, 4*len(xs))}
	for i, x := range xs {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(x))
	}
	return t
}

func f64Tensor(xs []float64) tensorio.Tensor {
	t := tensorio.Tensor{Elem: niro.F64, Dims: []int64{int64(len(xs))}, Data: make([]byte, 8*len(xs))}
	for i, x := range xs {
		binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(x))
	}
	return t
}

// TestInterpPackedIntCasts runs TestPackedIntCasts's models under the
// interpreter and checks them against the same reference, bit for bit:
// every code decoded from an odd-length packed input and packed back, and
// casts from f32 (toward zero, then wrapping) and from i32 (wrapping),
// directly and through an i32 inside the function; then every code to
// f32, f16, f8E8M0FNU, f4E2M1FN and each other 4- and 2-bit type.
func TestInterpPackedIntCasts(t *testing.T) {
	for _, p := range packedInts {
		t.Run(p.elem.String(), func(t *testing.T) {
			var codes []int
			for c := 0; c < 1<<p.bits; c++ {
				codes = append(codes, c)
			}
			for c := 1<<p.bits - 1; c >= 0; c-- {
				codes = append(codes, c)
			}
			codes = append(codes, 1)
			n := int64(len(codes))
			path := f8Model(t, "decode", []*onnxpb.NodeProto{onnxCast("x", "y", onnxpb.TensorProto_INT32), onnxCast("y", "z", p.onnx)},
				f8ValueInfo("x", p.onnx, n), []*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_INT32, n), f8ValueInfo("z", p.onnx, n)})
			packed := p.packCodes(codes)
			in := tensorio.Tensor{Elem: p.elem, Dims: []int64{n}, Data: packed}
			got := interpModel(t, path, in)
			for k, c := range codes {
				if g := int64(int32(binary.LittleEndian.Uint32(got[0].Data[4*k:]))); g != p.value(c) {
					t.Errorf("element %d (code %d): got %d, want %d", k, c, g, p.value(c))
				}
			}
			if string(got[1].Data) != string(packed) {
				t.Errorf("round trip: got %x, want %x", got[1].Data, packed)
			}

			var fs []float32
			var is []int32
			for v := -40; v <= 40; v++ {
				fs = append(fs, float32(v), float32(v)+0.5, float32(v)+0.25, float32(v)-0.75)
				is = append(is, int32(v))
			}
			fs = append(fs, float32(math.Copysign(0, -1)), 1e6, -1e6)
			is = append(is, math.MaxInt32, math.MinInt32, 1<<20+5)
			nf, ni := int64(len(fs)), int64(len(is))
			// x → p → i32 shows the wrapped value inside the function.
			path = f8Model(t, "encode", []*onnxpb.NodeProto{onnxCast("x", "y", p.onnx), onnxCast("x", "i", onnxpb.TensorProto_INT32),
				onnxCast("i", "z", p.onnx), onnxCast("y", "w", onnxpb.TensorProto_INT32)},
				f8ValueInfo("x", onnxpb.TensorProto_FLOAT, nf), []*onnxpb.ValueInfoProto{f8ValueInfo("y", p.onnx, nf),
					f8ValueInfo("i", onnxpb.TensorProto_INT32, nf), f8ValueInfo("z", p.onnx, nf), f8ValueInfo("w", onnxpb.TensorProto_INT32, nf)})
			got = interpModel(t, path, f32Tensor(fs))
			want := make([]int, nf)
			for k, x := range fs {
				want[k] = p.wrap(int64(math.Trunc(float64(x))))
			}
			if w := p.packCodes(want); string(got[0].Data) != string(w) {
				t.Errorf("from f32 %v: got %x, want %x", fs, got[0].Data, w)
			}
			if string(got[2].Data) != string(got[0].Data) {
				t.Errorf("through i32: got %x, want %x", got[2].Data, got[0].Data)
			}
			for k, x := range fs {
				if g := int64(int32(binary.LittleEndian.Uint32(got[3].Data[4*k:]))); g != p.value(want[k]) {
					t.Errorf("cast(cast(%g to %s) to i32) = %d, want %d", x, p.elem, g, p.value(want[k]))
				}
			}
			idata := tensorio.Tensor{Elem: niro.I32, Dims: []int64{ni}, Data: make([]byte, 4*ni)}
			iwant := make([]int, ni)
			for k, v := range is {
				binary.LittleEndian.PutUint32(idata.Data[4*k:], uint32(v))
				iwant[k] = p.wrap(int64(v))
			}
			if g, w := interpCast(t, idata, p.elem, false), p.packCodes(iwant); string(g.Data) != string(w) {
				t.Errorf("from i32 %v: got %x, want %x", is, g.Data, w)
			}

			// Every code to the other narrow types and to f16.
			g := interpCast(t, in, niro.F16, false)
			for k, c := range codes {
				if h := binary.LittleEndian.Uint16(g.Data[2*k:]); h != tensorio.F16FromFloat32(float32(p.value(c))) {
					t.Errorf("code %d to f16: got %#04x", c, h)
				}
			}
			for _, sat := range []bool{true, false} {
				g := interpCast(t, in, niro.F8E8M0FNU, !sat)
				for k, c := range codes {
					if w := e8m0Encode(float64(p.value(c)), sat); g.Data[k] != w {
						t.Errorf("code %d to f8E8M0FNU saturate=%v: got %#02x, want %#02x", c, sat, g.Data[k], w)
					}
				}
			}
			f4 := packedInt{elem: niro.F4E2M1FN, bits: 4}
			f4want := make([]int, len(codes))
			for k, c := range codes {
				f4want[k] = f4Encode(float64(p.value(c)))
			}
			if g, w := interpCast(t, in, niro.F4E2M1FN, false), f4.packCodes(f4want); string(g.Data) != string(w) {
				t.Errorf("to f4E2M1FN: got %x, want %x", g.Data, w)
			}
			for _, q := range packedInts {
				qwant := make([]int, len(codes))
				for k, c := range codes {
					qwant[k] = q.wrap(p.value(c))
				}
				if g, w := interpCast(t, in, q.elem, false), q.packCodes(qwant); string(g.Data) != string(w) {
					t.Errorf("to %s: got %x, want %x", q.elem, g.Data, w)
				}
			}
		})
	}
}

// TestInterpF4E2M1Casts checks the interpreter's casts to and from
// f4E2M1FN against TestF4E2M1Casts's reference, bit for bit: every code
// (an odd count) to f32 and back, f32 values at, around and between every
// code, past the largest, infinities and NaN; the same values as f64 and
// nudged a quarter of an f32 ulp (rounding once); every code to and from
// each 8-bit float, to f8E8M0FNU and to the 4- and 2-bit integers.
func TestInterpF4E2M1Casts(t *testing.T) {
	f4 := packedInt{elem: niro.F4E2M1FN, onnx: onnxpb.TensorProto_FLOAT4E2M1, bits: 4}
	codes := f4Codes()
	n := int64(len(codes))
	path := f8Model(t, "decode", []*onnxpb.NodeProto{onnxCast("x", "y", onnxpb.TensorProto_FLOAT), onnxCast("y", "z", f4.onnx)},
		f8ValueInfo("x", f4.onnx, n), []*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_FLOAT, n), f8ValueInfo("z", f4.onnx, n)})
	packed := f4.packCodes(codes)
	in := tensorio.Tensor{Elem: f4.elem, Dims: []int64{n}, Data: packed}
	got := interpModel(t, path, in)
	for k, c := range codes {
		g := math.Float32frombits(binary.LittleEndian.Uint32(got[0].Data[4*k:]))
		if w := f4Decode(c); math.Float64bits(float64(g)) != math.Float64bits(w) {
			t.Errorf("code %#x: got %g, want %g", c, g, w)
		}
	}
	if string(got[1].Data) != string(packed) {
		t.Errorf("round trip: got %x, want %x", got[1].Data, packed)
	}

	xs := f4Probes()
	var ds []float64
	for _, x := range xs {
		v := float64(x)
		ds = append(ds, v, v+math.Abs(v)*0x1p-26, v-math.Abs(v)*0x1p-26)
	}
	for _, c := range []struct {
		in   tensorio.Tensor
		vals []float64
	}{{f32Tensor(xs), f32Values(xs)}, {f64Tensor(ds), ds}} {
		want := make([]int, len(c.vals))
		for k, x := range c.vals {
			want[k] = f4Encode(x)
		}
		g := interpCast(t, c.in, f4.elem, false)
		for k, x := range c.vals {
			if gc := int(g.Data[k/2]>>(k%2*4)) & 15; gc != want[k] {
				t.Errorf("cast(%s %g) = %#x, want %#x", c.in.Elem, x, gc, want[k])
			}
		}
		if w := f4.packCodes(want); string(g.Data) != string(w) {
			t.Errorf("%s packed: got %x, want %x", c.in.Elem, g.Data, w)
		}
	}

	for _, f := range f8Formats {
		for _, sat := range []bool{true, false} {
			g := interpCast(t, in, f.elem, !sat)
			for k, c := range codes {
				if w := f.encode(f4Decode(c), sat); g.Data[k] != w {
					t.Errorf("code %#x to %s saturate=%v: got %#02x, want %#02x", c, f.elem, sat, g.Data[k], w)
				}
			}
		}
		all := tensorio.Tensor{Elem: f.elem, Dims: []int64{256}, Data: make([]byte, 256)}
		want := make([]int, 256)
		for c := range all.Data {
			all.Data[c] = byte(c)
			want[c] = f4Encode(f.decode(uint8(c)))
		}
		if g, w := interpCast(t, all, f4.elem, false), f4.packCodes(want); string(g.Data) != string(w) {
			t.Errorf("%s codes to f4E2M1FN: got %x, want %x", f.elem, g.Data, w)
		}
	}
	for _, sat := range []bool{true, false} {
		g := interpCast(t, in, niro.F8E8M0FNU, !sat)
		for k, c := range codes {
			if w := e8m0Encode(f4Decode(c), sat); g.Data[k] != w {
				t.Errorf("code %#x to f8E8M0FNU saturate=%v: got %#02x, want %#02x", c, sat, g.Data[k], w)
			}
		}
	}
	for _, q := range packedInts {
		qwant := make([]int, len(codes))
		for k, c := range codes {
			qwant[k] = q.wrap(int64(math.Trunc(f4Decode(c))))
		}
		if g, w := interpCast(t, in, q.elem, false), q.packCodes(qwant); string(g.Data) != string(w) {
			t.Errorf("to %s: got %x, want %x", q.elem, g.Data, w)
		}
	}
}

// TestInterpE8M0Casts checks the interpreter's casts to and from
// f8E8M0FNU against TestE8M0Casts's reference, bit for bit: f32 inputs
// around every code's value, and the same as f64 (with neighbours a
// quarter of an f32 ulp away), in both saturation modes; all 256 codes to
// f32 and f16; every code to each 8-bit float, to f4E2M1FN and (values
// below 2^63) to the 4- and 2-bit integers.
func TestInterpE8M0Casts(t *testing.T) {
	xs := e8m0Inputs()
	var ds []float64
	for _, x := range xs {
		v := float64(x)
		ds = append(ds, v, v+math.Abs(v)*0x1p-26, v-math.Abs(v)*0x1p-26)
	}
	ds = append(ds, math.MaxFloat64, 0x1p-1074, 0x1p-127, 0x1p-127*(1+0x1p-52), 0x1p127*(1+0x1p-52))
	for _, sat := range []bool{true, false} {
		for _, c := range []struct {
			in   tensorio.Tensor
			vals []float64
		}{{f32Tensor(xs), f32Values(xs)}, {f64Tensor(ds), ds}} {
			g := interpCast(t, c.in, niro.F8E8M0FNU, !sat)
			bad := 0
			for i, x := range c.vals {
				if w := e8m0Encode(x, sat); g.Data[i] != w {
					if bad < 5 {
						t.Errorf("saturate=%v: cast(%s %g) = %#02x, want %#02x", sat, c.in.Elem, x, g.Data[i], w)
					}
					bad++
				}
			}
		}
	}
	codes := tensorio.Tensor{Elem: niro.F8E8M0FNU, Dims: []int64{256}, Data: make([]byte, 256)}
	for i := range codes.Data {
		codes.Data[i] = byte(i)
	}
	path := f8Model(t, "decode", []*onnxpb.NodeProto{onnxCast("x", "y", onnxpb.TensorProto_FLOAT), onnxCast("x", "h", onnxpb.TensorProto_FLOAT16)},
		f8ValueInfo("x", onnxpb.TensorProto_FLOAT8E8M0, 256),
		[]*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_FLOAT, 256), f8ValueInfo("h", onnxpb.TensorProto_FLOAT16, 256)})
	got := interpModel(t, path, codes)
	for c := 0; c < 256; c++ {
		w := e8m0Decode(uint8(c))
		g := math.Float32frombits(binary.LittleEndian.Uint32(got[0].Data[4*c:]))
		if math.IsNaN(w) != math.IsNaN(float64(g)) || !math.IsNaN(w) && float64(g) != w {
			t.Errorf("code %#02x to f32: got %g, want %g", c, g, w)
		}
		h := binary.LittleEndian.Uint16(got[1].Data[2*c:])
		if wh := f16Bits(w); h != wh && !(math.IsNaN(w) && h&0x7C00 == 0x7C00 && h&0x3FF != 0) {
			t.Errorf("code %#02x to f16: got %#04x, want %#04x", c, h, wh)
		}
	}
	for _, f := range f8Formats {
		for _, sat := range []bool{true, false} {
			g := interpCast(t, codes, f.elem, !sat)
			for c := 0; c < 256; c++ {
				if w := f.encode(e8m0Decode(uint8(c)), sat); g.Data[c] != w {
					t.Errorf("code %#02x to %s saturate=%v: got %#02x, want %#02x", c, f.elem, sat, g.Data[c], w)
				}
			}
		}
	}
	f4 := packedInt{elem: niro.F4E2M1FN, bits: 4}
	f4want := make([]int, 256)
	for c := range f4want {
		f4want[c] = f4Encode(e8m0Decode(uint8(c)))
	}
	if g, w := interpCast(t, codes, niro.F4E2M1FN, false), f4.packCodes(f4want); string(g.Data) != string(w) {
		t.Errorf("to f4E2M1FN: got %x, want %x", g.Data, w)
	}
	small := tensorio.Tensor{Elem: niro.F8E8M0FNU, Dims: []int64{127 + 63}, Data: codes.Data[:127+63]}
	for _, q := range packedInts {
		qwant := make([]int, len(small.Data))
		for c := range qwant {
			qwant[c] = q.wrap(int64(e8m0Decode(uint8(c))))
		}
		if g, w := interpCast(t, small, q.elem, false), q.packCodes(qwant); string(g.Data) != string(w) {
			t.Errorf("to %s: got %x, want %x", q.elem, g.Data, w)
		}
	}
}
