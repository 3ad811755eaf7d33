// Command gen writes examples/decoder/model.onnx: one decoder-only
// (Llama-style) transformer block with rotary position embeddings,
// grouped-query attention and a KV cache, in the ONNX opset 24 form:
//
//	x  = wte[ids]
//	h  = RMSNorm1(x)
//	q  = RotaryEmbedding(h·Wq, position_ids), k = RotaryEmbedding(h·Wk, position_ids), v = h·Wv
//	a, present_key, present_value = Attention(q, k, v, past_key, past_value)   (causal, 4 query heads, 2 KV heads)
//	x += a·Wo
//	x += (silu(RMSNorm2(x)·Wg) ⊙ (RMSNorm2(x)·Wu))·Wd
//	logits = RMSNorm3(x)·Wlm
//
// input_ids and position_ids are int64 [1, seq]; past_key and past_value
// are f32 [1, 2, past, 16] (seq and past symbolic); the outputs are logits
// [1, seq, 128] and the caches present_key and present_value [1, 2,
// past + seq, 16]. Sizes: vocabulary 128, d_model 64, 4 query heads and 2
// KV heads of 16, MLP 128, rotary caches for 32 positions.
//
// test_data_set_0 is the prompt step: 8 tokens at positions 0..7 and an
// empty cache (past = 0). test_data_set_1 is the generation step: one
// token at position 8, whose past_key and past_value are the present_key
// and present_value of set 0. Weights are deterministic pseudo-random
// values; expected outputs come from ONNX Runtime:
//
//	go run ./examples/decoder/gen
//	NODE_PATH=/tmp/ort/node_modules node scripts/ort-expected.mjs examples/decoder/model.onnx examples/decoder/test_data_set_0
//	go run ./examples/decoder/gen -feed    # set 1's cache inputs = set 0's cache outputs
//	NODE_PATH=/tmp/ort/node_modules node scripts/ort-expected.mjs examples/decoder/model.onnx examples/decoder/test_data_set_1
//
// Run from the repository root.
package main

