package importer

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestRecurrentDefaults: an LSTM with only X, W and R gets zeros for B,
// the initial states and the peepholes, S for every sequence length, the
// default activations, and a bidirectional op given one direction's
// activations uses them for both; layout 1 transposes in and out.
func TestRecurrentDefaults(t *testing.T) {
	x := vi("x", dtFloat, 5, 2, 3)
	outs := []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat), viUnranked("yh", dtFloat), viUnranked("yc", dtFloat)}
	m := model(22, graph("g", []*onnxpb.NodeProto{
		node("LSTM", []string{"x", "w", "r"}, []string{"y", "yh", "yc"}, attrInt("hidden_size", 4)),
	}, []*onnxpb.ValueInfoProto{x}, outs, zeros("w", 1, 16, 3), zeros("r", 1, 16, 4)))
	ops := opsOf[*niro.Recurrent](mustImport(t, m, Options{}))
	if len(ops) != 1 || ops[0].Kind != niro.LSTM || ops[0].Direction != "forward" || ops[0].HiddenSize != 4 ||
		strings.Join(ops[0].Activations, ",") != "Sigmoid,Tanh,Tanh" || ops[0].HasClip {
		t.Fatalf("got %+v, want one forward lstm with the default activations", ops)
	}
	bi := model(22, graph("g", []*onnxpb.NodeProto{
		node("GRU", []string{"x", "w", "r"}, []string{"y"}, attrInt("hidden_size", 4), attrString("direction", "bidirectional"),
			attrInt("layout", 1), attrStrings("activations", "HardSigmoid", "leakyrelu"), attrFloats("activation_alpha", 0.5)),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 5, 3)}, outs[:1], zeros("w", 2, 12, 3), zeros("r", 2, 12, 4)))
	mod := mustImport(t, bi, Options{})
	ops = opsOf[*niro.Recurrent](mod)
	if len(ops) != 1 || strings.Join(ops[0].Activations, ",") != "HardSigmoid,LeakyRelu,HardSigmoid,LeakyRelu" {
		t.Fatalf("got %+v, want the activations repeated for the reverse direction", ops)
	}
	// HardSigmoid takes the one alpha given and its default beta; the
	// others fall back to their defaults.
	if a, b := ops[0].Alpha, ops[0].Beta; a[0] != 0.5 || b[0] != 0.5 || a[1] != float64(float32(0.01)) || a[2] != float64(float32(0.2)) {
		t.Errorf("alpha %v, beta %v: want [0.5 0.01 0.2 0.01], [0.5 0 0.5 0]", a, b)
	}
	if tr := opsOf[*niro.Transpose](mod); len(tr) != 2 {
		t.Errorf("layout 1: %d transposes, want 2 (X in, Y out)", len(tr))
	}
}

// TestRecurrentErrors: malformed recurrent nodes are rejected with the
// reason, and types niro does not compute on stay UnknownOps.
func TestRecurrentErrors(t *testing.T) {
	x := vi("x", dtFloat, 5, 2, 3)
	out := []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}
	for _, tc := range []struct {
		attrs []*onnxpb.AttributeProto
		w     *onnxpb.TensorProto
		want  string
	}{
		{[]*onnxpb.AttributeProto{attrString("direction", "sideways")}, zeros("w", 1, 4, 3), `direction "sideways" must be forward, reverse or bidirectional`},
		{[]*onnxpb.AttributeProto{attrStrings("activations", "Swish")}, zeros("w", 1, 4, 3), `activation "Swish" is not one of`},
		{[]*onnxpb.AttributeProto{attrStrings("activations", "Tanh", "Tanh")}, zeros("w", 1, 4, 3), "has 2 activations, want 1"},
		{nil, zeros("w", 1, 4, 2), "W has type tensor<1x4x2xf32>, want [1, 4, 3]"},
		{[]*onnxpb.AttributeProto{attrInt("hidden_size", 5)}, zeros("w", 1, 4, 3), "hidden_size 5 does not match"},
		{[]*onnxpb.AttributeProto{attrFloat("clip", -1)}, zeros("w", 1, 4, 3), "clip -1 must be positive"},
	} {
		m := model(22, graph("g", []*onnxpb.NodeProto{named(node("RNN", []string{"x", "w", "r"}, []string{"y"}, tc.attrs...), "cell")},
			[]*onnxpb.ValueInfoProto{x}, out, tc.w, zeros("r", 1, 4, 4)))
		_, err := importModel(t, m, Options{})
		if err == nil || !strings.Contains(err.Error(), `node "cell"`) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got error %v, want %q", tc.attrs, err, tc.want)
		}
	}
}

func attrStrings(name string, v ...string) *onnxpb.AttributeProto {
	a := &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRINGS.Enum()}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

func attrFloats(name string, v ...float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: v}
}

// TestRecurrentNarrow: an f16 GRU is computed in f32 (its float inputs
// widened once, the op on f32, each output rounded once to f16), and a
// float input of another type than X is an error.
func TestRecurrentNarrow(t *testing.T) {
	half := func(name string, dims ...int64) *onnxpb.TensorProto {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dtFloat16)), RawData: make([]byte, 2*n)}
	}
	outs := []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat16), viUnranked("yh", dtFloat16)}
	m := model(22, graph("g", []*onnxpb.NodeProto{
		node("GRU", []string{"x", "w", "r", "", "", "h0"}, []string{"y", "yh"}, attrInt("hidden_size", 4)),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat16, 5, 2, 3), vi("h0", dtFloat16, 1, 2, 4)}, outs, half("w", 1, 12, 3), half("r", 1, 12, 4)))
	mod := mustImport(t, m, Options{})
	ops := opsOf[*niro.Recurrent](mod)
	if len(ops) != 1 || ops[0].X.Type.String() != "tensor<5x2x3xf32>" || ops[0].H0.Type.String() != "tensor<1x2x4xf32>" {
		t.Fatalf("want one gru on f32:\n%s", mod)
	}
	f := mod.Entry()
	if got := f.Type.Outputs[0].String() + " " + f.Type.Outputs[1].String(); got != "tensor<5x1x2x4xf16> tensor<1x2x4xf16>" {
		t.Errorf("results %s, want f16", got)
	}
	// The initial state in f32 beside an f16 X.
	m.Graph.Input[1] = vi("h0", dtFloat, 1, 2, 4)
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), "has element type f32, want f16") {
		t.Errorf("got error %v, want one about h0's element type", err)
	}
}
