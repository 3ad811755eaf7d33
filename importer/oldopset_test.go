package importer

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/tensorio"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// p2oReshape is the shape arithmetic of a paddle2onnx export at opset 9:
// Shape → Cast(float) → Slice (attribute form) → Cast(int64) → Concat
// with constants → Reshape. x has the given dims (dyn for unknown).
func p2oReshape(xdims ...int64) *onnxpb.ModelProto {
	return model(9, graph("p2o",
		[]*onnxpb.NodeProto{
			named(node("Shape", []string{"x"}, []string{"s"}), "p2o.Shape.0"),
			named(node("Cast", []string{"s"}, []string{"sf"}, attrInt("to", int64(dtFloat))), "p2o.Cast.0"),
			named(node("Slice", []string{"sf"}, []string{"s0"}, attrInts("starts", 0), attrInts("ends", 1), attrInts("axes", 0)), "p2o.Slice.0"),
			named(node("Cast", []string{"s0"}, []string{"s0i"}, attrInt("to", int64(dtInt64))), "p2o.Cast.1"),
			named(node("Slice", []string{"s"}, []string{"s23"}, attrInts("starts", 2), attrInts("ends", 4)), "p2o.Slice.1"),
			named(node("Mul", []string{"s23", "two"}, []string{"s23x2"}), "p2o.Mul.0"),
			named(node("Concat", []string{"s0i", "m1", "s23x2"}, []string{"shape"}, attrInt("axis", 0)), "p2o.Concat.2"),
			named(node("Reshape", []string{"x", "shape"}, []string{"y"}), "p2o.Reshape.0"),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, xdims...)},
		[]*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)},
		int64s("m1", []int64{1}, -1), int64s("two", []int64{1}, 1)))
}

// TestP2OShapeChainOpset9 imports the opset-9 shape chain: with a static
// input it folds to one static reshape; with a dynamic batch every value
// is still ranked (the shape's values are known only at run time, so the
// reshape's extents are dynamic).
func TestP2OShapeChainOpset9(t *testing.T) {
	mod := mustImport(t, p2oReshape(2, 3, 4, 5), Options{})
	if got := mod.Entry().Type.Outputs[0].String(); got != "tensor<2x3x4x5xf32>" {
		t.Errorf("static: result %s, want tensor<2x3x4x5xf32>\n%s", got, mod)
	}
	for _, op := range entryOps(mod) {
		switch op.(type) {
		case *niro.Reshape:
		case *niro.GetGlobal, *niro.Return:
		default:
			t.Errorf("static: op %s left after folding\n%s", op.Name(), mod)
		}
	}
	mod = mustImport(t, p2oReshape(dyn, 3, 4, 5), Options{})
	if vs := unrankedValues(mod); len(vs) > 0 {
		t.Errorf("dynamic: unranked values: %v\n%s", vs, mod)
	}
	if got := mod.Entry().Type.Outputs[0].String(); got != "tensor<?x?x?x?xf32>" {
		t.Errorf("dynamic: result %s, want tensor<?x?x?x?xf32>\n%s", got, mod)
	}
}

