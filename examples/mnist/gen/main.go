// Command gen writes examples/mnist/model.onnx: an MNIST-style CNN in the
// form torch.onnx writes it,
//
//	x [1, 1, 28, 28]
//	→ Conv 5×5 (1 → 8, pad 2) → Relu → MaxPool 2×2 stride 2   [1, 8, 14, 14]
//	→ Conv 5×5 (8 → 16, pad 2) → Relu → MaxPool 2×2 stride 2  [1, 16, 7, 7]
//	→ Flatten → Gemm (784 → 10, transB) → Softmax              [1, 10]
//
// with biases on both convolutions (about 46 KB of weights, 0.79 M
// multiply-adds). Weights are deterministic pseudo-random values. It also
// writes test_data_set_0's input (values in [0, 1), like pixel
// intensities); expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/mnist/gen
package main

import (
	"math"

	og "github.com/niro-dev/niro/internal/onnxgen"
)

func main() {
	b := og.New(7, 8)
	pool := func(name, x string) string {
		return b.Node("MaxPool", []string{x}, name, og.Ints("kernel_shape", 2, 2), og.Ints("strides", 2, 2))
	}
	h := b.Conv("conv1", "x", 1, 8, 5, 1, 2, 1, true)
	h = pool("pool1", b.Node("Relu", []string{h}, "relu1"))
	h = b.Conv("conv2", h, 8, 16, 5, 1, 2, 1, true)
	h = pool("pool2", b.Node("Relu", []string{h}, "relu2"))
	h = b.Node("Flatten", []string{h}, "flat", og.Int("axis", 1))
	w := b.Init("fc.weight", []int64{10, 16 * 7 * 7}, 0, float32(math.Sqrt(3.0/784)))
	h = b.Node("Gemm", []string{h, w, b.Init("fc.bias", []int64{10}, 0, 0.1)}, "logits",
		og.Float("alpha", 1), og.Float("beta", 1), og.Int("transB", 1))
	b.Node("Softmax", []string{h}, "probs", og.Int("axis", 1))
	// Pixel-like inputs in [0, 1): 0.5 ± 0.5.
	x := og.Value{Name: "x", Dims: []int64{1, 1, 28, 28}}
	b.Write("examples/mnist", "mnist_cnn", []og.Value{x}, []og.Value{{Name: "probs", Dims: []int64{1, 10}}})
	b.WriteInput("examples/mnist", 0, 0, x, 0.5, 0.5)
}
