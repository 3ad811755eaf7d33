package importer

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// Tests of "Declared types are hints" (docs/importer.md, hints.go).

// importHints imports m and returns the module, its summary's warnings
// and the entry function's output types.
func importHints(t *testing.T, m *onnxpb.ModelProto, opts Options) (*niro.Module, []string, []string) {
	t.Helper()
	mod, sum, err := ImportBytes(marshal(t, m), opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var outs []string
	for _, ty := range mod.Entry().Type.Outputs {
		outs = append(outs, ty.String())
	}
	return mod, sum.Warnings, outs
}

// declaredDims is vi with -1 written as a dim_value of -1, as exporters
// write a dynamic dimension.
func declaredDims(name string, elem DataType, dims ...int64) *onnxpb.ValueInfoProto {
	v := vi(name, elem, dims...)
	for i, d := range dims {
		if d < 0 {
			v.Type.GetTensorType().Shape.Dim[i].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}
		}
	}
	return v
}

// TestHintValueInfo declares the output of one node of each kind with a
// rank or an extent the op does not produce: the import keeps the
// inferred type and reports the declaration once.
func TestHintValueInfo(t *testing.T) {
	scanBody := graph("body", []*onnxpb.NodeProto{
		node("Add", []string{"s", "xt"}, []string{"s2"}),
		node("Identity", []string{"s2"}, []string{"o"}),
	}, []*onnxpb.ValueInfoProto{vi("s", dtFloat, 2), vi("xt", dtFloat, 2)},
		[]*onnxpb.ValueInfoProto{vi("s2", dtFloat, 2), vi("o", dtFloat, 2)})
	tests := []struct {
		name     string
		opset    int64
		nodes    []*onnxpb.NodeProto
		inputs   []*onnxpb.ValueInfoProto
		inits    []*onnxpb.TensorProto
		declared *onnxpb.ValueInfoProto // the value_info of y
		elem     DataType               // y's element type
		warning  string
		out      string // y's type in the module
	}{
		{name: "Reshape extents", opset: 13,
			nodes:  []*onnxpb.NodeProto{named(node("Reshape", []string{"x", "shape"}, []string{"y"}), "r")},
			inputs: []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4)}, inits: []*onnxpb.TensorProto{int64s("shape", []int64{2}, 6, 4)},
			declared: vi("y", dtFloat, 4, 6),
			warning:  `node "r" (Reshape): output "y" declared tensor<4x6xf32>, inferred tensor<6x4xf32>; using the inferred type`,
			out:      "tensor<6x4xf32>"},
		{name: "Pad rank", opset: 13,
			nodes:  []*onnxpb.NodeProto{named(node("Pad", []string{"x", "pads"}, []string{"y"}), "p")},
			inputs: []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)}, inits: []*onnxpb.TensorProto{int64s("pads", []int64{4}, 1, 1, 1, 1)},
			declared: vi("y", dtFloat, 4, 5, 1),
			warning:  `node "p" (Pad): output "y" declared tensor<4x5x1xf32>, inferred tensor<4x5xf32>; using the inferred type`,
			out:      "tensor<4x5xf32>"},
		{name: "MatMul extent", opset: 13,
			nodes:    []*onnxpb.NodeProto{named(node("MatMul", []string{"a", "b"}, []string{"y"}), "mm")},
			inputs:   []*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 3), vi("b", dtFloat, 3, 4)},
			declared: vi("y", dtFloat, 2, 5),
			warning:  `node "mm" (MatMul): output "y" declared tensor<2x5xf32>, inferred tensor<2x4xf32>; using the inferred type`,
			out:      "tensor<2x4xf32>"},
		{name: "Identity extents", opset: 13,
			nodes:    []*onnxpb.NodeProto{named(node("Identity", []string{"x"}, []string{"y"}), "id")},
			inputs:   []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)},
			declared: vi("y", dtFloat, 3, 2),
			warning:  `node "id" (Identity): output "y" declared tensor<3x2xf32>, inferred tensor<2x3xf32>; using the inferred type`,
			out:      "tensor<2x3xf32>"},
		{name: "BatchNormalization rank", opset: 15,
			nodes:  []*onnxpb.NodeProto{named(node("BatchNormalization", []string{"x", "sc", "b", "mu", "var"}, []string{"y"}), "bn")},
			inputs: []*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 2, 3, 3)},
			inits: []*onnxpb.TensorProto{floats("sc", []int64{2}, 1, 1), floats("b", []int64{2}, 0, 0),
				floats("mu", []int64{2}, 0, 0), floats("var", []int64{2}, 1, 1)},
			declared: vi("y", dtFloat, 1, 2, 3),
			warning:  `node "bn" (BatchNormalization): output "y" declared tensor<1x2x3xf32>, inferred tensor<1x2x3x3xf32>; using the inferred type`,
			out:      "tensor<1x2x3x3xf32>"},
		{name: "ReduceSum rank", opset: 13,
			nodes:  []*onnxpb.NodeProto{named(node("ReduceSum", []string{"x", "axes"}, []string{"y"}), "sum")},
			inputs: []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)}, inits: []*onnxpb.TensorProto{int64s("axes", []int64{1}, 1)},
			declared: vi("y", dtFloat, 2),
			warning:  `node "sum" (ReduceSum): output "y" declared tensor<2xf32>, inferred tensor<2x1xf32>; using the inferred type`,
			out:      "tensor<2x1xf32>"},
		{name: "Cast extent", opset: 13,
			nodes:    []*onnxpb.NodeProto{named(node("Cast", []string{"x"}, []string{"y"}, attrInt("to", int64(dtInt64))), "cast")},
			inputs:   []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)},
			declared: vi("y", dtInt64, 3, 3), elem: dtInt64,
			warning: `node "cast" (Cast): output "y" declared tensor<3x3xi64>, inferred tensor<2x3xi64>; using the inferred type`,
			out:     "tensor<2x3xi64>"},
		{name: "ConstantOfShape rank", opset: 13,
			nodes:    []*onnxpb.NodeProto{named(node("ConstantOfShape", []string{"shape"}, []string{"y"}), "cos")},
			inits:    []*onnxpb.TensorProto{int64s("shape", []int64{2}, 2, 3)},
			declared: vi("y", dtFloat, 2, 3, 1),
			warning:  `node "cos" (ConstantOfShape): output "y" declared tensor<2x3x1xf32>, inferred tensor<2x3xf32>; using the inferred type`,
			out:      "tensor<2x3xf32>"},
		{name: "Transpose extents", opset: 13,
			nodes:    []*onnxpb.NodeProto{named(node("Transpose", []string{"x"}, []string{"y"}, attrInts("perm", 2, 0, 1)), "tr")},
			inputs:   []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4)},
			declared: vi("y", dtFloat, 2, 3, 4),
			warning:  `node "tr" (Transpose): output "y" declared tensor<2x3x4xf32>, inferred tensor<4x2x3xf32>; using the inferred type`,
			out:      "tensor<4x2x3xf32>"},
		{name: "Scan output extent", opset: 11,
			nodes: []*onnxpb.NodeProto{named(node("Scan", []string{"s0", "xs"}, []string{"sf", "y"}, attrGraph("body", scanBody),
				attrInt("num_scan_inputs", 1)), "scan")},
			inputs:   []*onnxpb.ValueInfoProto{vi("s0", dtFloat, 2), vi("xs", dtFloat, 3, 2)},
			declared: vi("y", dtFloat, 5, 2),
			warning:  `node "scan" (Scan): output "y" declared tensor<5x2xf32>, inferred tensor<3x2xf32>; using the inferred type`,
			out:      "tensor<3x2xf32>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			elem := tc.elem
			if elem == 0 {
				elem = dtFloat
			}
			g := graph("g", tc.nodes, tc.inputs, []*onnxpb.ValueInfoProto{viUnranked("y", elem)}, tc.inits...)
			g.ValueInfo = []*onnxpb.ValueInfoProto{tc.declared}
			_, warns, outs := importHints(t, model(tc.opset, g), Options{})
			if want := []string{tc.warning}; !slices.Equal(warns, want) {
				t.Errorf("warnings\n%q\nwant\n%q", warns, want)
			}
			if outs[len(outs)-1] != tc.out {
				t.Errorf("output type %s, want %s", outs[len(outs)-1], tc.out)
			}
		})
	}
}

