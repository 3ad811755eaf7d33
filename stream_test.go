package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

// partlyLowerable returns a module whose first function, of n adds, lowers
// (about 450 bytes of MLIR an add), and whose second does not: emit finds
// the problem only after it has written the first.
func partlyLowerable(t *testing.T, n int) *emit.Output {
	t.Helper()
	var b strings.Builder
	b.WriteString("func @helper(tensor<4xf32>) -> (tensor<4xf32>) {\n^bb0(%0: tensor<4xf32>):\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  %%%d = add %%%d, %%0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n", i, i-1)
	}
	fmt.Fprintf(&b, "  return %%%d : tensor<4xf32>\n}\n", n)
	b.WriteString(`func @main(tensor<3x0x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<0xi32>, tensor<1x0x4xf32>) -> (tensor<3x1x0x4xf32>, tensor<1x0x4xf32>) attributes {niro.entry} {
^bb0(%0: tensor<3x0x3xf32>, %1: tensor<1x3x4xf32>, %2: tensor<1x4x4xf32>, %3: tensor<1x8xf32>, %4: tensor<0xi32>, %5: tensor<1x0x4xf32>):
  %6, %7 = rnn %0, %1, %2, %3, %4, %5 {activations = ["Tanh"], alpha = [0.0], beta = [0.0], direction = "reverse", hidden_size = 4} : (tensor<3x0x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>, tensor<0xi32>, tensor<1x0x4xf32>) -> (tensor<3x1x0x4xf32>, tensor<1x0x4xf32>)
  return %6, %7 : tensor<3x1x0x4xf32>, tensor<1x0x4xf32>
}
`)
	m, err := niro.Parse("partly.niro", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Prepare(m, emit.Options{})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return out
}

// TestWriteMLIRNoPartialOutput checks that a problem found after a
// megabyte of MLIR was streamed leaves no partial module: not on standard
// output (the text is spooled first) and not in an existing output file
// (safefile), while a plain writer did receive the partial text.
func TestWriteMLIRNoPartialOutput(t *testing.T) {
	out := partlyLowerable(t, 2500)
	var direct countingWriter
	if err := out.WriteMLIR(&direct); err == nil || direct.n < 1<<20 {
		t.Fatalf("WriteMLIR: error %v after %d bytes; want an error after the first megabyte", err, direct.n)
	}
	var stdout bytes.Buffer
	env := &Env{Globals: &Globals{}, Stdout: &stdout, Stderr: io.Discard}
	err := writeMLIR(env, "-", out)
	if err == nil || !strings.Contains(err.Error(), "an empty batch or input") {
		t.Fatalf("writeMLIR to stdout: %v, want the rnn's problem", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("standard output received %d bytes of a failed module", stdout.Len())
	}
	path := filepath.Join(t.TempDir(), "out.mlir")
	if err := os.WriteFile(path, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMLIR(env, path, out); err == nil {
		t.Fatal("writeMLIR to a file: no error")
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "previous\n" {
		t.Errorf("the existing output became %d bytes (err %v)", len(data), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("the output's directory holds %d entries, want only the output", len(entries))
	}
}
