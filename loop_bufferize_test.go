package main

import (
	"strings"
	"testing"
)

// TestLoopWhileInPlace checks, on the host IR after bufferization and
// buffer deallocation, that the iterations of a loop with a condition
// neither allocate nor copy a scan-output buffer: for a bounded loop
// (examples/controlflow/loop, a run-time trip count and a condition) and
// for a loop bounded by its condition only (examples/controlflow/loopcond):
// the innermost scf.while runs the body and only the outer one, once per
// doubling, allocates and copies. Both loops' scan outputs have a
// dynamic extent, so both grow (the first up to its trip count).
func TestLoopWhileInPlace(t *testing.T) {
	requireTools(t)
	for _, c := range []struct {
		model  string
		whiles int
	}{{"examples/controlflow/loop/model.onnx", 2}, {"examples/controlflow/loopcond/model.onnx", 2}} {
		ir := fusedIRThrough(t, c.model, "buffer-deallocation-pipeline")
		lines := strings.Split(ir, "\n")
		whiles, inner := 0, 0
		for i := range lines {
			if !strings.Contains(lines[i], "scf.while") {
				continue
			}
			whiles++
			depth, end := 0, len(lines)-1
			for j := i; j < len(lines); j++ {
				depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
				if depth <= 0 {
					end = j
					break
				}
			}
			body := strings.Join(lines[i+1:end+1], "\n")
			if strings.Contains(body, "scf.while") {
				continue // an outer loop: it may grow the buffers
			}
			inner++
			if strings.Contains(body, "memref.alloc(") {
				t.Errorf("%s: the loop allocates a dynamic buffer per iteration:\n%s", c.model, body)
			}
			for _, l := range strings.Split(body, "\n") {
				if strings.Contains(l, "memref.copy") && strings.Contains(l, "to memref<?") {
					t.Errorf("%s: the loop copies a scan buffer per iteration: %s", c.model, strings.TrimSpace(l))
				}
			}
		}
		if whiles != c.whiles || inner != 1 {
			t.Errorf("%s: %d scf.while loops (%d innermost), want %d (1)", c.model, whiles, inner, c.whiles)
		}
	}
}