// TestHintGraphOutput declares graph outputs wrongly: the value keeps its
// inferred type; a declaration that agrees refines a dynamic extent.
func TestHintGraphOutput(t *testing.T) {
	// The declaration of the exported model: [1,802816,1,802816] for a
	// value of [1,802816]. The node producing the output reports it once.
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{named(node("Add", []string{"x", "x"}, []string{"z"}), "add0")},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 802816)},
		[]*onnxpb.ValueInfoProto{vi("z", dtFloat, 1, 802816, 1, 802816)}))
	_, warns, outs := importHints(t, m, Options{})
	want := []string{`node "add0" (Add): output "z" declared tensor<1x802816x1x802816xf32>, inferred tensor<1x802816xf32>; using the inferred type`}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings\n%q\nwant\n%q", warns, want)
	}
	if outs[0] != "tensor<1x802816xf32>" {
		t.Errorf("output type %s, want tensor<1x802816xf32>", outs[0])
	}

	// A graph output that is a graph input is reported as the output.
	m = model(13, graph("g", nil, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)}))
	m.Graph.Output[0] = vi("x", dtFloat, 3)
	_, warns, outs = importHints(t, m, Options{})
	want = []string{`graph output "x" declared tensor<3xf32>, inferred tensor<2x3xf32>; using the inferred type`}
	if !slices.Equal(warns, want) || outs[0] != "tensor<2x3xf32>" {
		t.Errorf("warnings %q, output %s; want %q, tensor<2x3xf32>", warns, outs[0], want)
	}

	// Declared with the inferred rank: it fixes the dynamic extent.
	relu := func(out *onnxpb.ValueInfoProto) *onnxpb.ModelProto {
		return model(13, graph("g",
			[]*onnxpb.NodeProto{named(node("Relu", []string{"x"}, []string{"r"}), "relu")},
			[]*onnxpb.ValueInfoProto{viParam("x", dtFloat, "N", "")}, []*onnxpb.ValueInfoProto{out}))
	}
	_, warns, outs = importHints(t, relu(vi("r", dtFloat, 3, 4)), Options{})
	if len(warns) != 0 || outs[0] != "tensor<3x4xf32>" {
		t.Errorf("refined: warnings %q, output %s; want none, tensor<3x4xf32>", warns, outs[0])
	}
	// Contradicting it in one extent: the inferred type is kept whole,
	// the other (consistent) extent included.
	m = relu(vi("r", dtFloat, 3, 4))
	m.Graph.Input[0] = viParam("x", dtFloat, "N", "5")
	m.Graph.Input[0].Type.GetTensorType().Shape.Dim[1].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 5}
	_, warns, outs = importHints(t, m, Options{})
	want = []string{`node "relu" (Relu): output "r" declared tensor<3x4xf32>, inferred tensor<?x5xf32>; using the inferred type`}
	if !slices.Equal(warns, want) || outs[0] != "tensor<?x5xf32>" {
		t.Errorf("conflict: warnings %q, output %s; want %q, tensor<?x5xf32>", warns, outs[0], want)
	}
}

