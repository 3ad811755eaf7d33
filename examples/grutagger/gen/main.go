// Command gen writes examples/grutagger/model.onnx: a bidirectional GRU
// sequence tagger in the form torch.onnx writes nn.Embedding, a packed
// bidirectional nn.GRU (linear_before_reset = 1) and nn.Linear:
//
//	x      = Transpose(embedding[ids])             [S, N, E]
//	Y, Y_h = GRU(x, W, R, B, sequence_lens)         bidirectional
//	scores = LogSoftmax(Reshape(Transpose(Y)) · Wout + bout), as [N, S, T]
//
// ids is int64 [N, S] and lengths int32 [N] (each at most S; positions
// past a row's length give the scores of a zero hidden state). Sizes:
// vocabulary 40, embedding 16, hidden 32 per direction, 9 tags, batch 3,
// 10 steps. The outputs are scores and Y_h (the sentence encodings).
//
// Weights are deterministic pseudo-random values. It also writes the
// inputs of test_data_set_0 (lengths 10, 6, 2) and test_data_set_1
// (lengths 3, 10, 1); expected outputs come from ONNX Runtime
// (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/grutagger/gen
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
	dir    = "examples/grutagger"
	vocab  = 40
	embed  = 16
	hidden = 32
	tags   = 9
	batch  = 3
	steps  = 10
)

func main() {
	rng := rand.New(rand.NewPCG(21, 22))
	floats := func(n int, scale float32) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits((rng.Float32()*2-1)*scale))
		}
		return b
	}
	f32, i64, i32 := int32(onnxpb.TensorProto_FLOAT), int32(onnxpb.TensorProto_INT64), int32(onnxpb.TensorProto_INT32)
	tensor := func(name string, et int32, dims []int64, raw []byte) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(et), RawData: raw}
	}
	ints := func(et int32, vals ...int64) []byte {
		w := 8
		if et == i32 {
			w = 4
		}
		b := make([]byte, w*len(vals))
		for i, v := range vals {
			if w == 8 {
				binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
			} else {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
			}
		}
		return b
	}
	vi := func(name string, et int32, dims ...int64) *onnxpb.ValueInfoProto {
		var ds []*onnxpb.TensorShapeProto_Dimension
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
	s := float32(1 / math.Sqrt(hidden))
	g := &onnxpb.GraphProto{
		Name: proto.String("grutagger"),
		Initializer: []*onnxpb.TensorProto{
			tensor("embedding.weight", f32, []int64{vocab, embed}, floats(vocab*embed, 1)),
			tensor("gru.W", f32, []int64{2, 3 * hidden, embed}, floats(2*3*hidden*embed, s)),
			tensor("gru.R", f32, []int64{2, 3 * hidden, hidden}, floats(2*3*hidden*hidden, s)),
			tensor("gru.B", f32, []int64{2, 6 * hidden}, floats(2*6*hidden, s)),
			tensor("shape", i64, []int64{3}, ints(i64, 0, 0, -1)),
			tensor("fc.weight", f32, []int64{2 * hidden, tags}, floats(2*hidden*tags, float32(1/math.Sqrt(2*hidden)))),
			tensor("fc.bias", f32, []int64{tags}, floats(tags, 0.1)),
		},
		Node: []*onnxpb.NodeProto{
			node("Gather", []string{"embedding.weight", "ids"}, []string{"emb"}, attrInt("axis", 0)),
			node("Transpose", []string{"emb"}, []string{"x"}, attrInts("perm", 1, 0, 2)),
			node("GRU", []string{"x", "gru.W", "gru.R", "gru.B", "lengths"}, []string{"y", "encoding"},
				attrInt("hidden_size", hidden), &onnxpb.AttributeProto{Name: proto.String("direction"), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte("bidirectional")},
				attrInt("linear_before_reset", 1)),
			node("Transpose", []string{"y"}, []string{"y_t"}, attrInts("perm", 0, 2, 1, 3)),
			node("Reshape", []string{"y_t", "shape"}, []string{"features"}),
			node("MatMul", []string{"features", "fc.weight"}, []string{"fc"}),
			node("Add", []string{"fc", "fc.bias"}, []string{"logits"}),
			node("LogSoftmax", []string{"logits"}, []string{"logp"}, attrInt("axis", -1)),
			node("Transpose", []string{"logp"}, []string{"scores"}, attrInts("perm", 1, 0, 2)),
		},
		Input:  []*onnxpb.ValueInfoProto{vi("ids", i64, batch, steps), vi("lengths", i32, batch)},
		Output: []*onnxpb.ValueInfoProto{vi("scores", f32, batch, steps, tags), vi("encoding", f32, 2, batch, hidden)},
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro examples/grutagger/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph:        g,
	}
	write(filepath.Join(dir, "model.onnx"), m)
	for set, lens := range [][]int64{{10, 6, 2}, {3, 10, 1}} {
		ids := make([]int64, batch*steps)
		for i := range ids {
			ids[i] = int64(rng.IntN(vocab))
		}
		d := filepath.Join(dir, fmt.Sprintf("test_data_set_%d", set))
		write(filepath.Join(d, "input_0.pb"), tensor("ids", i64, []int64{batch, steps}, ints(i64, ids...)))
		write(filepath.Join(d, "input_1.pb"), tensor("lengths", i32, []int64{batch}, ints(i32, lens...)))
	}
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
