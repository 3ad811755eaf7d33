// Command genreduce writes the ONNX models of the long-reduction
// benchmarks (docs/performance.md, "Long reductions"):
//
//	go run ./scripts/genreduce -o DIR
//
// DIR/reducesum_32x50000.onnx sums a 32×50000 f32 input x over its last
// axis; reducemax_8x50257.onnx takes the maximum of an 8×50257 input over
// its last axis, softmax_8x50257.onnx is Softmax along it (a
// vocabulary-sized row) and argmax_8x50257.onnx ArgMax over it. Every row
// is longer than the 4096 reduction lanes, so the Reduce ops take the
// lane-folded form (docs/ops.md, "Reduce") and ArgMax its two lane passes
// (docs/ops.md, "argmax"). argmax_64x1000.onnx and argmax_8x4096.onnx are
// ArgMax over shorter rows (16 lanes). The reductions keep the reduced
// axis (keepdims 1). All are opset 20.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

func main() {
	out := flag.String("o", "", "output directory")
	flag.Parse()
	if *out == "" {
		log.Fatal("genreduce: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	f32 := int32(onnxpb.TensorProto_FLOAT)
	vi := func(name string, elem int32, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: shape}}}}
	}
	// axes is the reductions' axes input: the last axis.
	axes := &onnxpb.TensorProto{Name: proto.String("axes"), Dims: []int64{1},
		DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Int64Data: []int64{-1}}
	write := func(name string, in, outDims []int64, outElem int32, node *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) {
		node.Name = proto.String(name)
		node.Output = []string{"y"}
		g := &onnxpb.GraphProto{Name: proto.String(name), Node: []*onnxpb.NodeProto{node}, Initializer: inits,
			Input: []*onnxpb.ValueInfoProto{vi("x", f32, in...)}, Output: []*onnxpb.ValueInfoProto{vi("y", outElem, outDims...)}}
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
	write("reducesum_32x50000", []int64{32, 50000}, []int64{32, 1}, f32, op("ReduceSum", "x", "axes"), axes)
	write("reducemax_8x50257", []int64{8, 50257}, []int64{8, 1}, f32, op("ReduceMax", "x", "axes"), axes)
	write("softmax_8x50257", []int64{8, 50257}, []int64{8, 50257}, f32, op("Softmax", "x"))
	am := op("ArgMax", "x")
	am.Attribute = []*onnxpb.AttributeProto{{Name: proto.String("axis"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(-1)}}
	write("argmax_8x50257", []int64{8, 50257}, []int64{8, 1}, int32(onnxpb.TensorProto_INT64), am)
	// Rows of at most 4096 (16 lanes): a classifier's 1000 classes, and
	// the longest such row.
	write("argmax_64x1000", []int64{64, 1000}, []int64{64, 1}, int32(onnxpb.TensorProto_INT64), am)
	write("argmax_8x4096", []int64{8, 4096}, []int64{8, 1}, int32(onnxpb.TensorProto_INT64), am)
}
