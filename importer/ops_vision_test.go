package importer

import (
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestVisionImport: the vision ops map to Niro ops when their parameters
// are known, and otherwise ask for the input by its ONNX name.
func TestVisionImport(t *testing.T) {
	mapped := []struct {
		name  string
		opset int64
		nodes []*onnxpb.NodeProto
		ins   []*onnxpb.ValueInfoProto
		out   *onnxpb.ValueInfoProto
		inits []*onnxpb.TensorProto
	}{
		{"LRN", 13, []*onnxpb.NodeProto{node("LRN", []string{"x"}, []string{"y"}, attrInt("size", 3))},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 5, 2, 2)}, vi("y", dtFloat, 1, 5, 2, 2), nil},
		{"CenterCropPad", 18, []*onnxpb.NodeProto{node("CenterCropPad", []string{"x", "s"}, []string{"y"})},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 4, 3)}, vi("y", dtFloat, 2, 6), []*onnxpb.TensorProto{int64s("s", []int64{2}, 2, 6)}},
		{"Col2Im", 18, []*onnxpb.NodeProto{node("Col2Im", []string{"x", "i", "b"}, []string{"y"})},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 4, 4)}, vi("y", dtFloat, 1, 1, 3, 3),
			[]*onnxpb.TensorProto{int64s("i", []int64{2}, 3, 3), int64s("b", []int64{2}, 2, 2)}},
		{"MaxUnpool", 11, []*onnxpb.NodeProto{node("MaxUnpool", []string{"x", "i"}, []string{"y"}, attrInts("kernel_shape", 2, 2), attrInts("strides", 2, 2))},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 1, 2, 2), vi("i", dtInt64, 1, 1, 2, 2)}, vi("y", dtFloat, 1, 1, 4, 4), nil},
		{"GridSample", 16, []*onnxpb.NodeProto{node("GridSample", []string{"x", "g"}, []string{"y"})},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 2, 3, 3), vi("g", dtFloat, 1, 2, 2, 2)}, vi("y", dtFloat, 1, 2, 2, 2), nil},
	}
	for _, c := range mapped {
		m := model(c.opset, graph("g", c.nodes, c.ins, []*onnxpb.ValueInfoProto{c.out}, c.inits...))
		mod := mustImport(t, m, Options{})
		if u := opsOf[*niro.UnknownOp](mod); len(u) != 0 {
			t.Errorf("%s: unexpected UnknownOp:\n%s", c.name, mod)
		}
	}
	m := model(16, graph("g", []*onnxpb.NodeProto{node("RoiAlign", []string{"x", "r", "b"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, 1, 4, 4), vi("r", dtFloat, 2, 4), vi("b", dtInt64, 2)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 1, 1, 1)}))
	if s := niro.FunctionString(mustImport(t, m, Options{}).Entry()); !strings.Contains(s, `input 1 (rois, \"r\") must be known at compile time`) {
		t.Errorf("RoiAlign with run-time rois: want a reason naming \"r\":\n%s", s)
	}
}
