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
	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/scripts/internal/genonnx"
)

func main() {
	out := genonnx.OutDir("genreduce")
	f32 := onnxpb.TensorProto_FLOAT
	// axes is the reductions' axes input: the last axis.
	axes := &onnxpb.TensorProto{Name: proto.String("axes"), Dims: []int64{1},
		DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Int64Data: []int64{-1}}
	write := func(name string, in, outDims []int64, outElem onnxpb.TensorProto_DataType, node *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) {
		genonnx.WriteNode(out, name, genonnx.Info("x", f32, in...), genonnx.Info("y", outElem, outDims...), node, inits...)
	}
	op := genonnx.Op
	write("reducesum_32x50000", []int64{32, 50000}, []int64{32, 1}, f32, op("ReduceSum", "x", "axes"), axes)
	write("reducemax_8x50257", []int64{8, 50257}, []int64{8, 1}, f32, op("ReduceMax", "x", "axes"), axes)
	write("softmax_8x50257", []int64{8, 50257}, []int64{8, 50257}, f32, op("Softmax", "x"))
	am := op("ArgMax", "x")
	am.Attribute = []*onnxpb.AttributeProto{{Name: proto.String("axis"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(-1)}}
	write("argmax_8x50257", []int64{8, 50257}, []int64{8, 1}, onnxpb.TensorProto_INT64, am)
	// Rows of at most 4096 (16 lanes): a classifier's 1000 classes, and
	// the longest such row.
	write("argmax_64x1000", []int64{64, 1000}, []int64{64, 1}, onnxpb.TensorProto_INT64, am)
	write("argmax_8x4096", []int64{8, 4096}, []int64{8, 1}, onnxpb.TensorProto_INT64, am)
}
