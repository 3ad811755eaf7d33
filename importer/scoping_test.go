package importer

import (
	"fmt"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// Subgraph scoping: a subgraph's inputs hide the values of the enclosing
// graphs of the same name (ONNX Runtime accepts these models; it rejects
// a node output that repeats an outer name). The models are also in
// testdata/subgraphs (with ONNX Runtime's outputs), where the root
// package's TestSubgraphCases compiles them.

func scalarI64(name string, v int64) *onnxpb.NodeProto {
	return node("Constant", nil, []string{name}, attrTensor("value", int64s(name, nil, v)))
}

func oneF32(name string, v float32) *onnxpb.NodeProto {
	return node("Constant", nil, []string{name}, attrTensor("value", floats(name, []int64{1}, v)))
}

// scopingModels returns the scoping cases by name. Every one reads x
// (float [10,1]) or names it, and its right outputs have no row of x.
func scopingModels() map[string]*onnxpb.ModelProto {
	x := []*onnxpb.ValueInfoProto{vi("x", dtFloat, 10, 1)}
	outs := func(names ...string) []*onnxpb.ValueInfoProto {
		var o []*onnxpb.ValueInfoProto
		for _, n := range names {
			o = append(o, viUnranked(n, dtFloat))
		}
		return o
	}
	m := map[string]*onnxpb.ModelProto{}
	// The carried input is named x, as the outer input: the body
	// doubles the carried [1] value, the scan output stacks it; the trip
	// count is 0.
	bodyCarried := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"x", "x"}, []string{"x2"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("x", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool), vi("x2", dtFloat, 1), vi("x", dtFloat, 1)})
	m["loop_carried_named_x"] = model(17, graph("g", []*onnxpb.NodeProto{scalarI64("zero", 0), oneF32("one", 1),
		node("Loop", []string{"zero", "", "one"}, []string{"r", "s"}, attrGraph("body", bodyCarried))},
		x, outs("r", "s")))
	// The same with two iterations, and the outer x read beside.
	bodyBoth := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"x", "x"}, []string{"x2"}),
		node("ReduceSum", []string{"outer"}, []string{"t"}, attrInt("keepdims", 0)),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("x", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool), vi("x2", dtFloat, 1), vi("x", dtFloat, 1), vi("t", dtFloat)})
	m["loop_carried_named_x_2"] = model(17, graph("g", []*onnxpb.NodeProto{scalarI64("two", 2), oneF32("one", 1),
		node("Identity", []string{"x"}, []string{"outer"}),
		node("Loop", []string{"two", "", "one"}, []string{"r", "s", "u"}, attrGraph("body", bodyBoth))},
		x, outs("r", "s", "u")))
	// A carried value that grows from [0,1], named x: with no iteration
	// it stays [0,1].
	bodyGrow := graph("body", []*onnxpb.NodeProto{
		node("Constant", nil, []string{"row"}, attrTensor("value", floats("row", []int64{1, 1}, 5))),
		node("Concat", []string{"x", "row"}, []string{"x2"}, attrInt("axis", 0)),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("x", dtFloat, dyn, 1)},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool), vi("x2", dtFloat, dyn, 1)})
	m["loop_grow_named_x"] = model(17, graph("g", []*onnxpb.NodeProto{
		node("Constant", nil, []string{"e"}, attrTensor("value", floats("e", []int64{0, 1}))),
		scalarI64("zero", 0),
		node("Loop", []string{"zero", "", "e"}, []string{"r"}, attrGraph("body", bodyGrow))},
		x, outs("r")))
	// The iteration number is named like the trip count, a graph input.
	bodyIter := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"a", "a"}, []string{"a2"}),
		node("Cast", []string{"m"}, []string{"mf"}, attrInt("to", int64(dtFloat))),
	}, []*onnxpb.ValueInfoProto{vi("m", dtInt64), vi("c", dtBool), vi("a", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool), vi("a2", dtFloat, 1), vi("mf", dtFloat)})
	m["loop_iter_named_m"] = model(17, graph("g", []*onnxpb.NodeProto{oneF32("one", 1),
		node("Loop", []string{"m", "", "one"}, []string{"r", "is"}, attrGraph("body", bodyIter))},
		[]*onnxpb.ValueInfoProto{vi("m", dtInt64)}, outs("r", "is")))
	// The body's condition input is named like the loop's condition.
	bodyCond := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"a", "a"}, []string{"a2"}),
		node("Not", []string{"cond"}, []string{"c2"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("cond", dtBool), vi("a", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c2", dtBool), vi("a2", dtFloat, 1), vi("a", dtFloat, 1)})
	m["loop_cond_named_cond"] = model(17, graph("g", []*onnxpb.NodeProto{oneF32("one", 1), scalarI64("ten", 10),
		node("Loop", []string{"ten", "cond", "one"}, []string{"r", "s"}, attrGraph("body", bodyCond))},
		[]*onnxpb.ValueInfoProto{vi("cond", dtBool)}, outs("r", "s")))
	return m
}

// TestSubgraphScoping imports each scoping case and runs it with the
// interpreter: no output takes the outer value's 10 rows.
func TestSubgraphScoping(t *testing.T) {
	ms := scopingModels()
	x := f32s([]int64{10, 1}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	i64 := func(v int64) tensorio.Tensor {
		return tensorio.Tensor{Elem: niro.I64, Dims: []int64{}, Data: int64s("", nil, v).RawData}
	}
	boolean := func(v byte) tensorio.Tensor {
		return tensorio.Tensor{Elem: niro.Bool, Dims: []int64{}, Data: []byte{v}}
	}
	for _, c := range []struct {
		name string
		ins  []tensorio.Tensor
		want []string // output shapes
	}{
		{"loop_carried_named_x", []tensorio.Tensor{x}, []string{"[1]", "[0 1]"}},
		{"loop_carried_named_x_2", []tensorio.Tensor{x}, []string{"[1]", "[2 1]", "[2]"}},
		{"loop_grow_named_x", []tensorio.Tensor{x}, []string{"[0 1]"}},
		{"loop_iter_named_m", []tensorio.Tensor{i64(0)}, []string{"[1]", "[0]"}},
		{"loop_iter_named_m", []tensorio.Tensor{i64(3)}, []string{"[1]", "[3]"}},
		{"loop_cond_named_cond", []tensorio.Tensor{boolean(0)}, []string{"[1]", "[0 1]"}},
		{"loop_cond_named_cond", []tensorio.Tensor{boolean(1)}, []string{"[1]", "[1 1]"}},
	} {
		mod := mustImport(t, ms[c.name], Options{})
		outs, err := interp.Run(mod, c.ins, interp.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, o := range outs {
			if got := fmt.Sprint(o.Dims); got != c.want[i] {
				t.Errorf("%s: output %d has shape %s, want %s\n%s", c.name, i, got, c.want[i], mod)
			}
		}
	}
}
