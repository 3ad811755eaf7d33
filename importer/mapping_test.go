package importer

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// checkText compares the printed entry function with want, ignoring
// leading and trailing blank space.
func checkText(t *testing.T, mod *niro.Module, want string) {
	t.Helper()
	got := strings.TrimSpace(niro.FunctionString(mod.Entry()))
	if diff := cmp.Diff(strings.TrimSpace(want), got); diff != "" {
		t.Errorf("entry function differs (-want +got):\n%s", diff)
	}
}

func TestInitializersAndConstants(t *testing.T) {
	big := zeros("big", 4, 5) // 80 bytes: a global
	m := model(13, graph("net",
		[]*onnxpb.NodeProto{
			named(node("Constant", nil, []string{"c_small"}, attrTensor("value", floats("", []int64{2}, 1, 2))), "c1"),
			named(node("Constant", nil, []string{"c_big"}, attrTensor("value", big)), "c2"),
			named(node("Constant", nil, []string{"c_ints"}, attrInts("value_ints", 1, 2, 3)), "c3"),
			named(node("Add", []string{"w", "c_big"}, []string{"s"}), "add"),
			named(node("Mul", []string{"x", "c_small"}, []string{"p"}), "mul"),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 4, 2)},
		[]*onnxpb.ValueInfoProto{vi("s", dtFloat, 4, 5), vi("p", dtFloat, 4, 2), vi("c_ints", dtInt64, 3)},
		zeros("unused", 3), zeros("w", 4, 5)))
	mod := mustImport(t, m, Options{})
	checkText(t, mod, `
func @net(tensor<4x2xf32>) -> (tensor<4x5xf32>, tensor<4x2xf32>, tensor<3xi64>) inputs ["x"] outputs ["s", "p", "c_ints"] {
^bb0(%0: tensor<4x2xf32>):
  %1 = get_global @w : tensor<4x5xf32>
  %2 = const 0x0000803F00000040 : tensor<2xf32> loc("c1")
  %3 = get_global @c_big : tensor<4x5xf32> loc("c2")
  %4 = const 0x010000000000000002000000000000000300000000000000 : tensor<3xi64> loc("c3")
  %5 = add %1, %3 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32> loc("add")
  %6 = mul %0, %2 : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32> loc("mul")
  return %5, %6, %4 : tensor<4x5xf32>, tensor<4x2xf32>, tensor<3xi64>
}`)
	if len(mod.Globals) != 2 || mod.Globals[0].Name != "w" || mod.Globals[1].Name != "c_big" {
		t.Errorf("globals = %v, want @w and @c_big (the unused initializer is dropped)", mod.Globals)
	}
	if e, _ := mod.Attrs["entry"].(niro.StringAttr); e != "net" {
		t.Errorf("entry = %v, want net", mod.Attrs["entry"])
	}
}

func TestInputWithDefault(t *testing.T) {
	// IR version 3: the initializer of a graph input is its default value.
	m := model(6, graph("torch-jit-export",
		[]*onnxpb.NodeProto{node("Add", []string{"x", "b"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 3), vi("b", dtFloat, 3)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 3)},
		floats("b", []int64{3}, 1, 2, 3)))
	m.IrVersion = proto.Int64(3)
	mod, sum, err := ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := mod.Entry()
	if f.Name != "torch_jit_export" || len(f.Type.Inputs) != 2 {
		t.Fatalf("entry = @%s with %d inputs, want @torch_jit_export with 2", f.Name, len(f.Type.Inputs))
	}
	want := niro.ListAttr{niro.StringAttr(""), niro.StringAttr("b")}
	if diff := cmp.Diff(niro.Attribute(want), f.Attrs["input_defaults"]); diff != "" {
		t.Errorf("input_defaults (-want +got):\n%s", diff)
	}
	if g, _ := mod.Lookup("b"); g == nil || !bytes.Equal(g.Init.(niro.BytesLit), floats("", nil, 1, 2, 3).RawData) {
		t.Errorf("global @b = %v, want the initializer", g)
	}
	if !sum.Inputs[1].Default || sum.Params != 3 {
		t.Errorf("summary inputs %+v params %d, want b with a default and 3 parameters", sum.Inputs, sum.Params)
	}
}

