package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// writeMultView writes chains Conv → depthwise Conv with a channel
// multiplier k → Conv whose middle values are channels-last
// (emit/layout.go), for the multiplier shapes that the per-group
// geometry would take (k ≥ 8, at most 16 groups; emit/conv_general.go,
// dwMultOwnChannels), bench-conv.sh CASES=multview:
//
// DIR/mv_c<C>k<K>_<H>.onnx: a 1×1 convolution 1×C×H×H → C with its bias
// and Relu, the depthwise 3×3 (pads 1, group C) → k·C channels with its
// bias, BatchNormalization and Relu, then a 1×1 convolution of k·C
// channels. Its own random source (seed 9, 10), so that the models of
// the other writers are unchanged.
func writeMultView(dir string) {
	r := rand.New(rand.NewPCG(9, 10))
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
	chain := func(c, k, h int64) {
		m := k * c
		file := fmt.Sprintf("mv_c%dk%d_%d", c, k, h)
		s1, s2, s3 := math.Sqrt(3/float64(c)), math.Sqrt(3.0/9), math.Sqrt(3/float64(m))
		inits := []*onnxpb.TensorProto{
			tensor("w1", []int64{c, c, 1, 1}, uni(-s1, s1)), tensor("b1", []int64{c}, uni(-0.1, 0.1)),
			tensor("w", []int64{m, 1, 3, 3}, uni(-s2, s2)), tensor("b", []int64{m}, uni(-0.1, 0.1)),
			tensor("gamma", []int64{m}, uni(0.5, 1.5)), tensor("beta", []int64{m}, uni(-0.2, 0.2)),
			tensor("mean", []int64{m}, uni(-0.2, 0.2)), tensor("var", []int64{m}, uni(0.5, 1.5)),
			tensor("w2", []int64{m, m, 1, 1}, uni(-s3, s3)),
		}
		nodes := []*onnxpb.NodeProto{
			node("Conv", []string{"x", "w1", "b1"}, "p", ints("kernel_shape", 1, 1)),
			node("Relu", []string{"p"}, "q"),
			node("Conv", []string{"q", "w", "b"}, "c",
				&onnxpb.AttributeProto{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(c)},
				ints("kernel_shape", 3, 3), ints("pads", 1, 1, 1, 1)),
			node("BatchNormalization", []string{"c", "gamma", "beta", "mean", "var"}, "n"),
			node("Relu", []string{"n"}, "t"),
			node("Conv", []string{"t", "w2"}, "y", ints("kernel_shape", 1, 1)),
		}
		g := &onnxpb.GraphProto{Name: proto.String(file), Node: nodes, Initializer: inits,
			Input:  []*onnxpb.ValueInfoProto{value("x", []int64{1, c, h, h})},
			Output: []*onnxpb.ValueInfoProto{value("y", []int64{1, m, h, h})}}
		write(filepath.Join(dir, file+".onnx"), g)
	}
	chain(4, 8, 56)  // 32 channels, 4 groups of 8
	chain(2, 16, 56) // 32 channels, 2 groups of 16
	chain(16, 8, 28) // 128 channels, 16 groups of 8
	chain(3, 11, 56) // 33 = 16·2 + 1 channels
	chain(5, 13, 28) // 65 = 16·4 + 1 channels
	chain(2, 17, 56) // 34 channels, 2 groups of 17
}
