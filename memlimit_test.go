package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/onnxpb"
)

// writeChainModel writes scripts/genchain's chain of n nodes (alternately
// Add with the input and Relu on a 4-element f32 tensor) to path.
func writeChainModel(t *testing.T, path string, n int) {
	t.Helper()
	vi := func(name string) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
			{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 4}}}}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: shape}}}}
	}
	nodes := make([]*onnxpb.NodeProto, n)
	prev := "x"
	for i := range nodes {
		res := "v" + strconv.Itoa(i)
		if i == n-1 {
			res = "y"
		}
		if i%2 == 0 {
			nodes[i] = &onnxpb.NodeProto{Name: proto.String("add" + strconv.Itoa(i)), OpType: proto.String("Add"), Input: []string{prev, "x"}, Output: []string{res}}
		} else {
			nodes[i] = &onnxpb.NodeProto{Name: proto.String("relu" + strconv.Itoa(i)), OpType: proto.String("Relu"), Input: []string{prev}, Output: []string{res}}
		}
		prev = res
	}
	data, err := proto.Marshal(&onnxpb.ModelProto{IrVersion: proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("chain"), Node: nodes,
			Input: []*onnxpb.ValueInfoProto{vi("x")}, Output: []*onnxpb.ValueInfoProto{vi("y")}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLargeGraphEmit runs niro emit and niro verify on a chain of
// largeGraph nodes, which convert releasing the graph under a memory
// limit (moduleOnce, limitToLoaded): the text is the one emit makes from
// the module Convert makes, and the limit is gone when the command ends.
func TestLargeGraphEmit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Fatal("run without GOMEMLIMIT: the test checks the limit niro sets")
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "chain.onnx")
	writeChainModel(t, model, largeGraph)
	before := debug.SetMemoryLimit(-1)
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "chain.mlir")
	if code := run([]string{"emit", model, "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("niro emit: exit %d: %s", code, stderr.String())
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit %d after niro emit, %d before", after, before)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := importer.Load(model, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mod, err := importer.Convert(m, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Globals: &Globals{}}
	if err := env.runPasses(model, mod); err != nil {
		t.Fatal(err)
	}
	prepared, err := emit.Prepare(mod, env.emitOptions())
	if err != nil {
		t.Fatal(err)
	}
	text, err := prepared.Text()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(text)
	if !bytes.Equal(got, want) {
		t.Errorf("niro emit wrote %d bytes, emit of the Convert module %d: they differ", len(got), len(want))
	}
	stdout.Reset()
	if code := run([]string{"verify", model}, &stdout, &stderr); code != 0 {
		t.Fatalf("niro verify: exit %d: %s", code, stderr.String())
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit %d after niro verify, %d before", after, before)
	}
}

// TestLimitToLoaded checks the limit limitToLoaded sets: half the live
// heap again above it, and restoreMemoryLimit puts the previous one back.
func TestLimitToLoaded(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Fatal("run without GOMEMLIMIT: the test checks the limit niro sets")
	}
	before := debug.SetMemoryLimit(-1)
	ballast := make([]byte, 64<<20)
	limitToLoaded()
	limit := debug.SetMemoryLimit(-1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	restoreMemoryLimit()
	runtime.KeepAlive(ballast)
	if lo := int64(float64(ms.HeapAlloc) * 1.4); limit < lo || limit > int64(ms.Sys)*2+limitSlack {
		t.Errorf("limit %d for a live heap of %d (runtime total %d)", limit, ms.HeapAlloc, ms.Sys)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("limit %d after restoreMemoryLimit, %d before", after, before)
	}
}
