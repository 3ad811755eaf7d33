// Command gen writes examples/transformer/model.onnx: one pre-LN
// transformer encoder block with causal self-attention, in the form
// exporters (torch.onnx) write it:
//
//	x  = wte[ids] + wpe[range(seq)]
//	x += Wo · attention(LayerNorm1(x))   (4 heads, causal)
//	x += W2 · gelu(W1 · LayerNorm2(x))   (erf GELU)
//
// ids is int64 [batch, seq] (both symbolic); the output y is f32
// [batch, seq, 64]. Sizes: vocabulary 64, at most 16 positions, d_model
// 64, 4 heads of 16, MLP 256 (about 210 KB of weights).
//
// The graph keeps the exporter's run-time shape arithmetic: the head
// shapes are Shape → Gather → Unsqueeze → Concat → Reshape, the positions
// are Range(0, seq) and the causal mask is Where(Less(row, col), lowest,
// scores), with row and col Unsqueezes of a Range. QKV is one MatMul
// followed by Split, the scores are scaled by 1/√16 and normalized by
// Softmax.
//
// Weights are deterministic pseudo-random values. It also writes the
// inputs of test_data_set_0 (batch 2, seq 16) and test_data_set_1 (batch 1,
// seq 7); expected outputs come from ONNX Runtime (scripts/ort-expected.mjs).
//
// Run from the repository root: go run ./examples/transformer/gen
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
	dir    = "examples/transformer"
	vocab  = 64
	maxPos = 16
	dModel = 64
	heads  = 4
	headD  = dModel / heads
	dMLP   = 256
)

