// Package genonnx holds what the benchmark model generators
// (scripts/genact, scripts/genmatmul, scripts/genreduce) share: their
// command line (-o DIR) and the writing of one-graph ONNX models of the
// default domain into DIR.
package genonnx

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// OutDir parses the command line of the generator cmd, -o DIR, creates
// DIR and returns it. Without -o it exits with "cmd: -o DIR is required".
func OutDir(cmd string) string {
	out := flag.String("o", "", "output directory")
	flag.Parse()
	if *out == "" {
		log.Fatalf("%s: -o DIR is required", cmd)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	return *out
}

// Info is a graph input or output of element type elem and static shape
// dims.
func Info(name string, elem onnxpb.TensorProto_DataType, dims ...int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return info(name, elem, shape)
}

// SymInfo is a graph input or output of element type elem whose extents
// are the symbols dims.
func SymInfo(name string, elem onnxpb.TensorProto_DataType, dims ...string) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}})
	}
	return info(name, elem, shape)
}

func info(name string, elem onnxpb.TensorProto_DataType, shape *onnxpb.TensorShapeProto) *onnxpb.ValueInfoProto {
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem)), Shape: shape}}}}
}

// Op is a node of op type t reading in; Write and WriteNode name it and
// its output.
func Op(t string, in ...string) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(t), Input: in}
}

// Write writes the model of graph g, IR version ir importing the default
// domain at opset, to dir/NAME.onnx, NAME the graph's name.
func Write(dir string, ir, opset int64, g *onnxpb.GraphProto) {
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(ir), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}}
	data, err := proto.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, g.GetName()+".onnx"), data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// WriteNode writes dir/name.onnx, opset 20 (IR version 9): the graph name
// of the one node (named name too) mapping input x to output y, with the
// initializers inits.
func WriteNode(dir, name string, x, y *onnxpb.ValueInfoProto, node *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) {
	node.Name = proto.String(name)
	node.Output = []string{"y"}
	Write(dir, 9, 20, &onnxpb.GraphProto{Name: proto.String(name), Node: []*onnxpb.NodeProto{node}, Initializer: inits,
		Input: []*onnxpb.ValueInfoProto{x}, Output: []*onnxpb.ValueInfoProto{y}})
}
