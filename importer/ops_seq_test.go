package importer

import (
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// TestSeqRandomErrors checks that the random, sequence and FlexAttention
// converters refuse malformed nodes with an error naming the node and the
// problem.
func TestSeqRandomErrors(t *testing.T) {
	f := dtFloat
	one := func(op string, opset int64, ins []*onnxpb.ValueInfoProto, out *onnxpb.ValueInfoProto, attrs ...*onnxpb.AttributeProto) *onnxpb.ModelProto {
		names := make([]string, len(ins))
		for i, v := range ins {
			names[i] = v.GetName()
		}
		return model(opset, graph("g", []*onnxpb.NodeProto{named(node(op, names, []string{out.GetName()}, attrs...), "n0")}, ins, []*onnxpb.ValueInfoProto{out}))
	}
	qkv := []*onnxpb.ValueInfoProto{vi("q", f, 1, 3, 8), vi("k", f, 1, 3, 8), vi("v", f, 1, 3, 8)}
	mod := graph("mod", []*onnxpb.NodeProto{node("Add", []string{"s", "t"}, []string{"o"})},
		[]*onnxpb.ValueInfoProto{vi("s", f, 1, 2, 3, 3), vi("t", f, 1, 2, 3, 3)}, []*onnxpb.ValueInfoProto{vi("o", f, 1, 2, 3, 3)})
	flex := model(26, graph("g", []*onnxpb.NodeProto{{Name: proto.String("n0"), OpType: proto.String("FlexAttention"), Domain: proto.String("ai.onnx.preview"),
		Input: []string{"q", "k", "v"}, Output: []string{"y"}, Attribute: []*onnxpb.AttributeProto{attrGraph("score_mod", mod)}}},
		[]*onnxpb.ValueInfoProto{vi("q", f, 1, 2, 3, 4), vi("k", f, 1, 2, 3, 4), vi("v", f, 1, 2, 3, 4)}, []*onnxpb.ValueInfoProto{vi("y", f, 1, 2, 3, 4)}))
	flex.OpsetImport = append(flex.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("ai.onnx.preview"), Version: proto.Int64(1)})
	tests := []struct {
		name string
		m    *onnxpb.ModelProto
		want string
	}{
		{"reverse axes", one("ReverseSequence", 10, []*onnxpb.ValueInfoProto{vi("x", f, 4, 4), vi("l", dtInt64, 4)}, vi("y", f, 4, 4), attrInt("batch_axis", 0), attrInt("time_axis", 0)),
			"batch_axis 0 and time_axis 0 must be 0 and 1"},
		{"reverse lens", one("ReverseSequence", 10, []*onnxpb.ValueInfoProto{vi("x", f, 4, 4), vi("l", dtInt64, 3)}, vi("y", f, 4, 4)),
			"sequence_lens must have shape [4]"},
		{"causal activation", one("CausalConvWithState", 27, []*onnxpb.ValueInfoProto{vi("x", f, 1, 2, 5), vi("w", f, 2, 1, 3)}, vi("y", f, 1, 2, 5), attrString("activation", "relu")),
			`activation "relu" is not one of none, silu, swish`},
		{"causal weight", one("CausalConvWithState", 27, []*onnxpb.ValueInfoProto{vi("x", f, 1, 2, 5), vi("w", f, 2, 2, 3)}, vi("y", f, 1, 2, 5)),
			"weight must have shape (2, 1, k)"},
		{"linear attention decay", one("LinearAttention", 27, qkv, vi("y", f, 1, 3, 8), attrString("update_rule", "gated"), attrInt("q_num_heads", 2), attrInt("kv_num_heads", 2)),
			`update_rule "gated" needs the decay input`},
		{"linear attention heads", one("LinearAttention", 27, qkv, vi("y", f, 1, 3, 8), attrString("update_rule", "linear"), attrInt("q_num_heads", 3), attrInt("kv_num_heads", 2)),
			"q_num_heads (3) must be a positive multiple of kv_num_heads (2)"},
		{"uniform dtype", one("RandomUniformLike", 22, []*onnxpb.ValueInfoProto{vi("x", f, 2)}, vi("y", dtInt64, 2), attrInt("dtype", int64(dtInt64))),
			"dtype must be a float type"},
		{"multinomial dtype", one("Multinomial", 22, []*onnxpb.ValueInfoProto{vi("x", f, 2, 3)}, vi("y", f, 2, 1), attrInt("dtype", int64(f))),
			"dtype must be int32 or int64"},
		{"multinomial rank", one("Multinomial", 22, []*onnxpb.ValueInfoProto{vi("x", f, 2, 3, 1)}, vi("y", dtInt32, 2, 1)),
			"input must have rank 2"},
		{"flex modifier", flex, "score_mod must have 1 input and 1 output, has 2 and 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importModel(t, tc.m, Options{})
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `node "n0"`) {
				t.Errorf("error %q, want it to name node \"n0\" and say %q", err, tc.want)
			}
		})
	}
}

// TestSeqRandomMapped checks that well-formed nodes of the new ops import
// with every op mapped (no UnknownOp).
func TestSeqRandomMapped(t *testing.T) {
	f := dtFloat
	m := model(22, graph("g", []*onnxpb.NodeProto{
		node("RandomNormal", nil, []string{"a"}, attrInts("shape", 2, 3), attrFloat("seed", 2)),
		node("Bernoulli", []string{"p"}, []string{"b"}),
		node("Multinomial", []string{"p"}, []string{"c"}, attrInt("sample_size", 5)),
		node("ReverseSequence", []string{"p", "l"}, []string{"d"}, attrInt("batch_axis", 0), attrInt("time_axis", 1)),
	}, []*onnxpb.ValueInfoProto{vi("p", f, 2, 3), vi("l", dtInt64, 2)},
		[]*onnxpb.ValueInfoProto{vi("a", f, 2, 3), vi("b", f, 2, 3), vi("c", dtInt32, 2, 5), vi("d", f, 2, 3)}))
	mod := mustImport(t, m, Options{})
	for _, op := range entryOps(mod) {
		if u, ok := op.(*niro.UnknownOp); ok {
			t.Errorf("%s stays unknown", u.Name())
		}
	}
}
