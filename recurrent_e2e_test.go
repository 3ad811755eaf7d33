package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// TestRecurrentCases runs the recurrent-op models of testdata/recurrent
// (scripts/genrnn: one LSTM, GRU or RNN node each, covering every
// direction, both layouts, every activation with given and defaulted alpha
// and beta, clip, input_forget, peepholes, sequence lengths shorter than
// the sequence, initial states, linear_before_reset, an f64 LSTM and
// combinations of absent optional inputs and outputs) on host and host-O0,
// which must agree bit for bit, against ONNX Runtime's outputs (computed in
// f32 for the f64 case) at niro test's tolerances and at rtol 1e-5,
// atol 1e-6.
func TestRecurrentCases(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "recurrent", "*", "model.onnx"))
	if len(dirs) < 13 {
		t.Fatalf("found %d recurrent cases, want 13", len(dirs))
	}
	for _, m := range dirs {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			mf, err := openModel(m, ShapeFlags{})
			if err != nil {
				t.Fatal(err)
			}
			defer mf.close()
			runModelSet(t, env, tc, mf, filepath.Join(dir, "test_data_set_0"), 1e-5, 1e-6)
		})
	}
}
