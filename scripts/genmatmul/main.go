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
		log.Fatal("genmatmul: -o DIR is required")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	vi := func(name string, elem onnxpb.TensorProto_DataType, dims ...string) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem)), Shape: shape}}}}
	}
	write := func(name string, node *onnxpb.NodeProto, in []*onnxpb.ValueInfoProto, res *onnxpb.ValueInfoProto) {
		m := &onnxpb.ModelProto{IrVersion: proto.Int64(8),
			Graph: &onnxpb.GraphProto{Name: proto.String(name), Node: []*onnxpb.NodeProto{node}, Input: in,
				Output: []*onnxpb.ValueInfoProto{res}},
			OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}}
		data, err := proto.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, name+".onnx"), data, 0o644); err != nil {
			log.Fatal(err)
		}
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
