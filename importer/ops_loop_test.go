package importer

import (
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// loopModel builds a model around one Loop node: inputs M (i64), cond
// (bool) and x [1] (f32); the node's inputs name them or "" for absent.
func loopModel(ins []string, body *onnxpb.GraphProto, outs []*onnxpb.ValueInfoProto, inits ...*onnxpb.TensorProto) *onnxpb.ModelProto {
	var names []string
	for _, o := range outs {
		names = append(names, o.GetName())
	}
	return model(17, graph("g",
		[]*onnxpb.NodeProto{named(node("Loop", ins, names, attrGraph("body", body)), "loop")},
		[]*onnxpb.ValueInfoProto{vi("M", dtInt64), vi("cond", dtBool), vi("x", dtFloat, 1)},
		outs, inits...))
}

func TestLoopForms(t *testing.T) {
	// No condition: the body's condition input reads a constant true and
	// its condition output is dropped; the scan output's extent is the
	// known trip count.
	body := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"v", "v"}, []string{"v2"}),
		node("Identity", []string{"c"}, []string{"c2"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("v", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c2", dtBool), vi("v2", dtFloat, 1), vi("v", dtFloat, 1)})
	mod := mustImport(t, loopModel([]string{"three", "", "x"}, body,
		[]*onnxpb.ValueInfoProto{vi("r", dtFloat, 1), vi("s", dtFloat, 3, 1)}, int64s("three", nil, 3)), Options{})
	loops := opsOf[*niro.Loop](mod)
	if len(loops) != 1 || !loops[0].HasTrip || loops[0].HasCond || len(loops[0].ScanOutAxes) != 1 {
		t.Fatalf("want one loop with a trip count, no condition and a scan output:\n%s", mod)
	}
	if got := loops[0].Res[1].Type.String(); got != "tensor<3x1xf32>" {
		t.Errorf("scan output type %s, want tensor<3x1xf32>", got)
	}

	// A carried value that grows (Concat with itself) takes a dynamic
	// extent: the initial value is cast and the body converted again.
	grow := graph("body", []*onnxpb.NodeProto{
		node("Concat", []string{"v", "v"}, []string{"v2"}, attrInt("axis", 0)),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("v", dtFloat, dyn)},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool), vi("v2", dtFloat, dyn)})
	mod = mustImport(t, loopModel([]string{"M", "cond", "x"}, grow, []*onnxpb.ValueInfoProto{vi("r", dtFloat, dyn)}), Options{})
	loops = opsOf[*niro.Loop](mod)
	if len(loops) != 1 || loops[0].Res[0].Type.String() != "tensor<?xf32>" || !loops[0].HasCond {
		t.Fatalf("want one loop carrying tensor<?xf32>:\n%s", mod)
	}
	if err := niro.Verify(mod); err != nil {
		t.Fatal(err)
	}

	// Scan outputs of a loop with a condition and no trip count, or the
	// "no bound" sentinel, are compiled: a loop whose scan output has a
	// dynamic extent (it grows as the loop runs).
	for _, c := range []struct {
		ins   []string
		inits []*onnxpb.TensorProto
	}{
		{[]string{"", "cond", "x"}, nil},
		{[]string{"big", "cond", "x"}, []*onnxpb.TensorProto{int64s("big", nil, 1<<62)}},
	} {
		mod := mustImport(t, loopModel(c.ins, body, []*onnxpb.ValueInfoProto{vi("r", dtFloat, 1), vi("s", dtFloat, dyn, 1)}, c.inits...), Options{})
		loops := opsOf[*niro.Loop](mod)
		if len(loops) != 1 || loops[0].HasTrip != (c.ins[0] != "") || !loops[0].HasCond || loops[0].Res[1].Type.String() != "tensor<?x1xf32>" {
			t.Errorf("%v: want a loop with a condition and a scan output tensor<?x1xf32>:\n%s", c.ins, mod)
		}
		if err := niro.Verify(mod); err != nil {
			t.Errorf("%v: %v", c.ins, err)
		}
	}
	// Without a condition, the sentinel would be a buffer of 2^62 slices.
	mod = mustImport(t, loopModel([]string{"big", "", "x"}, body, []*onnxpb.ValueInfoProto{vi("r", dtFloat, 1), vi("s", dtFloat, dyn, 1)},
		int64s("big", nil, 1<<62)), Options{})
	if len(opsOf[*niro.UnknownOp](mod)) != 1 || !strings.Contains(niro.FunctionString(mod.Entry()), "no condition are not compiled") {
		t.Errorf("want an UnknownOp for M = 2^62 without a condition:\n%s", mod)
	}
}