// TestP2OGatherChainOpset9 is the other form of the exporters' shape
// arithmetic at opset 9: Shape → Gather of a scalar index → Unsqueeze
// (axes attribute) → Concat, with int64 Mul, Add and Div on the way, and
// Squeeze (axes attribute) of a 1-element slice. It folds to a static
// reshape and runs.
func TestP2OGatherChainOpset9(t *testing.T) {
	scalar := func(name string, v int64) *onnxpb.NodeProto {
		return node("Constant", nil, []string{name}, attrTensor("value", int64s(name, []int64{}, v)))
	}
	m := model(9, graph("p2o",
		[]*onnxpb.NodeProto{
			node("Shape", []string{"x"}, []string{"s"}),
			scalar("zero", 0), scalar("two", 2), scalar("one", 1),
			node("Gather", []string{"s", "zero"}, []string{"n"}, attrInt("axis", 0)),
			node("Slice", []string{"s"}, []string{"c1"}, attrInts("starts", 1), attrInts("ends", 2), attrInts("axes", 0)),
			node("Squeeze", []string{"c1"}, []string{"c"}, attrInts("axes", 0)),
			node("Mul", []string{"c", "two"}, []string{"c2"}),
			node("Div", []string{"c2", "two"}, []string{"c3"}),
			node("Add", []string{"c3", "one"}, []string{"c4"}),
			node("Cast", []string{"c4"}, []string{"c4f"}, attrInt("to", int64(dtFloat))),
			node("Cast", []string{"c4f"}, []string{"c4i"}, attrInt("to", int64(dtInt64))),
			node("Sub", []string{"c4i", "one"}, []string{"c5"}),
			node("Unsqueeze", []string{"n"}, []string{"n1"}, attrInts("axes", 0)),
			node("Unsqueeze", []string{"c5"}, []string{"c6"}, attrInts("axes", 0)),
			i64c("m1", -1),
			node("Concat", []string{"n1", "c6", "m1"}, []string{"shape"}, attrInt("axis", 0)),
			node("Reshape", []string{"x", "shape"}, []string{"y"}),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4, 5)},
		[]*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	mod := mustImport(t, m, Options{})
	if got := mod.Entry().Type.Outputs[0].String(); got != "tensor<2x3x20xf32>" {
		t.Fatalf("result %s, want tensor<2x3x20xf32>\n%s", got, mod)
	}
	for _, op := range entryOps(mod) {
		if _, ok := op.(*niro.UnknownOp); ok {
			t.Errorf("op %s not converted\n%s", op.Name(), mod)
		}
	}
	x := f32s([]int64{2, 3, 4, 5}, make([]float32, 120)...)
	for i := range 120 {
		binary.LittleEndian.PutUint32(x.Data[4*i:], math.Float32bits(float32(i)))
	}
	outs, err := interp.Run(mod, []tensorio.Tensor{x}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(outs[0].Data, x.Data) {
		t.Errorf("reshape changed the data")
	}
}

// TestOldOpsetRanks imports ops that cannot compile on an input of
// dynamic extent, at the opset versions whose forms differ (attributes
// before inputs), and checks each result keeps the rank ONNX's shape
// rules give it.
func TestOldOpsetRanks(t *testing.T) {
	x := vi("x", dtFloat, dyn, 3, 4, 5)
	cases := []struct {
		name  string
		opset int64
		nodes []*onnxpb.NodeProto
		rank  int
		want  string // the result type, where the rules fix more than the rank
	}{
		{"Shape", 9, []*onnxpb.NodeProto{node("Shape", []string{"x"}, []string{"y"})}, 1, ""},
		{"Shape start end", 15, []*onnxpb.NodeProto{node("Shape", []string{"x"}, []string{"y"}, attrInt("start", 1), attrInt("end", -1))}, 1, ""},
		{"Slice attr", 9, []*onnxpb.NodeProto{node("Slice", []string{"x"}, []string{"y"}, attrInts("starts", 0, 1), attrInts("ends", 1, 2))}, 4, ""},
		{"Slice input", 13, []*onnxpb.NodeProto{i64c("st", 0), i64c("en", 1), node("Slice", []string{"x", "st", "en"}, []string{"y"})}, 4, ""},
		{"Unsqueeze attr", 9, []*onnxpb.NodeProto{node("Unsqueeze", []string{"x"}, []string{"y"}, attrInts("axes", 0, 5))}, 6, ""},
		{"Unsqueeze input", 13, []*onnxpb.NodeProto{i64c("ax", 0, 5), node("Unsqueeze", []string{"x", "ax"}, []string{"y"})}, 6, ""},
		{"Squeeze attr", 9, []*onnxpb.NodeProto{node("Squeeze", []string{"x"}, []string{"y"}, attrInts("axes", 0))}, 3, ""},
		{"Squeeze input", 13, []*onnxpb.NodeProto{i64c("ax", 0), node("Squeeze", []string{"x", "ax"}, []string{"y"})}, 3, ""},
		{"Reshape attr", 1, []*onnxpb.NodeProto{node("Reshape", []string{"x"}, []string{"y"}, attrInts("shape", 0, -1))}, 2, ""},
		{"Reshape input", 9, []*onnxpb.NodeProto{i64c("sh", 0, -1, 5), node("Reshape", []string{"x", "sh"}, []string{"y"})}, 3, ""},
		{"Upsample", 9, []*onnxpb.NodeProto{node("Constant", nil, []string{"sc"}, attrTensor("value", floats("sc", []int64{4}, 1, 1, 2, 2))), node("Upsample", []string{"x", "sc"}, []string{"y"})}, 4, ""},
		{"Resize", 11, []*onnxpb.NodeProto{node("Constant", nil, []string{"sc"}, attrTensor("value", floats("sc", []int64{4}, 1, 1, 2, 2))), node("Resize", []string{"x", "", "sc"}, []string{"y"})}, 4, ""},
		{"Pad attr", 2, []*onnxpb.NodeProto{node("Pad", []string{"x"}, []string{"y"}, attrInts("pads", 0, 0, 1, 1, 0, 0, 1, 1))}, 4, "tensor<?x3x6x7xf32>"},
		{"Pad input", 11, []*onnxpb.NodeProto{i64c("p", 0, 0, 1, 1, 0, 0, 1, 1), node("Pad", []string{"x", "p"}, []string{"y"})}, 4, "tensor<?x3x6x7xf32>"},
		{"Split attr", 9, []*onnxpb.NodeProto{node("Split", []string{"x"}, []string{"y", "z"}, attrInt("axis", 0))}, 4, ""},
		{"Split input", 13, []*onnxpb.NodeProto{node("Split", []string{"x"}, []string{"y", "z"}, attrInt("axis", 0))}, 4, ""},
		{"ReduceSum attr", 11, []*onnxpb.NodeProto{node("ReduceSum", []string{"x"}, []string{"y"}, attrInts("axes", 0, 1), attrInt("keepdims", 0))}, 2, ""},
		{"ReduceMean attr", 9, []*onnxpb.NodeProto{node("ReduceMean", []string{"x"}, []string{"y"}, attrInts("axes", 0), attrInt("keepdims", 0))}, 3, ""},
		{"ReduceMax input", 18, []*onnxpb.NodeProto{i64c("ax", 0), node("ReduceMax", []string{"x", "ax"}, []string{"y"}, attrInt("keepdims", 0))}, 3, ""},
		{"Gather", 9, []*onnxpb.NodeProto{i64c("i", 0, 1), node("Gather", []string{"x", "i"}, []string{"y"}, attrInt("axis", 0))}, 4, "tensor<2x3x4x5xf32>"},
		{"Expand", 9, []*onnxpb.NodeProto{i64c("sh", 2, 1, 1, 1, 1), node("Expand", []string{"x", "sh"}, []string{"y"})}, 5, ""},
		{"Tile", 9, []*onnxpb.NodeProto{i64c("rep", 2, 1, 1, 1), node("Tile", []string{"x", "rep"}, []string{"y"})}, 4, ""},
		{"ConstantOfShape", 9, []*onnxpb.NodeProto{node("Shape", []string{"x"}, []string{"s"}), node("ConstantOfShape", []string{"s"}, []string{"y"})}, 4, ""},
		{"Range", 11, []*onnxpb.NodeProto{node("Shape", []string{"x"}, []string{"s"}), i64c("z", 0), i64c("o", 1),
			node("Gather", []string{"s", "z"}, []string{"n"}, attrInt("axis", 0)),
			node("Squeeze", []string{"n"}, []string{"n0"}, attrInts("axes", 0)),
			node("Range", []string{"n0", "n0", "n0"}, []string{"r"}), node("Cast", []string{"r"}, []string{"y"}, attrInt("to", int64(dtFloat)))}, 1, ""},
		{"Flatten", 9, []*onnxpb.NodeProto{node("Flatten", []string{"x"}, []string{"y"}, attrInt("axis", 2))}, 2, "tensor<?x20xf32>"},
		{"AveragePool", 7, []*onnxpb.NodeProto{node("AveragePool", []string{"x"}, []string{"y"}, attrInts("kernel_shape", 2, 2))}, 4, ""},
		{"GlobalMaxPool", 1, []*onnxpb.NodeProto{node("GlobalMaxPool", []string{"x"}, []string{"y"})}, 4, ""},
		{"Cast chain", 9, []*onnxpb.NodeProto{node("Shape", []string{"x"}, []string{"s"}),
			node("Cast", []string{"s"}, []string{"y"}, attrInt("to", int64(dtFloat)))}, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outs := []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}
			last := c.nodes[len(c.nodes)-1]
			if len(last.Output) == 2 {
				outs = append(outs, viUnranked("z", dtFloat))
			}
			if last.GetOpType() == "Shape" {
				outs[0] = viUnranked("y", dtInt64)
			}
			mod := mustImport(t, model(c.opset, graph("g", c.nodes, []*onnxpb.ValueInfoProto{x}, outs)), Options{})
			if vs := unrankedValues(mod); len(vs) > 0 {
				t.Errorf("unranked values: %v\n%s", vs, mod)
			}
			got, _ := mod.Entry().Type.Outputs[0].(niro.TensorType)
			if got.Rank() != c.rank {
				t.Errorf("result is %s, want rank %d\n%s", got, c.rank, mod)
			}
			if c.want != "" && got.String() != c.want {
				t.Errorf("result is %s, want %s\n%s", got, c.want, mod)
			}
		})
	}
}

