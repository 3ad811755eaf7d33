// Command genmatmul writes the ONNX models scripts/bench-matmul-ort.sh
// times under niro and ONNX Runtime, each with symbolic extents (fix them
// with niro's --shape and ort-bench.mjs's NAME=DIMS):
//
//	go run ./scripts/genmatmul -o DIR
//
//	DIR/mm_f32.onnx      MatMul  a[M,K] · b[K,N], float
//	DIR/mm_f64.onnx      MatMul  the same, double
//	DIR/bmm_f32.onnx     MatMul  a[P,M,K] · b[P,K,N], float (batched)
//	DIR/gemm_tb_f32.onnx Gemm    a[M,K] · b[N,K]ᵀ (transB = 1), float
package main

import (
	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/scripts/internal/genonnx"
)

func main() {
	out := genonnx.OutDir("genmatmul")
	vi := genonnx.SymInfo
	write := func(name string, node *onnxpb.NodeProto, in []*onnxpb.ValueInfoProto, res *onnxpb.ValueInfoProto) {
		genonnx.Write(out, 8, 17, &onnxpb.GraphProto{Name: proto.String(name), Node: []*onnxpb.NodeProto{node}, Input: in,
			Output: []*onnxpb.ValueInfoProto{res}})
	}
	matmul := &onnxpb.NodeProto{Name: proto.String("mm"), OpType: proto.String("MatMul"), Input: []string{"a", "b"}, Output: []string{"c"}}
	f32, f64 := onnxpb.TensorProto_FLOAT, onnxpb.TensorProto_DOUBLE
	write("mm_f32", matmul, []*onnxpb.ValueInfoProto{vi("a", f32, "M", "K"), vi("b", f32, "K", "N")}, vi("c", f32, "M", "N"))
	write("mm_f64", matmul, []*onnxpb.ValueInfoProto{vi("a", f64, "M", "K"), vi("b", f64, "K", "N")}, vi("c", f64, "M", "N"))
	write("bmm_f32", matmul, []*onnxpb.ValueInfoProto{vi("a", f32, "P", "M", "K"), vi("b", f32, "P", "K", "N")}, vi("c", f32, "P", "M", "N"))
	gemm := &onnxpb.NodeProto{Name: proto.String("gemm"), OpType: proto.String("Gemm"), Input: []string{"a", "b"}, Output: []string{"c"},
		Attribute: []*onnxpb.AttributeProto{{Name: proto.String("transB"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}}}
	write("gemm_tb_f32", gemm, []*onnxpb.ValueInfoProto{vi("a", f32, "M", "K"), vi("b", f32, "N", "K")}, vi("c", f32, "M", "N"))
}