func TestIdentityAndPassThrough(t *testing.T) {
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{
			node("Identity", []string{"x"}, []string{"a"}),
			node("Identity", []string{"a"}, []string{"b"}),
			node("Transpose", []string{"b"}, []string{"t"}),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4)},
		[]*onnxpb.ValueInfoProto{vi("b", dtFloat, 2, 3, 4), vi("x", dtFloat, 2, 3, 4), vi("t", dtFloat, 4, 3, 2)}))
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>) inputs ["x"] outputs ["b", "x", "t"] {
^bb0(%0: tensor<2x3x4xf32>):
  %1 = transpose %0 [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32> loc("node #2 (Transpose)")
  return %0, %0, %1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>
}`)
}

func TestShapeInference(t *testing.T) {
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{
			node("Add", []string{"x", "y"}, []string{"s"}),    // [N,1,3] + [4,1] -> [N,4,3]
			node("MatMul", []string{"a", "b"}, []string{"p"}), // rank 2
			node("MatMul", []string{"c", "b"}, []string{"q"}), // rank 3: batched
			node("Mul", []string{"u", "s"}, []string{"r"}),    // unranked operand
		},
		[]*onnxpb.ValueInfoProto{viParam("x", dtFloat, "N", "", "3"), vi("y", dtFloat, 4, 1), vi("a", dtFloat, 2, dyn), vi("b", dtFloat, 3, 5), vi("c", dtFloat, 7, 2, 3), viUnranked("u", dtFloat)},
		[]*onnxpb.ValueInfoProto{viUnranked("s", dtFloat), viUnranked("p", dtFloat), viUnranked("q", dtFloat), viUnranked("r", dtFloat)}))
	m.Graph.Input[0].Type.GetTensorType().Shape.Dim[2].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 3}
	mod := mustImport(t, m, Options{})
	checkText(t, mod, `
func @g(tensor<?x?x3xf32>, tensor<4x1xf32>, tensor<2x?xf32>, tensor<3x5xf32>, tensor<7x2x3xf32>, tensor<*xf32>) -> (tensor<?x4x3xf32>, tensor<2x5xf32>, tensor<7x2x5xf32>, tensor<*xf32>) inputs ["x", "y", "a", "b", "c", "u"] outputs ["s", "p", "q", "r"] {
^bb0(%0: tensor<?x?x3xf32>, %1: tensor<4x1xf32>, %2: tensor<2x?xf32>, %3: tensor<3x5xf32>, %4: tensor<7x2x3xf32>, %5: tensor<*xf32>):
  %6 = add %0, %1 : (tensor<?x?x3xf32>, tensor<4x1xf32>) -> tensor<?x4x3xf32> loc("node #0 (Add)")
  %7 = matmul %2, %3 : (tensor<2x?xf32>, tensor<3x5xf32>) -> tensor<2x5xf32> loc("node #1 (MatMul)")
  %8 = matmul %4, %3 : (tensor<7x2x3xf32>, tensor<3x5xf32>) -> tensor<7x2x5xf32> loc("node #2 (MatMul)")
  %9 = mul %5, %6 : (tensor<*xf32>, tensor<?x4x3xf32>) -> tensor<*xf32> loc("node #3 (Mul)")
  return %6, %7, %8, %9 : tensor<?x4x3xf32>, tensor<2x5xf32>, tensor<7x2x5xf32>, tensor<*xf32>
}`)

	// Options bind the symbolic dimension and fix the shape of an input.
	mod = mustImport(t, m, Options{Dims: map[string]int64{"N": 8}, Shapes: map[string][]int64{"a": {2, 3}}})
	f := mod.Entry()
	for i, want := range []string{"tensor<8x?x3xf32>", "tensor<4x1xf32>", "tensor<2x3xf32>"} {
		if got := f.Type.Inputs[i].String(); got != want {
			t.Errorf("input %d: %s, want %s", i, got, want)
		}
	}
	if got := f.Type.Outputs[0].String(); got != "tensor<8x4x3xf32>" {
		t.Errorf("output s: %s, want tensor<8x4x3xf32>", got)
	}

	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Dims: map[string]int64{"M": 1}}, `--dim M: the model has no dimension parameter named "M"`},
		{Options{Shapes: map[string][]int64{"z": {1}}}, `--shape z: the model has no graph input named "z"`},
		{Options{Shapes: map[string][]int64{"a": {2}}}, `--shape a=2: the input has rank 2`},
		{Options{Shapes: map[string][]int64{"a": {3, 3}}}, `--shape a=3x3: dimension 0 of the input is 2`},
	} {
		if _, err := importModel(t, m, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("options %+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestIf(t *testing.T) {
	branch := func(name string, out *onnxpb.ValueInfoProto, nodes ...*onnxpb.NodeProto) *onnxpb.GraphProto {
		return graph(name, nodes, nil, []*onnxpb.ValueInfoProto{out})
	}
	// A rank-1 condition; the then branch reads an outer value directly.
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{named(node("If", []string{"c"}, []string{"r"},
			attrGraph("then_branch", branch("t", vi("x", dtFloat, 2))),
			attrGraph("else_branch", branch("e", vi("m", dtFloat, 2), node("Mul", []string{"x", "x"}, []string{"m"})))), "if")},
		[]*onnxpb.ValueInfoProto{vi("c", dtBool, 1), vi("x", dtFloat, 2)},
		[]*onnxpb.ValueInfoProto{vi("r", dtFloat, 2)}))
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<1xi1>, tensor<2xf32>) -> (tensor<2xf32>) inputs ["c", "x"] outputs ["r"] {
^bb0(%0: tensor<1xi1>, %1: tensor<2xf32>):
  %2 = const 0 : i64 loc("if")
  %3 = tensor_extract %0[%2] : (tensor<1xi1>, i64) -> i1 loc("if")
  %4 = if %3 : i1 -> (tensor<2xf32>) {
    yield %1 : tensor<2xf32> loc("if")
  } else {
    %5 = mul %1, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("if/else_branch/node #0 (Mul)")
    yield %5 : tensor<2xf32> loc("if")
  } loc("if")
  return %4 : tensor<2xf32>
}`)

	// Branches of different extents: the result's extent is dynamic, and
	// each arm's value is cast to it.
	m.Graph.Input = append(m.Graph.Input, vi("y", dtFloat, 3))
	m.Graph.Node[0].Attribute[0].G.Output[0] = vi("y", dtFloat, 3)
	m.Graph.Output[0] = viParam("r", dtFloat, "")
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<1xi1>, tensor<2xf32>, tensor<3xf32>) -> (tensor<?xf32>) inputs ["c", "x", "y"] outputs ["r"] {
^bb0(%0: tensor<1xi1>, %1: tensor<2xf32>, %2: tensor<3xf32>):
  %3 = const 0 : i64 loc("if")
  %4 = tensor_extract %0[%3] : (tensor<1xi1>, i64) -> i1 loc("if")
  %5 = if %4 : i1 -> (tensor<?xf32>) {
    %7 = reshape %2 : (tensor<3xf32>) -> tensor<?xf32> loc("if")
    yield %7 : tensor<?xf32> loc("if")
  } else {
    %6 = mul %1, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("if/else_branch/node #0 (Mul)")
    %8 = reshape %6 : (tensor<2xf32>) -> tensor<?xf32> loc("if")
    yield %8 : tensor<?xf32> loc("if")
  } loc("if")
  return %5 : tensor<?xf32>
}`)

	// A condition known at import (here a bound input) converts its arm in
	// place, even when the arms' shapes differ.
	mod := mustImport(t, m, Options{Values: map[string][]byte{"c": {0}}})
	if len(opsOf[*niro.If](mod)) != 0 || len(opsOf[*niro.UnknownOp](mod)) != 0 || len(opsOf[*niro.Binary](mod)) != 1 {
		t.Errorf("known condition: want the else arm's mul alone:\n%s", mod)
	}
}

func TestUnknownOpAttributes(t *testing.T) {
	body := graph("body",
		[]*onnxpb.NodeProto{node("Add", []string{"i", "k"}, []string{"o"})},
		[]*onnxpb.ValueInfoProto{vi("i", dtFloat, 2)},
		[]*onnxpb.ValueInfoProto{vi("o", dtFloat, 2)})
	strs := &onnxpb.AttributeProto{Name: proto.String("modes"), Type: onnxpb.AttributeProto_STRINGS.Enum(), Strings: [][]byte{[]byte("a"), {0xff}}}
	fl := &onnxpb.AttributeProto{Name: proto.String("scales"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: []float32{0.5, 2}}
	tp := &onnxpb.AttributeProto{Name: proto.String("dtype_like"), Type: onnxpb.AttributeProto_TYPE_PROTO.Enum(), Tp: vi("", dtInt64, 3).Type}
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{named(node("Custom", []string{"x", "", "k"}, []string{"y", "", "z"},
			attrFloat("alpha", 0.25), attrInt("n", 3), attrString("mode", "fast"), strs, fl, tp,
			attrTensor("table", floats("", []int64{2}, 1, 2)), attrGraph("body", body)), "custom")},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2), vi("k", dtFloat, 2)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2), vi("z", dtInt64, dyn)}))
	m.Graph.Node[0].Domain = proto.String("com.example")
	m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("com.example"), Version: proto.Int64(1)})
	checkText(t, mustImport(t, m, Options{}), `
