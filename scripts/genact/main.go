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
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/scripts/internal/genonnx"
)

func main() {
	out := genonnx.OutDir("genact")
	f32 := int32(onnxpb.TensorProto_FLOAT)
	vec := func(name string, n int, f func(i int) float32) *onnxpb.TensorProto {
		raw := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f(i)))
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: []int64{int64(n)}, DataType: proto.Int32(f32), RawData: raw}
	}
	write := func(name string, dims []int64, node *onnxpb.NodeProto, inits ...*onnxpb.TensorProto) {
		x := genonnx.Info("x", onnxpb.TensorProto_FLOAT, dims...)
		genonnx.WriteNode(out, name, x, genonnx.Info("y", onnxpb.TensorProto_FLOAT, dims...), node, inits...)
	}
	op := genonnx.Op
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
