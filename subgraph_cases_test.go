package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// TestSubgraphCases runs the models of testdata/subgraphs (built by the
// importer's tests: Loop bodies whose inputs are named like values of the
// enclosing graph, float16 Loops with a scan output, the opset-9
// paddle2onnx shape chain) on every data set, under the interpreter and,
// with the LLVM tools, compiled, against ONNX Runtime's outputs (exact:
// the ops are additions, products by powers of two and moves). The
// compiled comparison covers the data sets whose outputs have static
// shapes once the small integer and bool inputs are bound.
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
				m, inputs, err := mf.forInputs(ins)
				if err != nil {
					t.Fatal(err)
				}
				check := func(who string, got []tensorio.Tensor) {
					if len(got) != len(wants) {
						t.Fatalf("%s: %d outputs, want %d", who, len(got), len(wants))
					}
					for i, w := range wants {
						r, err := tensorio.Compare(got[i], w.t, 0, 0)
						if err != nil {
							t.Fatalf("%s: output %d: %v", who, i, err)
						}
						if !r.OK {
							t.Errorf("%s: output %d against ONNX Runtime: %s", who, i, r)
						}
					}
				}
				got, err := interp.Run(m, inputs, interp.Options{})
				if err != nil {
					t.Fatal(err)
				}
				check("interpreter", got)
				// The compiled entry function returns outputs of
				// static shapes only (a carried value that grows, a
				// scan output of a loop that may stop early are
				// dynamic): those run interpreted.
				static := true
				for _, ty := range m.Entry().Type.Outputs {
					tt, ok := ty.(niro.TensorType)
					static = static && ok && tt.HasStaticShape()
				}
				if !compiled || !static {
					return
				}
				tc, err := env.findTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				hm, err := env.buildHost(ctx, tc, m, "host")
				if err != nil {
					t.Fatal(err)
				}
				defer hm.cleanup()
				res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				check("compiled", res.Outputs)
			})
		}
	}
}
