package importer

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
	"google.golang.org/protobuf/proto"
)

// f16s returns a FLOAT16 tensor of the given bit patterns.
func f16s(name string, dims []int64, bits ...uint16) *onnxpb.TensorProto {
	raw := make([]byte, 2*len(bits))
	for i, b := range bits {
		binary.LittleEndian.PutUint16(raw[2*i:], b)
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dtFloat16)), RawData: raw}
}

// loopF16Model is a Loop of trip count 3 carrying a float16 [2] tensor:
// the body adds a float16 constant and multiplies by another, and emits
// the carried value as a scan output.
func loopF16Model(tripInit bool) *onnxpb.ModelProto {
	body := graph("body", []*onnxpb.NodeProto{
		node("Constant", nil, []string{"one"}, attrTensor("value", f16s("one", []int64{1}, 0x3c00))),
		node("Constant", nil, []string{"half"}, attrTensor("value", &onnxpb.TensorProto{Dims: nil, DataType: proto.Int32(int32(dtFloat16)), Int32Data: []int32{0x3800}})),
		node("Mul", []string{"v", "w"}, []string{"vw"}),
		node("Add", []string{"v", "one"}, []string{"a"}),
		node("Mul", []string{"a", "half"}, []string{"v2"}),
		node("Identity", []string{"c"}, []string{"c2"}),
		node("Identity", []string{"a"}, []string{"s"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("v", dtFloat16, 2)},
		[]*onnxpb.ValueInfoProto{vi("c2", dtBool), vi("v2", dtFloat16, 2), vi("s", dtFloat16, 2), vi("vw", dtFloat16, 2)})
	nodes := []*onnxpb.NodeProto{named(node("Loop", []string{"M", "", "x"}, []string{"r", "scan", "scan2"}, attrGraph("body", body)), "loop")}
	inits := []*onnxpb.TensorProto{f16s("w", []int64{2}, 0x4000, 0x4200)}
	ins := []*onnxpb.ValueInfoProto{vi("x", dtFloat16, 2)}
	if tripInit {
		inits = append(inits, int64s("M", nil, 3))
	} else {
		ins = append(ins, vi("M", dtInt64))
	}
	return model(17, graph("g", nodes, ins,
		[]*onnxpb.ValueInfoProto{vi("r", dtFloat16, 2), vi("scan", dtFloat16, dyn, 2), vi("scan2", dtFloat16, dyn, 2)}, inits...))
}

// TestLoopF16 imports a float16 Loop (a known trip count, and one given
// as an input) and runs it with the interpreter.
func TestLoopF16(t *testing.T) {
	bits := func(vs ...uint16) []byte {
		b := make([]byte, 2*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	want := [][]byte{
		bits(0x3c00, 0x3c80), // r = [1, 1.125]
		bits(0x4000, 0x4200, 0x4000, 0x4100, 0x4000, 0x4080), // [[2, 3], [2, 2.5], [2, 2.25]]
		bits(0x4000, 0x4600, 0x4000, 0x4480, 0x4000, 0x4380), // [[2, 6], [2, 4.5], [2, 3.75]]
	}
	for _, trip := range []bool{true, false} {
		mod := mustImport(t, loopF16Model(trip), Options{})
		if len(opsOf[*niro.Loop](mod)) != 1 {
			t.Fatalf("want one loop:\n%s", mod)
		}
		x := tensorio.Tensor{Elem: niro.F16, Dims: []int64{2}, Data: bits(0x3c00, 0x4000)}
		ins := []tensorio.Tensor{x}
		if !trip {
			ins = append(ins, tensorio.Tensor{Elem: niro.I64, Dims: []int64{}, Data: []byte{3, 0, 0, 0, 0, 0, 0, 0}})
		}
		outs, err := interp.Run(mod, ins, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range outs {
			if o.Elem != niro.F16 || !bytes.Equal(o.Data, want[i]) {
				t.Errorf("trip known %v: output %d is %s %x, want f16 %x", trip, i, o.Elem, o.Data, want[i])
			}
		}
	}
}

// TestLoopConditionNotBool: a Loop condition known at import that is not
// a bool (an f32 initializer) is an error naming the node; the known
// value is never read as a bool's (that indexed an empty slice and
// panicked). The Loops unrolled at import (carrying sequences) read known
// conditions and positions through known.int for the same reason.
func TestLoopConditionNotBool(t *testing.T) {
	m := loopF16Model(true)
	m.Graph.Node[0].Input[1] = "cf"
	m.Graph.Initializer = append(m.Graph.Initializer, floats("cf", nil, 1))
	_, err := importModel(t, m, Options{})
	if err == nil || !strings.Contains(err.Error(), `node "loop" (Loop`) || !strings.Contains(err.Error(), "condition cond has type tensor<f32>, want one bool") {
		t.Fatalf("got %v, want the condition's type error naming the Loop", err)
	}
}
