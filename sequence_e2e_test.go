package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// TestSequenceDataSets runs `niro test` on a model with a sequence input,
// a position input and a sequence output, over data sets that differ in
// the position only (the model compiled for one position must not serve
// the other) and in the sequence's length.
func TestSequenceDataSets(t *testing.T) {
	requireTools(t)
	seqType := func(dims ...int64) *onnxpb.TypeProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		tt := &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(1), Shape: shape}}}
		return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_SequenceType{SequenceType: &onnxpb.TypeProto_Sequence{ElemType: tt}}}
	}
	tensorType := func(elem int32, dims ...int64) *onnxpb.TypeProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(elem), Shape: shape}}}
	}
	vi := func(name string, t *onnxpb.TypeProto) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: t}
	}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{
			Name: proto.String("seqs"),
			Node: []*onnxpb.NodeProto{
				{OpType: proto.String("SequenceAt"), Input: []string{"s", "pos"}, Output: []string{"at"}},
				{OpType: proto.String("Add"), Input: []string{"at", "at"}, Output: []string{"twice"}},
				{OpType: proto.String("SequenceInsert"), Input: []string{"s", "twice"}, Output: []string{"grown"}},
			},
			Input:  []*onnxpb.ValueInfoProto{vi("s", seqType(2)), vi("pos", tensorType(7))},
			Output: []*onnxpb.ValueInfoProto{vi("at", tensorType(1, 2)), vi("grown", seqType(2))},
		},
	}
	dir := t.TempDir()
	data, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	modelPath := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(modelPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	vec := func(a, b float32) tensorio.Value {
		d := make([]byte, 8)
		binary.LittleEndian.PutUint32(d, math.Float32bits(a))
		binary.LittleEndian.PutUint32(d[4:], math.Float32bits(b))
		return tensorio.TensorOf(tensorio.Tensor{Elem: niro.F32, Dims: []int64{2}, Data: d})
	}
	seq := func(name string, elems ...tensorio.Value) tensorio.Value {
		return tensorio.Value{Name: name, Kind: tensorio.SequenceValue, ElemKind: tensorio.TensorValue, Elems: elems}
	}
	var sets []string
	for i, c := range []struct {
		elems []tensorio.Value
		pos   int64
	}{
		{[]tensorio.Value{vec(1, 2), vec(3, 4)}, 0},
		{[]tensorio.Value{vec(1, 2), vec(3, 4)}, 1},
		{[]tensorio.Value{vec(1, 2), vec(3, 4), vec(5, 6)}, -1},
	} {
		set := filepath.Join(dir, "test_data_set_"+string(rune('0'+i)))
		if err := os.Mkdir(set, 0o755); err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, uint64(c.pos))
		at := c.elems[(int(c.pos)+len(c.elems))%len(c.elems)]
		twice := vec(2*float32(mustF32(t, at, 0)), 2*float32(mustF32(t, at, 1)))
		files := map[string]tensorio.Value{
			"input_0.pb":  seq("s", c.elems...),
			"input_1.pb":  tensorio.TensorOf(tensorio.Tensor{Name: "pos", Elem: niro.I64, Dims: []int64{}, Data: p}),
			"output_0.pb": {Name: "at", Kind: tensorio.TensorValue, Tensor: at.Tensor},
			"output_1.pb": seq("grown", append(append([]tensorio.Value{}, c.elems...), twice)...),
		}
		for name, v := range files {
			if err := tensorio.WriteValuePB(filepath.Join(set, name), v); err != nil {
				t.Fatal(err)
			}
		}
		sets = append(sets, set)
	}
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"test", modelPath}, sets...), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "3 passed, 0 failed") {
		t.Fatalf("niro test: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "output 3 (grown.2)") || !strings.Contains(stdout.String(), "output 4 (grown.3)") {
		t.Errorf("want the sequence output compared element by element:\n%s", stdout.String())
	}
}

func mustF32(t *testing.T, v tensorio.Value, i int) float64 {
	t.Helper()
	f, err := tensorio.Float64s(v.Tensor)
	if err != nil {
		t.Fatal(err)
	}
	return f[i]
}
