package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/niro-dev/niro/toolchain"
)

// TestSubgraphCases runs the models of testdata/subgraphs (built by the
// importer's tests: Loop bodies whose inputs are named like values of the
// enclosing graph, float16 Loops with a scan output, the opset-9
// paddle2onnx shape chain) on every data set, under the interpreter and,
// with the LLVM tools, compiled with host and host-O0, against ONNX
// Runtime's outputs (exact: the ops are additions, products by powers of
// two and moves), through the corpus's checkCorpusSet. The compiled
// comparison covers the data sets whose outputs have static shapes once
// the small integer and bool inputs are bound.
func TestSubgraphCases(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join("testdata", "subgraphs", "*", "model.onnx"))
	if len(models) < 8 {
		t.Fatalf("found %d subgraph cases, want 8", len(models))
	}
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	compiled := toolsInstalled()
	if !compiled && os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
		t.Fatal("NIRO_REQUIRE_TOOLS is set but the LLVM/MLIR 22 tools are missing")
	}
	var tc *toolchain.Toolchain
	if compiled {
		var err error
		if tc, err = env.findTools(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range models {
		dir := filepath.Dir(path)
		sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
		for _, set := range sets {
			t.Run(filepath.Base(dir)+"/"+filepath.Base(set), func(t *testing.T) {
				mf, err := openModel(path, ShapeFlags{})
				if err != nil {
					t.Fatal(err)
				}
				defer mf.close()
				ins, err := readNumbered(set, "input")
				if err != nil {
					t.Fatal(err)
				}
				wants, err := readNumbered(set, "output")
				if err != nil {
					t.Fatal(err)
				}
				checkCorpusSet(ctx, env, tc, mf, ins, wants, [2]float64{0, 0}, func(string) {}, t.Errorf, t.Logf)
			})
		}
	}
}
