// Command gen writes examples/resnetblock/model.onnx: a ResNet basic block
// with a downsampling shortcut (torchvision's BasicBlock with stride 2),
// in the form torch.onnx writes it without folding BatchNormalization,
//
//	x [1, 16, 16, 16]
//	h = Relu(BN1(Conv 3×3 (16 → 32, stride 2, pad 1)(x)))      [1, 32, 8, 8]
//	h = BN2(Conv 3×3 (32 → 32, pad 1)(h))
//	s = BN3(Conv 1×1 (16 → 32, stride 2)(x))                   the shortcut
//	y = Relu(h + s)                                            [1, 32, 8, 8]
//
// The convolutions have no bias (BatchNormalization follows each). About
// 57 KB of weights, 0.92 M multiply-adds. Weights and BatchNormalization
// statistics are deterministic pseudo-random values. It also writes
// test_data_set_0's input; expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/resnetblock/gen
package main

import og "github.com/niro-dev/niro/internal/onnxgen"

func main() {
	b := og.New(9, 10)
	h := b.BatchNorm("bn1", b.Conv("conv1", "x", 16, 32, 3, 2, 1, 1, false), 32)
	h = b.Node("Relu", []string{h}, "relu1")
	h = b.BatchNorm("bn2", b.Conv("conv2", h, 32, 32, 3, 1, 1, 1, false), 32)
	s := b.BatchNorm("downsample.1", b.Conv("downsample.0", "x", 16, 32, 1, 2, 0, 1, false), 32)
	b.Node("Relu", []string{b.Node("Add", []string{h, s}, "add")}, "y")
	x := og.Value{Name: "x", Dims: []int64{1, 16, 16, 16}}
	b.Write("examples/resnetblock", "resnet_basic_block", []og.Value{x}, []og.Value{{Name: "y", Dims: []int64{1, 32, 8, 8}}})
	b.WriteInput("examples/resnetblock", 0, 0, x, 0, 1)
}