func main() {
	rng := rand.New(rand.NewPCG(3, 4))
	floats := func(n int, scale float32) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := (rng.Float32()*2 - 1) * scale
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	// around returns n values in center ± scale (LayerNorm gains).
	around := func(n int, center, scale float32) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := center + (rng.Float32()*2-1)*scale
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	f32 := int32(onnxpb.TensorProto_FLOAT)
	i64 := int32(onnxpb.TensorProto_INT64)
	init := func(name string, dims []int64, data []byte) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(f32), RawData: data}
	}
	ints := func(name string, dims []int64, vals ...int64) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(i64), Int64Data: vals}
	}
	scalarF := func(name string, v float32) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(f32), FloatData: []float32{v}}
	}
	dim := func(v int64) *onnxpb.TensorShapeProto_Dimension {
		return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: v}}
	}
	sym := func(s string) *onnxpb.TensorShapeProto_Dimension {
		return &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: s}}
	}
	vi := func(name string, elem int32, dims ...*onnxpb.TensorShapeProto_Dimension) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: &onnxpb.TensorShapeProto{Dim: dims}},
		}}}
	}
	var nodes []*onnxpb.NodeProto
	node := func(name, op string, ins []string, outs []string, attrs ...*onnxpb.AttributeProto) {
		nodes = append(nodes, &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs})
	}
	attrInt := func(name string, v int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
	}
	attrInts := func(name string, v ...int64) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
	}
	attrFloat := func(name string, v float32) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
	}
	// constant is a Constant node, as exporters write small literals.
	constant := func(out string, t *onnxpb.TensorProto) {
		t.Name = nil
		nodes = append(nodes, &onnxpb.NodeProto{
			Name: proto.String(out), OpType: proto.String("Constant"), Output: []string{out},
			Attribute: []*onnxpb.AttributeProto{{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}},
		})
	}
	inits := []*onnxpb.TensorProto{
		init("wte", []int64{vocab, dModel}, floats(vocab*dModel, 1)),
		init("wpe", []int64{maxPos, dModel}, floats(maxPos*dModel, 0.5)),
		init("ln1.weight", []int64{dModel}, around(dModel, 1, 0.2)),
		init("ln1.bias", []int64{dModel}, floats(dModel, 0.1)),
		init("attn.qkv.weight", []int64{dModel, 3 * dModel}, floats(dModel*3*dModel, 0.25)),
		init("attn.qkv.bias", []int64{3 * dModel}, floats(3*dModel, 0.1)),
		init("attn.proj.weight", []int64{dModel, dModel}, floats(dModel*dModel, 0.125)),
		init("attn.proj.bias", []int64{dModel}, floats(dModel, 0.1)),
		init("ln2.weight", []int64{dModel}, around(dModel, 1, 0.2)),
		init("ln2.bias", []int64{dModel}, floats(dModel, 0.1)),
		init("mlp.fc.weight", []int64{dModel, dMLP}, floats(dModel*dMLP, 0.125)),
		init("mlp.fc.bias", []int64{dMLP}, floats(dMLP, 0.1)),
		init("mlp.proj.weight", []int64{dMLP, dModel}, floats(dMLP*dModel, 0.0625)),
		init("mlp.proj.bias", []int64{dModel}, floats(dModel, 0.1)),
	}

	// Embeddings: token Gather plus position Gather over Range(0, seq).
	node("shape_ids", "Shape", []string{"input_ids"}, []string{"ids_shape"})
	constant("c0", ints("", nil, 0))
	constant("c1", ints("", nil, 1))
	node("gather_batch", "Gather", []string{"ids_shape", "c0"}, []string{"batch"}, attrInt("axis", 0))
	node("gather_seq", "Gather", []string{"ids_shape", "c1"}, []string{"seq"}, attrInt("axis", 0))
	node("tok_embed", "Gather", []string{"wte", "input_ids"}, []string{"tok"}, attrInt("axis", 0))
	node("positions", "Range", []string{"c0", "seq", "c1"}, []string{"pos_ids"})
	node("pos_embed", "Gather", []string{"wpe", "pos_ids"}, []string{"pos"}, attrInt("axis", 0))
	node("embed", "Add", []string{"tok", "pos"}, []string{"x0"})

	// Attention.
	node("ln1", "LayerNormalization", []string{"x0", "ln1.weight", "ln1.bias"}, []string{"h1"}, attrInt("axis", -1), attrFloat("epsilon", 1e-5))
	node("qkv_mm", "MatMul", []string{"h1", "attn.qkv.weight"}, []string{"qkv0"})
	node("qkv_bias", "Add", []string{"qkv0", "attn.qkv.bias"}, []string{"qkv"})
	constant("split_sizes", ints("", []int64{3}, dModel, dModel, dModel))
	node("split_qkv", "Split", []string{"qkv", "split_sizes"}, []string{"q", "k", "v"}, attrInt("axis", 2))
	constant("axes0", ints("", []int64{1}, 0))
	node("unsq_batch", "Unsqueeze", []string{"batch", "axes0"}, []string{"batch_1"})
	node("unsq_seq", "Unsqueeze", []string{"seq", "axes0"}, []string{"seq_1"})
	constant("heads_dims", ints("", []int64{2}, heads, headD))
	node("heads_shape", "Concat", []string{"batch_1", "seq_1", "heads_dims"}, []string{"hshape"}, attrInt("axis", 0))
	for _, n := range []string{"q", "k", "v"} {
		node(n+"_reshape", "Reshape", []string{n, "hshape"}, []string{n + "_r"})
	}
	node("q_heads", "Transpose", []string{"q_r"}, []string{"qh"}, attrInts("perm", 0, 2, 1, 3))
	node("k_heads_t", "Transpose", []string{"k_r"}, []string{"kht"}, attrInts("perm", 0, 2, 3, 1))
	node("v_heads", "Transpose", []string{"v_r"}, []string{"vh"}, attrInts("perm", 0, 2, 1, 3))
	node("scores_mm", "MatMul", []string{"qh", "kht"}, []string{"s0"})
	constant("scale", scalarF("", float32(1/math.Sqrt(headD))))
	node("scores_scale", "Mul", []string{"s0", "scale"}, []string{"s1"})
	// Causal mask: key position > query position is masked.
	node("mask_range", "Range", []string{"c0", "seq", "c1"}, []string{"mr"})
	constant("axes1", ints("", []int64{1}, 1))
	node("mask_rows", "Unsqueeze", []string{"mr", "axes1"}, []string{"mrow"})
	node("mask_cols", "Unsqueeze", []string{"mr", "axes0"}, []string{"mcol"})
	node("mask_less", "Less", []string{"mrow", "mcol"}, []string{"future"})
	constant("lowest", scalarF("", -math.MaxFloat32))
	node("mask_where", "Where", []string{"future", "lowest", "s1"}, []string{"s2"})
	node("softmax", "Softmax", []string{"s2"}, []string{"p"}, attrInt("axis", -1))
	node("context_mm", "MatMul", []string{"p", "vh"}, []string{"ctx"})
	node("context_t", "Transpose", []string{"ctx"}, []string{"ctx_t"}, attrInts("perm", 0, 2, 1, 3))
	constant("model_dim", ints("", []int64{1}, dModel))
	node("merge_shape", "Concat", []string{"batch_1", "seq_1", "model_dim"}, []string{"mshape"}, attrInt("axis", 0))
	node("merge_heads", "Reshape", []string{"ctx_t", "mshape"}, []string{"ctx_m"})
	node("proj_mm", "MatMul", []string{"ctx_m", "attn.proj.weight"}, []string{"a0"})
	node("proj_bias", "Add", []string{"a0", "attn.proj.bias"}, []string{"a1"})
	node("residual1", "Add", []string{"x0", "a1"}, []string{"x1"})

	// MLP with the erf GELU as torch.onnx writes it: x·0.5·(1 + erf(x/√2)).
	node("ln2", "LayerNormalization", []string{"x1", "ln2.weight", "ln2.bias"}, []string{"h2"}, attrInt("axis", -1), attrFloat("epsilon", 1e-5))
	node("fc_mm", "MatMul", []string{"h2", "mlp.fc.weight"}, []string{"f0"})
	node("fc_bias", "Add", []string{"f0", "mlp.fc.bias"}, []string{"f1"})
	constant("sqrt2", scalarF("", float32(math.Sqrt2)))
	constant("one", scalarF("", 1))
	constant("half", scalarF("", 0.5))
	node("gelu_div", "Div", []string{"f1", "sqrt2"}, []string{"g0"})
	node("gelu_erf", "Erf", []string{"g0"}, []string{"g1"})
	node("gelu_add", "Add", []string{"g1", "one"}, []string{"g2"})
	node("gelu_mul", "Mul", []string{"f1", "g2"}, []string{"g3"})
	node("gelu_half", "Mul", []string{"g3", "half"}, []string{"g4"})
	node("mlp_proj_mm", "MatMul", []string{"g4", "mlp.proj.weight"}, []string{"m0"})
	node("mlp_proj_bias", "Add", []string{"m0", "mlp.proj.bias"}, []string{"m1"})
	node("residual2", "Add", []string{"x1", "m1"}, []string{"y"})

	g := &onnxpb.GraphProto{
		Name:        proto.String("transformer_block"),
		Initializer: inits,
		Node:        nodes,
		Input:       []*onnxpb.ValueInfoProto{vi("input_ids", i64, sym("batch"), sym("seq"))},
		Output:      []*onnxpb.ValueInfoProto{vi("y", f32, sym("batch"), sym("seq"), dim(dModel))},
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro examples/transformer/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph:        g,
	}
	write := func(path string, msg proto.Message) {
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
	write(filepath.Join(dir, "model.onnx"), m)
	// Set 0: batch 2 × seq 16; set 1: batch 1 × seq 7 (the same graph
	// under other bindings, with extents the register blocks do not divide).
	for k, bs := range [][2]int64{{2, maxPos}, {1, 7}} {
		n := int(bs[0] * bs[1])
		ids := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(ids[8*i:], uint64(rng.IntN(vocab)))
		}
		x := &onnxpb.TensorProto{Name: proto.String("input_ids"), Dims: bs[:], DataType: proto.Int32(i64), RawData: ids}
		write(filepath.Join(dir, fmt.Sprintf("test_data_set_%d", k), "input_0.pb"), x)
	}
}
