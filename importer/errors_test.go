package importer

import (
	"errors"
	"strings"
	"testing"

	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// addModel is a valid one-node model used as a base for the error cases.
func addModel() *onnxpb.ModelProto {
	return model(13, graph("g",
		[]*onnxpb.NodeProto{named(node("Add", []string{"x", "y"}, []string{"z"}), "add0")},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3), vi("y", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("z", dtFloat, 2, 3)}))
}

func TestImportErrors(t *testing.T) {
	valid := marshal(t, addModel())
	flipped := append([]byte(nil), valid...)
	flipped[len(flipped)/2] ^= 0xff

	tests := []struct {
		name string
		data []byte
		mod  func(m *onnxpb.ModelProto)
		want []string // substrings of the error
	}{
		{name: "empty", data: []byte{}, want: []string{"empty input"}},
		{name: "random", data: []byte("this is not an ONNX model at all"), want: []string{"decoding ONNX protobuf"}},
		{name: "truncated", data: valid[:len(valid)-7], want: []string{"decoding ONNX protobuf"}},
		{name: "no graph", mod: func(m *onnxpb.ModelProto) { m.Graph = nil }, want: []string{"model has no graph"}},
		{name: "undefined value", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Input[1] = "nope"
		}, want: []string{`node "add0" (Add, opset 13): input 1 "nope" is not defined`}},
		{name: "duplicate output", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = append(m.Graph.Node, named(node("Mul", []string{"x", "y"}, []string{"z"}), "mul0"))
		}, want: []string{`value "z" is defined twice`, `node "add0" (Add, opset 13)`, `node "mul0" (Mul, opset 13)`}},
		{name: "duplicate input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input = append(m.Graph.Input, vi("x", dtFloat, 2))
		}, want: []string{`value "x" is defined twice: as a graph input and as a graph input`}},
		{name: "output shadows input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Output[0] = "x"
		}, want: []string{`value "x" is defined twice: as a graph input`}},
		{name: "cycle", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = []*onnxpb.NodeProto{
				named(node("Add", []string{"x", "b"}, []string{"a"}), "first"),
				named(node("Mul", []string{"a", "y"}, []string{"b"}), "second"),
				named(node("Add", []string{"a", "b"}, []string{"z"}), "third"),
			}
		}, want: []string{`cycle: node "first" (Add, opset 13) uses an output of node "second" (Mul, opset 13), which uses an output of node "first" (Add, opset 13)`}},
		{name: "undefined graph output", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Output[0].Name = proto.String("w")
		}, want: []string{`graph output "w" is not defined`}},
		{name: "missing initializer data", mod: func(m *onnxpb.ModelProto) {
			w := floats("w", []int64{2, 3}, 1, 2, 3, 4, 5, 6)
			w.RawData = nil
			m.Graph.Initializer = append(m.Graph.Initializer, w)
		}, want: []string{`initializer: tensor "w": tensor has 6 elements but no data`}},
		{name: "raw data size mismatch", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, floats("w", []int64{2, 3}, 1, 2, 3))
		}, want: []string{`tensor "w": raw_data has 12 bytes, 6 elements of type float need 24`}},
		{name: "huge dims", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, floats("w", []int64{1e9, 1e9, 1e9}, 1))
		}, want: []string{`tensor "w"`, "more than 2^58 elements"}},
		{name: "billion elements, little data", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, floats("w", []int64{1e9}, 1))
		}, want: []string{`tensor "w": raw_data has 4 bytes, 1000000000 elements of type float need 4000000000`}},
		{name: "negative tensor dim", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, floats("w", []int64{-2}, 1))
		}, want: []string{`tensor "w": dimension 0 is negative (-2)`}},
		{name: "typed field count", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, &onnxpb.TensorProto{
				Name: proto.String("w"), Dims: []int64{3}, DataType: proto.Int32(int32(dtInt8)), Int32Data: []int32{1, 2},
			})
		}, want: []string{`tensor "w": int32_data has 2 entries, 3 elements of type int8 need 3`}},
		{name: "typed field range", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, &onnxpb.TensorProto{
				Name: proto.String("w"), Dims: []int64{2}, DataType: proto.Int32(int32(dtInt8)), Int32Data: []int32{1, 300},
			})
		}, want: []string{`int32_data[1] = 300 is out of range for int8`}},
		{name: "wrong typed field", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Initializer = append(m.Graph.Initializer, &onnxpb.TensorProto{
				Name: proto.String("w"), Dims: []int64{1}, DataType: proto.Int32(int32(dtFloat)), Int64Data: []int64{1},
			})
		}, want: []string{`float tensor stores its elements in int64_data, want raw_data or float_data`}},
		{name: "two payloads", mod: func(m *onnxpb.ModelProto) {
			w := floats("w", []int64{1}, 1)
			w.FloatData = []float32{1}
			m.Graph.Initializer = append(m.Graph.Initializer, w)
		}, want: []string{"tensor has both raw_data and float_data"}},
		{name: "segment", mod: func(m *onnxpb.ModelProto) {
			w := floats("w", []int64{1}, 1)
			w.Segment = &onnxpb.TensorProto_Segment{Begin: proto.Int64(0), End: proto.Int64(1)}
			m.Graph.Initializer = append(m.Graph.Initializer, w)
		}, want: []string{"segmented tensors are not supported"}},
		{name: "invalid data type", mod: func(m *onnxpb.ModelProto) {
			w := floats("w", []int64{1}, 1)
			w.DataType = proto.Int32(99)
			m.Graph.Initializer = append(m.Graph.Initializer, w)
		}, want: []string{`tensor "w": invalid element type data type 99`}},
		{name: "external data from bytes", mod: func(m *onnxpb.ModelProto) {
			w := floats("w", []int64{1})
			w.RawData = nil
			w.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
			w.ExternalData = []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String("w.bin")}}
			m.Graph.Initializer = append(m.Graph.Initializer, w)
		}, want: []string{`external data "w.bin": the model was not loaded from a file`}},
		{name: "string input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[0] = vi("x", dtString, 2, 3)
		}, want: []string{`graph input "x" has element type string, which niro does not support`}},
		{name: "sequence input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[0] = &onnxpb.ValueInfoProto{Name: proto.String("x"), Type: &onnxpb.TypeProto{
				Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{ElemType: vi("", dtFloat, 2).Type}},
			}}
		}, want: []string{`graph input "x" has type seq<float[2]>: its element count must be known at compile time`}},
		{name: "map input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[0] = &onnxpb.ValueInfoProto{Name: proto.String("x"), Type: &onnxpb.TypeProto{
				Value: &onnxpb.TypeProto_MapType{MapType: &onnxpb.TypeProto_Map{KeyType: proto.Int32(7), ValueType: vi("", dtFloat, 2).Type}},
			}}
		}, want: []string{`graph input "x" has type map<int64,float[2]>; niro supports tensors only`}},
		{name: "untyped input", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[0].Type = nil
		}, want: []string{`graph input "x" has no type`}},
		{name: "domain not imported", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Domain = proto.String("com.example")
		}, want: []string{`node "add0" (com.example.Add, domain not imported)`, "domain com.example is not imported"}},
		{name: "opset too new", mod: func(m *onnxpb.ModelProto) {
			m.OpsetImport[0].Version = proto.Int64(99)
		}, want: []string{`node "add0" (Add, opset 99)`, "newer than the newest opset niro knows"}},
		{name: "element types differ", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[1] = vi("y", dtInt64, 2, 3)
		}, want: []string{`node "add0" (Add, opset 13)`, "different element types f32 and i64"}},
		{name: "shapes do not broadcast", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Input[1] = vi("y", dtFloat, 4)
		}, want: []string{`node "add0" (Add, opset 13)`, "not broadcast-compatible"}},
		{name: "declared output element type", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Output[0] = vi("z", dtInt64, 2, 3)
		}, want: []string{`node "add0" (Add, opset 13)`, `output "z" is declared with element type i64, but the op produces f32`}},
		{name: "legacy broadcast axis", mod: func(m *onnxpb.ModelProto) {
			m.OpsetImport[0].Version = proto.Int64(6)
			m.Graph.Input[1] = vi("y", dtFloat, 2)
			m.Graph.Node[0].Attribute = []*onnxpb.AttributeProto{attrInt("broadcast", 1), attrInt("axis", 0)}
		}, want: []string{`node "add0" (Add, opset 6)`, "legacy broadcasting of tensor<2xf32> into tensor<2x3xf32> along axis 0 is not supported"}},
		{name: "legacy no broadcast", mod: func(m *onnxpb.ModelProto) {
			m.OpsetImport[0].Version = proto.Int64(6)
			m.Graph.Input[1] = vi("y", dtFloat, 3)
		}, want: []string{`node "add0" (Add, opset 6)`, "differ and broadcast is 0"}},
		{name: "broadcast attribute at opset 7", mod: func(m *onnxpb.ModelProto) {
			m.OpsetImport[0].Version = proto.Int64(7)
			m.Graph.Node[0].Attribute = []*onnxpb.AttributeProto{attrInt("broadcast", 1)}
		}, want: []string{`node "add0" (Add, opset 7)`, `attribute "broadcast" is not defined for Add at opset 7`}},
		{name: "add arity", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Input = []string{"x"}
		}, want: []string{`node "add0" (Add, opset 13)`, "input 1 is required"}},
		{name: "transpose perm", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0] = named(node("Transpose", []string{"x"}, []string{"z"}, attrInts("perm", 0, 0)), "t")
		}, want: []string{`node "t" (Transpose, opset 13)`, "perm [0 0] is not a permutation of 0..1"}},
		{name: "transpose perm length", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0] = named(node("Transpose", []string{"x"}, []string{"z"}, attrInts("perm", 0)), "t")
		}, want: []string{`node "t" (Transpose, opset 13)`, "perm [0] has 1 entries for an input of rank 2"}},
		{name: "matmul contraction", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0] = named(node("MatMul", []string{"x", "y"}, []string{"z"}), "mm")
		}, want: []string{`node "mm" (MatMul, opset 13)`, "contracted extents differ"}},
		{name: "if condition type", mod: func(m *onnxpb.ModelProto) {
			branch := graph("b", nil, nil, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)})
			m.Graph.Node[0] = node("If", []string{"x"}, []string{"z"}, attrGraph("then_branch", branch), attrGraph("else_branch", branch))
		}, want: []string{`node #0 (If, opset 13)`, "condition has element type f32, want bool"}},
		{name: "string constant", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = append(m.Graph.Node, named(node("Constant", nil, []string{"s"}, attrString("value_string", "hi")), "c"))
		}, want: []string{`node "c" (Constant, opset 13)`, `output "s" is a string constant`}},
		{name: "constant attribute type", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = append(m.Graph.Node, named(node("Constant", nil, []string{"s"}, attrInt("value_floats", 1)), "c"))
		}, want: []string{`node "c" (Constant, opset 13)`, `attribute "value_floats" has type INT, want FLOATS`}},
		{name: "duplicate attribute", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Attribute = []*onnxpb.AttributeProto{attrInt("a", 1), attrInt("a", 2)}
		}, want: []string{`node "add0" (Add, opset 13)`, `attribute "a" is given twice`}},
		{name: "attribute reference outside function", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node[0].Attribute = []*onnxpb.AttributeProto{{Name: proto.String("a"), RefAttrName: proto.String("b")}}
		}, want: []string{`attribute "a": refers to attribute "b", which is allowed only in a function body`}},
		{name: "unknown op without type", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = append(m.Graph.Node, named(node("RandomThing", nil, []string{"r"}), "rnd"))
		}, want: []string{`node "rnd" (RandomThing, opset 13)`, `cannot tell the element type of output "r"`}},
		{name: "cast to string", mod: func(m *onnxpb.ModelProto) {
			m.Graph.Node = append(m.Graph.Node, named(node("Cast", []string{"x"}, []string{"s"}, attrInt("to", int64(dtString))), "cast"))
		}, want: []string{`node "cast" (Cast, opset 13)`, "attribute to = string names an element type niro does not support"}},
		{name: "negative opset", mod: func(m *onnxpb.ModelProto) {
			m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String("ai.onnx"), Version: proto.Int64(-1)})
		}, want: []string{"opset_import of ai.onnx has invalid version -1"}},
		{name: "sparse initializer", mod: func(m *onnxpb.ModelProto) {
			m.Graph.SparseInitializer = []*onnxpb.SparseTensorProto{{Values: floats("sp", []int64{1}, 1), Dims: []int64{4}}}
		}, want: []string{`sparse initializer "sp" is not supported`}},
		{name: "subgraph nesting", mod: func(m *onnxpb.ModelProto) {
			inner := graph("b", nil, nil, []*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)})
			for i := 0; i < 100; i++ {
				inner = graph("b", []*onnxpb.NodeProto{node("Foo", nil, []string{"o"}, attrGraph("g", inner))}, nil, []*onnxpb.ValueInfoProto{vi("o", dtFloat)})
			}
			m.Graph.Node = append(m.Graph.Node, node("Foo", nil, []string{"o"}, attrGraph("g", inner)))
		}, want: []string{"subgraphs nested more than 64 levels"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if tc.mod != nil {
				m := addModel()
				tc.mod(m)
				data = marshal(t, m)
			}
			_, _, err := ImportBytes(data, Options{})
			if err == nil {
				t.Fatalf("import succeeded, want an error containing %q", tc.want)
			}
			if errors.Is(err, errInvalidIR) {
				t.Fatalf("importer bug: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}