func TestScanForms(t *testing.T) {
	// Scan 11 with negative axes and both directions.
	body := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"s", "xt"}, []string{"s2"}),
	}, []*onnxpb.ValueInfoProto{vi("s", dtFloat, 3), vi("xt", dtFloat, 3)},
		[]*onnxpb.ValueInfoProto{vi("s2", dtFloat, 3), vi("s2", dtFloat, 3)})
	m := model(11, graph("g",
		[]*onnxpb.NodeProto{node("Scan", []string{"s0", "xs"}, []string{"sf", "ys"}, attrGraph("body", body),
			attrInt("num_scan_inputs", 1), attrInts("scan_input_axes", -1), attrInts("scan_input_directions", 1),
			attrInts("scan_output_axes", -1), attrInts("scan_output_directions", 1))},
		[]*onnxpb.ValueInfoProto{vi("s0", dtFloat, 3), vi("xs", dtFloat, 3, 4)},
		[]*onnxpb.ValueInfoProto{vi("sf", dtFloat, 3), vi("ys", dtFloat, 3, 4)}))
	mod := mustImport(t, m, Options{})
	loops := opsOf[*niro.Loop](mod)
	if len(loops) != 1 {
		t.Fatalf("want one loop:\n%s", mod)
	}
	l := loops[0]
	if l.ScanInAxes[0] != 1 || !l.ScanInReverse[0] || l.ScanOutAxes[0] != 1 || !l.ScanOutReverse[0] || l.Res[1].Type.String() != "tensor<3x4xf32>" {
		t.Errorf("axes, directions or types wrong:\n%s", mod)
	}
	// A scan axis out of range is an error naming the attribute.
	m.Graph.Node[0].Attribute[2] = attrInts("scan_input_axes", 2)
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), "scan_input_axes") {
		t.Errorf("want an error about scan_input_axes, got %v", err)
	}
}

// TestScan8Batch checks Scan-8 over a batch of 2 with sequence_lens: a
// loop over the rows (scanning the state, the inputs and the lengths)
// around the row's own loop, whose trip count is the row's length and
// whose scan output keeps the static extent T; the reverse input is
// reversed within each row's length before the loops and read forward.
func TestScan8Batch(t *testing.T) {
	body := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"s", "xt"}, []string{"s2"}),
	}, []*onnxpb.ValueInfoProto{vi("s", dtFloat, 3), vi("xt", dtFloat, 3)},
		[]*onnxpb.ValueInfoProto{vi("s2", dtFloat, 3), vi("s2", dtFloat, 3)})
	m := model(8, graph("g",
		[]*onnxpb.NodeProto{node("Scan", []string{"lens", "s0", "xs"}, []string{"sf", "ys"}, attrGraph("body", body),
			attrInt("num_scan_inputs", 1), attrInts("directions", 1))},
		[]*onnxpb.ValueInfoProto{vi("lens", dtInt64, 2), vi("s0", dtFloat, 2, 3), vi("xs", dtFloat, 2, 5, 3)},
		[]*onnxpb.ValueInfoProto{vi("sf", dtFloat, 2, 3), vi("ys", dtFloat, 2, 5, 3)}))
	mod := mustImport(t, m, Options{})
	if err := niro.Verify(mod); err != nil {
		t.Fatal(err)
	}
	loops := opsOf[*niro.Loop](mod)
	if len(loops) != 1 {
		t.Fatalf("want one loop over the rows:\n%s", mod)
	}
	outer := loops[0]
	var inner *niro.Loop
	for _, op := range outer.Body.Blocks[0].Ops {
		if l, ok := op.(*niro.Loop); ok {
			inner = l
		}
	}
	if inner == nil {
		t.Fatalf("want a loop over the steps in the loop over the rows:\n%s", mod)
	}
	if outer.HasTrip || len(outer.Scans) != 3 || outer.Res[1].Type.String() != "tensor<2x5x3xf32>" {
		t.Errorf("outer loop: want 3 scan inputs, no trip count, a [2, 5, 3] scan output:\n%s", mod)
	}
	if !inner.HasTrip || inner.ScanInReverse[0] || inner.Res[1].Type.String() != "tensor<5x3xf32>" {
		t.Errorf("inner loop: want a trip count, a forward scan and a [5, 3] scan output:\n%s", mod)
	}
	if len(opsOf[*niro.GatherElements](mod)) != 1 {
		t.Errorf("want one gather_elements reversing the reverse input within each row's length:\n%s", mod)
	}
	// Mismatched batch extents are an error.
	m.Graph.Input[2] = vi("xs", dtFloat, 3, 5, 3)
	m.Graph.Output[1] = vi("ys", dtFloat, 3, 5, 3)
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), "batch extent") {
		t.Errorf("want an error about the batch extent, got %v", err)
	}
}
