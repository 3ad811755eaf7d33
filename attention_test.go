package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// TestAttentionSchedules checks that Attention's decomposition reaches
// the host schedules in the forms they match: both matmuls (QKᵀ and P·V,
// grouped-query heads folded into the rows) become scheduled contractions
// (4-row register blocks), and the softmax, on the scores viewed as a
// matrix, becomes a row-fused 16-row loop (a row consumer marked
// niro.rowfuse = 1).
func TestAttentionSchedules(t *testing.T) {
	requireTools(t)
	f32 := int32(onnxpb.TensorProto_FLOAT)
	vi := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(f32), Shape: shape}}}}
	}
	node := &onnxpb.NodeProto{Name: proto.String("attn"), OpType: proto.String("Attention"), Input: []string{"q", "k", "v"}, Output: []string{"y"},
		Attribute: []*onnxpb.AttributeProto{{Name: proto.String("is_causal"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}}}
	g := &onnxpb.GraphProto{Name: proto.String("attention"), Node: []*onnxpb.NodeProto{node},
		Input:  []*onnxpb.ValueInfoProto{vi("q", 1, 4, 40, 16), vi("k", 1, 2, 40, 16), vi("v", 1, 2, 40, 16)},
		Output: []*onnxpb.ValueInfoProto{vi("y", 1, 4, 40, 16)}}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(10), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(23)}}}
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "attention.onnx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ir := fusedIRThrough(t, path, "rowfuse")
	if n := strings.Count(ir, "-> (vector<4x16xf32>)"); n < 2 {
		t.Errorf("%d register-blocked contraction loops, want one per matmul (2): the contraction schedule did not match both", n)
	}
	if !strings.Contains(ir, "niro.rowfuse = 1") || !strings.Contains(ir, "tensor<16x40xf32>") {
		t.Errorf("no 16-row softmax tile: the row-fusion schedule did not fire")
	}
}
