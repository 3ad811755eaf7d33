// Command gen writes examples/vad/model.onnx: a streaming voice-activity
// detector in the form of the exported Silero-style models, one 512-sample
// chunk per call with the LSTM state carried from call to call:
//
//	f      = If(sr == 16000,
//	            then: Conv(audio, W16, kernel 256, stride 128, pads 64),
//	            else: Conv(audio, W8, kernel 128, stride 128))   [1, 32, 4]
//	mag    = log(sqrt(re² + im²) + 1e-3), re, im the two channel halves
//	enc    = Relu(Conv1×1(mag))                                [1, 32, 4]
//	Y, h, c = LSTM(Transpose(enc), initial_h = state[0], initial_c = state[1])
//	prob   = Sigmoid(Relu(h) · Wout + bout)                      [1, 1]
//	stateN = Concat(h, c)                                       [2, 1, 64]
//
// The If's arms differ (a 256-tap front end for 16 kHz, a 128-tap one for
// 8 kHz, each with its own weights) and capture the outer audio and
// weights; the condition is computed at run time from the int64 input sr.
// Inputs: audio f32 [1, 512], state f32 [2, 1, 64], sr int64 (scalar).
//
// Weights are deterministic pseudo-random values. It also writes
// test_data_set_0 (sr = 16000) and test_data_set_1 (sr = 8000), each with
// its own audio and state; expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/vad/gen
package main

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

const (
	dir    = "examples/vad"
	chunk  = 512
	bins   = 16 // re and im channels each
	enc    = 32
	hidden = 64
)

