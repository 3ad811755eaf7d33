package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// TestIntegerContractionsE2E compiles MatMulInteger and QLinearConv at
// sizes where the host schedules tile and vectorize the contractions, and
// checks every output exactly against int32 arithmetic in Go.
func TestIntegerContractionsE2E(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	lcg := func(n int, seed uint64) []byte {
		b := make([]byte, n)
		for i := range b {
			seed = seed*6364136223846793005 + 1442695040888963407
			b[i] = byte(seed >> 56)
		}
		return b
	}
	vinfo := func(name string, dt onnxpb.TensorProto_DataType, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(dt)), Shape: shape}}}}
	}
	write := func(t *testing.T, g *onnxpb.GraphProto, opset int64) string {
		m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
			OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}}
		raw, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.onnx")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	init := func(name string, dt onnxpb.TensorProto_DataType, raw []byte, dims ...int64) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(dt)), Dims: dims, RawData: raw}
	}

	t.Run("MatMulInteger", func(t *testing.T) {
		const m, k, n = 67, 300, 45
		a, b := lcg(m*k, 1), lcg(k*n, 2) // a: u8, b: i8
		azp, bzp := lcg(m, 3), lcg(n, 4)
		g := &onnxpb.GraphProto{Name: proto.String("mmi"),
			Node:        []*onnxpb.NodeProto{{OpType: proto.String("MatMulInteger"), Input: []string{"a", "b", "az", "bz"}, Output: []string{"y"}}},
			Input:       []*onnxpb.ValueInfoProto{vinfo("a", onnxpb.TensorProto_UINT8, m, k)},
			Output:      []*onnxpb.ValueInfoProto{vinfo("y", onnxpb.TensorProto_INT32, m, n)},
			Initializer: []*onnxpb.TensorProto{init("b", onnxpb.TensorProto_INT8, b, k, n), init("az", onnxpb.TensorProto_UINT8, azp, m), init("bz", onnxpb.TensorProto_INT8, bzp, n)}}
		got := run(t, write(t, g, 10), tensorio.Tensor{Elem: niro.U8, Dims: []int64{m, k}, Data: a})[0]
		bad := 0
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s int32
				for l := 0; l < k; l++ {
					s += (int32(a[i*k+l]) - int32(azp[i])) * (int32(int8(b[l*n+j])) - int32(int8(bzp[j])))
				}
				if g := int32(binary.LittleEndian.Uint32(got.Data[4*(i*n+j):])); g != s && bad < 5 {
					t.Errorf("y[%d, %d] = %d, want %d", i, j, g, s)
					bad++
				}
			}
		}
	})

	t.Run("QLinearConv", func(t *testing.T) {
		const c, h, w, mo, kh = 16, 19, 21, 24, 3
		x, wt := lcg(c*h*w, 5), lcg(mo*c*kh*kh, 6) // x: u8, w: u8
		wzp := lcg(mo, 7)
		bias := make([]byte, 4*mo)
		for i := 0; i < mo; i++ {
			binary.LittleEndian.PutUint32(bias[4*i:], uint32(int32(i*1000-12000)))
		}
		f32 := func(vs ...float32) []byte {
			var out []byte
			for _, v := range vs {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
			}
			return out
		}
		ws := make([]float32, mo)
		for i := range ws {
			ws[i] = 0.0005 * float32(i+1)
		}
		g := &onnxpb.GraphProto{Name: proto.String("qconv"),
			Node: []*onnxpb.NodeProto{{OpType: proto.String("QLinearConv"), Input: []string{"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, Output: []string{"y"},
				Attribute: []*onnxpb.AttributeProto{{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{1, 1, 1, 1}}}}},
			Input:  []*onnxpb.ValueInfoProto{vinfo("x", onnxpb.TensorProto_UINT8, 1, c, h, w)},
			Output: []*onnxpb.ValueInfoProto{vinfo("y", onnxpb.TensorProto_UINT8, 1, mo, h, w)},
			Initializer: []*onnxpb.TensorProto{
				init("xs", onnxpb.TensorProto_FLOAT, f32(0.02)), init("xz", onnxpb.TensorProto_UINT8, []byte{128}),
				init("w", onnxpb.TensorProto_UINT8, wt, mo, c, kh, kh), init("ws", onnxpb.TensorProto_FLOAT, f32(ws...), mo),
				init("wz", onnxpb.TensorProto_UINT8, wzp, mo), init("ys", onnxpb.TensorProto_FLOAT, f32(0.5)),
				init("yz", onnxpb.TensorProto_UINT8, []byte{100}), init("b", onnxpb.TensorProto_INT32, bias, mo)}}
		got := run(t, write(t, g, 10), tensorio.Tensor{Elem: niro.U8, Dims: []int64{1, c, h, w}, Data: x})[0]
		bad, clipped := 0, 0
		for o := 0; o < mo; o++ {
			factor := float32(0.02) * ws[o] / float32(0.5)
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					s := int32(o*1000 - 12000)
					for ci := 0; ci < c; ci++ {
						for ki := 0; ki < kh; ki++ {
							for kj := 0; kj < kh; kj++ {
								y, xx := i-1+ki, j-1+kj
								if y < 0 || y >= h || xx < 0 || xx >= w {
									continue
								}
								s += (int32(x[(ci*h+y)*w+xx]) - 128) * (int32(wt[((o*c+ci)*kh+ki)*kh+kj]) - int32(wzp[o]))
							}
						}
					}
					want := math.Min(math.Max(math.RoundToEven(float64(s)*float64(factor)+100), 0), 255)
					if want == 0 || want == 255 {
						clipped++
					}
					if g := got.Data[(o*h+i)*w+j]; float64(g) != want && bad < 5 {
						t.Errorf("y[%d, %d, %d] = %d, want %v", o, i, j, g, want)
						bad++
					}
				}
			}
		}
		if 2*clipped > mo*h*w {
			t.Fatalf("%d of %d outputs saturate: the test checks too little", clipped, mo*h*w)
		}
	})
}
