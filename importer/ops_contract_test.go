package importer

import (
	"testing"

	"github.com/niro-dev/niro/onnxpb"
)

// The contraction converters: MatMul's 1-D operands, Gemm's attributes
// and Einsum's equations, each checked on the imported text.
func TestContractions(t *testing.T) {
	for _, c := range []struct {
		name  string
		opset int64
		node  *onnxpb.NodeProto
		ins   []*onnxpb.ValueInfoProto
		out   *onnxpb.ValueInfoProto
		want  string
	}{
		{"matmul_1d_3d", 13, node("MatMul", []string{"a", "b"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 3), vi("b", dtFloat, 2, 3, 4)}, vi("y", dtFloat, 2, 4), `
func @g(tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x4xf32>) inputs ["a", "b"] outputs ["y"] {
^bb0(%0: tensor<3xf32>, %1: tensor<2x3x4xf32>):
  %2 = reshape %0 : (tensor<3xf32>) -> tensor<1x3xf32> loc("node #0 (MatMul)")
  %3 = matmul %2, %1 : (tensor<1x3xf32>, tensor<2x3x4xf32>) -> tensor<2x1x4xf32> loc("node #0 (MatMul)")
  %4 = reshape %3 : (tensor<2x1x4xf32>) -> tensor<2x4xf32> loc("node #0 (MatMul)")
  return %4 : tensor<2x4xf32>
}`},
		{"matmul_4d_1d", 13, node("MatMul", []string{"a", "b"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 1, 5, 3), vi("b", dtFloat, 3)}, vi("y", dtFloat, 2, 1, 5), `
func @g(tensor<2x1x5x3xf32>, tensor<3xf32>) -> (tensor<2x1x5xf32>) inputs ["a", "b"] outputs ["y"] {
^bb0(%0: tensor<2x1x5x3xf32>, %1: tensor<3xf32>):
  %2 = reshape %1 : (tensor<3xf32>) -> tensor<3x1xf32> loc("node #0 (MatMul)")
  %3 = matmul %0, %2 : (tensor<2x1x5x3xf32>, tensor<3x1xf32>) -> tensor<2x1x5x1xf32> loc("node #0 (MatMul)")
  %4 = reshape %3 : (tensor<2x1x5x1xf32>) -> tensor<2x1x5xf32> loc("node #0 (MatMul)")
  return %4 : tensor<2x1x5xf32>
}`},
		{"gemm_all", 13, node("Gemm", []string{"a", "b", "c"}, []string{"y"}, attrFloat("alpha", 0.5), attrFloat("beta", 2), attrInt("transA", 1), attrInt("transB", 1)),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 3, 2), vi("b", dtFloat, 4, 3), vi("c", dtFloat, 4)}, vi("y", dtFloat, 2, 4), `
func @g(tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> (tensor<2x4xf32>) inputs ["a", "b", "c"] outputs ["y"] {
^bb0(%0: tensor<3x2xf32>, %1: tensor<4x3xf32>, %2: tensor<4xf32>):
  %3 = transpose %0 [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32> loc("node #0 (Gemm)")
  %4 = transpose %1 [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32> loc("node #0 (Gemm)")
  %5 = matmul %3, %4 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("node #0 (Gemm)")
  %6 = const 0x0000003F : tensor<f32> loc("node #0 (Gemm)")
  %7 = mul %5, %6 : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("node #0 (Gemm)")
  %8 = const 0x00000040 : tensor<f32> loc("node #0 (Gemm)")
  %9 = mul %2, %8 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc("node #0 (Gemm)")
  %10 = add %7, %9 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("node #0 (Gemm)")
  return %10 : tensor<2x4xf32>
}`},
		{"gemm_beta0", 13, node("Gemm", []string{"a", "b", "c"}, []string{"y"}, attrFloat("beta", 0)),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 3), vi("b", dtFloat, 3, 4), vi("c", dtFloat, 2, 4)}, vi("y", dtFloat, 2, 4), `
func @g(tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>) inputs ["a", "b", "c"] outputs ["y"] {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>, %2: tensor<2x4xf32>):
  %3 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("node #0 (Gemm)")
  return %3 : tensor<2x4xf32>
}`},
		{"einsum_ellipsis", 12, node("Einsum", []string{"a", "b"}, []string{"y"}, attrString("equation", "...ij, ...kj -> ...ik")),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 5, 2, 3), vi("b", dtFloat, 5, 4, 3)}, vi("y", dtFloat, 5, 2, 4), `
func @g(tensor<5x2x3xf32>, tensor<5x4x3xf32>) -> (tensor<5x2x4xf32>) inputs ["a", "b"] outputs ["y"] {
^bb0(%0: tensor<5x2x3xf32>, %1: tensor<5x4x3xf32>):
  %2 = transpose %1 [0, 2, 1] : (tensor<5x4x3xf32>) -> tensor<5x3x4xf32> loc("node #0 (Einsum)")
  %3 = matmul %0, %2 : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32> loc("node #0 (Einsum)")
  return %3 : tensor<5x2x4xf32>
}`},
		{"einsum_implicit", 12, node("Einsum", []string{"a", "b"}, []string{"y"}, attrString("equation", "kj,ji")),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 3), vi("b", dtFloat, 3, 4)}, vi("y", dtFloat, 4, 2), `
func @g(tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<4x2xf32>) inputs ["a", "b"] outputs ["y"] {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>):
  %2 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("node #0 (Einsum)")
  %3 = transpose %2 [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32> loc("node #0 (Einsum)")
  return %3 : tensor<4x2xf32>
}`},
		{"einsum_sum_outer", 12, node("Einsum", []string{"a", "b"}, []string{"y"}, attrString("equation", "ij,k->kj")),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 3), vi("b", dtFloat, 4)}, vi("y", dtFloat, 4, 3), `
func @g(tensor<2x3xf32>, tensor<4xf32>) -> (tensor<4x3xf32>) inputs ["a", "b"] outputs ["y"] {
^bb0(%0: tensor<2x3xf32>, %1: tensor<4xf32>):
  %2 = reduce_sum %0 {axes = [0]} : (tensor<2x3xf32>) -> tensor<3xf32> loc("node #0 (Einsum)")
  %3 = reshape %2 : (tensor<3xf32>) -> tensor<3x1xf32> loc("node #0 (Einsum)")
  %4 = reshape %1 : (tensor<4xf32>) -> tensor<1x4xf32> loc("node #0 (Einsum)")
  %5 = matmul %3, %4 : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32> loc("node #0 (Einsum)")
  %6 = transpose %5 [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32> loc("node #0 (Einsum)")
  return %6 : tensor<4x3xf32>
}`},
		{"einsum_diagonal", 12, node("Einsum", []string{"a"}, []string{"y"}, attrString("equation", "jii->ij")),
			[]*onnxpb.ValueInfoProto{vi("a", dtInt32, 2, 3, 3)}, vi("y", dtInt32, 3, 2), `
func @g(tensor<2x3x3xi32>) -> (tensor<3x2xi32>) inputs ["a"] outputs ["y"] {
^bb0(%0: tensor<2x3x3xi32>):
  %1 = const 0x010000000100000001 : tensor<3x3xi1> loc("node #0 (Einsum)")
  %2 = const 0x00000080 : tensor<i32> loc("node #0 (Einsum)")
  %3 = select %1, %0, %2 : (tensor<3x3xi1>, tensor<2x3x3xi32>, tensor<i32>) -> tensor<2x3x3xi32> loc("node #0 (Einsum)")
  %4 = reduce_max %3 {axes = [2]} : (tensor<2x3x3xi32>) -> tensor<2x3xi32> loc("node #0 (Einsum)")
  %5 = transpose %4 [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32> loc("node #0 (Einsum)")
  return %5 : tensor<3x2xi32>
}`},
		{"einsum_trace", 12, node("Einsum", []string{"a"}, []string{"y"}, attrString("equation", "ii")),
			[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 2)}, vi("y", dtFloat), `
func @g(tensor<2x2xf32>) -> (tensor<f32>) inputs ["a"] outputs ["y"] {
^bb0(%0: tensor<2x2xf32>):
  %1 = const 0x01000001 : tensor<2x2xi1> loc("node #0 (Einsum)")
  %2 = const 0x000080FF : tensor<f32> loc("node #0 (Einsum)")
  %3 = select %1, %0, %2 : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32> loc("node #0 (Einsum)")
  %4 = reduce_max %3 {axes = [1]} : (tensor<2x2xf32>) -> tensor<2xf32> loc("node #0 (Einsum)")
  %5 = reduce_sum %4 {axes = [0]} : (tensor<2xf32>) -> tensor<f32> loc("node #0 (Einsum)")
  return %5 : tensor<f32>
}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := model(c.opset, graph("g", []*onnxpb.NodeProto{c.node}, c.ins, []*onnxpb.ValueInfoProto{c.out}))
			checkText(t, mustImport(t, m, Options{}), c.want)
		})
	}
}