func main() {
	rng := rand.New(rand.NewPCG(31, 32))
	floats := func(n int, scale float32) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits((rng.Float32()*2-1)*scale))
		}
		return b
	}
	f32, i64 := int32(onnxpb.TensorProto_FLOAT), int32(onnxpb.TensorProto_INT64)
	tensor := func(name string, et int32, dims []int64, raw []byte) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(et), RawData: raw}
	}
	i64s := func(vals ...int64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		return b
	}
	vi := func(name string, et int32, dims ...int64) *onnxpb.ValueInfoProto {
		ds := []*onnxpb.TensorShapeProto_Dimension{}
		for _, d := range dims {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(et), Shape: &onnxpb.TensorShapeProto{Dim: ds}},
		}}}
	}
	attrInt := func(name string, v int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
	}
	attrInts := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	node := func(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{Name: proto.String(outs[0]), OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs}
	}
	// One arm: the audio as [1, 1, 512], then a strided Conv to 2·bins
	// channels of 4 frames.
	arm := func(name, w string, k, pad int64) *onnxpb.GraphProto {
		return &onnxpb.GraphProto{
			Name: proto.String(name),
			Node: []*onnxpb.NodeProto{
				node("Reshape", []string{"audio", "audio_shape"}, []string{name + "_x"}),
				node("Conv", []string{name + "_x", w}, []string{name + "_f"}, attrInts("kernel_shape", k), attrInts("strides", 128),
					attrInts("pads", pad, pad), attrInts("dilations", 1), attrInt("group", 1)),
			},
			Output: []*onnxpb.ValueInfoProto{vi(name+"_f", f32, 1, 2*bins, 4)},
		}
	}
	graphAttr := func(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
	}
	s := float32(1 / math.Sqrt(hidden))
	g := &onnxpb.GraphProto{
		Name: proto.String("vad"),
		Initializer: []*onnxpb.TensorProto{
			tensor("sr16k", i64, nil, i64s(16000)),
			tensor("audio_shape", i64, []int64{3}, i64s(1, 1, chunk)),
			tensor("stft16.weight", f32, []int64{2 * bins, 1, 256}, floats(2*bins*256, 1/16.0)),
			tensor("stft8.weight", f32, []int64{2 * bins, 1, 128}, floats(2*bins*128, 1/11.3)),
			tensor("eps", f32, nil, f32bits(1e-3)),
			tensor("encoder.weight", f32, []int64{enc, bins, 1}, floats(enc*bins, 0.25)),
			tensor("encoder.bias", f32, []int64{enc}, floats(enc, 0.1)),
			tensor("lstm.W", f32, []int64{1, 4 * hidden, enc}, floats(4*hidden*enc, s)),
			tensor("lstm.R", f32, []int64{1, 4 * hidden, hidden}, floats(4*hidden*hidden, s)),
			tensor("lstm.B", f32, []int64{1, 8 * hidden}, floats(8*hidden, s)),
			tensor("starts0", i64, []int64{1}, i64s(0)), tensor("starts1", i64, []int64{1}, i64s(1)),
			tensor("ends1", i64, []int64{1}, i64s(1)), tensor("ends2", i64, []int64{1}, i64s(2)),
			tensor("axis0", i64, []int64{1}, i64s(0)),
			tensor("split", i64, []int64{2}, i64s(bins, bins)),
			tensor("h_shape", i64, []int64{2}, i64s(1, hidden)),
			tensor("decoder.weight", f32, []int64{hidden, 1}, floats(hidden, 0.3)),
			tensor("decoder.bias", f32, []int64{1}, floats(1, 0.1)),
		},
		Node: []*onnxpb.NodeProto{
			node("Equal", []string{"sr", "sr16k"}, []string{"is16k"}),
			node("If", []string{"is16k"}, []string{"frames"},
				graphAttr("then_branch", arm("then", "stft16.weight", 256, 64)),
				graphAttr("else_branch", arm("else", "stft8.weight", 128, 0))),
			node("Split", []string{"frames", "split"}, []string{"re", "im"}, attrInt("axis", 1)),
			node("Mul", []string{"re", "re"}, []string{"re2"}),
			node("Mul", []string{"im", "im"}, []string{"im2"}),
			node("Add", []string{"re2", "im2"}, []string{"pow"}),
			node("Sqrt", []string{"pow"}, []string{"mag"}),
			node("Add", []string{"mag", "eps"}, []string{"mag_eps"}),
			node("Log", []string{"mag_eps"}, []string{"logmag"}),
			node("Conv", []string{"logmag", "encoder.weight", "encoder.bias"}, []string{"enc"}, attrInts("kernel_shape", 1)),
			node("Relu", []string{"enc"}, []string{"enc_relu"}),
			node("Transpose", []string{"enc_relu"}, []string{"seq"}, attrInts("perm", 2, 0, 1)),
			node("Slice", []string{"state", "starts0", "ends1", "axis0"}, []string{"h0"}),
			node("Slice", []string{"state", "starts1", "ends2", "axis0"}, []string{"c0"}),
			node("LSTM", []string{"seq", "lstm.W", "lstm.R", "lstm.B", "", "h0", "c0"}, []string{"", "hN", "cN"}, attrInt("hidden_size", hidden)),
			node("Concat", []string{"hN", "cN"}, []string{"stateN"}, attrInt("axis", 0)),
			node("Reshape", []string{"hN", "h_shape"}, []string{"h_flat"}),
			node("Relu", []string{"h_flat"}, []string{"h_relu"}),
			node("MatMul", []string{"h_relu", "decoder.weight"}, []string{"logit0"}),
			node("Add", []string{"logit0", "decoder.bias"}, []string{"logit"}),
			node("Sigmoid", []string{"logit"}, []string{"prob"}),
		},
		Input:  []*onnxpb.ValueInfoProto{vi("audio", f32, 1, chunk), vi("state", f32, 2, 1, hidden), vi("sr", i64)},
		Output: []*onnxpb.ValueInfoProto{vi("prob", f32, 1, 1), vi("stateN", f32, 2, 1, hidden)},
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro examples/vad/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph:        g,
	}
	write(filepath.Join(dir, "model.onnx"), m)
	for set, sr := range []int64{16000, 8000} {
		d := filepath.Join(dir, fmt.Sprintf("test_data_set_%d", set))
		write(filepath.Join(d, "input_0.pb"), tensor("audio", f32, []int64{1, chunk}, floats(chunk, 0.5)))
		write(filepath.Join(d, "input_1.pb"), tensor("state", f32, []int64{2, 1, hidden}, floats(2*hidden, 0.5)))
		write(filepath.Join(d, "input_2.pb"), tensor("sr", i64, nil, i64s(sr)))
	}
}

func f32bits(v float32) []byte {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, math.Float32bits(v))
	return b
}

func write(path string, msg proto.Message) {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
