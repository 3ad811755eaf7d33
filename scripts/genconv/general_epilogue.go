package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// writeGeneralEpilogue writes convolutions of the general forms (1-D,
// grouped, 3-D; emit/conv_general.go) followed by the epilogues that the
// convolution schedule fuses into their register block: Conv with a bias,
// an optional BatchNormalization, then Relu. Pads p on both sides of every
// spatial axis, stride 1.
//
// DIR/conv1d_bias_relu.onnx: 1×64×1000 → 64, kernel 3;
// grouped3x3g32_bn_relu.onnx: the ResNeXt grouped 3×3, 1×128×28×28 → 128,
// 32 groups, with BatchNormalization; conv3d_bias_relu.onnx: 1×16×8×28×28
// → 32, kernel 3×3×3; the pointwise conv1d_pw_bias_relu.onnx,
// 1×32×1000 → 64, and conv3d_pw_bn_relu.onnx, 1×16×8×28×28 → 32, with
// BatchNormalization; the per-group forms grouped3x3g8_bn_relu.onnx
// (1×128×28×28 → 128, 8 groups, 3×3) and shuffle1x1g3_bn_relu.onnx
// (ShuffleNet's 1×240×28×28 → 240, 3 groups, 1×1) and
// shuffle1x1g3m60_bn_relu.onnx (its bottleneck's 240 → 60, 3 groups of
// 20, 1×1), with BatchNormalization; dwmult2_bn_relu6.onnx: the depthwise 3×3 with a
// channel multiplier of 2, 1×32×56×56 → 64, with BatchNormalization and
// Relu6 (Clip to [0, 6]); the larger pointwise
// conv1d_pw512x200_bias_relu.onnx, conv1d_pw384x1000_bn_relu.onnx and
// conv3d_pw256x8x14_bn_relu.onnx (CASES=pw1d3d in scripts/bench-conv.sh);
// the 1-D and 3-D per-group gconv1d_g4k5_bn_relu.onnx and
// gconv3d_g4_bn_relu.onnx (CASES=pergroup1d3d); the per-group blocks of
// 16k + 1 channels pg34g2_bn_relu.onnx (1×34×28×28 → 34, 2 groups of 17,
// 3×3), pg68g4_bn_relu.onnx (4 groups of 17) and pg132g4_bn_relu.onnx (4
// groups of 33), with BatchNormalization, and pg34g2.onnx and pg68g4.onnx
// without (CASES=pergroup16k1); the one-output-channel 1-D and 3-D heads
// head1d_bn_relu.onnx, head1d_sigmoid.onnx (1×64×1000 → 1, kernel 3),
// head3d_bn_relu.onnx and head3d_sigmoid.onnx (1×16×8×32×32 → 1, 3×3×3;
// CASES=head13); the 2-D one-output-column heads headcol_bn_relu.onnx
// (1×64×56×3 → 1, 3×3) and headcol_sigmoid.onnx (1×128×112×5 → 1, 3×5),
// and the whole-input kernels headfull_sigmoid.onnx (1×64×7×7 → 1, 7×7)
// and headfull14_bn_relu.onnx (1×256×14×14 → 1, 14×14; CASES=headcol).
func writeGeneralEpilogue(dir string, r *rand.Rand) {
	tensor := func(name string, dims []int64, f func() float64) *onnxpb.TensorProto {
		return floatTensor(name, dims, false, f)
	}
	uni := func(a, b float64) func() float64 { return uniform(r, a, b) }
	node := func(op string, in []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Input: in, Output: []string{out}, Attribute: attrs}
	}
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	model := func(file string, x, w []int64, group, pad int64, bn bool) {
		m := w[0]
		fan := float64(1)
		for _, d := range w[1:] {
			fan *= float64(d)
		}
		s := math.Sqrt(3 / fan)
		inits := []*onnxpb.TensorProto{tensor("w", w, uni(-s, s)), tensor("b", []int64{m}, uni(-0.1, 0.1))}
		S := len(x) - 2
		out := []int64{x[0], m}
		pads := make([]int64, 2*S)
		for i := 0; i < S; i++ {
			out = append(out, x[2+i]+2*pad-w[2+i]+1)
			pads[i], pads[S+i] = pad, pad
		}
		nodes := []*onnxpb.NodeProto{
			node("Conv", []string{"x", "w", "b"}, "c",
				&onnxpb.AttributeProto{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(group)},
				ints("kernel_shape", w[2:]...), ints("pads", pads...)),
		}
		last := "c"
		if bn {
			inits = append(inits, tensor("gamma", []int64{m}, uni(0.5, 1.5)), tensor("beta", []int64{m}, uni(-0.2, 0.2)),
				tensor("mean", []int64{m}, uni(-0.2, 0.2)), tensor("var", []int64{m}, uni(0.5, 1.5)))
			nodes = append(nodes, node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"))
			last = "n"
		}
		switch {
		case strings.HasSuffix(file, "_sigmoid"):
			nodes = append(nodes, node("Sigmoid", []string{last}, "y"))
		case strings.HasSuffix(file, "_relu6"):
			// Relu6: Clip to [0, 6].
			inits = append(inits, tensor("lo", nil, func() float64 { return 0 }), tensor("hi", nil, func() float64 { return 6 }))
			nodes = append(nodes, node("Clip", []string{last, "lo", "hi"}, "y"))
		default:
			nodes = append(nodes, node("Relu", []string{last}, "y"))
		}
		g := &onnxpb.GraphProto{Name: proto.String(file), Node: nodes, Initializer: inits,
			Input:  []*onnxpb.ValueInfoProto{value("x", x)},
			Output: []*onnxpb.ValueInfoProto{value("y", out)}}
		write(filepath.Join(dir, file+".onnx"), g)
	}
	model("conv1d_bias_relu", []int64{1, 64, 1000}, []int64{64, 64, 3}, 1, 1, false)
	model("grouped3x3g32_bn_relu", []int64{1, 128, 28, 28}, []int64{128, 4, 3, 3}, 32, 1, true)
	model("conv3d_bias_relu", []int64{1, 16, 8, 28, 28}, []int64{32, 16, 3, 3, 3}, 1, 1, false)
	model("conv1d_pw_bias_relu", []int64{1, 32, 1000}, []int64{64, 32, 1}, 1, 0, false)
	model("conv3d_pw_bn_relu", []int64{1, 16, 8, 28, 28}, []int64{32, 16, 1, 1, 1}, 1, 0, true)
	model("grouped3x3g8_bn_relu", []int64{1, 128, 28, 28}, []int64{128, 16, 3, 3}, 8, 1, true)
	model("shuffle1x1g3_bn_relu", []int64{1, 240, 28, 28}, []int64{240, 80, 1, 1}, 3, 0, true)
	model("shuffle1x1g3m60_bn_relu", []int64{1, 240, 28, 28}, []int64{60, 80, 1, 1}, 3, 0, true)
	model("dwmult2_bn_relu6", []int64{1, 32, 56, 56}, []int64{64, 1, 3, 3}, 32, 1, true)
	// Larger pointwise ones (the NC… product's cache block,
	// emit/conv_pw1d3d.go): 1×512×200 → 1024 with its bias and Relu,
	// 1×384×1000 → 384 and 1×256×8×14×14 → 512 with BatchNormalization.
	model("conv1d_pw512x200_bias_relu", []int64{1, 512, 200}, []int64{1024, 512, 1}, 1, 0, false)
	model("conv1d_pw384x1000_bn_relu", []int64{1, 384, 1000}, []int64{384, 384, 1}, 1, 0, true)
	model("conv3d_pw256x8x14_bn_relu", []int64{1, 256, 8, 14, 14}, []int64{512, 256, 1, 1, 1}, 1, 0, true)
	// 16k + 1 output channels (bench-conv.sh CASES=chan16k1).
	model("conv1d_m17_bias_relu", []int64{1, 64, 1000}, []int64{17, 64, 3}, 1, 1, false)
	model("conv3d_m17_bias_relu", []int64{1, 16, 8, 28, 28}, []int64{17, 16, 3, 3, 3}, 1, 1, false)
	// 1-D and 3-D per-group grouped ones with BatchNormalization
	// (bench-conv.sh CASES=pergroup1d3d, emit/conv_pergroup_epi.go): a
	// QuartzNet-style 1×64×1000 → 64, 4 groups of 16, kernel 5, and
	// 1×32×8×28×28 → 64, 4 groups of 16, 3×3×3.
	model("gconv1d_g4k5_bn_relu", []int64{1, 64, 1000}, []int64{64, 16, 5}, 4, 2, true)
	model("gconv3d_g4_bn_relu", []int64{1, 32, 8, 28, 28}, []int64{64, 8, 3, 3, 3}, 4, 1, true)
	// Per-group blocks of 16k + 1 channels, 3×3, alone and with
	// BatchNormalization and Relu: 2 and 4 groups of 17, 4 groups of 33
	// (CASES=pergroup16k1). From a stream of their own (the closures read
	// r), so that every other model keeps its bytes.
	r = rand.New(rand.NewPCG(16, 17))
	model("pg34g2_bn_relu", []int64{1, 34, 28, 28}, []int64{34, 17, 3, 3}, 2, 1, true)
	model("pg68g4_bn_relu", []int64{1, 68, 28, 28}, []int64{68, 17, 3, 3}, 4, 1, true)
	model("pg132g4_bn_relu", []int64{1, 132, 28, 28}, []int64{132, 33, 3, 3}, 4, 1, true)
	writeGeneralCases(dir, r, []generalCase{
		{"pg34g2", []int64{1, 34, 28, 28}, []int64{34, 17, 3, 3}, 2, 1},
		{"pg68g4", []int64{1, 68, 28, 28}, []int64{68, 17, 3, 3}, 4, 1},
	})
	// 1-D and 3-D one-output-channel heads (CASES=head13): 1×64×1000 → 1,
	// kernel 3, and 1×16×8×32×32 → 1, 3×3×3, with BatchNormalization and
	// Relu or a bias and Sigmoid. From a stream of their own.
	r = rand.New(rand.NewPCG(13, 1))
	model("head1d_bn_relu", []int64{1, 64, 1000}, []int64{1, 64, 3}, 1, 1, true)
	model("head1d_sigmoid", []int64{1, 64, 1000}, []int64{1, 64, 3}, 1, 1, false)
	model("head3d_bn_relu", []int64{1, 16, 8, 32, 32}, []int64{1, 16, 3, 3, 3}, 1, 1, true)
	model("head3d_sigmoid", []int64{1, 16, 8, 32, 32}, []int64{1, 16, 3, 3, 3}, 1, 1, false)
	// 2-D one-output-channel heads of one output column (CASES=headcol,
	// emit/conv_rows_t.go): 1×64×56×3 → 1, 3×3, with BatchNormalization
	// and Relu, and 1×128×112×5 → 1, 3×5, with a bias and Sigmoid, no
	// padding. From a stream of their own.
	r = rand.New(rand.NewPCG(13, 2))
	model("headcol_bn_relu", []int64{1, 64, 56, 3}, []int64{1, 64, 3, 3}, 1, 0, true)
	model("headcol_sigmoid", []int64{1, 128, 112, 5}, []int64{1, 128, 3, 5}, 1, 0, false)
	// Heads whose kernel covers the whole input (1×1 output): 1×64×7×7
	// → 1, 7×7, and 1×256×14×14 → 1, 14×14 (CASES=headcol).
	model("headfull_sigmoid", []int64{1, 64, 7, 7}, []int64{1, 64, 7, 7}, 1, 0, false)
	model("headfull14_bn_relu", []int64{1, 256, 14, 14}, []int64{1, 256, 14, 14}, 1, 0, true)
}
