// Command genconv writes one-node ONNX models for the convolution
// benchmarks (scripts/bench-conv.sh):
//
//	go run ./scripts/genconv -o DIR
//
// DIR/resnet3x3.onnx: Conv 3×3, pads 1, 1×64×56×56 → 64 channels (0.231
// GFLOP); DIR/depthwise3x3.onnx: Conv 3×3, pads 1, group 144, 1×144×56×56;
// DIR/pointwise1x1.onnx: Conv 1×1, 1×64×56×56 → 256 channels;
// DIR/matmul.onnx: MatMul 3136×576 by 576×64 (the 3×3 convolution's work
// as a matrix product). Weights are initializers, uniform in ±√(3/fan_in);
// the input x (and the MatMul's b) is a graph input. The convolutions
// of general.go (1-D, grouped, 3-D) and the convolutions with an epilogue
// of epilogue.go and the general forms with an epilogue of
// general_epilogue.go are written beside them.
package main

import (
	"encoding/binary"
	"flag"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

func main() {
	out := flag.String("o", "", "output directory")
	flag.Parse()
	if *out == "" {
		log.Fatal("genconv: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	conv := func(file string, x, w []int64, group int64, pad int64) {
		fan := float64(w[1] * w[2] * w[3])
		n := int(w[0] * w[1] * w[2] * w[3])
		raw := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := float32((r.Float64()*2 - 1) * math.Sqrt(3/fan))
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		oh := x[2] + 2*pad - w[2] + 1
		ow := x[3] + 2*pad - w[3] + 1
		node := &onnxpb.NodeProto{OpType: proto.String("Conv"), Input: []string{"x", "w"}, Output: []string{"y"},
			Attribute: []*onnxpb.AttributeProto{
				{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(group)},
				{Name: proto.String("kernel_shape"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: w[2:]},
				{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{pad, pad, pad, pad}},
			}}
		g := &onnxpb.GraphProto{Name: proto.String(file), Node: []*onnxpb.NodeProto{node},
			Initializer: []*onnxpb.TensorProto{{Name: proto.String("w"), Dims: w, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw}},
			Input:       []*onnxpb.ValueInfoProto{value("x", x)},
			Output:      []*onnxpb.ValueInfoProto{value("y", []int64{x[0], w[0], oh, ow})}}
		write(filepath.Join(*out, file+".onnx"), g)
	}
	conv("resnet3x3", []int64{1, 64, 56, 56}, []int64{64, 64, 3, 3}, 1, 1)
	conv("depthwise3x3", []int64{1, 144, 56, 56}, []int64{144, 1, 3, 3}, 144, 1)
	conv("pointwise1x1", []int64{1, 64, 56, 56}, []int64{256, 64, 1, 1}, 1, 0)
	mm := &onnxpb.GraphProto{Name: proto.String("matmul"),
		Node:   []*onnxpb.NodeProto{{OpType: proto.String("MatMul"), Input: []string{"a", "b"}, Output: []string{"y"}}},
		Input:  []*onnxpb.ValueInfoProto{value("a", []int64{3136, 576}), value("b", []int64{576, 64})},
		Output: []*onnxpb.ValueInfoProto{value("y", []int64{3136, 64})}}
	write(filepath.Join(*out, "matmul.onnx"), mm)
	writeGeneral(*out, r)
	writeEpilogue(*out, r)
	writeGeneralEpilogue(*out, r)

	writeDepthwise(*out, r)
	writeDWMisc(*out, r)
	writeMultView(*out)
}

func value(name string, dims []int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
}

func write(path string, g *onnxpb.GraphProto) {
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), ProducerName: proto.String("niro genconv"), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}}
	b, err := proto.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