func @g(tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?xi64>) inputs ["x", "k"] outputs ["y", "z"] {
^bb0(%0: tensor<2xf32>, %1: tensor<2xf32>):
  %2, %4 = "com.example.Custom"(%0, %1) ({
  ^bb1(%5: tensor<2xf32>):
    %6 = add %5, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("custom/body/node #0 (Add)")
    yield %6 : tensor<2xf32> loc("custom")
  }) {alpha = 0.25, dtype_like = "int64[3]", mode = "fast", modes = ["a", 0xFF], n = 3, onnx.absent_inputs = [1], onnx.absent_outputs = [1], onnx.regions = ["body"], scales = [0.5, 2.0], table = ["tensor<2xf32>", 0x0000803F00000040]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?xi64>) loc("custom")
  return %2, %4 : tensor<2xf32>, tensor<?xi64>
}`)
}

// function returns a model-local function in domain "local".
func function(name string, inputs, outputs, attrs []string, nodes ...*onnxpb.NodeProto) *onnxpb.FunctionProto {
	return &onnxpb.FunctionProto{
		Name: proto.String(name), Domain: proto.String("local"), Input: inputs, Output: outputs, Attribute: attrs, Node: nodes,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}, {Domain: proto.String("local"), Version: proto.Int64(1)}},
	}
}

func TestFunctionsInline(t *testing.T) {
	// scaled(x, s) = Transpose(x * s, perm = @perm); twice(x) = x + x.
	transposeRef := &onnxpb.AttributeProto{Name: proto.String("perm"), RefAttrName: proto.String("perm"), Type: onnxpb.AttributeProto_INTS.Enum()}
	scaled := function("Scaled", []string{"x", "s"}, []string{"y"}, []string{"perm"},
		node("Mul", []string{"x", "s"}, []string{"p"}),
		node("Transpose", []string{"p"}, []string{"y"}, transposeRef))
	twice := function("Twice", []string{"x"}, []string{"y"}, nil,
		node("Add", []string{"x", "x"}, []string{"t"}),
		&onnxpb.NodeProto{OpType: proto.String("Scaled"), Domain: proto.String("local"), Input: []string{"t", "t"}, Output: []string{"y"}})
	call := func(op, name string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		n := named(node(op, ins, outs, attrs...), name)
		n.Domain = proto.String("local")
		return n
	}
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{
			call("Scaled", "call1", []string{"a", "b"}, []string{"c"}, attrInts("perm", 1, 0)),
			call("Twice", "call2", []string{"c"}, []string{"d"}),
		},
		[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2, 3), vi("b", dtFloat, 3)},
		[]*onnxpb.ValueInfoProto{vi("d", dtFloat, 2, 3)}))
	m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("local"), Version: proto.Int64(1)})
	m.Functions = []*onnxpb.FunctionProto{scaled, twice}
	mod, sum, err := ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Inside Twice, Scaled is called without perm: Transpose reverses.
	checkText(t, mod, `
