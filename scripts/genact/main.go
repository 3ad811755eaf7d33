// Command genact writes the ONNX models of the activation and
// normalization benchmarks (docs/performance.md, "Vector math"):
//
//	go run ./scripts/genact -o DIR
//
// DIR/softmax.onnx and DIR/layernorm.onnx work on a 64×1024 f32 input x
// (softmax along the last axis; layernorm with scale and bias
// initializers; layernorm_big is the same on 8192×1024); sigmoid, tanh, gelu (erf form), gelu_tanh, exp, log and
// erf work element-wise on a 1024×1024 (1M) f32 input x. All are opset 20.
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
	flag.Parse()
	if *out == "" {
		log.Fatal("genact: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
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
	vec := func(name string, n int, f func(i int) float32) *onnxpb.TensorProto {
		raw := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f(i)))
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: []int64{int64(n)}, DataType: proto.Int32(f32), RawData: raw}
	}
	write := func(name string, dims []int64, node *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) {
		node.Name = proto.String(name)
		node.Output = []string{"y"}
		g := &onnxpb.GraphProto{Name: proto.String(name), Node: []*onnxpb.NodeProto{node}, Initializer: inits,
			Input: []*onnxpb.ValueInfoProto{vi("x", dims...)}, Output: []*onnxpb.ValueInfoProto{vi("y", dims...)}}
		m := &onnxpb.ModelProto{IrVersion: proto.Int64(9), Graph: g,
			OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(20)}}}
		data, err := proto.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, name+".onnx"), data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	op := func(t string, in ...string) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(t), Input: in}
	}
	rows := []int64{64, 1024}
	big := []int64{1024, 1024}
	write("softmax", rows, op("Softmax", "x"))
	ln := op("LayerNormalization", "x", "scale", "bias")
	write("layernorm", rows, ln,
		vec("scale", 1024, func(i int) float32 { return 1 + float32(i%7)/8 }),
		vec("bias", 1024, func(i int) float32 { return float32(i%5) / 16 }))
	// The same LayerNormalization on 8192 rows (32 MiB): far beyond L2, so
	// each pass over x is a pass over memory.
	write("layernorm_big", []int64{8192, 1024}, ln,
		vec("scale", 1024, func(i int) float32 { return 1 + float32(i%7)/8 }),
		vec("bias", 1024, func(i int) float32 { return float32(i%5) / 16 }))
	for _, t := range []string{"Sigmoid", "Tanh", "Exp", "Log", "Erf", "Gelu"} {
		name := map[string]string{"Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Erf": "erf", "Gelu": "gelu"}[t]
		write(name, big, op(t, "x"))
	}
	gt := op("Gelu", "x")
	gt.Attribute = []*onnxpb.AttributeProto{{Name: proto.String("approximate"), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte("tanh")}}
	write("gelu_tanh", big, gt)
}
