// Command gen writes examples/mobilenetv2/model.onnx: a MobileNetV2
// inverted residual block (expansion 4, stride 1, so with the residual
// Add), in the form torch.onnx writes it without folding
// BatchNormalization,
//
//	x [1, 16, 14, 14]
//	h = Relu6(BN1(Conv 1×1 (16 → 64)(x)))            expand; Relu6 is Clip(0, 6)
//	h = HardSwish(BN2(Conv 3×3 (64 → 64, group 64, pad 1)(h)))   depthwise
//	h = BN3(Conv 1×1 (64 → 16)(h))                   project (linear)
//	y = x + h                                        [1, 16, 14, 14]
//
// MobileNetV2 has Relu6 after both the expansion and the depthwise
// convolution, MobileNetV3 HardSwish; the block uses one of each so that
// both forms are covered. The convolutions have no bias. About 12 KB of
// weights, 0.51 M multiply-adds. Weights and BatchNormalization statistics
// are deterministic pseudo-random values. It also writes
// test_data_set_0's input; expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/mobilenetv2/gen
package main

import og "github.com/niro-dev/niro/internal/onnxgen"

const (
	c   = 16
	exp = 4 * c
)

func main() {
	b := og.New(11, 12)
	h := b.BatchNorm("bn1", b.Conv("expand", "x", c, exp, 1, 1, 0, 1, false), exp)
	h = b.Node("Clip", []string{h, b.Scalar("relu6.min", 0), b.Scalar("relu6.max", 6)}, "relu6")
	h = b.BatchNorm("bn2", b.Conv("depthwise", h, exp, exp, 3, 1, 1, exp, false), exp)
	h = b.Node("HardSwish", []string{h}, "hswish")
	h = b.BatchNorm("bn3", b.Conv("project", h, exp, c, 1, 1, 0, 1, false), c)
	b.Node("Add", []string{"x", h}, "y")
	x := og.Value{Name: "x", Dims: []int64{1, c, 14, 14}}
	b.Write("examples/mobilenetv2", "mobilenetv2_inverted_residual", []og.Value{x}, []og.Value{{Name: "y", Dims: x.Dims}})
	b.WriteInput("examples/mobilenetv2", 0, 0, x, 0, 2)
}
