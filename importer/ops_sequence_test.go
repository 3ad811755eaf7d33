package importer

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
	"google.golang.org/protobuf/proto"
)

// viSeq declares a sequence of tensors, viOpt an optional.
func viSeq(name string, elem DataType, dims ...int64) *onnxpb.ValueInfoProto {
	v := vi(name, elem, dims...)
	v.Type = &onnxpb.TypeProto{Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{ElemType: v.Type}}}
	return v
}

func viOpt(inner *onnxpb.ValueInfoProto) *onnxpb.ValueInfoProto {
	return &onnxpb.ValueInfoProto{Name: inner.Name, Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_OptionalType{OptionalType: &onnxpb.TypeProto_Optional{ElemType: inner.Type}}}}
}

func f32s(dims []int64, vals ...float32) tensorio.Tensor {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return tensorio.Tensor{Elem: niro.F32, Dims: dims, Data: b}
}

func floatsOf(t *testing.T, x tensorio.Tensor) []float64 {
	t.Helper()
	v, err := tensorio.Float64s(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// outputNames returns the entry's output names.
func outputNames(mod *niro.Module) []string {
	var out []string
	for _, n := range mod.Entry().OutputNames {
		out = append(out, *n)
	}
	return out
}

func inputNames(mod *niro.Module) []string {
	var out []string
	for _, n := range mod.Entry().InputNames {
		out = append(out, *n)
	}
	return out
}

// TestSequenceOps checks each sequence op on a model the interpreter
// runs: the results are the elements the ops select, and a graph output
// of sequence type is flattened into NAME.0, NAME.1, ...
func TestSequenceOps(t *testing.T) {
	g := graph("g", []*onnxpb.NodeProto{
		node("SequenceConstruct", []string{"x", "y"}, []string{"s"}),
		node("SequenceInsert", []string{"s", "x", "one"}, []string{"s2"}), // x y -> x x y
		node("SequenceInsert", []string{"s2", "y"}, []string{"s3"}),       // x x y y
		node("SequenceErase", []string{"s3", "minus1"}, []string{"s4"}),   // x x y
		node("SequenceErase", []string{"s4", "zero"}, []string{"s5"}),     // x y
		node("SequenceAt", []string{"s5", "minus1"}, []string{"at"}),      // y
		node("SequenceLength", []string{"s4"}, []string{"len"}),           // 3
		node("ConcatFromSequence", []string{"s5"}, []string{"cat"}, attrInt("axis", 1)),
		node("ConcatFromSequence", []string{"s5"}, []string{"stack"}, attrInt("axis", -1), attrInt("new_axis", 1)),
		node("SplitToSequence", []string{"x"}, []string{"cols"}, attrInt("axis", 1), attrInt("keepdims", 0)),
		node("SplitToSequence", []string{"x", "two"}, []string{"chunks"}, attrInt("axis", 1)),
		node("Identity", []string{"chunks"}, []string{"chunks2"}),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3), vi("y", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("at", dtFloat, 2, 3), vi("len", dtInt64), vi("cat", dtFloat, 2, 6), vi("stack", dtFloat, 2, 3, 2),
			viSeq("cols", dtFloat, 2), viSeq("chunks2", dtFloat, 2, dyn)},
		int64s("one", nil, 1), int64s("minus1", nil, -1), int64s("zero", nil, 0), int64s("two", nil, 2))
	mod := mustImport(t, model(17, g), Options{})
	want := []string{"at", "len", "cat", "stack", "cols.0", "cols.1", "cols.2", "chunks2.0", "chunks2.1"}
	if got := outputNames(mod); !reflect.DeepEqual(got, want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	x := f32s([]int64{2, 3}, 1, 2, 3, 4, 5, 6)
	y := f32s([]int64{2, 3}, 10, 20, 30, 40, 50, 60)
	outs, err := interp.Run(mod, []tensorio.Tensor{x, y}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		dims []int64
		vals []float64
	}{
		{[]int64{2, 3}, []float64{10, 20, 30, 40, 50, 60}},
		{[]int64{}, []float64{3}},
		{[]int64{2, 6}, []float64{1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60}},
		{[]int64{2, 3, 2}, []float64{1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60}},
		{[]int64{2}, []float64{1, 4}},
		{[]int64{2}, []float64{2, 5}},
		{[]int64{2}, []float64{3, 6}},
		{[]int64{2, 2}, []float64{1, 2, 4, 5}},
		{[]int64{2, 1}, []float64{3, 6}},
	}
	for i, c := range checks {
		if !reflect.DeepEqual(outs[i].Dims, c.dims) && !(len(c.dims) == 0 && len(outs[i].Dims) == 0) {
			t.Errorf("output %s: shape %v, want %v", want[i], outs[i].Dims, c.dims)
			continue
		}
		if got := floatsOf(t, outs[i]); !reflect.DeepEqual(got, c.vals) {
			t.Errorf("output %s = %v, want %v", want[i], got, c.vals)
		}
	}
}

// TestSequenceErrors checks the errors of positions out of range, unknown
// positions (a NeedsDataError naming the node, which Options.Values
// resolves) and element types that differ.
func TestSequenceErrors(t *testing.T) {
	at := func(pos string, inits ...*onnxpb.TensorProto) *onnxpb.ModelProto {
		return model(17, graph("g", []*onnxpb.NodeProto{
			node("SequenceConstruct", []string{"x", "x"}, []string{"s"}),
			named(node("SequenceAt", []string{"s", pos}, []string{"r"}), "at"),
		}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2), vi("p", dtInt64)}, []*onnxpb.ValueInfoProto{vi("r", dtFloat, 2)}, inits...))
	}
	_, err := importModel(t, at("big", int64s("big", nil, 2)), Options{})
	if err == nil || !strings.Contains(err.Error(), `node "at"`) || !strings.Contains(err.Error(), "position 2 is out of range for a sequence of 2 elements") {
		t.Errorf("out of range: got %v", err)
	}
	_, err = importModel(t, at("p"), Options{})
	var nd *NeedsDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), `node "at"`) || !strings.Contains(err.Error(), `position (input "p") must be known at compile time`) {
		t.Errorf("unknown position: got %v", err)
	}
	pos := make([]byte, 8)
	binary.LittleEndian.PutUint64(pos, uint64(1))
	if _, err := importModel(t, at("p"), Options{Values: map[string][]byte{"p": pos}}); err != nil {
		t.Errorf("known position: %v", err)
	}
	m := model(17, graph("g", []*onnxpb.NodeProto{
		named(node("SequenceConstruct", []string{"x", "i"}, []string{"s"}), "mixed"),
		node("SequenceLength", []string{"s"}, []string{"r"}),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2), vi("i", dtInt64)}, []*onnxpb.ValueInfoProto{vi("r", dtInt64)}))
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), `node "mixed"`) || !strings.Contains(err.Error(), "element type") {
		t.Errorf("mixed element types: got %v", err)
	}
	// A sequence fed to an op on tensors is an error naming both.
	m = model(17, graph("g", []*onnxpb.NodeProto{
		node("SequenceConstruct", []string{"x"}, []string{"s"}),
		named(node("Relu", []string{"s"}, []string{"r"}), "relu"),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2)}, []*onnxpb.ValueInfoProto{vi("r", dtFloat, 2)}))
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), `node "relu"`) || !strings.Contains(err.Error(), `input "s" is a sequence`) {
		t.Errorf("sequence into Relu: got %v", err)
	}
}