// TestHintNegativeDims reads a dim_value of -1 as a dynamic dimension,
// which --shape and --dim bind as they bind any other.
func TestHintNegativeDims(t *testing.T) {
	in := declaredDims("x", dtFloat, -1, 4)
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{named(node("Relu", []string{"x"}, []string{"r"}), "relu")},
		[]*onnxpb.ValueInfoProto{in}, []*onnxpb.ValueInfoProto{declaredDims("r", dtFloat, -1, -1)}))
	mod, warns, outs := importHints(t, m, Options{})
	if got := mod.Entry().Type.Inputs[0].String(); got != "tensor<?x4xf32>" || outs[0] != "tensor<?x4xf32>" || len(warns) != 0 {
		t.Errorf("input %s, output %s, warnings %q; want tensor<?x4xf32> twice, none", got, outs[0], warns)
	}
	mod, _, outs = importHints(t, m, Options{Shapes: map[string][]int64{"x": {2, 4}}})
	if got := mod.Entry().Type.Inputs[0].String(); got != "tensor<2x4xf32>" || outs[0] != "tensor<2x4xf32>" {
		t.Errorf("--shape x=2x4: input %s, output %s", got, outs[0])
	}
	// A -1 beside a dim_param: --dim binds the parameter, the -1 stays
	// dynamic.
	m.Graph.Input[0].Type.GetTensorType().Shape.Dim[1].Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "C"}
	mod, _, _ = importHints(t, m, Options{Dims: map[string]int64{"C": 7}})
	if got := mod.Entry().Type.Inputs[0].String(); got != "tensor<?x7xf32>" {
		t.Errorf("--dim C=7: input %s, want tensor<?x7xf32>", got)
	}
	// --shape still checks the static extents.
	m.Graph.Input[0] = declaredDims("x", dtFloat, -1, 4)
	if _, err := importModel(t, m, Options{Shapes: map[string][]int64{"x": {2, 5}}}); err == nil || !strings.Contains(err.Error(), "dimension 1 of the input is 4") {
		t.Errorf("--shape x=2x5: got %v, want an error on dimension 1", err)
	}
}

