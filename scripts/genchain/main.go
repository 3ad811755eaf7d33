// Command genchain writes a long chain model for measuring emit's time and
// memory (docs/performance.md, "Emit on a long chain"):
//
//	go run ./scripts/genchain -o chain.onnx [-n 1000000] [-len 4]
//
// The graph takes x of shape [len] f32 and applies n nodes, alternately
// Add (the previous value plus x) and Relu, each reading the one before;
// its output is the last node's result.
package main

import (
	"flag"
	"log"
	"os"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

func main() {
	out := flag.String("o", "", "output .onnx file")
	n := flag.Int("n", 1_000_000, "number of nodes")
	length := flag.Int64("len", 4, "extent of the 1-D f32 input")
	flag.Parse()
	if *out == "" || *n < 1 || *length < 1 {
		log.Fatal("genchain: want -o FILE, -n >= 1 and -len >= 1")
	}
	vi := func(name string) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
			{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: *length}}}}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
	}
	nodes := make([]*onnxpb.NodeProto, *n)
	prev := "x"
	for i := range nodes {
		res := "v" + strconv.Itoa(i)
		if i == *n-1 {
			res = "y"
		}
		if i%2 == 0 {
			nodes[i] = &onnxpb.NodeProto{Name: proto.String("add" + strconv.Itoa(i)), OpType: proto.String("Add"), Input: []string{prev, "x"}, Output: []string{res}}
		} else {
			nodes[i] = &onnxpb.NodeProto{Name: proto.String("relu" + strconv.Itoa(i)), OpType: proto.String("Relu"), Input: []string{prev}, Output: []string{res}}
		}
		prev = res
	}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("chain"), Node: nodes,
			Input: []*onnxpb.ValueInfoProto{vi("x")}, Output: []*onnxpb.ValueInfoProto{vi("y")}}}
	data, err := proto.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
