package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/niro-dev/niro/tensorio"
)

// TestDecoderCacheFeedback runs examples/decoder as a generation loop
// does: the prompt step (test_data_set_0), then the generation step with
// the present_key and present_value that niro's prompt step returned as
// its past_key and past_value (set 1's committed cache inputs are ONNX
// Runtime's), and compares the step's logits and caches with ONNX
// Runtime's (set 1's expected outputs).
func TestDecoderCacheFeedback(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("examples", "decoder")
	mf, err := openModel(filepath.Join(dir, "model.onnx"), ShapeFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer mf.close()
	run := func(set string, ins []namedTensor) []tensorio.Tensor {
		t.Helper()
		m, inputs, err := mf.forInputs(ins)
		if err != nil {
			t.Fatal(err)
		}
		hm, err := env.buildHost(ctx, tc, m, "host")
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		defer hm.cleanup()
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		return res.Outputs
	}
	read := func(set, kind string) []namedTensor {
		t.Helper()
		ts, err := readNumbered(filepath.Join(dir, set), kind)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	promptOut := run("prompt", read("test_data_set_0", "input"))
	if len(promptOut) != 3 {
		t.Fatalf("prompt step: %d outputs, want 3", len(promptOut))
	}
	step := read("test_data_set_1", "input")
	step[2] = namedTensor{name: step[2].name, t: promptOut[1]}
	step[3] = namedTensor{name: step[3].name, t: promptOut[2]}
	got := run("generation", step)
	want := read("test_data_set_1", "output")
	for i, w := range want {
		r, err := tensorio.Compare(got[i], w.t, 1e-5, 1e-6)
		if err != nil {
			t.Fatalf("generation output %d: %v", i, err)
		}
		if !r.OK {
			t.Errorf("generation output %d (%s) with niro's cache: %s", i, w.name, r)
		}
	}
}
