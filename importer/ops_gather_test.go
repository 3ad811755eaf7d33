package importer

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// int64s returns an INT64 tensor stored in raw_data.
func int64s(name string, dims []int64, vals ...int64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dtInt64)), RawData: raw}
}

// TestGatherFoldsShape checks that Shape → Gather of a known index folds
// to a constant, a negative index counting from the end.
func TestGatherFoldsShape(t *testing.T) {
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{
			node("Shape", []string{"x"}, []string{"s"}),
			node("Gather", []string{"s", "i"}, []string{"d"}, attrInt("axis", 0)),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 5)},
		[]*onnxpb.ValueInfoProto{vi("d", dtInt64, 2)},
		int64s("i", []int64{2}, -1, 0)))
	mod := mustImport(t, m, Options{})
	for _, op := range entryOps(mod) {
		if _, ok := op.(*niro.Gather); ok {
			t.Errorf("Gather of a known shape was not folded:\n%s", mod)
		}
	}
	if s := mod.String(); !strings.Contains(s, "const") {
		t.Errorf("no constant in:\n%s", s)
	}
}

// TestGatherIndexOutOfRange checks that a known index outside the axis is
// refused, naming the node.
func TestGatherIndexOutOfRange(t *testing.T) {
	for _, op := range []string{"Gather", "GatherElements"} {
		idx := int64s("i", []int64{2, 1}, 1, 3)
		m := model(13, graph("g",
			[]*onnxpb.NodeProto{named(node(op, []string{"x", "i"}, []string{"y"}, attrInt("axis", 0)), "pick")},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 3, 2)},
			[]*onnxpb.ValueInfoProto{vi("y", dtFloat)},
			idx))
		_, err := importModel(t, m, Options{})
		if err == nil || !strings.Contains(err.Error(), `node "pick"`) || !strings.Contains(err.Error(), "index 3 (element 1 of the indices) is out of range for axis 0 of extent 3") {
			t.Errorf("%s: got error %v", op, err)
		}
	}
}

// TestTopK: a known K maps to one TopK with ONNX's defaults (the last
// axis, largest, sorted); a K computed at run time asks for its value at
// compile time.
func TestTopK(t *testing.T) {
	x := vi("x", dtFloat, 3, 4)
	outs := []*onnxpb.ValueInfoProto{viUnranked("v", dtFloat), viUnranked("i", dtInt64)}
	known := model(13, graph("g", []*onnxpb.NodeProto{
		node("Constant", nil, []string{"k"}, attrInts("value_ints", 2)),
		node("TopK", []string{"x", "k"}, []string{"v", "i"}),
	}, []*onnxpb.ValueInfoProto{x}, outs))
	tk := opsOf[*niro.TopK](mustImport(t, known, Options{}))
	if len(tk) != 1 || tk[0].Axis != 1 || tk[0].K != 2 || !tk[0].Largest || !tk[0].Sorted {
		t.Errorf("known k: got %+v, want one largest sorted topk on axis 1 with k = 2", tk)
	}
	runTime := model(11, graph("g", []*onnxpb.NodeProto{node("TopK", []string{"x", "k"}, []string{"v", "i"}, attrInt("largest", 0))},
		[]*onnxpb.ValueInfoProto{x, vi("k", dtInt64, 1)}, outs))
	mod := mustImport(t, runTime, Options{})
	if u := opsOf[*niro.UnknownOp](mod); len(u) != 1 || !strings.Contains(niro.FunctionString(mod.Entry()), "must be known at compile time") {
		t.Errorf("run-time k: want an UnknownOp asking for k at compile time:\n%s", niro.FunctionString(mod.Entry()))
	}
	mod = mustImport(t, runTime, Options{Values: map[string][]byte{"k": {3, 0, 0, 0, 0, 0, 0, 0}}})
	if tk := opsOf[*niro.TopK](mod); len(tk) != 1 || tk[0].K != 3 || tk[0].Largest {
		t.Errorf("bound k: got %+v, want one smallest topk with k = 3", tk)
	}
}
