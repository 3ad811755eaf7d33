package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// f8Format describes an 8-bit float for the reference conversions below,
// written independently of emit's: every code decoded by its definition,
// and rounding as a search for the nearest code.
type f8Format struct {
	elem     niro.ScalarType
	onnx     onnxpb.TensorProto_DataType
	man, exp int
	bias     int
	ieee     bool // infinities at exponent all-ones, mantissa 0; NaN above
	uz       bool // 0x80 is the only NaN, no −0
}

var f8Formats = []f8Format{
	{niro.F8E4M3FN, onnxpb.TensorProto_FLOAT8E4M3FN, 3, 4, 7, false, false},
	{niro.F8E4M3FNUZ, onnxpb.TensorProto_FLOAT8E4M3FNUZ, 3, 4, 8, false, true},
	{niro.F8E5M2, onnxpb.TensorProto_FLOAT8E5M2, 2, 5, 15, true, false},
	{niro.F8E5M2FNUZ, onnxpb.TensorProto_FLOAT8E5M2FNUZ, 2, 5, 16, false, true},
}

// decode returns the value of code c.
func (f f8Format) decode(c uint8) float64 {
	if f.uz && c == 0x80 {
		return math.NaN()
	}
	e := int(c>>f.man) & (1<<f.exp - 1)
	m := int(c) & (1<<f.man - 1)
	if f.ieee && e == 1<<f.exp-1 {
		if m != 0 {
			return math.NaN()
		}
		if c&0x80 != 0 {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	if !f.ieee && !f.uz && c&0x7F == 0x7F {
		return math.NaN()
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-f.man)
	} else {
		v = math.Ldexp(float64(m|1<<f.man), e-f.bias-f.man)
	}
	if c&0x80 != 0 {
		v = -v
	}
	return v
}

// encode returns the code x rounds to: the nearest code of the magnitudes
// up to the largest finite one and one step past it (ties to the even
// code); landing past it, or an infinite x, is an overflow: ±max when
// saturating, else ±inf (f8E5M2) or NaN. NaN gives NaN.
func (f f8Format) encode(x float64, saturate bool) uint8 {
	nanCode := uint8(0x7F)
	if f.uz {
		nanCode = 0x80
	}
	if math.IsNaN(x) {
		return nanCode | signBit(x, f.uz)
	}
	cmax := 0
	for c := 0; c < 0x80; c++ {
		if v := f.decode(uint8(c)); !math.IsNaN(v) && !math.IsInf(v, 0) {
			cmax = c
		}
	}
	value := func(c int) float64 {
		if c > cmax {
			return 2*f.decode(uint8(cmax)) - f.decode(uint8(cmax-1))
		}
		return f.decode(uint8(c))
	}
	ax := math.Abs(x)
	best, bestD := 0, math.Inf(1)
	for c := 0; c <= cmax+1; c++ {
		d := math.Abs(ax - value(c))
		if d < bestD || d == bestD && c%2 == 0 {
			best, bestD = c, d
		}
	}
	code := uint8(best)
	if best > cmax || ax > value(cmax+1) {
		switch {
		case saturate:
			code = uint8(cmax)
		case f.ieee:
			code = 0x7C
		default:
			return nanCode | signBit(x, f.uz)
		}
	}
	if code == 0 && f.uz {
		return 0
	}
	return code | signBit(x, false)
}

func signBit(x float64, uz bool) uint8 {
	if math.Signbit(x) && !uz {
		return 0x80
	}
	return 0
}

// f8Inputs returns f32 values that exercise every rounding case: every
// code's value and its neighbours, every midpoint between adjacent codes
// and its neighbours, values past the largest, subnormals of f32, zeros,
// infinities and NaN, each with both signs.
func f8Inputs() []float32 {
	var out []float32
	add := func(v float64) {
		f := float32(v)
		out = append(out, f, math.Nextafter32(f, float32(math.Inf(1))), math.Nextafter32(f, float32(math.Inf(-1))))
	}
	for _, f := range f8Formats {
		var vals []float64
		for c := 0; c < 0x80; c++ {
			if v := f.decode(uint8(c)); !math.IsNaN(v) && !math.IsInf(v, 0) {
				vals = append(vals, v)
			}
		}
		for i, v := range vals {
			add(v)
			if i+1 < len(vals) {
				add((v + vals[i+1]) / 2)
			}
		}
		last := vals[len(vals)-1]
		add(last * 1.0625)
		add(last * 1.25)
		add(last * 4)
	}
	add(1e-40)
	add(1e30)
	n := len(out)
	for i := 0; i < n; i++ {
		out = append(out, -out[i])
	}
	return append(out, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32)
}

// TestFloat8Casts compiles Cast from f32 to each 8-bit float, saturating
// and not, over f8Inputs, and Cast from each 8-bit float to f32 over all
// 256 codes, and checks every result bit for bit against the reference
// conversions above.
func TestFloat8Casts(t *testing.T) {
	requireTools(t)
	xs := f8Inputs()
	run := hostRunner(t)
	t.Run("encode", func(t *testing.T) {
		var nodes []*onnxpb.NodeProto
		var outs []*onnxpb.ValueInfoProto
		for _, f := range f8Formats {
			for _, sat := range []int64{1, 0} {
				name := fmt.Sprintf("%s_sat%d", f.elem, sat)
				nodes = append(nodes, &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{"x"}, Output: []string{name},
					Attribute: []*onnxpb.AttributeProto{
						{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(f.onnx))},
						{Name: proto.String("saturate"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(sat)}}})
				outs = append(outs, f8ValueInfo(name, f.onnx, int64(len(xs))))
			}
		}
		path := f8Model(t, "encode", nodes, f8ValueInfo("x", onnxpb.TensorProto_FLOAT, int64(len(xs))), outs)
		data := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
		}
		got := run(t, path, tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(xs))}, Data: data})
		k := 0
		for _, f := range f8Formats {
			for _, sat := range []bool{true, false} {
				bad := 0
				for i, x := range xs {
					want := f.encode(float64(x), sat)
					if g := got[k].Data[i]; g != want {
						if bad < 5 {
							t.Errorf("%s saturate=%v: cast(%g = %#08x) = %#02x, want %#02x", f.elem, sat, x, math.Float32bits(x), g, want)
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("%s saturate=%v: %d of %d results differ", f.elem, sat, bad, len(xs))
				}
				k++
			}
		}
	})
	for _, f := range f8Formats {
		t.Run("decode_"+f.elem.String(), func(t *testing.T) {
			path := f8Model(t, "decode", []*onnxpb.NodeProto{{OpType: proto.String("Cast"), Input: []string{"x"}, Output: []string{"y"},
				Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(onnxpb.TensorProto_FLOAT))}}}},
				f8ValueInfo("x", f.onnx, 256), []*onnxpb.ValueInfoProto{f8ValueInfo("y", onnxpb.TensorProto_FLOAT, 256)})
			codes := make([]byte, 256)
			for i := range codes {
				codes[i] = byte(i)
			}
			got := run(t, path, tensorio.Tensor{Elem: f.elem, Dims: []int64{256}, Data: codes})
			for c := 0; c < 256; c++ {
				g := math.Float32frombits(binary.LittleEndian.Uint32(got[0].Data[4*c:]))
				w := f.decode(uint8(c))
				if math.IsNaN(w) && !math.IsNaN(float64(g)) || !math.IsNaN(w) && math.Float64bits(float64(g)) != math.Float64bits(w) {
					t.Errorf("%s code %#02x: got %g, want %g", f.elem, c, g, w)
				}
			}
		})
	}
}

func f8ValueInfo(name string, dt onnxpb.TensorProto_DataType, n int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: n}}}}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(dt)), Shape: shape}}}}
}

func f8Model(t *testing.T, name string, nodes []*onnxpb.NodeProto, in *onnxpb.ValueInfoProto, outs []*onnxpb.ValueInfoProto) string {
	t.Helper()
	g := &onnxpb.GraphProto{Name: proto.String(name), Node: nodes, Input: []*onnxpb.ValueInfoProto{in}, Output: outs}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(9), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(21)}}}
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".onnx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostRunner returns a function that compiles a one-input model for the
// host and runs it once on in, failing the test on any error.
func hostRunner(t *testing.T) func(t *testing.T, path string, in tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, path string, in tensorio.Tensor) []tensorio.Tensor {
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
}
