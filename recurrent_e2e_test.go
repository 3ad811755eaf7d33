package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecurrentCases runs the recurrent-op models of testdata/recurrent
// (scripts/genrnn: one LSTM, GRU or RNN node each, covering every
// direction, both layouts, every activation with given and defaulted alpha
// and beta, clip, input_forget, peepholes, sequence lengths shorter than
// the sequence, initial states, linear_before_reset, an f64 LSTM,
// combinations of absent optional inputs, every combination of present
// outputs (Y, Y_h, Y_c) in every direction, and f16 and bf16 nodes) on
// host and host-O0, which must agree bit for bit, against ONNX Runtime's
// outputs (computed in f32 for the f64 case; for the 16-bit cases, the f32
// node's outputs rounded once to the 16-bit type) at niro test's
// tolerances and at rtol 1e-5, atol 1e-6; and that the time loop neither
// allocates nor calls (checkStepLoop).
func TestRecurrentCases(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "recurrent", "*", "model.onnx"))
	if len(dirs) < 47 {
		t.Fatalf("found %d recurrent cases, want 47", len(dirs))
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
			checkStepLoop(t, fusedIRThrough(t, m, "buffer-deallocation-pipeline"))
		})
	}
}

// checkStepLoop checks, on the host IR after bufferization and buffer
// deallocation, that the recurrent op's time loop (the scf.for whose body
// compares the step with the sequence lengths, an i32 arith.cmpi slt) is
// there, once, and that its body neither allocates nor calls: each step
// costs loop iterations only.
func checkStepLoop(t *testing.T, ir string) {
	t.Helper()
	lines := strings.Split(ir, "\n")
	loops := 0
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], "scf.for") {
			continue
		}
		depth, end := 0, len(lines)-1
		for j := i; j < len(lines); j++ {
			depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
			if depth <= 0 {
				end = j
				break
			}
		}
		body := strings.Join(lines[i:end+1], "\n")
		if !strings.Contains(body, "arith.cmpi slt") || !strings.Contains(body, ": i32") {
			continue
		}
		loops++
		for _, bad := range []string{"memref.alloc", "call @", "memref.copy"} {
			if strings.Contains(body, bad) {
				t.Errorf("the time loop contains %s:\n%s", bad, body)
			}
		}
		i = end
	}
	if loops != 1 {
		t.Errorf("found %d time loops, want 1", loops)
	}
}
