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

// TestInterpRecurrentCases runs the recurrent-op models of
// testdata/recurrent (every direction, layout, activation, clip,
// input_forget, peepholes, short sequences, linear_before_reset, f64,
// every combination of present outputs, f16 and bf16)
// under the interpreter against ONNX Runtime's outputs at rtol 1e-5,
// atol 1e-6, as TestRecurrentCases checks the compiled code; and, with the
// LLVM tools, against the compiled code bit for bit on f32 (its exp, log
// and tanh are niro's polynomials on both sides) and within 4 ulp on f64
// (Go's libm against glibc's).
func TestInterpRecurrentCases(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "recurrent", "*", "model.onnx"))
	if len(dirs) < 47 {
		t.Fatalf("found %d recurrent cases, want 47", len(dirs))
	}
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	// Without the tools only the comparison with ONNX Runtime runs; with
	// NIRO_REQUIRE_TOOLS set, missing tools fail the test.
	compiled := toolsInstalled()
	if !compiled && os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
		t.Fatal("NIRO_REQUIRE_TOOLS is set but the LLVM/MLIR 22 tools are missing")
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			mf, err := openModel(path, ShapeFlags{})
			if err != nil {
				t.Fatal(err)
			}
			defer mf.close()
			set := filepath.Join(dir, "test_data_set_0")
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
			got, err := interp.Run(m, inputs, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(wants) {
				t.Fatalf("%d outputs, want %d", len(got), len(wants))
			}
			for i, w := range wants {
				r, err := tensorio.Compare(got[i], w.t, 1e-5, 1e-6)
				if err != nil {
					t.Fatal(err)
				}
				if !r.OK {
					t.Errorf("output %d against ONNX Runtime: %s", i, r)
				}
			}
			if !compiled {
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
			for i, c := range res.Outputs {
				if c.Elem == niro.F64 {
					if d, at := ulpDistance(got[i], c); d > 4 {
						t.Errorf("output %d: interpreter and compiled differ by %g ulp at %d", i, d, at)
					}
					continue
				}
				if ok, at := sameBits(got[i], c); !ok {
					t.Errorf("output %d: interpreter %s, compiled %s at %d", i, tensorio.FormatElem(got[i], int64(at)), tensorio.FormatElem(c, int64(at)), at)
				}
			}
		})
	}
}
