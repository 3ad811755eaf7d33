package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// generalCase is one convolution of the general (1-D, grouped, 3-D)
// benchmarks: pads p on both sides of every spatial axis, stride 1.
type generalCase struct {
	file  string
	x, w  []int64
	group int64
	pad   int64
}

// generalCases are the convolutions that the 2-D one-group and depthwise
// paths do not take: a 1-D convolution (audio-style), a ResNeXt grouped
// 3×3 (32 groups of 4 channels), a grouped 3×3 with 8 groups of 16
// channels, a ShuffleNet grouped 1×1 (3 groups), a depthwise 3×3 with
// channel multiplier 2 and a 3-D 3×3×3.
var generalCases = []generalCase{
	{"conv1d", []int64{1, 64, 1024}, []int64{64, 64, 5}, 1, 2},
	{"grouped3x3g32", []int64{1, 128, 28, 28}, []int64{128, 4, 3, 3}, 32, 1},
	{"grouped3x3g8", []int64{1, 128, 28, 28}, []int64{128, 16, 3, 3}, 8, 1},
	{"shuffle1x1g3", []int64{1, 240, 28, 28}, []int64{240, 80, 1, 1}, 3, 0},
	{"dwmult2", []int64{1, 32, 56, 56}, []int64{64, 1, 3, 3}, 32, 1},
	{"conv3d", []int64{1, 16, 8, 28, 28}, []int64{32, 16, 3, 3, 3}, 1, 1},
}

// writeGeneral writes the models of generalCases into dir.
func writeGeneral(dir string, r *rand.Rand) {
	writeGeneralCases(dir, r, generalCases)
}

// writeGeneralCases writes the models of cases into dir.
func writeGeneralCases(dir string, r *rand.Rand, cases []generalCase) {
	for _, c := range cases {
		fan := float64(1)
		for _, d := range c.w[1:] {
			fan *= float64(d)
		}
		n := int(fan) * int(c.w[0])
		raw := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := float32((r.Float64()*2 - 1) * math.Sqrt(3/fan))
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		s := len(c.x) - 2
		out := []int64{c.x[0], c.w[0]}
		pads := make([]int64, 2*s)
		for i := 0; i < s; i++ {
			out = append(out, c.x[2+i]+2*c.pad-c.w[2+i]+1)
			pads[i], pads[s+i] = c.pad, c.pad
		}
		node := &onnxpb.NodeProto{OpType: proto.String("Conv"), Input: []string{"x", "w"}, Output: []string{"y"},
			Attribute: []*onnxpb.AttributeProto{
				{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(c.group)},
				{Name: proto.String("kernel_shape"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: c.w[2:]},
				{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: pads},
			}}
		g := &onnxpb.GraphProto{Name: proto.String(c.file), Node: []*onnxpb.NodeProto{node},
			Initializer: []*onnxpb.TensorProto{{Name: proto.String("w"), Dims: c.w, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw}},
			Input:       []*onnxpb.ValueInfoProto{value("x", c.x)},
			Output:      []*onnxpb.ValueInfoProto{value("y", out)}}
		write(filepath.Join(dir, c.file+".onnx"), g)
	}
}