import (
	"encoding/binary"
	"flag"
	"log"
	"math"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/internal/onnxgen"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

const (
	dir     = "examples/decoder"
	vocab   = 128
	dModel  = 64
	qHeads  = 4
	kvHeads = 2
	headD   = 16
	dMLP    = 128
	maxPos  = 32
	prompt  = 8
)

func main() {
	feed := flag.Bool("feed", false, "copy test_data_set_0's present_key and present_value to test_data_set_1's past_key and past_value")
	flag.Parse()
	if *feed {
		for i, name := range []string{"past_key", "past_value"} {
			t, err := tensorio.ReadPB(filepath.Join(dir, "test_data_set_0", []string{"output_1.pb", "output_2.pb"}[i]))
			if err != nil {
				log.Fatal(err)
			}
			onnxgen.WriteTensor(filepath.Join(dir, "test_data_set_1", []string{"input_2.pb", "input_3.pb"}[i]), onnxgen.Tensor(name, t.Dims, t.Data))
		}
		return
	}
	b := onnxgen.New(11, 12)
	f := onnxgen.Float
	i := onnxgen.Int
	linear := func(name string, in, out int64) string {
		return b.Init(name, []int64{in, out}, 0, float32(math.Sqrt(3/float64(in))))
	}
	rms := func(name, x string) string {
		return b.Node("RMSNormalization", []string{x, b.Init(name+".weight", []int64{dModel}, 1, 0.2)}, name, i("axis", -1), f("epsilon", 1e-5))
	}
	// Rotary caches: cos(p·θ_i), sin(p·θ_i), θ_i = 10000^(−2i/16).
	cos, sin := make([]byte, 4*maxPos*headD/2), make([]byte, 4*maxPos*headD/2)
	for p := 0; p < maxPos; p++ {
		for k := 0; k < headD/2; k++ {
			a := float64(p) * math.Pow(10000, -2*float64(k)/headD)
			binary.LittleEndian.PutUint32(cos[4*(p*headD/2+k):], math.Float32bits(float32(math.Cos(a))))
			binary.LittleEndian.PutUint32(sin[4*(p*headD/2+k):], math.Float32bits(float32(math.Sin(a))))
		}
	}
	b.Add(onnxgen.Tensor("rope.cos", []int64{maxPos, headD / 2}, cos))
	b.Add(onnxgen.Tensor("rope.sin", []int64{maxPos, headD / 2}, sin))

	x := b.Node("Gather", []string{b.Init("wte", []int64{vocab, dModel}, 0, 1), "input_ids"}, "embed", i("axis", 0))
	h := rms("ln1", x)
	q := b.Node("MatMul", []string{h, linear("attn.q.weight", dModel, qHeads*headD)}, "q")
	k := b.Node("MatMul", []string{h, linear("attn.k.weight", dModel, kvHeads*headD)}, "k")
	v := b.Node("MatMul", []string{h, linear("attn.v.weight", dModel, kvHeads*headD)}, "v")
	q = b.Node("RotaryEmbedding", []string{q, "rope.cos", "rope.sin", "position_ids"}, "q_rope", i("num_heads", qHeads))
	k = b.Node("RotaryEmbedding", []string{k, "rope.cos", "rope.sin", "position_ids"}, "k_rope", i("num_heads", kvHeads))
	b.NodeOuts("Attention", []string{q, k, v, "", "past_key", "past_value"}, []string{"attn", "present_key", "present_value"},
		i("is_causal", 1), i("q_num_heads", qHeads), i("kv_num_heads", kvHeads))
	o := b.Node("MatMul", []string{"attn", linear("attn.o.weight", qHeads*headD, dModel)}, "attn_out")
	x = b.Node("Add", []string{x, o}, "residual1")
	h = rms("ln2", x)
	g := b.Node("MatMul", []string{h, linear("mlp.gate.weight", dModel, dMLP)}, "gate")
	u := b.Node("MatMul", []string{h, linear("mlp.up.weight", dModel, dMLP)}, "up")
	silu := b.Node("Mul", []string{g, b.Node("Sigmoid", []string{g}, "gate_sigmoid")}, "silu")
	d := b.Node("MatMul", []string{b.Node("Mul", []string{silu, u}, "glu"), linear("mlp.down.weight", dMLP, dModel)}, "down")
	x = b.Node("Add", []string{x, d}, "residual2")
	b.Node("MatMul", []string{rms("ln3", x), linear("lm_head.weight", dModel, vocab)}, "logits")

	F, I := onnxpb.TensorProto_FLOAT, onnxpb.TensorProto_INT64
	b.WriteModel(dir, "decoder_block", 24, 10,
		[]*onnxpb.ValueInfoProto{
			onnxgen.Info("input_ids", I, []int64{1, 0}, "", "seq"),
			onnxgen.Info("position_ids", I, []int64{1, 0}, "", "seq"),
			onnxgen.Info("past_key", F, []int64{1, kvHeads, 0, headD}, "", "", "past"),
			onnxgen.Info("past_value", F, []int64{1, kvHeads, 0, headD}, "", "", "past"),
		},
		[]*onnxpb.ValueInfoProto{
			onnxgen.Info("logits", F, []int64{1, 0, vocab}, "", "seq"),
			onnxgen.Info("present_key", F, []int64{1, kvHeads, 0, headD}, "", "", "total"),
			onnxgen.Info("present_value", F, []int64{1, kvHeads, 0, headD}, "", "", "total"),
		})

	ints := func(name string, vals ...int64) *onnxpb.TensorProto {
		raw := make([]byte, 8*len(vals))
		for j, v := range vals {
			binary.LittleEndian.PutUint64(raw[8*j:], uint64(v))
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: []int64{1, int64(len(vals))}, DataType: proto.Int32(int32(I)), RawData: raw}
	}
	set := func(k int, name string) string {
		return filepath.Join(dir, []string{"test_data_set_0", "test_data_set_1"}[k], name)
	}
	ids, pos := make([]int64, prompt), make([]int64, prompt)
	for j := range ids {
		ids[j], pos[j] = int64(b.Rng.IntN(vocab)), int64(j)
	}
	onnxgen.WriteTensor(set(0, "input_0.pb"), ints("input_ids", ids...))
	onnxgen.WriteTensor(set(0, "input_1.pb"), ints("position_ids", pos...))
	for j, name := range []string{"past_key", "past_value"} {
		onnxgen.WriteTensor(set(0, []string{"input_2.pb", "input_3.pb"}[j]), onnxgen.Tensor(name, []int64{1, kvHeads, 0, headD}, []byte{}))
	}
	onnxgen.WriteTensor(set(1, "input_0.pb"), ints("input_ids", int64(b.Rng.IntN(vocab))))
	onnxgen.WriteTensor(set(1, "input_1.pb"), ints("position_ids", prompt))
}
