package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// depthwiseSizes are MobileNetV2's depthwise 3×3 inputs (C, H = W).
var depthwiseSizes = [][2]int64{{32, 112}, {144, 56}, {192, 28}, {576, 14}, {960, 7}}

// depthwiseRem17Sizes are depthwise inputs whose channel count leaves the
// 32-channel block a remainder of 17 to 31 (MobileNetV3's 120, 88 and
// 184; CASES=rem17dw), and 128 to compare.
var depthwiseRem17Sizes = [][2]int64{{120, 28}, {88, 28}, {184, 14}, {128, 28}}

// writeDepthwise writes the depthwise 3×3 convolutions (group = C = M,
// pads 1) of depthwiseSizes at strides 1 and 2, alone and followed by
// BatchNormalization and Clip to [0, 6] or HardSwish:
// DIR/dw<C>x<H>s<S>.onnx, dw<C>x<H>s<S>_relu6.onnx and
// dw<C>x<H>s<S>_hswish.onnx (the epilogue ones with a bias).
func writeDepthwise(dir string, r *rand.Rand) {
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
	for _, sz := range append(depthwiseSizes, depthwiseRem17Sizes...) {
		c, h := sz[0], sz[1]
		for _, s := range []int64{1, 2} {
			o := (h+2-3)/s + 1
			for _, tail := range []string{"", "relu6", "hswish"} {
				file := fmt.Sprintf("dw%dx%ds%d", c, h, s)
				if tail != "" {
					file += "_" + tail
				}
				w := []int64{c, 1, 3, 3}
				sc := math.Sqrt(3.0 / 9)
				inits := []*onnxpb.TensorProto{tensor("w", w, uni(-sc, sc))}
				in := []string{"x", "w"}
				out := "y"
				if tail != "" {
					inits = append(inits, tensor("b", []int64{c}, uni(-0.1, 0.1)),
						tensor("gamma", []int64{c}, uni(0.5, 1.5)), tensor("beta", []int64{c}, uni(-0.2, 0.2)),
						tensor("mean", []int64{c}, uni(-0.2, 0.2)), tensor("var", []int64{c}, uni(0.5, 1.5)))
					in = append(in, "b")
					out = "c"
				}
				nodes := []*onnxpb.NodeProto{node("Conv", in, out,
					&onnxpb.AttributeProto{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(c)},
					ints("kernel_shape", 3, 3), ints("pads", 1, 1, 1, 1), ints("strides", s, s))}
				switch tail {
				case "relu6":
					inits = append(inits, tensor("lo", nil, func() float64 { return 0 }), tensor("hi", nil, func() float64 { return 6 }))
					nodes = append(nodes, node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
						node("Clip", []string{"n", "lo", "hi"}, "y"))
				case "hswish":
					nodes = append(nodes, node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
						node("HardSwish", []string{"n"}, "y"))
				}
				g := &onnxpb.GraphProto{Name: proto.String(file), Node: nodes, Initializer: inits,
					Input:  []*onnxpb.ValueInfoProto{value("x", []int64{1, c, h, h})},
					Output: []*onnxpb.ValueInfoProto{value("y", []int64{1, c, o, o})}}
				write(filepath.Join(dir, file+".onnx"), g)
			}
		}
	}
}