func @g(tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>) inputs ["a", "b"] outputs ["d"] {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3xf32>):
  %2 = mul %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("call1/node #0 (Mul)")
  %3 = transpose %2 [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32> loc("call1/node #1 (Transpose)")
  %4 = add %3, %3 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32> loc("call2/node #0 (Add)")
  %5 = mul %4, %4 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32> loc("call2/node #1 (Scaled)/node #0 (Mul)")
  %6 = transpose %5 [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32> loc("call2/node #1 (Scaled)/node #1 (Transpose)")
  return %6 : tensor<2x3xf32>
}`)
	_ = sum
}

func TestFunctionRecursion(t *testing.T) {
	loop := function("Loop", []string{"x"}, []string{"y"}, nil,
		&onnxpb.NodeProto{OpType: proto.String("Loop"), Domain: proto.String("local"), Input: []string{"x"}, Output: []string{"y"}})
	n := named(node("Loop", []string{"a"}, []string{"b"}), "call")
	n.Domain = proto.String("local")
	m := model(13, graph("g", []*onnxpb.NodeProto{n},
		[]*onnxpb.ValueInfoProto{vi("a", dtFloat, 2)}, []*onnxpb.ValueInfoProto{vi("b", dtFloat, 2)}))
	m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("local"), Version: proto.Int64(1)})
	m.Functions = []*onnxpb.FunctionProto{loop}
	_, err := importModel(t, m, Options{})
	if err == nil || !strings.Contains(err.Error(), "function local.Loop calls itself") {
		t.Errorf("error %v, want a recursion error", err)
	}
}

func TestTypedTensorFields(t *testing.T) {
	le32 := func(vs ...uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	tests := []struct {
		name string
		tp   *onnxpb.TensorProto
		want []byte
	}{
		{"float_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtFloat)), Dims: []int64{2}, FloatData: []float32{1, -2}},
			le32(math.Float32bits(1), math.Float32bits(-2))},
		{"double_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtDouble)), Dims: []int64{1}, DoubleData: []float64{0.5}},
			binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.5))},
		{"int64_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtInt64)), Dims: []int64{1}, Int64Data: []int64{-1}},
			[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"uint32 in uint64_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtUint32)), Dims: []int64{1}, Uint64Data: []uint64{7}},
			le32(7)},
		{"int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtInt32)), Dims: []int64{2}, Int32Data: []int32{-1, 2}},
			le32(0xffffffff, 2)},
		{"float16 in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtFloat16)), Dims: []int64{1}, Int32Data: []int32{0x3c00}},
			[]byte{0x00, 0x3c}},
		{"bool in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtBool)), Dims: []int64{3}, Int32Data: []int32{1, 0, 1}},
			[]byte{1, 0, 1}},
		{"int8 in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtInt8)), Dims: []int64{2}, Int32Data: []int32{-128, 127}},
			[]byte{0x80, 0x7f}},
		{"int4 packed in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtInt4)), Dims: []int64{3}, Int32Data: []int32{0x21, 0x03}},
			[]byte{0x21, 0x03}},
		{"uint2 packed in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtUint2)), Dims: []int64{4}, Int32Data: []int32{0xe4}},
			[]byte{0xe4}},
		{"complex64 in float_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtComplex64)), Dims: []int64{1}, FloatData: []float32{1, 2}},
			le32(math.Float32bits(1), math.Float32bits(2))},
		{"int4 raw_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtInt4)), Dims: []int64{3}, RawData: []byte{0x21, 0x03}},
			[]byte{0x21, 0x03}},
		{"empty", &onnxpb.TensorProto{DataType: proto.Int32(int32(dtFloat)), Dims: []int64{0, 3}},
			[]byte{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.tp.Name = proto.String("w")
			ld := &loader{}
			got, err := ld.decodeTensor(tc.tp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), tc.want) {
				t.Errorf("bytes %x, want %x", got.Bytes(), tc.want)
			}
		})
	}
}

func TestFunctionName(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "model",
		"test_add":         "test_add",
		"torch-jit-export": "torch_jit_export",
		"3d conv":          "_3d_conv",
		"int":              "int_",
		"main":             "main_",
		"résumé":           "r_sum_",
	} {
		if got := FunctionName(in); got != want {
			t.Errorf("FunctionName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSummary(t *testing.T) {
	m := model(13, graph("net",
		[]*onnxpb.NodeProto{node("Add", []string{"x", "w"}, []string{"s"}), node("Relu", []string{"s"}, []string{"r"})},
		[]*onnxpb.ValueInfoProto{viParam("x", dtFloat, "N", "4")},
		[]*onnxpb.ValueInfoProto{viParam("r", dtFloat, "N", "4")},
		zeros("w", 4)))
	m.Graph.Input[0].Type.GetTensorType().Shape.Dim[1].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 4}
	m.Graph.Output[0].Type.GetTensorType().Shape.Dim[1].Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 4}
	m.ProducerName = proto.String("test")
	_, sum, err := ImportBytes(marshal(t, m), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `ir_version:   8
producer:     test
opsets:       ai.onnx=13
graph:        "net" -> function @net
input:        x: tensor<?x4xf32>
output:       r: tensor<?x4xf32>
parameters:   4 elements in 1 initializers, 16 B
nodes:        2
  onnx.Add                 1
  onnx.Relu                1
not compilable yet: none
warnings:     none
`
	if diff := cmp.Diff(want, sum.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}
