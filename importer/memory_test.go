package importer

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/niro-dev/niro/onnxpb"
)

// chainModel returns the serialized chain scripts/genchain writes: n
// nodes, alternately Add (the previous value plus x) and Relu, on a
// 4-element f32 tensor.
func chainModel(t testing.TB, n int) []byte {
	nodes := make([]*onnxpb.NodeProto, n)
	prev := "x"
	for i := range nodes {
		res := "v" + strconv.Itoa(i)
		if i == n-1 {
			res = "y"
		}
		if i%2 == 0 {
			nodes[i] = named(node("Add", []string{prev, "x"}, []string{res}), "add"+strconv.Itoa(i))
		} else {
			nodes[i] = named(node("Relu", []string{prev}, []string{res}), "relu"+strconv.Itoa(i))
		}
		prev = res
	}
	return marshal(t, model(17, graph("chain", nodes,
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 4)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 4)})))
}

// liveHeap returns the bytes of heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestChainMemory guards the import's memory on a long chain
// (docs/performance.md, "Emit on a long chain"): the live heap per node,
// measured after a full collection, with the main graph's nodes and
// outputs made but their inputs not yet resolved (the load's peak: the
// decoded NodeProtos must not be held alongside the Nodes), after Load (the graph), halfway through ConvertReleasing (the
// graph's first half released, half the IR made) and after it (the Niro
// IR), each against a bound about 15% above what it measures.
func TestChainMemory(t *testing.T) {
	const (
		n         = 100_000
		maxBuilt  = 500 // bytes a node: measured 434 (about 650 with the NodeProtos kept)
		maxLoaded = 450 // measured 392
		maxHalf   = 340 // measured 293 (about 550 with the graph kept)
		maxIR     = 230 // measured 194
	)
	data := chainModel(t, n)
	base := liveHeap() // data, which the model's tensors may alias, stays
	stages := map[string]float64{}
	memHook = func(stage string) { stages[stage] = float64(liveHeap()-base) / n }
	defer func() { memHook = nil }()
	m, err := LoadBytes(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loaded := float64(liveHeap()-base) / n
	mod, err := ConvertReleasing(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir := float64(liveHeap()-base) / n
	t.Logf("live heap, bytes a node: %.0f with the outputs declared, %.0f after Load, %.0f halfway through ConvertReleasing, %.0f after it (graph released, model kept)",
		stages["outputs declared"], loaded, stages["half converted"], ir)
	for stage, max := range map[string]float64{"outputs declared": maxBuilt, "half converted": maxHalf} {
		if got, ok := stages[stage]; !ok || got > max {
			t.Errorf("%s: %.0f bytes a node live (measured: %v), want at most %.0f", stage, got, ok, max)
		}
	}
	if loaded > maxLoaded {
		t.Errorf("the loaded graph holds %.0f bytes a node, want at most %d", loaded, maxLoaded)
	}
	if ir > maxIR {
		t.Errorf("the Niro IR (with the released graph) holds %.0f bytes a node, want at most %d", ir, maxIR)
	}
	if len(m.Graph.Nodes) != 0 || len(m.Graph.Inputs) != 1 || len(m.Graph.Outputs) != 1 {
		t.Errorf("released graph has %d nodes, %d inputs, %d outputs; want 0, 1, 1", len(m.Graph.Nodes), len(m.Graph.Inputs), len(m.Graph.Outputs))
	}
	if ops := len(mod.Entry().Body.Blocks[0].Ops); ops < n {
		t.Errorf("module has %d ops for %d nodes", ops, n)
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(mod)
	runtime.KeepAlive(data)
}

// TestConvertReleasingSame checks that ConvertReleasing makes the module
// Convert makes, on models with subgraphs and functions, and that the
// model cannot be converted again afterwards.
func TestConvertReleasingSame(t *testing.T) {
	models := map[string][]byte{"chain": chainModel(t, 201)}
	dir := onnxTestsDir(t)
	for _, name := range []string{"test_if", "test_loop11", "test_scan9_sum", "test_sequence_map_add_2_sequences", "test_layer_normalization_2d_axis0", "test_range_float_type_positive_delta_expanded"} {
		data, err := os.ReadFile(filepath.Join(dir, "node", name, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		models[name] = data
	}
	for name, data := range models {
		m1, err := LoadBytes(data, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, werr := Convert(m1, Options{})
		m2, err := LoadBytes(data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := ConvertReleasing(m2, Options{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("%s: Convert error %v, ConvertReleasing error %v", name, werr, gerr)
		}
		if werr == nil && want.String() != got.String() {
			t.Errorf("%s: ConvertReleasing made a different module", name)
		}
		if _, err := ConvertReleasing(m2, Options{}); err == nil {
			t.Errorf("%s: a released model converted again", name)
		}
		if _, err := Convert(m2, Options{}); err == nil {
			t.Errorf("%s: a released model converted again", name)
		}
	}
}
