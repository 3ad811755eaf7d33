package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// e8m0Decode returns the value of an f8E8M0FNU code by its definition.
func e8m0Decode(c uint8) float64 {
	if c == 0xFF {
		return math.NaN()
	}
	return math.Ldexp(1, int(c)-127)
}

// e8m0Encode is the reference for a cast to f8E8M0FNU with round_mode
// "up", written as a search: the smallest code whose value is at least
// |x|; none (|x| past 2^127, infinity included) is an overflow, code 254
// when saturating and 255 otherwise. NaN gives 255.
func e8m0Encode(x float64, saturate bool) uint8 {
	if math.IsNaN(x) {
		return 0xFF
	}
	ax := math.Abs(x)
	for c := 0; c < 0xFF; c++ {
		if e8m0Decode(uint8(c)) >= ax {
			return uint8(c)
		}
	}
	if saturate {
		return 0xFE
	}
	return 0xFF
}

// e8m0Inputs returns f32 values around every code's value (the power of
// two and its f32 neighbours), f32 subnormals around 2^−127, zeros,
// f32's extremes, infinities and NaN, with both signs.
func e8m0Inputs() []float32 {
	var out []float32
	for c := 0; c < 0xFF; c++ {
		f := float32(e8m0Decode(uint8(c)))
		out = append(out, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, 0), f*1.5)
	}
	out = append(out, math.SmallestNonzeroFloat32, 1e-40, 0, math.MaxFloat32, float32(math.Inf(1)))
	n := len(out)
	for i := 0; i < n; i++ {
		out = append(out, -out[i])
	}
	return append(out, float32(math.NaN()))
}

// TestE8M0Casts compiles Cast from f32 to f8E8M0FNU, saturating and not,
// and from every code to f32 and f16, and checks every result bit for bit
// against the reference conversions above.
func TestE8M0Casts(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	castTo := func(name string, to onnxpb.TensorProto_DataType, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{"x"}, Output: []string{name},
			Attribute: append([]*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(to))}}, attrs...)}
	}
	t.Run("encode", func(t *testing.T) {
		xs := e8m0Inputs()
		var nodes []*onnxpb.NodeProto
		var outs []*onnxpb.ValueInfoProto
		for _, sat := range []int64{1, 0} {
			name := fmt.Sprintf("sat%d", sat)
			nodes = append(nodes, castTo(name, onnxpb.TensorProto_FLOAT8E8M0,
				&onnxpb.AttributeProto{Name: proto.String("saturate"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(sat)}))
			outs = append(outs, f8ValueInfo(name, onnxpb.TensorProto_FLOAT8E8M0, int64(len(xs))))
		}
		path := f8Model(t, "encode", nodes, f8ValueInfo("x", onnxpb.TensorProto_FLOAT, int64(len(xs))), outs)
		data := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
		}
		got := run(t, path, tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(xs))}, Data: data})
		for k, sat := range []bool{true, false} {
			bad := 0
			for i, x := range xs {
				if g, w := got[k].Data[i], e8m0Encode(float64(x), sat); g != w {
					if bad < 5 {
						t.Errorf("saturate=%v: cast(%g = %#08x) = %#02x, want %#02x", sat, x, math.Float32bits(x), g, w)
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("saturate=%v: %d of %d results differ", sat, bad, len(xs))
			}
		}
	})
	t.Run("decode", func(t *testing.T) {
		path := f8Model(t, "decode", []*onnxpb.NodeProto{castTo("y", onnxpb.TensorProto_FLOAT), castTo("h", onnxpb.TensorProto_FLOAT16)},
			f8ValueInfo("x", onnxpb.TensorProto_FLOAT8E8M0, 256),
			[]*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_FLOAT, 256), f8ValueInfo("h", onnxpb.TensorProto_FLOAT16, 256)})
		codes := make([]byte, 256)
		for i := range codes {
			codes[i] = byte(i)
		}
		got := run(t, path, tensorio.Tensor{Elem: niro.F8E8M0FNU, Dims: []int64{256}, Data: codes})
		for c := 0; c < 256; c++ {
			w := e8m0Decode(uint8(c))
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[0].Data[4*c:]))
			if math.IsNaN(w) != math.IsNaN(float64(g)) || !math.IsNaN(w) && float64(g) != w {
				t.Errorf("code %#02x to f32: got %g, want %g", c, g, w)
			}
			// f16: the power of two rounded to f16 (0 below its
			// subnormals, infinity above its range).
			h := binary.LittleEndian.Uint16(got[1].Data[2*c:])
			if wh := f16Bits(w); h != wh && !(math.IsNaN(w) && h&0x7C00 == 0x7C00 && h&0x3FF != 0) {
				t.Errorf("code %#02x to f16: got %#04x, want %#04x", c, h, wh)
			}
		}
	})
}

// f16Bits returns the f16 bits of a power of two v (or NaN), rounded to
// nearest even: 2^e is an f16 normal for −14 ≤ e ≤ 15, a subnormal for
// −24 ≤ e < −14, 2^−25 rounds to zero (a tie with the even 0) and 2^16
// and up become infinity.
func f16Bits(v float64) uint16 {
	if math.IsNaN(v) {
		return 0x7E00
	}
	_, e := math.Frexp(v) // v = 0.5 · 2^e
	e--
	switch {
	case e > 15:
		return 0x7C00
	case e >= -14:
		return uint16(e+15) << 10
	case e >= -24:
		return 1 << (e + 24)
	}
	return 0
}
