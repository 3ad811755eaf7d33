package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// writeEpilogue writes the convolutions followed by the epilogues that the
// convolution schedule fuses into the register block (docs/ops.md,
// "Fusion into the convolution"): Conv with a bias, BatchNormalization,
// then Relu, a residual Add and Relu, Clip to [0, 6] or HardSwish.
//
// DIR/resnet3x3_bn_relu.onnx, resnet3x3_bn_add_relu.onnx: the ResNet 3×3
// (1×64×56×56 → 64, pads 1; the row form); conv14x14_bn_relu.onnx: a 3×3
// 1×256×14×14 → 256 (the channels-last form, the same work);
// depthwise3x3_bn_relu6.onnx: 1×144×56×56, group 144;
// pointwise1x1_bn_hardswish.onnx: 1×64×56×56 → 256 (a matrix product in
// the register block's bounds); the 1×1 products past them, with the
// product's cache blocks (emit/conv_epilogue.go, mmkRows):
// pointwise2048x7_bn_relu.onnx (1×2048×7×7 → 512),
// pointwise512x28_bn_relu.onnx (1×512×28×28 → 128),
// pointwise1024x14_add.onnx (1×1024×14×14 → 256, its bias and a residual
// Add of a second input r), pointwise256x7_bn_relu.onnx (1×256×7×7 →
// 2048) and pointwise512x14_f64_bn_relu.onnx (f64, 1×512×14×14 → 256);
// pointwise128x28_bn_relu.onnx (1×128×28×28 → 512) is at the register
// block's bound.
func writeEpilogue(dir string, r *rand.Rand) {
	f64 := false // the element type of the model being written
	tensor := func(name string, dims []int64, f func() float64) *onnxpb.TensorProto {
		return floatTensor(name, dims, f64, f)
	}
	typed := func(v *onnxpb.ValueInfoProto) *onnxpb.ValueInfoProto {
		if f64 {
			v.Type.GetTensorType().ElemType = proto.Int32(int32(onnxpb.TensorProto_DOUBLE))
		}
		return v
	}
	uni := func(a, b float64) func() float64 { return uniform(r, a, b) }
	node := func(op string, in []string, out string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Input: in, Output: []string{out}, Attribute: attrs}
	}
	ints := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	model := func(file string, x, w []int64, group, pad int64, tail string) {
		m := w[0]
		fan := float64(w[1] * w[2] * w[3])
		s := math.Sqrt(3 / fan)
		inits := []*onnxpb.TensorProto{
			tensor("w", w, uni(-s, s)), tensor("b", []int64{m}, uni(-0.1, 0.1)),
			tensor("gamma", []int64{m}, uni(0.5, 1.5)), tensor("beta", []int64{m}, uni(-0.2, 0.2)),
			tensor("mean", []int64{m}, uni(-0.2, 0.2)), tensor("var", []int64{m}, uni(0.5, 1.5)),
		}
		oh, ow := x[2]+2*pad-w[2]+1, x[3]+2*pad-w[3]+1
		nodes := []*onnxpb.NodeProto{
			node("Conv", []string{"x", "w", "b"}, "c",
				&onnxpb.AttributeProto{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(group)},
				ints("kernel_shape", w[2:]...), ints("pads", pad, pad, pad, pad)),
			node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
		}
		inputs := []*onnxpb.ValueInfoProto{typed(value("x", x))}
		switch tail {
		case "add":
			// The bias, then a residual Add of the second input r.
			nodes, inits = append(nodes[:1], node("Add", []string{"c", "r"}, "y")), inits[:2]
			inputs = append(inputs, typed(value("r", []int64{x[0], m, oh, ow})))
		case "relu":
			nodes = append(nodes, node("Relu", []string{"n"}, "y"))
		case "add_relu":
			nodes = append(nodes, node("Add", []string{"n", "x"}, "a"), node("Relu", []string{"a"}, "y"))
		case "relu6":
			inits = append(inits, tensor("lo", nil, func() float64 { return 0 }), tensor("hi", nil, func() float64 { return 6 }))
			nodes = append(nodes, node("Clip", []string{"n", "lo", "hi"}, "y"))
		case "hardswish":
			nodes = append(nodes, node("HardSwish", []string{"n"}, "y"))
		case "bias":
			// The bias alone: the convolution without an epilogue.
			nodes, inits = nodes[:1], inits[:2]
			nodes[0].Output[0] = "y"
		case "sigmoid":
			// The bias, then Sigmoid: a one-channel head.
			nodes, inits = append(nodes[:1], node("Sigmoid", []string{"c"}, "y")), inits[:2]
		}
		g := &onnxpb.GraphProto{Name: proto.String(file), Node: nodes, Initializer: inits,
			Input:  inputs,
			Output: []*onnxpb.ValueInfoProto{typed(value("y", []int64{x[0], m, oh, ow}))}}
		write(filepath.Join(dir, file+".onnx"), g)
	}
	model("resnet3x3_bn_relu", []int64{1, 64, 56, 56}, []int64{64, 64, 3, 3}, 1, 1, "relu")
	model("resnet3x3_bn_add_relu", []int64{1, 64, 56, 56}, []int64{64, 64, 3, 3}, 1, 1, "add_relu")
	model("conv14x14_bn_relu", []int64{1, 256, 14, 14}, []int64{256, 256, 3, 3}, 1, 1, "relu")
	model("depthwise3x3_bn_relu6", []int64{1, 144, 56, 56}, []int64{144, 1, 3, 3}, 144, 1, "relu6")
	model("pointwise1x1_bn_hardswish", []int64{1, 64, 56, 56}, []int64{256, 64, 1, 1}, 1, 0, "hardswish")
	model("pointwise2048x7_bn_relu", []int64{1, 2048, 7, 7}, []int64{512, 2048, 1, 1}, 1, 0, "relu")
	model("pointwise512x28_bn_relu", []int64{1, 512, 28, 28}, []int64{128, 512, 1, 1}, 1, 0, "relu")
	model("pointwise1024x14_add", []int64{1, 1024, 14, 14}, []int64{256, 1024, 1, 1}, 1, 0, "add")
	model("pointwise256x7_bn_relu", []int64{1, 256, 7, 7}, []int64{2048, 256, 1, 1}, 1, 0, "relu")
	model("pointwise128x28_bn_relu", []int64{1, 128, 28, 28}, []int64{512, 128, 1, 1}, 1, 0, "relu")
	// One output channel (a segmentation or depth head) and 16k + 1.
	model("head3x3_m1_sigmoid", []int64{1, 64, 56, 56}, []int64{1, 64, 3, 3}, 1, 1, "sigmoid")
	model("head1x1_m1_sigmoid", []int64{1, 32, 112, 112}, []int64{1, 32, 1, 1}, 1, 0, "sigmoid")
	model("head1x1_m1c64_sigmoid", []int64{1, 64, 56, 56}, []int64{1, 64, 1, 1}, 1, 0, "sigmoid")
	model("conv28_m17_bn_relu", []int64{1, 64, 28, 28}, []int64{17, 64, 3, 3}, 1, 1, "relu")
	model("conv28_m33_bn_relu", []int64{1, 64, 28, 28}, []int64{33, 64, 3, 3}, 1, 1, "relu")
	model("conv28_m49_bn_relu", []int64{1, 64, 28, 28}, []int64{49, 64, 3, 3}, 1, 1, "relu")
	model("conv56_m33_bn_relu", []int64{1, 64, 56, 56}, []int64{33, 64, 3, 3}, 1, 1, "relu")
	model("pointwise56_m17_bn_relu", []int64{1, 64, 56, 56}, []int64{17, 64, 1, 1}, 1, 0, "relu")
	// Block remainders of 17 to 31 channels (CASES=rem17): rem<K>_<H>_m<M>
	// (K×K, 1×64×H×H → M, pads K/2) with the bias alone or with
	// BatchNormalization and Relu (_bn_relu).
	for _, k := range []int64{3, 1} {
		for _, h := range []int64{28, 56} {
			for _, m := range []int64{20, 24, 28, 31, 48, 52, 60, 63, 255} {
				name := "rem" + strconv.FormatInt(k, 10) + "_" + strconv.FormatInt(h, 10) + "_m" + strconv.FormatInt(m, 10)
				model(name, []int64{1, 64, h, h}, []int64{m, 64, k, k}, 1, k/2, "bias")
				model(name+"_bn_relu", []int64{1, 64, h, h}, []int64{m, 64, k, k}, 1, k/2, "relu")
			}
		}
	}
	f64 = true
	model("pointwise512x14_f64_bn_relu", []int64{1, 512, 14, 14}, []int64{256, 512, 1, 1}, 1, 0, "relu")
	// f64's 16-channel block: remainders of 9 to 15 channels (M = 24, 25,
	// 28, 31) against 16 and 32 (CASES=rem17f64; ONNX Runtime has no f64 Conv).
	for _, m := range []int64{16, 24, 25, 28, 31, 32} {
		model("rem3_28_m"+strconv.FormatInt(m, 10)+"_f64", []int64{1, 64, 28, 28}, []int64{m, 64, 3, 3}, 1, 1, "bias")
	}
	// f64 per-group blocks (CASES=pergroupf64): 2 groups of 12 (1×24×28×28
	// → 24) and of 28 (1×64×28×28 → 56), 3×3, against 2 groups of 16
	// (1×32×28×28 → 32, 1×64×28×28 → 32), the bias alone or with
	// BatchNormalization and Relu (_bn_relu); the f32 ones of 12 and 28
	// with ONNX Runtime.
	pg := func(suffix string) {
		model("pg24g2"+suffix, []int64{1, 24, 28, 28}, []int64{24, 12, 3, 3}, 2, 1, "bias")
		model("pg64m56g2"+suffix, []int64{1, 64, 28, 28}, []int64{56, 32, 3, 3}, 2, 1, "bias")
	}
	pg("_f64")
	model("pg24g2_f64_bn_relu", []int64{1, 24, 28, 28}, []int64{24, 12, 3, 3}, 2, 1, "relu")
	model("pg64m56g2_f64_bn_relu", []int64{1, 64, 28, 28}, []int64{56, 32, 3, 3}, 2, 1, "relu")
	model("pg32g2_f64", []int64{1, 32, 28, 28}, []int64{32, 16, 3, 3}, 2, 1, "bias")
	model("pg64m32g2_f64", []int64{1, 64, 28, 28}, []int64{32, 32, 3, 3}, 2, 1, "bias")
	f64 = false
	pg("")
}
