package importer

import (
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

func TestQuantizeLinearPerAxis(t *testing.T) {
	// An f16 x with an f16 scale: the division in f16, then f32.
	m := model(21, graph("q",
		[]*onnxpb.NodeProto{node("QuantizeLinear", []string{"x", "s", "z"}, []string{"y"}, attrInt("axis", 1))},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat16, 2, 3, 4), vi("s", dtFloat16, 3), vi("z", dtInt8, 3)},
		[]*onnxpb.ValueInfoProto{vi("y", dtInt8, 2, 3, 4)}))
	checkText(t, mustImport(t, m, Options{}), `
func @q(tensor<2x3x4xf16>, tensor<3xf16>, tensor<3xi8>) -> (tensor<2x3x4xi8>) inputs ["x", "s", "z"] outputs ["y"] {
^bb0(%0: tensor<2x3x4xf16>, %1: tensor<3xf16>, %2: tensor<3xi8>):
  %3 = reshape %1 : (tensor<3xf16>) -> tensor<3x1xf16> loc("node #0 (QuantizeLinear)")
  %4 = reshape %2 : (tensor<3xi8>) -> tensor<3x1xi8> loc("node #0 (QuantizeLinear)")
  %5 = div %0, %3 : (tensor<2x3x4xf16>, tensor<3x1xf16>) -> tensor<2x3x4xf16> loc("node #0 (QuantizeLinear)")
  %6 = cast %5 : (tensor<2x3x4xf16>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %7 = round %6 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %8 = cast %4 : (tensor<3x1xi8>) -> tensor<3x1xf32> loc("node #0 (QuantizeLinear)")
  %9 = add %7, %8 : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %10 = const 0x000000C3 : tensor<f32> loc("node #0 (QuantizeLinear)")
  %11 = const 0x0000FE42 : tensor<f32> loc("node #0 (QuantizeLinear)")
  %12 = max %9, %10 : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %13 = min %12, %11 : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %14 = cmp_ne %9, %9 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xi1> loc("node #0 (QuantizeLinear)")
  %15 = select %14, %10, %13 : (tensor<2x3x4xi1>, tensor<f32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("node #0 (QuantizeLinear)")
  %16 = cast %15 : (tensor<2x3x4xf32>) -> tensor<2x3x4xi8> loc("node #0 (QuantizeLinear)")
  return %16 : tensor<2x3x4xi8>
}`)
}

func TestDequantizeLinearBlocked(t *testing.T) {
	m := model(21, graph("dq",
		[]*onnxpb.NodeProto{node("DequantizeLinear", []string{"x", "s"}, []string{"y"}, attrInt("axis", 0), attrInt("block_size", 2))},
		[]*onnxpb.ValueInfoProto{vi("x", dtUint16, 4, 3), vi("s", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 4, 3)}))
	checkText(t, mustImport(t, m, Options{}), `
func @dq(tensor<4x3xui16>, tensor<2x3xf32>) -> (tensor<4x3xf32>) inputs ["x", "s"] outputs ["y"] {
^bb0(%0: tensor<4x3xui16>, %1: tensor<2x3xf32>):
  %2 = reshape %0 : (tensor<4x3xui16>) -> tensor<2x2x3xui16> loc("node #0 (DequantizeLinear)")
  %3 = reshape %1 : (tensor<2x3xf32>) -> tensor<2x1x3xf32> loc("node #0 (DequantizeLinear)")
  %4 = cast %2 : (tensor<2x2x3xui16>) -> tensor<2x2x3xf32> loc("node #0 (DequantizeLinear)")
  %5 = mul %4, %3 : (tensor<2x2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32> loc("node #0 (DequantizeLinear)")
  %6 = reshape %5 : (tensor<2x2x3xf32>) -> tensor<4x3xf32> loc("node #0 (DequantizeLinear)")
  return %6 : tensor<4x3xf32>
}`)
}

func TestQuantizeLinearNotYet(t *testing.T) {
	for _, tc := range []struct {
		name   string
		zp     DataType
		x      []int64
		s      []int64
		reason string
	}{
		{"f8E8M0FNU target", dtF8E8M0, []int64{4}, nil, "quantization to f8E8M0FNU is not supported yet"},
		{"partial block", dtUint8, []int64{5}, []int64{3}, "blocks of 2 elements do not divide axis 0 of extent 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs := []*onnxpb.AttributeProto{attrInt("axis", 0)}
			if tc.s != nil {
				attrs = append(attrs, attrInt("block_size", 2))
			}
			m := model(21, graph("q",
				[]*onnxpb.NodeProto{node("QuantizeLinear", []string{"x", "s", "z"}, []string{"y"}, attrs...)},
				[]*onnxpb.ValueInfoProto{vi("x", dtFloat, tc.x...), vi("s", dtFloat, tc.s...), vi("z", tc.zp, tc.s...)},
				[]*onnxpb.ValueInfoProto{vi("y", tc.zp, tc.x...)}))
			ops := entryOps(mustImport(t, m, Options{}))
			u, ok := ops[0].(*niro.UnknownOp)
			if len(ops) != 2 || !ok {
				t.Fatalf("want one UnknownOp and the return, got %v", ops)
			}
			if r, _ := u.Attrs[ReasonAttr].(niro.StringAttr); string(r) != tc.reason {
				t.Errorf("reason = %q, want %q", r, tc.reason)
			}
		})
	}
}

// TestCastE8M0RoundMode checks that a Cast to f8E8M0FNU maps with the
// default round_mode "up" and stays an UnknownOp, with the reason, for
// the others.
func TestCastE8M0RoundMode(t *testing.T) {
	for _, mode := range []string{"", "up", "down", "nearest"} {
		t.Run(mode, func(t *testing.T) {
			attrs := []*onnxpb.AttributeProto{attrInt("to", int64(dtF8E8M0))}
			if mode != "" {
				attrs = append(attrs, attrString("round_mode", mode))
			}
			m := model(24, graph("c",
				[]*onnxpb.NodeProto{node("Cast", []string{"x"}, []string{"y"}, attrs...)},
				[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 4)},
				[]*onnxpb.ValueInfoProto{vi("y", dtF8E8M0, 4)}))
			ops := entryOps(mustImport(t, m, Options{}))
			if len(ops) != 2 {
				t.Fatalf("want one op and the return, got %v", ops)
			}
			u, unknown := ops[0].(*niro.UnknownOp)
			if mode == "" || mode == "up" {
				if _, ok := ops[0].(*niro.Cast); !ok {
					t.Fatalf("want a cast, got %v", ops[0])
				}
				return
			}
			if !unknown {
				t.Fatalf("want an UnknownOp, got %v", ops[0])
			}
			want := "Cast to f8E8M0FNU with round_mode \"" + mode + "\" is not supported yet"
			if r, _ := u.Attrs[ReasonAttr].(niro.StringAttr); string(r) != want {
				t.Errorf("reason = %q, want %q", r, want)
			}
		})
	}
}
