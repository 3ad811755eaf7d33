// Command genmodel writes synthetic ONNX models for the compile benchmarks
// (scripts/bench-compile.sh):
//
//	go run ./scripts/genmodel -o DIR [-mb 100]
//
// DIR/weights.onnx computes y = x · W + b with W a K×K f32 matrix of about
// MB megabytes stored as external data (DIR/weights.bin), and
// DIR/noweights.onnx is the same graph with W as a second graph input, and
// DIR/matmul.onnx multiplies two N×N f32 inputs a and b (-n, default 1024).
package main

import (
	"encoding/binary"
	"flag"
	"log"
	"math"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

func main() {
	out := flag.String("o", "", "output directory")
	mb := flag.Int("mb", 100, "weight megabytes (approximate)")
	n := flag.Int64("n", 1024, "matmul.onnx extent")
	flag.Parse()
	if *out == "" {
		log.Fatal("genmodel: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	k := int64(math.Sqrt(float64(*mb) * 1e6 / 4))
	k -= k % 16
	// External weights, written in chunks.
	f, err := os.Create(filepath.Join(*out, "weights.bin"))
	if err != nil {
		log.Fatal(err)
	}
	row := make([]byte, 4*k)
	for i := int64(0); i < k; i++ {
		for j := int64(0); j < k; j++ {
			v := float32(math.Sin(float64(i*k+j))) * 0.01
			binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(v))
		}
		if _, err := f.Write(row); err != nil {
			log.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	f32 := int32(onnxpb.TensorProto_FLOAT)
	vi := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(f32), Shape: shape}}}}
	}
	bias := make([]byte, 4*k)
	nodes := []*onnxpb.NodeProto{
		{Name: proto.String("mm"), OpType: proto.String("MatMul"), Input: []string{"x", "W"}, Output: []string{"h"}},
		{Name: proto.String("bias"), OpType: proto.String("Add"), Input: []string{"h", "b"}, Output: []string{"y"}},
	}
	b := &onnxpb.TensorProto{Name: proto.String("b"), Dims: []int64{k}, DataType: proto.Int32(f32), RawData: bias}
	w := &onnxpb.TensorProto{Name: proto.String("W"), Dims: []int64{k, k}, DataType: proto.Int32(f32),
		DataLocation: onnxpb.TensorProto_EXTERNAL.Enum(),
		ExternalData: []*onnxpb.StringStringEntryProto{
			{Key: proto.String("location"), Value: proto.String("weights.bin")},
			{Key: proto.String("offset"), Value: proto.String("0")},
			{Key: proto.String("length"), Value: proto.String(itoa(4 * k * k))},
		}}
	write := func(name string, g *onnxpb.GraphProto) {
		m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
			OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}}
		data, err := proto.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("weights.onnx", &onnxpb.GraphProto{Name: proto.String("dense"), Node: nodes,
		Initializer: []*onnxpb.TensorProto{w, b},
		Input:       []*onnxpb.ValueInfoProto{vi("x", 1, k)}, Output: []*onnxpb.ValueInfoProto{vi("y", 1, k)}})
	write("matmul.onnx", &onnxpb.GraphProto{Name: proto.String("matmul"),
		Node:  []*onnxpb.NodeProto{{Name: proto.String("mm"), OpType: proto.String("MatMul"), Input: []string{"a", "b"}, Output: []string{"c"}}},
		Input: []*onnxpb.ValueInfoProto{vi("a", *n, *n), vi("b", *n, *n)}, Output: []*onnxpb.ValueInfoProto{vi("c", *n, *n)}})
	write("noweights.onnx", &onnxpb.GraphProto{Name: proto.String("dense"), Node: nodes,
		Initializer: []*onnxpb.TensorProto{b},
		Input:       []*onnxpb.ValueInfoProto{vi("x", 1, k), vi("W", k, k)}, Output: []*onnxpb.ValueInfoProto{vi("y", 1, k)}})
}

func itoa(n int64) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
