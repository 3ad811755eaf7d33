package importer

import (
	"strconv"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

func TestSoftmaxLegacyAxis(t *testing.T) {
	// Before opset 13 the input is coerced to 2-D at axis.
	m := model(11, graph("g",
		[]*onnxpb.NodeProto{node("Softmax", []string{"x"}, []string{"y"}, attrInt("axis", 1))},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 3, 4)}))
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>) inputs ["x"] outputs ["y"] {
^bb0(%0: tensor<2x3x4xf32>):
  %1 = reshape %0 : (tensor<2x3x4xf32>) -> tensor<2x12xf32> loc("node #0 (Softmax)")
  %2 = reduce_max %1 {axes = [1], keep_dims = true} : (tensor<2x12xf32>) -> tensor<2x1xf32> loc("node #0 (Softmax)")
  %3 = sub %1, %2 : (tensor<2x12xf32>, tensor<2x1xf32>) -> tensor<2x12xf32> loc("node #0 (Softmax)")
  %4 = exp %3 : (tensor<2x12xf32>) -> tensor<2x12xf32> loc("node #0 (Softmax)")
  %5 = reduce_sum %4 {axes = [1], keep_dims = true} : (tensor<2x12xf32>) -> tensor<2x1xf32> loc("node #0 (Softmax)")
  %6 = div %4, %5 : (tensor<2x12xf32>, tensor<2x1xf32>) -> tensor<2x12xf32> loc("node #0 (Softmax)")
  %7 = reshape %6 : (tensor<2x12xf32>) -> tensor<2x3x4xf32> loc("node #0 (Softmax)")
  return %7 : tensor<2x3x4xf32>
}`)
}

func TestLayerNormF16(t *testing.T) {
	// f16 is computed in f32 and Y rounded once; Mean and InvStdDev stay
	// in the stash type.
	m := model(17, graph("g",
		[]*onnxpb.NodeProto{node("LayerNormalization", []string{"x", "s", "b"}, []string{"y", "m", "inv"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat16, 2, 4), vi("s", dtFloat16, 4), vi("b", dtFloat16, 4)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat16, 2, 4), vi("m", dtFloat, 2, 1), vi("inv", dtFloat, 2, 1)}))
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>) inputs ["x", "s", "b"] outputs ["y", "m", "inv"] {
^bb0(%0: tensor<2x4xf16>, %1: tensor<4xf16>, %2: tensor<4xf16>):
  %3 = cast %0 : (tensor<2x4xf16>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %4 = reduce_sum %3 {axes = [1], keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %5 = const 0x00008040 : tensor<f32> loc("node #0 (LayerNormalization)")
  %6 = div %4, %5 : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %7 = sub %3, %6 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %8 = mul %7, %7 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %9 = reduce_sum %8 {axes = [1], keep_dims = true} : (tensor<2x4xf32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %10 = const 0x00008040 : tensor<f32> loc("node #0 (LayerNormalization)")
  %11 = div %9, %10 : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %12 = const 0xACC52737 : tensor<f32> loc("node #0 (LayerNormalization)")
  %13 = add %11, %12 : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %14 = sqrt %13 : (tensor<2x1xf32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %15 = const 0x0000803F : tensor<f32> loc("node #0 (LayerNormalization)")
  %16 = div %15, %14 : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32> loc("node #0 (LayerNormalization)")
  %17 = mul %7, %16 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %18 = cast %1 : (tensor<4xf16>) -> tensor<4xf32> loc("node #0 (LayerNormalization)")
  %19 = mul %17, %18 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %20 = cast %2 : (tensor<4xf16>) -> tensor<4xf32> loc("node #0 (LayerNormalization)")
  %21 = add %19, %20 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("node #0 (LayerNormalization)")
  %22 = cast %21 : (tensor<2x4xf32>) -> tensor<2x4xf16> loc("node #0 (LayerNormalization)")
  return %22, %6, %16 : tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>
}`)
}

// TestNormNotYet checks the instances that stay UnknownOps, with their
// reasons, and that the others map completely.
func TestNormNotYet(t *testing.T) {
	// f declares a float input whose dims are extents or, spelled with
	// letters, symbolic.
	f := func(name string, dims ...string) *onnxpb.ValueInfoProto {
		v := viParam(name, dtFloat, dims...)
		for i, d := range dims {
			if n, err := strconv.ParseInt(d, 10, 64); err == nil {
				v.Type.GetTensorType().Shape.Dim[i].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: n}
			}
		}
		return v
	}
	for _, c := range []struct {
		name   string
		opset  int64
		node   *onnxpb.NodeProto
		inputs []*onnxpb.ValueInfoProto
		reason string // "" when the node maps
	}{
		{"batchnorm training", 15, node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y", "rm", "rv"}, attrInt("training_mode", 1)),
			[]*onnxpb.ValueInfoProto{f("x", "2", "3", "4"), f("s", "3"), f("b", "3"), f("m", "3"), f("v", "3")}, ""},
		{"batchnorm dynamic", 15, node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("x", "N", "3", "H", "W"), f("s", "3"), f("b", "3"), f("m", "3"), f("v", "3")}, ""},
		{"softmax dynamic", 13, node("Softmax", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", "N", "L")}, ""},
		{"legacy softmax dynamic", 11, node("Softmax", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", "N", "L")}, "static shape"},
		{"hardmax dynamic", 13, node("Hardmax", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", "N", "4")}, "static shape"},
		{"layernorm dynamic batch", 17, node("LayerNormalization", []string{"x", "s"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", "N", "4"), f("s", "4")}, ""},
		{"layernorm dynamic axis", 17, node("LayerNormalization", []string{"x", "s"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", "2", "L"), f("s", "L")}, "static extent of axis 1"},
		{"groupnorm dynamic", 21, node("GroupNormalization", []string{"x", "s", "b"}, []string{"y"}, attrInt("num_groups", 2)),
			[]*onnxpb.ValueInfoProto{f("x", "N", "4", "3"), f("s", "4"), f("b", "4")}, "static shape"},
		{"nll dynamic", 13, node("NegativeLogLikelihoodLoss", []string{"x", "t"}, []string{"l"}),
			[]*onnxpb.ValueInfoProto{f("x", "N", "4"), viParam("t", dtInt64, "N")}, "static shape"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var outs []*onnxpb.ValueInfoProto
			for _, o := range c.node.Output {
				outs = append(outs, viUnranked(o, dtFloat))
			}
			mod := mustImport(t, model(c.opset, graph("g", []*onnxpb.NodeProto{c.node}, c.inputs, outs)), Options{})
			var unknown *niro.UnknownOp
			for _, op := range entryOps(mod) {
				if u, ok := op.(*niro.UnknownOp); ok {
					unknown = u
				}
			}
			switch {
			case c.reason == "" && unknown != nil:
				t.Errorf("%s stays an UnknownOp: %v", c.node.GetOpType(), unknown.Attrs["niro.not_compilable"])
			case c.reason != "" && unknown == nil:
				t.Errorf("%s maps, want an UnknownOp (%s)", c.node.GetOpType(), c.reason)
			case c.reason != "":
				if r, _ := unknown.Attrs["niro.not_compilable"].(niro.StringAttr); !strings.Contains(string(r), c.reason) {
					t.Errorf("reason = %q, want it to mention %q", r, c.reason)
				}
			}
		})
	}
}