// TestHintOpsets reads an opset_import listing ai.onnx twice at its
// highest version, and version 0 as the default, each with a warning.
func TestHintOpsets(t *testing.T) {
	m := addModel()
	m.OpsetImport = []*onnxpb.OperatorSetIdProto{
		{Domain: proto.String("ai.onnx"), Version: proto.Int64(21)},
		{Domain: proto.String(""), Version: proto.Int64(1)},
	}
	mod, sum, err := ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"opset_import lists ai.onnx twice (versions 21 and 1); using 21"}; !slices.Equal(sum.Warnings, want) {
		t.Errorf("warnings %q, want %q", sum.Warnings, want)
	}
	if sum.Opsets != "ai.onnx=21" || len(opsOf[*niro.Binary](mod)) != 1 {
		t.Errorf("opsets %s, want ai.onnx=21 and one add:\n%s", sum.Opsets, mod)
	}

	m.OpsetImport = []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(0)}}
	_, sum, err = ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"opset_import of ai.onnx has version 0; using the default, 28"}; !slices.Equal(sum.Warnings, want) || sum.Opsets != "ai.onnx=28" {
		t.Errorf("warnings %q, opsets %s; want %q, ai.onnx=28", sum.Warnings, sum.Opsets, want)
	}

	// A function's opset_import is read the same way.
	fn := &onnxpb.FunctionProto{Name: proto.String("Twice"), Domain: proto.String("local"),
		Input: []string{"a"}, Output: []string{"b"},
		Node: []*onnxpb.NodeProto{node("Add", []string{"a", "a"}, []string{"b"})},
		OpsetImport: []*onnxpb.OperatorSetIdProto{
			{Domain: proto.String(""), Version: proto.Int64(13)}, {Domain: proto.String(""), Version: proto.Int64(14)}}}
	m = addModel()
	m.Graph.Node[0] = domainNode("local", "Twice", []string{"x"}, []string{"z"})
	m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("local"), Version: proto.Int64(1)})
	m.Functions = []*onnxpb.FunctionProto{fn}
	_, sum, err = ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"function Twice: opset_import lists ai.onnx twice (versions 13 and 14); using 14"}; !slices.Equal(sum.Warnings, want) {
		t.Errorf("function: warnings %q, want %q", sum.Warnings, want)
	}
}

// ifNode is an If on cond with the given branches, one output y.
func ifNode(name, cond string, then, els *onnxpb.GraphProto) *onnxpb.NodeProto {
	return named(node("If", []string{cond}, []string{name + "_y"},
		attrGraph("then_branch", then), attrGraph("else_branch", els)), name)
}

// TestHintIfConstantCondition nests Ifs three deep, as the exported
// voice-activity models do, each condition known at compile time (a
// Constant, an initializer, one that folds). Only the taken branches are
// converted: the untaken ones, whose declarations would be errors (an
// element type that differs) are dropped unchecked, and the taken ones'
// ill-declared Unsqueeze (rank 3 declared, rank 4 produced) is a warning.
func TestHintIfConstantCondition(t *testing.T) {
	// bad is an untaken branch: it declares its Neg's float output int64.
	bad := func(name string) *onnxpb.GraphProto {
		return graph(name, []*onnxpb.NodeProto{named(node("Neg", []string{"x"}, []string{name + "_o"}), name+"_neg")},
			nil, []*onnxpb.ValueInfoProto{vi(name+"_o", dtInt64, 1, 2, 3)})
	}
	innermost := graph("then3", []*onnxpb.NodeProto{
		node("Unsqueeze", []string{"x", "axes"}, []string{"u"}),
	}, nil, []*onnxpb.ValueInfoProto{vi("u", dtFloat, 1, 2, 3)})
	level2 := graph("else2", []*onnxpb.NodeProto{
		node("Greater", []string{"two", "one"}, []string{"c3"}), // folds to true
		ifNode("if3", "c3", innermost, bad("else3")),
		node("Identity", []string{"if3_y"}, []string{"o2"}),
	}, nil, []*onnxpb.ValueInfoProto{vi("o2", dtFloat, 1, 2, 3)})
	level1 := graph("then1", []*onnxpb.NodeProto{
		ifNode("if2", "no", bad("then2"), level2), // an initializer, false
		node("Identity", []string{"if2_y"}, []string{"o1"}),
	}, nil, []*onnxpb.ValueInfoProto{vi("o1", dtFloat, 1, 2, 3)})
	yes := &onnxpb.TensorProto{Name: proto.String("v"), DataType: proto.Int32(int32(dtBool)), RawData: []byte{1}}
	no := &onnxpb.TensorProto{Name: proto.String("no"), DataType: proto.Int32(int32(dtBool)), RawData: []byte{0}}
	m := model(13, graph("g", []*onnxpb.NodeProto{
		named(node("Constant", nil, []string{"c1"}, attrTensor("value", yes)), "c1"),
		ifNode("if1", "c1", level1, bad("else1")),
	}, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("if1_y", dtFloat, 1, 2, 3)},
		int64s("axes", []int64{2}, 0, 1), int64s("one", nil, 1), int64s("two", nil, 2), no))
	mod, warns, outs := importHints(t, m, Options{})
	// The unnamed nodes are named by the branch they are in.
	want := []string{
		`node #0 of if3/then_branch (Unsqueeze): output "u" declared tensor<1x2x3xf32>, inferred tensor<1x1x2x3xf32>; using the inferred type`,
		`node #2 of if2/else_branch (Identity): output "o2" declared tensor<1x2x3xf32>, inferred tensor<1x1x2x3xf32>; using the inferred type`,
		`node #1 of if1/then_branch (Identity): output "o1" declared tensor<1x2x3xf32>, inferred tensor<1x1x2x3xf32>; using the inferred type`,
		`node "if1" (If): output "if1_y" declared tensor<1x2x3xf32>, inferred tensor<1x1x2x3xf32>; using the inferred type`,
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	if outs[0] != "tensor<1x1x2x3xf32>" {
		t.Errorf("output %s, want tensor<1x1x2x3xf32>", outs[0])
	}
	if text := mod.String(); len(opsOf[*niro.If](mod)) != 0 || strings.Contains(text, "neg") {
		t.Errorf("the untaken branches are in the module:\n%s", text)
	}

	// With the outer condition a graph input, both of its branches are
	// converted, and the untaken one's element type is an error naming
	// the node.
	m.Graph.Node[0] = named(node("Identity", []string{"flag"}, []string{"c1"}), "c1")
	m.Graph.Input = append(m.Graph.Input, vi("flag", dtBool))
	_, err := importModel(t, m, Options{})
	if err == nil || !strings.Contains(err.Error(), `node "else1_neg" (Neg, opset 13): output "else1_o" is declared with element type i64, but the op produces f32`) {
		t.Errorf("condition at run time: got %v, want the element type error of else1_neg", err)
	}
}