// TestSequenceInputs checks the flattened ABI of sequence and optional
// graph inputs: one parameter per element, NAME.K, with the element count
// from Options.Sequences (a NeedsDataError without it) and shapes from
// Options.Shapes by the flattened names.
func TestSequenceInputs(t *testing.T) {
	m := model(18, graph("g", []*onnxpb.NodeProto{
		node("SequenceLength", []string{"s"}, []string{"n"}),
		node("ConcatFromSequence", []string{"s"}, []string{"c"}, attrInt("axis", 0)),
		node("OptionalHasElement", []string{"o"}, []string{"has"}),
		node("Identity", []string{"s"}, []string{"s2"}),
	}, []*onnxpb.ValueInfoProto{viSeq("s", dtFloat, dyn), viOpt(vi("o", dtFloat, 2))},
		[]*onnxpb.ValueInfoProto{vi("n", dtInt64), vi("c", dtFloat, dyn), vi("has", dtBool), viSeq("s2", dtFloat, dyn)}))
	_, err := importModel(t, m, Options{})
	var nd *NeedsDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), `graph input "s"`) {
		t.Fatalf("no layout: got %v", err)
	}
	opts := Options{
		Sequences: map[string]Layout{"s": {Len: 2}, "o": {None: true}},
		Shapes:    map[string][]int64{"s.0": {1}, "s.1": {2}},
	}
	mod := mustImport(t, m, opts)
	if got := inputNames(mod); !reflect.DeepEqual(got, []string{"s.0", "s.1"}) {
		t.Errorf("inputs %v, want [s.0 s.1]", got)
	}
	if got := outputNames(mod); !reflect.DeepEqual(got, []string{"n", "c", "has", "s2.0", "s2.1"}) {
		t.Errorf("outputs %v", got)
	}
	outs, err := interp.Run(mod, []tensorio.Tensor{f32s([]int64{1}, 7), f32s([]int64{2}, 8, 9)}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, c, has := floatsOf(t, outs[0]), floatsOf(t, outs[1]), floatsOf(t, outs[2]); n[0] != 2 || !reflect.DeepEqual(c, []float64{7, 8, 9}) || has[0] != 0 {
		t.Errorf("n %v, c %v, has %v", n, c, has)
	}
	// An optional holding a tensor is the parameter NAME.
	opts.Sequences["o"] = Layout{}
	mod = mustImport(t, m, opts)
	if got := inputNames(mod); !reflect.DeepEqual(got, []string{"s.0", "s.1", "o"}) {
		t.Errorf("inputs %v, want [s.0 s.1 o]", got)
	}
	if _, err := importModel(t, m, Options{Sequences: map[string]Layout{"x": {}}}); err == nil || !strings.Contains(err.Error(), `--seq x: `) {
		t.Errorf("layout for no input: got %v", err)
	}
}

