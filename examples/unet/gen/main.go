// Command gen writes examples/unet/model.onnx: one U-Net decoder step in
// the form torch.onnx writes it,
//
//	x    [1, 32, 8, 8]      the coarser decoder features
//	skip [1, 16, 16, 16]    the encoder's features at this resolution
//	u = ConvTranspose 2×2 (32 → 16, stride 2)(x)       [1, 16, 16, 16]
//	r = Resize ×2 linear (half_pixel)(x)               [1, 32, 16, 16]
//	h = Concat(u, r, skip) over channels               [1, 64, 16, 16]
//	h = Relu(Conv 3×3 (64 → 16, pad 1)(h))
//	y = Relu(Conv 3×3 (16 → 16, pad 1)(h))             [1, 16, 16, 16]
//
// All three convolutions have biases. About 54 KB of weights, 2.5 M
// multiply-adds (counting the ConvTranspose as the 2×2 products it
// defines). Weights are deterministic pseudo-random values. It also writes
// test_data_set_0's inputs; expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs). Both upsamplings decoders use appear: a
// learned one (ConvTranspose) and a fixed one (Resize).
//
// Run from the repository root: go run ./examples/unet/gen
package main

import (
	"math"

	og "github.com/niro-dev/niro/internal/onnxgen"
)

func main() {
	b := og.New(13, 16)
	// ConvTranspose's weight is C_in × C_out × K × K.
	w := b.Init("up.weight", []int64{32, 16, 2, 2}, 0, float32(math.Sqrt(3.0/(32*4/4))))
	u := b.Node("ConvTranspose", []string{"x", w, b.Init("up.bias", []int64{16}, 0, 0.1)}, "up",
		og.Ints("dilations", 1, 1), og.Int("group", 1), og.Ints("kernel_shape", 2, 2),
		og.Ints("pads", 0, 0, 0, 0), og.Ints("strides", 2, 2))
	r := b.Node("Resize", []string{"x", "", b.Values("up2.scales", []int64{4}, 1, 1, 2, 2)}, "up2",
		og.String("mode", "linear"), og.String("coordinate_transformation_mode", "half_pixel"))
	h := b.Node("Concat", []string{u, r, "skip"}, "cat", og.Int("axis", 1))
	h = b.Node("Relu", []string{b.Conv("conv1", h, 64, 16, 3, 1, 1, 1, true)}, "relu1")
	b.Node("Relu", []string{b.Conv("conv2", h, 16, 16, 3, 1, 1, 1, true)}, "y")
	x := og.Value{Name: "x", Dims: []int64{1, 32, 8, 8}}
	skip := og.Value{Name: "skip", Dims: []int64{1, 16, 16, 16}}
	b.Write("examples/unet", "unet_decoder_step", []og.Value{x, skip}, []og.Value{{Name: "y", Dims: []int64{1, 16, 16, 16}}})
	b.WriteInput("examples/unet", 0, 0, x, 0, 1)
	b.WriteInput("examples/unet", 0, 1, skip, 0, 1)
}