// i64c is a Constant node of a 1-D int64 tensor, in the form every opset
// takes.
func i64c(name string, vals ...int64) *onnxpb.NodeProto {
	return node("Constant", nil, []string{name}, attrTensor("value", int64s(name, []int64{int64(len(vals))}, vals...)))
}

// TestCastStringTo imports Cast before opset 6, whose to attribute is a
// string naming the type.
func TestCastStringTo(t *testing.T) {
	for _, c := range []struct {
		to, want string
	}{{"FLOAT", "tensor<2xf32>"}, {"int32", "tensor<2xi32>"}, {"DOUBLE", "tensor<2xf64>"}} {
		m := model(5, graph("g",
			[]*onnxpb.NodeProto{node("Cast", []string{"x"}, []string{"y"}, attrString("to", c.to))},
			[]*onnxpb.ValueInfoProto{vi("x", dtInt64, 2)},
			[]*onnxpb.ValueInfoProto{viUnranked("y", dtUndefined)}))
		m.Graph.Output[0].Type = nil
		mod := mustImport(t, m, Options{})
		if got := mod.Entry().Type.Outputs[0].String(); got != c.want {
			t.Errorf("to = %q: result %s, want %s", c.to, got, c.want)
		}
		if _, ok := entryOps(mod)[0].(*niro.Cast); !ok {
			t.Errorf("to = %q: not a cast:\n%s", c.to, mod)
		}
	}
	m := model(5, graph("g",
		[]*onnxpb.NodeProto{node("Cast", []string{"x"}, []string{"y"}, attrString("to", "QUATERNION"))},
		[]*onnxpb.ValueInfoProto{vi("x", dtInt64, 2)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2)}))
	m.Graph.Output[0].Type = nil
	if _, err := importModel(t, m, Options{}); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("to = QUATERNION: error %v, want one naming the undefined type", err)
	}
}