// TestOptionalOps checks Optional, OptionalHasElement (folded to a
// constant) and OptionalGetElement.
func TestOptionalOps(t *testing.T) {
	tp := &onnxpb.AttributeProto{Name: proto.String("type"), Type: onnxpb.AttributeProto_TYPE_PROTO.Enum(), Tp: vi("t", dtFloat, 2).Type}
	m := model(18, graph("g", []*onnxpb.NodeProto{
		node("Optional", []string{"x"}, []string{"o"}),
		node("Optional", nil, []string{"none"}, tp),
		node("OptionalHasElement", []string{"o"}, []string{"h1"}),
		node("OptionalHasElement", []string{"none"}, []string{"h2"}),
		node("OptionalHasElement", []string{""}, []string{"h3"}),
		node("OptionalHasElement", []string{"x"}, []string{"h4"}),
		node("OptionalGetElement", []string{"o"}, []string{"x2"}),
		named(node("OptionalGetElement", []string{"none"}, []string{"bad"}), "get"),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2)},
		[]*onnxpb.ValueInfoProto{vi("h1", dtBool), vi("h2", dtBool), vi("h3", dtBool), vi("h4", dtBool), vi("x2", dtFloat, 2)}))
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), `node "get"`) || !strings.Contains(err.Error(), "holds no value") {
		t.Errorf("empty OptionalGetElement: got %v", err)
	}
	m.Graph.Node = m.Graph.Node[:len(m.Graph.Node)-1]
	mod := mustImport(t, m, Options{})
	outs, err := interp.Run(mod, []tensorio.Tensor{f32s([]int64{2}, 1, 2)}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, o := range outs[:4] {
		got = append(got, floatsOf(t, o)...)
	}
	if !reflect.DeepEqual(got, []float64{1, 0, 0, 1}) || !reflect.DeepEqual(floatsOf(t, outs[4]), []float64{1, 2}) {
		t.Errorf("has elements %v, get element %v", got, floatsOf(t, outs[4]))
	}
	if n := len(opsOf[*niro.UnknownOp](mod)); n != 0 {
		t.Errorf("%d UnknownOps, want none", n)
	}
}

