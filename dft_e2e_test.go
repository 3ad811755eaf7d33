package main

import (
	"encoding/binary"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// TestDFTE2E compiles a 384-point complex DFT of 8 signals and checks
// that every output is within one f32 ulp (plus 10⁻¹² of the signal's
// scale) of the exact transform, computed in complex128 in Go: the
// accuracy docs/ops.md claims for the f64 matmul.
func TestDFTE2E(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	const batch, n = 8, 384
	vinfo := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
	}
	g := &onnxpb.GraphProto{Name: proto.String("dft"),
		Node:   []*onnxpb.NodeProto{{OpType: proto.String("DFT"), Input: []string{"x"}, Output: []string{"y"}}},
		Input:  []*onnxpb.ValueInfoProto{vinfo("x", batch, n, 2)},
		Output: []*onnxpb.ValueInfoProto{vinfo("y", batch, n, 2)}}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(9), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(20)}}}
	raw, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dft.onnx")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, batch*n*2)
	seed := uint64(11)
	for i := range x {
		seed = seed*6364136223846793005 + 1442695040888963407
		x[i] = float32(int64(seed>>40)%2001-1000) / 64
	}
	data := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	got := run(t, path, tensorio.Tensor{Elem: niro.F32, Dims: []int64{batch, n, 2}, Data: data})[0]
	ulp := func(v float64) float64 {
		f := float32(math.Abs(v))
		return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
	}
	bad := 0
	for b := 0; b < batch; b++ {
		for k := 0; k < n; k++ {
			var s complex128
			for j := 0; j < n; j++ {
				v := complex(float64(x[(b*n+j)*2]), float64(x[(b*n+j)*2+1]))
				s += v * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k%n)/n))
			}
			for d, want := range []float64{real(s), imag(s)} {
				at := ((b*n+k)*2 + d) * 4
				g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got.Data[at:])))
				if math.Abs(g-want) > ulp(want)+1e-12*16*n && bad < 5 {
					t.Errorf("y[%d, %d, %d] = %v, want %v (%.2g ulp)", b, k, d, g, want, math.Abs(g-want)/ulp(want))
					bad++
				}
			}
		}
	}
}
