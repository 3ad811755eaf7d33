package onnxpb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// onnxTestFiles returns the model.onnx files of shared/onnx-tests, found by
// walking up from the package directory, or skips the test.
func onnxTestFiles(t testing.TB) []string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		root := filepath.Join(dir, "shared", "onnx-tests")
		if _, err := os.Stat(filepath.Join(root, "INDEX.tsv")); err == nil {
			files, err := filepath.Glob(filepath.Join(root, "*", "*", "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			return files
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("shared/onnx-tests not found above the module")
		}
		dir = parent
	}
}

// TestUnmarshalAliasedMatchesProto decodes every test model both ways.
func TestUnmarshalAliasedMatchesProto(t *testing.T) {
	files := onnxTestFiles(t)
	if len(files) < 1900 {
		t.Fatalf("found %d models, want the whole data set", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := new(ModelProto)
		if err := proto.Unmarshal(data, want); err != nil {
			t.Fatalf("%s: proto.Unmarshal: %v", f, err)
		}
		got, err := UnmarshalModel(data)
		if err != nil {
			t.Fatalf("%s: UnmarshalModel: %v", f, err)
		}
		if !proto.Equal(want, got) {
			t.Fatalf("%s: UnmarshalModel differs from proto.Unmarshal", f)
		}
		if err := checkNodesDecoder(data, got, err); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

// checkNodesDecoder checks that UnmarshalModelNodes fails as UnmarshalModel
// did (err) or, with the nodes it passed on put back into the main graph,
// gives the model UnmarshalModel gave (want).
func checkNodesDecoder(data []byte, want *ModelProto, err error) error {
	var nodes []*NodeProto
	got, gerr := UnmarshalModelNodes(data, func(n *NodeProto) error {
		nodes = append(nodes, n)
		return nil
	})
	if (err == nil) != (gerr == nil) || err != nil && err.Error() != gerr.Error() {
		return fmt.Errorf("UnmarshalModel error %v, UnmarshalModelNodes error %v", err, gerr)
	}
	if err != nil {
		return nil
	}
	if c := MainGraphNodeCount(data); c != len(nodes) {
		return fmt.Errorf("MainGraphNodeCount is %d, UnmarshalModelNodes passed %d nodes", c, len(nodes))
	}
	if len(got.GetGraph().GetNode()) != 0 {
		return errors.New("UnmarshalModelNodes kept main-graph nodes in the model")
	}
	if got.Graph != nil {
		got.Graph.Node = nodes
	} else if len(nodes) > 0 {
		return errors.New("UnmarshalModelNodes passed nodes of a model without a graph")
	}
	if !proto.Equal(want, got) {
		return errors.New("UnmarshalModelNodes with its nodes put back differs from UnmarshalModel")
	}
	return nil
}

// TestUnmarshalModelNodesStops checks that an error from the callback stops
// the decoding and is returned unchanged.
func TestUnmarshalModelNodesStops(t *testing.T) {
	m := &ModelProto{Graph: &GraphProto{Node: []*NodeProto{{OpType: proto.String("A")}, {OpType: proto.String("B")}, {OpType: proto.String("C")}}}}
	buf, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	var seen []string
	_, err = UnmarshalModelNodes(buf, func(n *NodeProto) error {
		seen = append(seen, n.GetOpType())
		if n.GetOpType() == "B" {
			return stop
		}
		return nil
	})
	if err != stop || len(seen) != 2 || seen[0] != "A" || seen[1] != "B" {
		t.Fatalf("got error %v after nodes %v, want stop after A, B", err, seen)
	}
}

// inside reports whether b lies within buf's memory.
func inside(b, buf []byte) bool {
	if len(b) == 0 {
		return true
	}
	p, lo := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&buf[0]))
	return p >= lo && p+uintptr(len(b)) <= lo+uintptr(len(buf))
}

func TestUnmarshalAliasesTensorData(t *testing.T) {
	raw := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	m := &ModelProto{
		IrVersion: proto.Int64(8),
		Graph: &GraphProto{
			Initializer: []*TensorProto{{Name: proto.String("w"), Dims: []int64{2}, DataType: proto.Int32(1), RawData: raw}},
			Node: []*NodeProto{{OpType: proto.String("Constant"), Output: []string{"c"}, Attribute: []*AttributeProto{{
				Name: proto.String("value"), Type: AttributeProto_TENSOR.Enum(),
				T: &TensorProto{DataType: proto.Int32(1), RawData: raw, StringData: [][]byte{[]byte("s")}},
			}}}},
		},
	}
	buf, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalModel(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, got) {
		t.Fatal("decoded model differs")
	}
	init := got.GetGraph().GetInitializer()[0].GetRawData()
	attr := got.GetGraph().GetNode()[0].GetAttribute()[0].GetT()
	for name, b := range map[string][]byte{"initializer raw_data": init, "attribute raw_data": attr.GetRawData(), "string_data": attr.GetStringData()[0]} {
		if !inside(b, buf) {
			t.Errorf("%s is a copy, want a slice of the input", name)
		}
	}
	// Appending to an aliased slice must not write into the input.
	before := append([]byte(nil), buf...)
	_ = append(init, 0xff)
	if string(before) != string(buf) {
		t.Error("appending to raw_data modified the input buffer")
	}
}

func TestUnmarshalKeepsUnknownFields(t *testing.T) {
	m := &ModelProto{IrVersion: proto.Int64(9), Graph: &GraphProto{Name: proto.String("g")}}
	buf, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// Field 999 (varint) at the top level and field 77 (bytes) in the graph.
	buf = protowire.AppendTag(buf, 999, protowire.VarintType)
	buf = protowire.AppendVarint(buf, 42)
	graph := protowire.AppendTag(nil, 77, protowire.BytesType)
	graph = protowire.AppendBytes(graph, []byte("future"))
	buf = protowire.AppendTag(buf, 7, protowire.BytesType)
	buf = protowire.AppendBytes(buf, graph)

	want := new(ModelProto)
	if err := proto.Unmarshal(buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalModel(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(want, got) || got.GetGraph().GetName() != "g" {
		t.Fatal("decoded model differs from proto.Unmarshal")
	}
	if len(got.ProtoReflect().GetUnknown()) == 0 || len(got.GetGraph().ProtoReflect().GetUnknown()) == 0 {
		t.Error("unknown fields were dropped")
	}
}

// FuzzUnmarshalAliased checks that the aliasing decoder accepts exactly
// what proto.Unmarshal accepts and produces the same message.
func FuzzUnmarshalAliased(f *testing.F) {
	for _, name := range []string{"test_add", "test_if", "test_loop11", "test_constant"} {
		dir, _ := os.Getwd()
		for d := dir; ; d = filepath.Dir(d) {
			if data, err := os.ReadFile(filepath.Join(d, "shared", "onnx-tests", "node", name, "model.onnx")); err == nil {
				f.Add(data)
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := new(ModelProto)
		werr := proto.Unmarshal(data, want)
		got, gerr := UnmarshalModel(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("proto.Unmarshal error %v, UnmarshalModel error %v", werr, gerr)
		}
		if werr == nil && !proto.Equal(want, got) {
			t.Fatal("decoded models differ")
		}
		if err := checkNodesDecoder(data, got, gerr); err != nil {
			t.Fatal(err)
		}
	})
}