// TestSequenceMapLoopIf checks SequenceMap (the body once per element), a
// Loop carrying a sequence (unrolled at import: its trip count must be
// known) and an If yielding sequences (its condition must be known).
func TestSequenceMapLoopIf(t *testing.T) {
	mapBody := graph("body", []*onnxpb.NodeProto{node("Add", []string{"e", "t"}, []string{"r"})},
		[]*onnxpb.ValueInfoProto{vi("e", dtFloat, dyn), vi("t", dtFloat, 1)}, []*onnxpb.ValueInfoProto{vi("r", dtFloat, dyn)})
	loopBody := graph("lbody", []*onnxpb.NodeProto{
		node("Cast", []string{"i"}, []string{"fi"}, attrInt("to", int64(dtFloat))),
		node("SequenceInsert", []string{"acc", "fi"}, []string{"acc2"}),
		node("Identity", []string{"c"}, []string{"c2"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), viSeq("acc", dtFloat)},
		[]*onnxpb.ValueInfoProto{vi("c2", dtBool), viSeq("acc2", dtFloat), vi("fi", dtFloat)})
	arm := func(vs ...string) *onnxpb.GraphProto {
		out := "out_" + strings.Join(vs, "_")
		return graph("arm", []*onnxpb.NodeProto{node("SequenceConstruct", vs, []string{out})},
			nil, []*onnxpb.ValueInfoProto{viSeq(out, dtFloat, 1)})
	}
	elseArm := arm("tt")
	m := func(trip, cond string, inits ...*onnxpb.TensorProto) *onnxpb.ModelProto {
		return model(17, graph("g", []*onnxpb.NodeProto{
			node("SequenceConstruct", []string{"x", "y"}, []string{"s"}),
			node("SequenceMap", []string{"s", "t"}, []string{"mapped"}, attrGraph("body", mapBody)),
			node("SequenceEmpty", nil, []string{"empty"}),
			named(node("Loop", []string{trip, "", "empty"}, []string{"iters", "scan"}, attrGraph("body", loopBody)), "loop"),
			named(node("If", []string{cond}, []string{"picked"}, attrGraph("then_branch", arm("t")), attrGraph("else_branch", elseArm)), "if"),
		}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 1), vi("y", dtFloat, 2), vi("t", dtFloat, 1), vi("M", dtInt64), vi("b", dtBool), vi("tt", dtFloat, 1)},
			[]*onnxpb.ValueInfoProto{viSeq("mapped", dtFloat, dyn), viSeq("iters", dtFloat), vi("scan", dtFloat, 3), viSeq("picked", dtFloat, 1)}, inits...))
	}
	_, err := importModel(t, m("M", "yes", int64s("three", nil, 3), bools("yes", true)), Options{})
	var nd *NeedsDataError
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), `node "loop"`) {
		t.Errorf("unknown trip count: got %v", err)
	}
	// Arms yielding sequences of different lengths need the condition
	// known; of the same structure, they are selected element-wise.
	elseArm = arm("t", "tt")
	_, err = importModel(t, m("three", "b", int64s("three", nil, 3)), Options{})
	if !errors.As(err, &nd) || !strings.Contains(err.Error(), `node "if"`) || !strings.Contains(err.Error(), "a sequence of 1 elements and a sequence of 2 elements") {
		t.Errorf("unknown condition, arms of different lengths: got %v", err)
	}
	elseArm = arm("tt")
	for _, b := range []byte{0, 1} {
		mod := mustImport(t, m("three", "b", int64s("three", nil, 3)), Options{})
		if len(opsOf[*niro.If](mod)) != 1 {
			t.Fatalf("want an If selecting the sequence's element:\n%s", mod)
		}
		back, err := niro.Parse("if.niro", []byte(mod.String()))
		if err != nil || back.String() != mod.String() {
			t.Errorf("printed module does not parse back: %v", err)
		}
		outs, err := interp.Run(mod, []tensorio.Tensor{f32s([]int64{1}, 1), f32s([]int64{2}, 2, 3), f32s([]int64{1}, 100),
			{Elem: niro.I64, Dims: []int64{}, Data: make([]byte, 8)}, {Elem: niro.Bool, Dims: []int64{}, Data: []byte{b}}, f32s([]int64{1}, -1)}, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{-1}
		if b == 1 {
			want = []float64{100}
		}
		if got := floatsOf(t, outs[len(outs)-1]); !reflect.DeepEqual(got, want) {
			t.Errorf("b=%d: picked.0 = %v, want %v", b, got, want)
		}
	}
	mod := mustImport(t, m("three", "yes", int64s("three", nil, 3), bools("yes", true)), Options{})
	want := []string{"mapped.0", "mapped.1", "iters.0", "iters.1", "iters.2", "scan", "picked.0"}
	if got := outputNames(mod); !reflect.DeepEqual(got, want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	ins := []tensorio.Tensor{f32s([]int64{1}, 1), f32s([]int64{2}, 2, 3), f32s([]int64{1}, 100),
		{Elem: niro.I64, Dims: []int64{}, Data: make([]byte, 8)}, {Elem: niro.Bool, Dims: []int64{}, Data: []byte{0}}, f32s([]int64{1}, -1)}
	outs, err := interp.Run(mod, ins, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantVals := [][]float64{{101}, {102, 103}, {0}, {1}, {2}, {0, 1, 2}, {100}}
	for i, w := range wantVals {
		if got := floatsOf(t, outs[i]); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, want %v", want[i], got, w)
		}
	}
}

// bools returns a BOOL scalar.
func bools(name string, v bool) *onnxpb.TensorProto {
	b := byte(0)
	if v {
		b = 1
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(dtBool)), RawData: []byte{b}}
}

