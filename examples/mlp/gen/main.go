// Command gen writes the bundled example model, examples/mlp/model.onnx: a
// two-layer perceptron without activations,
//
//	y = ((x · W1 + b1) * s) · W2ᵀᵀ + b2
//
// with x of shape [batch, 64] (batch is the symbolic dimension "N"), W1
// 64×64 (16 KB, so it lands in the weights blob), b1 and s of shape [64],
// and W2 stored as 10×64 and transposed in the graph. Weights are
// deterministic pseudo-random values. It also writes test_data_set_0's
// input for batch 4; expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/mlp/gen
package main

import (
	"encoding/binary"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

const dir = "examples/mlp"

func main() {
	rng := rand.New(rand.NewPCG(1, 2))
	floats := func(n int, scale float32) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := (rng.Float32()*2 - 1) * scale
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	f32 := int32(onnxpb.TensorProto_FLOAT)
	init := func(name string, dims []int64, data []byte) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(f32), RawData: data}
	}
	dim := func(v int64) *onnxpb.TensorShapeProto_Dimension {
		return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: v}}
	}
	sym := func(s string) *onnxpb.TensorShapeProto_Dimension {
		return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: s}}
	}
	vi := func(name string, dims ...*onnxpb.TensorShapeProto_Dimension) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(f32), Shape: &onnxpb.TensorShapeProto{Dim: dims}},
		}}}
	}
	node := func(name, op string, ins []string, outs ...string) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: ins, Output: outs}
	}
	g := &onnxpb.GraphProto{
		Name: proto.String("mlp"),
		Initializer: []*onnxpb.TensorProto{
			init("W1", []int64{64, 64}, floats(64*64, 0.125)),
			init("b1", []int64{64}, floats(64, 0.5)),
			init("s", []int64{64}, floats(64, 1)),
			init("W2", []int64{10, 64}, floats(10*64, 0.125)),
			init("b2", []int64{10}, floats(10, 0.5)),
		},
		Node: []*onnxpb.NodeProto{
			node("fc1", "MatMul", []string{"x", "W1"}, "h0"),
			node("bias1", "Add", []string{"h0", "b1"}, "h1"),
			node("scale", "Mul", []string{"h1", "s"}, "h2"),
			node("w2t", "Transpose", []string{"W2"}, "W2t"),
			node("fc2", "MatMul", []string{"h2", "W2t"}, "h3"),
			node("bias2", "Add", []string{"h3", "b2"}, "y"),
		},
		Input:  []*onnxpb.ValueInfoProto{vi("x", sym("N"), dim(64))},
		Output: []*onnxpb.ValueInfoProto{vi("y", sym("N"), dim(10))},
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro examples/mlp/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph:        g,
	}
	write := func(path string, msg proto.Message) {
		data, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write(filepath.Join(dir, "model.onnx"), m)
	x := init("x", []int64{4, 64}, floats(4*64, 1))
	write(filepath.Join(dir, "test_data_set_0", "input_0.pb"), x)
}
