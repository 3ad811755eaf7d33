package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// writeDWMisc writes the depthwise-multiplier, one-input-channel and
// one-output-channel convolutions whose epilogue the convolution schedule
// fuses into the row forms (emit/conv_dwmult.go, conv_rows.go), with a
// bias (BatchNormalization) and Relu or Sigmoid:
//
// DIR/c1m32s2_bn_relu.onnx: a first layer on a grayscale image,
// 1×1×224×224 → 32, 3×3, stride 2, pads 1, BatchNormalization and Relu;
// c1m16_bn_relu.onnx: 1×1×56×56 → 16, 3×3, pads 1;
// dwmult3w28_bn_relu.onnx: the depthwise 3×3 with a channel multiplier of
// 3, 1×16×28×28 → 48; head3x3w28_m1_sigmoid.onnx: a one-channel head on a
// 28-column output (no multiple of 8), 1×64×28×28 → 1, its bias and
// Sigmoid; head3x3w14_m1_sigmoid.onnx: 1×128×14×14 → 1;
// head3x3s2_m1_sigmoid.onnx: 1×64×56×56 → 1 at stride 2 (28 columns);
// dwmult2cl_relu_pw.onnx and dwmult3cl_relu_pw.onnx: a multiplier of 2
// (1×32×56×56 → 64) or 3 (1×16×28×28 → 48) with its bias and Relu, then
// a 1×1 convolution of as many channels, so that the first result is
// channels-last; pw_head3x3w28_m1.onnx: a 1×1 convolution 1×16×28×28 →
// 32 with its bias and Relu, then a one-channel 3×3 head with its bias and
// Sigmoid (the value between them NCHW for the head's row form);
// dw32w65_bn_relu.onnx, dw64w33_bn_relu.onnx, dwmult2w65_bn_relu.onnx,
// c1m8w129_bn_relu.onnx, c1m1w65_bn_relu.onnx, c1m1w65_sigmoid.onnx,
// c1m1w129_bn_relu.onnx, c1m1w129_sigmoid.onnx, c1m1w257_bn_relu.onnx and
// c1m1k13w129_bn_relu.onnx: output widths of 32k + 1 (65, 33, 129, 257)
// of the depthwise row form's geometries (1×32×65×65 depthwise,
// 1×64×33×33 depthwise, 1×16×65×65 → 32, 1×1×129×129 → 8, and one input
// and one output channel, 3×3, and 1×3 on 1×1×127×129); dw32w65_bias.onnx
// and dwmult2w65_bias.onnx: the depthwise and multiplier ones with their
// bias alone; rows32w64_hardswish.onnx and rows32w64_bias.onnx: a 3×3
// 1×32×56×64 → 32 in the row form with HardSwish and with its bias alone;
// dw144w56_hardswish.onnx: the depthwise 3×3 1×144×56×56 with HardSwish.
func writeDWMisc(dir string, r *rand.Rand) {
	tensor := func(name string, dims []int64, f func() float64) *onnxpb.TensorProto {
		return floatTensor(name, dims, false, f)
	}
	uni := func(a, b float64) func() float64 { return uniform(r, a, b) }
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	node := func(op string, in []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Input: in, Output: []string{out}, Attribute: attrs}
	}
	model := func(file string, x, w []int64, group, stride int64, tail string) {
		m := w[0]
		fan := float64(w[1] * w[2] * w[3])
		s := math.Sqrt(3 / fan)
		inits := []*onnxpb.TensorProto{tensor("w", w, uni(-s, s)), tensor("b", []int64{m}, uni(-0.1, 0.1))}
		oh, ow := (x[2]+2-w[2])/stride+1, (x[3]+2-w[3])/stride+1
		nodes := []*onnxpb.NodeProto{node("Conv", []string{"x", "w", "b"}, "c",
			&onnxpb.AttributeProto{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(group)},
			ints("kernel_shape", w[2:]...), ints("pads", 1, 1, 1, 1), ints("strides", stride, stride))}
		switch tail {
		case "bn_relu":
			inits = append(inits, tensor("gamma", []int64{m}, uni(0.5, 1.5)), tensor("beta", []int64{m}, uni(-0.2, 0.2)),
				tensor("mean", []int64{m}, uni(-0.2, 0.2)), tensor("var", []int64{m}, uni(0.5, 1.5)))
			nodes = append(nodes, node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
				node("Relu", []string{"n"}, "y"))
		case "sigmoid":
			nodes = append(nodes, node("Sigmoid", []string{"c"}, "y"))
		case "bias":
			// The bias alone (the Identity names the output).
			nodes = append(nodes, node("Identity", []string{"c"}, "y"))
		case "hardswish":
			nodes = append(nodes, node("HardSwish", []string{"c"}, "y"))
		case "bn_relu_pw":
			// BatchNormalization and Relu, then a 1×1 convolution of m
			// channels (the first result channels-last).
			inits = append(inits, tensor("gamma", []int64{m}, uni(0.5, 1.5)), tensor("beta", []int64{m}, uni(-0.2, 0.2)),
				tensor("mean", []int64{m}, uni(-0.2, 0.2)), tensor("var", []int64{m}, uni(0.5, 1.5)),
				tensor("w2", []int64{m, m, 1, 1}, uni(-math.Sqrt(3/float64(m)), math.Sqrt(3/float64(m)))))
			nodes = append(nodes, node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
				node("Relu", []string{"n"}, "r"), node("Conv", []string{"r", "w2"}, "y", ints("kernel_shape", 1, 1)))
		case "relu_pw":
			// Relu, then a 1×1 convolution of m channels: the first
			// result is kept channels-last (emit/layout.go).
			inits = append(inits, tensor("w2", []int64{m, m, 1, 1}, uni(-math.Sqrt(3/float64(m)), math.Sqrt(3/float64(m)))))
			nodes = append(nodes, node("Relu", []string{"c"}, "r"), node("Conv", []string{"r", "w2"}, "y", ints("kernel_shape", 1, 1)))
		}
		g := &onnxpb.GraphProto{Name: proto.String(file), Node: nodes, Initializer: inits,
			Input:  []*onnxpb.ValueInfoProto{value("x", x)},
			Output: []*onnxpb.ValueInfoProto{value("y", []int64{x[0], m, oh, ow})}}
		write(filepath.Join(dir, file+".onnx"), g)
	}
	model("c1m32s2_bn_relu", []int64{1, 1, 224, 224}, []int64{32, 1, 3, 3}, 1, 2, "bn_relu")
	model("c1m16_bn_relu", []int64{1, 1, 56, 56}, []int64{16, 1, 3, 3}, 1, 1, "bn_relu")
	model("dwmult3w28_bn_relu", []int64{1, 16, 28, 28}, []int64{48, 1, 3, 3}, 16, 1, "bn_relu")
	model("head3x3w28_m1_sigmoid", []int64{1, 64, 28, 28}, []int64{1, 64, 3, 3}, 1, 1, "sigmoid")
	model("head3x3w14_m1_sigmoid", []int64{1, 128, 14, 14}, []int64{1, 128, 3, 3}, 1, 1, "sigmoid")
	// One-channel heads outside the row form's 2-D kernels before
	// (bench-conv.sh CASES=head): kernels with a side of 1, one input
	// channel, output widths of 8k + 1 (57 = 3·16 + 9: f32; 49 = 3·16 + 1).
	model("head1x3_m1_sigmoid", []int64{1, 64, 56, 56}, []int64{1, 64, 1, 3}, 1, 1, "sigmoid")
	model("head3x1_m1_bn_relu", []int64{1, 64, 56, 56}, []int64{1, 64, 3, 1}, 1, 1, "bn_relu")
	model("head_c1m1_sigmoid", []int64{1, 1, 112, 112}, []int64{1, 1, 3, 3}, 1, 1, "sigmoid")
	model("head_c1m1_hardswish", []int64{1, 1, 112, 112}, []int64{1, 1, 3, 3}, 1, 1, "hardswish")
	model("head3x3w49_m1_sigmoid", []int64{1, 64, 49, 49}, []int64{1, 64, 3, 3}, 1, 1, "sigmoid")
	model("head3x3w57_m1_bn_relu", []int64{1, 64, 57, 57}, []int64{1, 64, 3, 3}, 1, 1, "bn_relu")
	model("dwmult2cl_relu_pw", []int64{1, 32, 56, 56}, []int64{64, 1, 3, 3}, 32, 1, "relu_pw")
	model("dwmult3cl_relu_pw", []int64{1, 16, 28, 28}, []int64{48, 1, 3, 3}, 16, 1, "relu_pw")
	// Depthwise 3×3 of 16k + 1 channels with BatchNormalization and Relu,
	// then a 1×1 convolution (the depthwise result channels-last: the
	// depthwise block, its one-channel block), and grouped 3×3 ones
	// gathered per output channel with 16k + 1 channels (bench-conv.sh
	// CASES=dw16k1).
	model("dw33cl_bn_relu_pw", []int64{1, 33, 56, 56}, []int64{33, 1, 3, 3}, 33, 1, "bn_relu_pw")
	model("dw17cl_bn_relu_pw", []int64{1, 17, 28, 28}, []int64{17, 1, 3, 3}, 17, 1, "bn_relu_pw")
	model("dw49cl_bn_relu_pw", []int64{1, 49, 28, 28}, []int64{49, 1, 3, 3}, 49, 1, "bn_relu_pw")
	model("g17c2_bn_relu", []int64{1, 34, 28, 28}, []int64{17, 2, 3, 3}, 17, 1, "bn_relu")
	model("g11c2m33_bn_relu", []int64{1, 22, 28, 28}, []int64{33, 2, 3, 3}, 11, 1, "bn_relu")
	// A 1×1 convolution (bias, Relu) into a one-channel 3×3 head (bias,
	// Sigmoid): the value between them NCHW for the head's row form.
	{
		w1, w2 := []int64{32, 16, 1, 1}, []int64{1, 32, 3, 3}
		s1, s2 := math.Sqrt(3.0/16), math.Sqrt(3.0/(32*9))
		inits := []*onnxpb.TensorProto{tensor("w1", w1, uni(-s1, s1)), tensor("b1", []int64{32}, uni(-0.1, 0.1)),
			tensor("w2", w2, uni(-s2, s2)), tensor("b2", []int64{1}, uni(-0.1, 0.1))}
		nodes := []*onnxpb.NodeProto{
			node("Conv", []string{"x", "w1", "b1"}, "c", ints("kernel_shape", 1, 1)),
			node("Relu", []string{"c"}, "r"),
			node("Conv", []string{"r", "w2", "b2"}, "h", ints("kernel_shape", 3, 3), ints("pads", 1, 1, 1, 1)),
			node("Sigmoid", []string{"h"}, "y"),
		}
		g := &onnxpb.GraphProto{Name: proto.String("pw_head3x3w28_m1"), Node: nodes, Initializer: inits,
			Input:  []*onnxpb.ValueInfoProto{value("x", []int64{1, 16, 28, 28})},
			Output: []*onnxpb.ValueInfoProto{value("y", []int64{1, 1, 28, 28})}}
		write(filepath.Join(dir, "pw_head3x3w28_m1.onnx"), g)
	}
	model("head3x3s2_m1_sigmoid", []int64{1, 64, 56, 56}, []int64{1, 64, 3, 3}, 1, 2, "sigmoid")
	// Output widths of 32k + 1 that leave both blocks of the depthwise
	// row form one column (emit dwRowsCol1; NCHW values): a depthwise
	// 3×3, a multiplier of 2, one input channel, one input and one output
	// channel, with BatchNormalization and Relu (bench-conv.sh CASES=col1).
	model("dw32w65_bn_relu", []int64{1, 32, 65, 65}, []int64{32, 1, 3, 3}, 32, 1, "bn_relu")
	model("dw64w33_bn_relu", []int64{1, 64, 33, 33}, []int64{64, 1, 3, 3}, 64, 1, "bn_relu")
	model("dwmult2w65_bn_relu", []int64{1, 16, 65, 65}, []int64{32, 1, 3, 3}, 16, 1, "bn_relu")
	model("c1m8w129_bn_relu", []int64{1, 1, 129, 129}, []int64{8, 1, 3, 3}, 1, 1, "bn_relu")
	model("c1m1w65_bn_relu", []int64{1, 1, 65, 65}, []int64{1, 1, 3, 3}, 1, 1, "bn_relu")
	model("c1m1w129_sigmoid", []int64{1, 1, 129, 129}, []int64{1, 1, 3, 3}, 1, 1, "sigmoid")
	model("c1m1w129_bn_relu", []int64{1, 1, 129, 129}, []int64{1, 1, 3, 3}, 1, 1, "bn_relu")
	model("c1m1w65_sigmoid", []int64{1, 1, 65, 65}, []int64{1, 1, 3, 3}, 1, 1, "sigmoid")
	model("c1m1w257_bn_relu", []int64{1, 1, 257, 257}, []int64{1, 1, 3, 3}, 1, 1, "bn_relu")
	model("c1m1k13w129_bn_relu", []int64{1, 1, 127, 129}, []int64{1, 1, 1, 3}, 1, 1, "bn_relu")
	model("dw32w65_bias", []int64{1, 32, 65, 65}, []int64{32, 1, 3, 3}, 32, 1, "bias")
	model("dwmult2w65_bias", []int64{1, 16, 65, 65}, []int64{32, 1, 3, 3}, 16, 1, "bias")
	// The row form (NCHW values, 64 columns) with HardSwish, which reads
	// the convolution twice, and with the bias alone (bench-conv.sh
	// CASES=tworeads).
	model("rows32w64_hardswish", []int64{1, 32, 56, 64}, []int64{32, 32, 3, 3}, 1, 1, "hardswish")
	model("rows32w64_bias", []int64{1, 32, 56, 64}, []int64{32, 32, 3, 3}, 1, 1, "bias")
	model("dw144w56_hardswish", []int64{1, 144, 56, 56}, []int64{144, 1, 3, 3}, 144, 1, "hardswish")
}