// TestLoopOverOuterSequence checks a Loop that carries only tensors but
// reads an enclosing sequence at its iteration number: it is unrolled.
func TestLoopOverOuterSequence(t *testing.T) {
	body := graph("body", []*onnxpb.NodeProto{
		node("SequenceAt", []string{"s", "i"}, []string{"e"}),
		node("Add", []string{"acc", "e"}, []string{"acc2"}),
		node("Identity", []string{"c"}, []string{"c2"}),
	}, []*onnxpb.ValueInfoProto{vi("i", dtInt64), vi("c", dtBool), vi("acc", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("c2", dtBool), vi("acc2", dtFloat, 1)})
	m := model(17, graph("g", []*onnxpb.NodeProto{
		node("SequenceConstruct", []string{"x", "y", "x"}, []string{"s"}),
		node("SequenceLength", []string{"s"}, []string{"n"}),
		node("Loop", []string{"n", "", "z"}, []string{"sum"}, attrGraph("body", body)),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 1), vi("y", dtFloat, 1), vi("z", dtFloat, 1)},
		[]*onnxpb.ValueInfoProto{vi("sum", dtFloat, 1)}))
	mod := mustImport(t, m, Options{})
	if len(opsOf[*niro.Loop](mod)) != 0 {
		t.Errorf("want the loop unrolled:\n%s", mod)
	}
	outs, err := interp.Run(mod, []tensorio.Tensor{f32s([]int64{1}, 1), f32s([]int64{1}, 10), f32s([]int64{1}, 100)}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := floatsOf(t, outs[0]); !reflect.DeepEqual(got, []float64{112}) {
		t.Errorf("sum = %v, want [112]", got)
	}
}
