// Command genhints writes testdata/scriptdata/hints.onnx, the model of
// testdata/script/import_hints.txtar, whose declarations ONNX Runtime
// reads as hints (docs/importer.md, "Declared types are hints"):
//
//	r = Relu(x)   x: float[-1, 4] (a dim_value of -1), r declared [?, 5]
//	y = Neg(r)    the graph output y declared [7]
//
// with opset_import listing ai.onnx twice (versions 21 and 1). It also
// writes hints_x.npy, an input of shape [2, 4], and hints_data/ with the
// same input and its output for niro test.
//
// Run from the repository root: go run ./testdata/scriptdata/genhints
package main

import (
	"encoding/binary"
	"log"
	"math"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

const dir = "testdata/scriptdata/"

// tensorInfo declares a float tensor; -2 in dims is a dimension with no
// value (unknown), other values are written as dim_value, -1 included.
func tensorInfo(name string, dims ...int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		dim := &onnxpb.TensorShapeProto_Dimension{}
		if d != -2 {
			dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &onnxpb.ValueInfoProto{
		Name: proto.String(name),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)),
			Shape:    shape,
		}}},
	}
}

func node(name, op, in, out string) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: []string{in}, Output: []string{out}}
}

func main() {
	m := &onnxpb.ModelProto{
		IrVersion: proto.Int64(10),
		OpsetImport: []*onnxpb.OperatorSetIdProto{
			{Domain: proto.String("ai.onnx"), Version: proto.Int64(21)},
			{Domain: proto.String(""), Version: proto.Int64(1)},
		},
		Graph: &onnxpb.GraphProto{
			Name:      proto.String("hints"),
			Node:      []*onnxpb.NodeProto{node("relu", "Relu", "x", "r"), node("neg", "Neg", "r", "y")},
			Input:     []*onnxpb.ValueInfoProto{tensorInfo("x", -1, 4)},
			ValueInfo: []*onnxpb.ValueInfoProto{tensorInfo("r", -2, 5)},
			Output:    []*onnxpb.ValueInfoProto{tensorInfo("y", 7)},
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(dir+"hints.onnx", b, 0o644); err != nil {
		log.Fatal(err)
	}
	x := tensorio.Tensor{Name: "x", Elem: niro.F32, Dims: []int64{2, 4}, Data: make([]byte, 32)}
	y := tensorio.Tensor{Name: "y", Elem: niro.F32, Dims: []int64{2, 4}, Data: make([]byte, 32)}
	for i := range 8 {
		v := float32(i) - 3.5
		binary.LittleEndian.PutUint32(x.Data[4*i:], math.Float32bits(v))
		binary.LittleEndian.PutUint32(y.Data[4*i:], math.Float32bits(-max(v, 0)))
	}
	if err := tensorio.WriteNPY(dir+"hints_x.npy", x); err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(dir+"hints_data", 0o755); err != nil {
		log.Fatal(err)
	}
	for name, t := range map[string]tensorio.Tensor{"input_0.pb": x, "output_0.pb": y} {
		b, err := tensorio.EncodePB(t)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(dir+"hints_data/"+name, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
