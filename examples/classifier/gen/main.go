// Command gen writes examples/classifier/model.onnx: an MLP classifier
// head as exporters write nn.Linear layers,
//
//	p = Softmax(Gemm(Relu(Gemm(x, W1ᵀ, b1)), W2ᵀ, b2))
//
// with x of shape [N, 64] (N symbolic: bind it with --dim N=…), W1 stored
// as 128×64 and W2 as 10×128 (transB = 1), and p of shape [N, 10].
// Weights are deterministic pseudo-random values (about 37 KB). It also
// writes test_data_set_0's input for N = 8; expected outputs come from ONNX
// Runtime (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/classifier/gen
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

const (
	dir     = "examples/classifier"
	in      = 64
	hidden  = 128
	classes = 10
	batch   = 8 // the test data's N
)

func main() {
	rng := rand.New(rand.NewPCG(5, 6))
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
	attrInt := func(name string, v int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
	}
	attrFloat := func(name string, v float32) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
	}
	node := func(name, op string, ins []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: ins, Output: []string{out}, Attribute: attrs}
	}
	gemm := func(name string, ins []string, out string) *onnxpb.NodeProto {
		return node(name, "Gemm", ins, out, attrFloat("alpha", 1), attrFloat("beta", 1), attrInt("transB", 1))
	}
	g := &onnxpb.GraphProto{
		Name: proto.String("classifier"),
		Initializer: []*onnxpb.TensorProto{
			init("fc1.weight", []int64{hidden, in}, floats(hidden*in, 0.125)),
			init("fc1.bias", []int64{hidden}, floats(hidden, 0.1)),
			init("fc2.weight", []int64{classes, hidden}, floats(classes*hidden, 0.25)),
			init("fc2.bias", []int64{classes}, floats(classes, 0.1)),
		},
		Node: []*onnxpb.NodeProto{
			gemm("fc1", []string{"x", "fc1.weight", "fc1.bias"}, "h0"),
			node("relu", "Relu", []string{"h0"}, "h1"),
			gemm("fc2", []string{"h1", "fc2.weight", "fc2.bias"}, "logits"),
			node("softmax", "Softmax", []string{"logits"}, "probs", attrInt("axis", -1)),
		},
		Input:  []*onnxpb.ValueInfoProto{vi("x", sym("N"), dim(in))},
		Output: []*onnxpb.ValueInfoProto{vi("probs", sym("N"), dim(classes))},
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro examples/classifier/gen"),
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
	x := init("x", []int64{batch, in}, floats(batch*in, 2))
	write(filepath.Join(dir, "test_data_set_0", "input_0.pb"), x)
}
