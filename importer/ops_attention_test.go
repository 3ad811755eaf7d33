package importer

import (
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestAttentionFamilyErrors checks that malformed instances fail the
// import with an error naming the node and what is wrong.
func TestAttentionFamilyErrors(t *testing.T) {
	f := func(name string, dims ...int64) *onnxpb.ValueInfoProto { return vi(name, dtFloat, dims...) }
	for _, c := range []struct {
		name    string
		opset   int64
		n       *onnxpb.NodeProto
		ins     []*onnxpb.ValueInfoProto
		outs    []*onnxpb.ValueInfoProto
		message string
	}{
		{"3d without heads", 23, node("Attention", []string{"q", "k", "v"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("q", 1, 2, 8), f("k", 1, 2, 8), f("v", 1, 2, 8)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 8)},
			"3-D inputs need q_num_heads and kv_num_heads"},
		{"heads do not divide", 23, node("Attention", []string{"q", "k", "v"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("q", 1, 3, 2, 4), f("k", 1, 2, 2, 4), f("v", 1, 2, 2, 4)}, []*onnxpb.ValueInfoProto{f("y", 1, 3, 2, 4)},
			"kv_num_heads 2 must divide q_num_heads 3"},
		{"ranks differ", 23, node("Attention", []string{"q", "k", "v"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("q", 1, 2, 2, 4), f("k", 1, 2, 8), f("v", 1, 2, 2, 4)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 2, 4)},
			"must all be 3-D or all 4-D"},
		{"past key alone", 23, node("Attention", []string{"q", "k", "v", "", "pk"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("q", 1, 2, 2, 4), f("k", 1, 2, 2, 4), f("v", 1, 2, 2, 4), f("pk", 1, 2, 3, 4)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 2, 4)},
			"past_key and past_value must be given together"},
		{"bad mode", 23, node("Attention", []string{"q", "k", "v"}, []string{"y", "", "", "qk"}, attrInt("qk_matmul_output_mode", 5)),
			[]*onnxpb.ValueInfoProto{f("q", 1, 2, 2, 4), f("k", 1, 2, 2, 4), f("v", 1, 2, 2, 4)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 2, 4), f("qk", 1, 2, 2, 2)},
			"qk_matmul_output_mode must be 0, 1, 2 or 3, is 5"},
		{"mask too long", 23, node("Attention", []string{"q", "k", "v", "m"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("q", 1, 2, 2, 4), f("k", 1, 2, 2, 4), f("v", 1, 2, 2, 4), f("m", 2, 3)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 2, 4)},
			"last extent of at most the total sequence length 2"},
		{"odd rotary dim", 23, node("RotaryEmbedding", []string{"x", "c", "s"}, []string{"y"}, attrInt("rotary_embedding_dim", 3)),
			[]*onnxpb.ValueInfoProto{f("x", 1, 2, 3, 4), f("c", 1, 3, 2), f("s", 1, 3, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 3, 4)},
			"rotary_embedding_dim 3 must be even"},
		{"rotary cache shape", 23, node("RotaryEmbedding", []string{"x", "c", "s"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("x", 1, 2, 3, 4), f("c", 1, 3, 3), f("s", 1, 3, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, 2, 3, 4)},
			"the cos cache gives [1 3 3] per position, want [1, 3, 2]"},
		{"swiglu shapes", 28, node("SwiGLU", []string{"a", "b"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("a", 2, 4), f("b", 1, 4)}, []*onnxpb.ValueInfoProto{f("y", 2, 4)},
			"must have the same shape"},
		{"scatter axis 0", 24, node("TensorScatter", []string{"p", "u"}, []string{"y"}, attrInt("axis", 0)),
			[]*onnxpb.ValueInfoProto{f("p", 2, 4), f("u", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 4)},
			"axis cannot be 0"},
		{"scatter mode", 24, node("TensorScatter", []string{"p", "u"}, []string{"y"}, attrString("mode", "ring")),
			[]*onnxpb.ValueInfoProto{f("p", 2, 4, 3), f("u", 2, 1, 3)}, []*onnxpb.ValueInfoProto{f("y", 2, 4, 3)},
			`mode must be "linear" or "circular", is "ring"`},
		{"scatter too long", 24, node("TensorScatter", []string{"p", "u"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("p", 2, 4, 3), f("u", 2, 5, 3)}, []*onnxpb.ValueInfoProto{f("y", 2, 4, 3)},
			"does not fit past_cache"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := importModel(t, model(c.opset, graph("g", []*onnxpb.NodeProto{c.n}, c.ins, c.outs)), Options{})
			if err == nil || !strings.Contains(err.Error(), c.message) || !strings.Contains(err.Error(), "node #0 ("+c.n.GetOpType()) {
				t.Errorf("error %v, want one naming the node and saying %q", err, c.message)
			}
		})
	}
}

// TestAttentionGQA checks the grouped-query form: the two matmuls read
// the KV heads as they are (no Broadcast repeats K or V), with the g = 2
// query heads of each KV head as the rows of one product; and that the
// whole node maps to Niro ops.
func TestAttentionGQA(t *testing.T) {
	f := func(name string, dims ...int64) *onnxpb.ValueInfoProto { return vi(name, dtFloat, dims...) }
	m := model(23, graph("g", []*onnxpb.NodeProto{node("Attention", []string{"q", "k", "v"}, []string{"y"}, attrInt("is_causal", 1))},
		[]*onnxpb.ValueInfoProto{f("q", 1, 4, 3, 8), f("k", 1, 2, 5, 8), f("v", 1, 2, 5, 6)}, []*onnxpb.ValueInfoProto{f("y", 1, 4, 3, 6)}))
	var mms []*niro.MatMul
	for _, op := range entryOps(mustImport(t, m, Options{})) {
		switch op := op.(type) {
		case *niro.MatMul:
			mms = append(mms, op)
		case *niro.Broadcast:
			t.Errorf("a broadcast %s: K or V is repeated", op.Result.Type)
		case *niro.UnknownOp:
			t.Errorf("an UnknownOp %s", op.Name())
		}
	}
	if len(mms) != 2 {
		t.Fatalf("%d matmuls, want 2", len(mms))
	}
	for i, want := range []string{"tensor<1x2x6x8xf32>", "tensor<1x2x6x5xf32>"} {
		if got := mms[i].LHS.Type.String(); got != want {
			t.Errorf("matmul %d reads %s, want %s", i, got, want)
		}
	}
}