// TestHintRealErrors checks that what no hint explains stays an error
// naming the node or the value: element counts that differ, element
// types that differ, a tensor declared as a sequence.
func TestHintRealErrors(t *testing.T) {
	tests := []struct {
		name string
		m    *onnxpb.ModelProto
		want string
	}{
		{"reshape element count", model(13, graph("g",
			[]*onnxpb.NodeProto{named(node("Reshape", []string{"x", "shape"}, []string{"y"}), "r")},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)},
			int64s("shape", []int64{2}, 4, 2))),
			`node "r" (Reshape, opset 13)`},
		{"declared float, really int64", model(13, graph("g",
			[]*onnxpb.NodeProto{named(node("Cast", []string{"x"}, []string{"y"}, attrInt("to", int64(dtInt64))), "cast")},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 3)})),
			`node "cast" (Cast, opset 13): output "y" is declared with element type f32, but the op produces i64`},
		{"graph output element type", model(13, graph("g", nil,
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2)}, []*onnxpb.ValueInfoProto{vi("x", dtInt64, 3)})),
			`graph output "x" is declared with element type int64, but its value has float`},
		{"tensor declared a sequence", model(13, graph("g",
			[]*onnxpb.NodeProto{named(node("Relu", []string{"x"}, []string{"y"}), "relu")},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 2)})),
			`node "relu" (Relu, opset 13): value "y" has type seq<float[2]>; niro supports tensors only`},
	}
	tests[1].m.Graph.ValueInfo = []*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 3)}
	tests[3].m.Graph.Output[0] = viSeq("y", dtFloat, 2)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importModel(t, tc.m, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestHintSummary checks that the summary counts and lists the warnings,
// as text and as JSON.
func TestHintSummary(t *testing.T) {
	m := addModel()
	m.Graph.Output[0] = vi("z", dtFloat, 2, 4)
	m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("ai.onnx"), Version: proto.Int64(12)})
	_, sum, err := ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "warnings:     2\n" +
		"  opset_import lists ai.onnx twice (versions 13 and 12); using 13\n" +
		`  node "add0" (Add): output "z" declared tensor<2x4xf32>, inferred tensor<2x3xf32>; using the inferred type` + "\n"
	if text := sum.String(); !strings.HasSuffix(text, want) {
		t.Errorf("summary\n%s\ndoes not end in\n%s", text, want)
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ Warnings []string }
	if err := json.Unmarshal(js, &back); err != nil || !slices.Equal(back.Warnings, sum.Warnings) {
		t.Errorf("JSON warnings %q (%v), want %q", back.Warnings, err, sum.Warnings)
	}
}
