package importer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

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

// TestAttentionFamilyRandom imports the four ops with random shapes,
// element types, present and absent optional inputs and attributes, most
// of them invalid: each must import into valid IR or fail with an error
// naming the node, never panic.
func TestAttentionFamilyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	types := []DataType{dtFloat, dtFloat16, dtInt64, dtBool}
	val := func(name string) *onnxpb.ValueInfoProto {
		dims := make([]int64, r.IntN(5))
		for i := range dims {
			dims[i] = int64(r.IntN(4))
			if r.IntN(12) == 0 {
				dims[i] = dyn
			}
		}
		e := dtFloat
		if r.IntN(6) == 0 {
			e = types[r.IntN(len(types))]
		}
		return vi(name, e, dims...)
	}
	ops := []struct {
		op    string
		opset int64
		ins   int
		outs  int
		attrs []*onnxpb.AttributeProto
	}{
		{"Attention", 24, 7, 4, []*onnxpb.AttributeProto{attrInt("is_causal", 1), attrInt("q_num_heads", 2), attrInt("kv_num_heads", 1),
			attrInt("qk_matmul_output_mode", 3), attrFloat("scale", 0.5), attrFloat("softcap", 2), attrInt("softmax_precision", 1)}},
		{"RotaryEmbedding", 23, 4, 1, []*onnxpb.AttributeProto{attrInt("interleaved", 1), attrInt("num_heads", 2), attrInt("rotary_embedding_dim", 2)}},
		{"SwiGLU", 28, 2, 1, []*onnxpb.AttributeProto{attrFloat("alpha", 1.5)}},
		{"TensorScatter", 24, 3, 1, []*onnxpb.AttributeProto{attrInt("axis", 1), attrString("mode", "circular")}},
	}
	imported := map[string]int{}
	for i := 0; i < 3000; i++ {
		o := ops[r.IntN(len(ops))]
		var ins []string
		var gin []*onnxpb.ValueInfoProto
		for k := 0; k < 1+r.IntN(o.ins); k++ {
			name := fmt.Sprintf("in%d", k)
			if k >= 2 && r.IntN(3) == 0 {
				ins = append(ins, "")
				continue
			}
			ins = append(ins, name)
			gin = append(gin, val(name))
		}
		var outs []string
		var gout []*onnxpb.ValueInfoProto
		for k := 0; k < 1+r.IntN(o.outs); k++ {
			name := fmt.Sprintf("out%d", k)
			outs = append(outs, name)
			gout = append(gout, &onnxpb.ValueInfoProto{Name: proto.String(name)})
		}
		var attrs []*onnxpb.AttributeProto
		for _, a := range o.attrs {
			if r.IntN(2) == 0 {
				attrs = append(attrs, a)
			}
		}
		if o.op == "Attention" && r.IntN(2) == 0 {
			ins, gin, attrs = coherentAttention(r)
		}
		m := model(o.opset, graph("g", []*onnxpb.NodeProto{node(o.op, ins, outs, attrs...)}, gin, gout))
		mod, err := importModel(t, m, Options{})
		if err != nil {
			if !strings.Contains(err.Error(), o.op) {
				t.Errorf("case %d: error %v does not name the node", i, err)
			}
			continue
		}
		if err := niro.Verify(mod); err != nil {
			t.Errorf("case %d (%s %v): invalid IR: %v", i, o.op, gin, err)
		}
		imported[o.op]++
	}
	t.Logf("imported: %v", imported)
	for _, o := range ops {
		if imported[o.op] == 0 {
			t.Errorf("no random %s instance imported: the cases test only the errors", o.op)
		}
	}
}

// coherentAttention returns the inputs and attributes of a random
// Attention instance whose shapes fit together: 3-D or 4-D, grouped or
// not, with or without a mask (bool or float, of rank 1 to 4, its last
// axis possibly short), a cache, nonpad_kv_seqlen, is_causal and softcap.
func coherentAttention(r *rand.Rand) ([]string, []*onnxpb.ValueInfoProto, []*onnxpb.AttributeProto) {
	b, hk, g, s, l, d, dv := int64(1+r.IntN(2)), int64(1+r.IntN(2)), int64(1+r.IntN(2)), int64(1+r.IntN(3)), int64(1+r.IntN(3)), int64(1+r.IntN(3)), int64(1+r.IntN(3))
	hq := hk * g
	var attrs []*onnxpb.AttributeProto
	ins := []string{"q", "k", "v"}
	var gin []*onnxpb.ValueInfoProto
	if r.IntN(2) == 0 {
		gin = []*onnxpb.ValueInfoProto{vi("q", dtFloat, b, hq, s, d), vi("k", dtFloat, b, hk, l, d), vi("v", dtFloat, b, hk, l, dv)}
	} else {
		gin = []*onnxpb.ValueInfoProto{vi("q", dtFloat, b, s, hq*d), vi("k", dtFloat, b, l, hk*d), vi("v", dtFloat, b, l, hk*dv)}
		attrs = append(attrs, attrInt("q_num_heads", hq), attrInt("kv_num_heads", hk))
	}
	past := int64(0)
	if r.IntN(2) == 0 {
		past = int64(r.IntN(3))
	}
	total := past + l
	ins = append(ins, "")
	if r.IntN(2) == 0 {
		full := []int64{b, hq, s, total - int64(r.IntN(int(total)))}
		dims := full[4-1-r.IntN(4):]
		for i := 0; i < len(dims)-1; i++ {
			if r.IntN(3) == 0 {
				dims[i] = 1
			}
		}
		e := dtFloat
		if r.IntN(2) == 0 {
			e = dtBool
		}
		ins[3] = "m"
		gin = append(gin, vi("m", e, dims...))
	}
	if past > 0 {
		ins = append(ins, "pk", "pv")
		gin = append(gin, vi("pk", dtFloat, b, hk, past, d), vi("pv", dtFloat, b, hk, past, dv))
	} else if r.IntN(2) == 0 {
		ins = append(ins, "", "", "np")
		gin = append(gin, vi("np", dtInt64, b))
	}
	if r.IntN(2) == 0 {
		attrs = append(attrs, attrInt("is_causal", 1))
	}
	if r.IntN(3) == 0 {
		attrs = append(attrs, attrFloat("softcap", 3))
	}
	return ins, gin, attrs
}
