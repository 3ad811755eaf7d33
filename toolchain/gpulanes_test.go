package toolchain

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// laneModule emits the niro reduction reduce_KIND over axes of an f32
// tensor of shape dims (keep_dims as given) as emit lowers it, the
// function named @%s for TestGPUKernelsOnHost's cases.
func laneModule(t *testing.T, kind string, dims []int64, axes []int, keep bool) string {
	t.Helper()
	return laneModuleOf(t, "f32", kind, dims, axes, keep)
}

// laneModuleOf is laneModule over an elem tensor (a niro element type).
func laneModuleOf(t *testing.T, elem, kind string, dims []int64, axes []int, keep bool) string {
	t.Helper()
	red := map[int]bool{}
	for _, a := range axes {
		red[a] = true
	}
	var rd []int64
	for i, d := range dims {
		switch {
		case !red[i]:
			rd = append(rd, d)
		case keep:
			rd = append(rd, 1)
		}
	}
	ax := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(axes)), ", "), "[]")
	src := fmt.Sprintf("func @lanes(%[1]s) -> (%[2]s) {\n^bb0(%%0: %[1]s):\n  %%1 = reduce_%[3]s %%0 {axes = [%[4]s], keep_dims = %[5]v} : (%[1]s) -> %[2]s\n  return %%1 : %[2]s\n}\n",
		tensorText(dims, elem), tensorText(rd, elem), kind, ax, keep)
	return emittedFunc(t, src, "lanes", "%s")
}

// TestGPULaneReduction: a reduction whose run is longer than the 4096
// lanes, as emit writes it, is four kernels: the partials' seed, the lane
// kernel with one thread per (result element, lane), each folding its
// lane's floor(run/4096) positions in order with the running value in a
// register, the result's seed, and the lane fold, one thread per result
// element looping over the 4096 lanes in order; when 4096 does not divide
// the run, a fifth after the lane kernel folds the last run mod 4096
// positions, one thread per (result element, lane) of those, one position
// each.
func TestGPULaneReduction(t *testing.T) {
	for _, c := range []struct {
		dims   []int64
		axes   []int
		keep   bool
		points int64 // result elements
		steps  int64 // full steps per lane: floor(run / 4096)
		rest   int64 // run mod 4096: the tail kernel's lanes
		// The lane kernel's launch: the lane axis innermost, on thread x.
		blocks, threads [3]int64
	}{
		{[]int64{3, 5000}, []int{1}, false, 3, 1, 904, [3]int64{128, 1, 1}, [3]int64{32, 8, 1}},
		{[]int64{1, 4, 112, 112}, []int{2, 3}, true, 4, 3, 256, [3]int64{128, 1, 1}, [3]int64{32, 8, 1}}, // a global pool's 12544
		{[]int64{70000}, []int{0}, false, 1, 17, 368, [3]int64{16, 1, 1}, [3]int64{256, 1, 1}},           // to a scalar
		{[]int64{2, 8192}, []int{1}, false, 2, 2, 0, [3]int64{128, 1, 1}, [3]int64{32, 8, 1}},            // 4096 divides the run
	} {
		name := fmt.Sprint(c.dims)
		src := strings.Replace(laneModule(t, "sum", c.dims, c.axes, c.keep), "@%s(", "@lanes(", 1)
		mlir := gpuMLIR(t, src, "nvidia:sm_90", "lanes", 1, KindMLIR).MLIR
		ls := launches(t, mlir)
		want := 4
		if c.rest > 0 {
			want = 5
		}
		if len(ls) != want {
			t.Fatalf("%s: %d kernels, want %d (partials seed, lanes, [tail,] seed, lane fold):\n%s", name, len(ls), want, mlir)
		}
		total := func(l launch) int64 {
			return l.blocks[0] * l.blocks[1] * l.blocks[2] * l.threads[0] * l.threads[1] * l.threads[2]
		}
		lanes := kernelBody(t, mlir, ls[1].kernel)
		// One thread per lane and result element: the launch covers them all.
		if n := total(ls[1]); n < c.points*niro.ReduceLanes {
			t.Errorf("%s: the lane kernel runs %d threads, want at least %d x 4096", name, n, c.points)
		}
		if ls[1].blocks != c.blocks || ls[1].threads != c.threads {
			t.Errorf("%s: lane kernel blocks %v threads %v, want %v %v", name, ls[1].blocks, ls[1].threads, c.blocks, c.threads)
		}
		// Each lane's positions, in order, the partial in a register (one
		// step is a plain load, add and store).
		inOrder := c.steps == 1 && !strings.Contains(lanes, "scf.for") ||
			regexp.MustCompile(fmt.Sprintf(`scf\.for %%\w+ = %%c0 to %%c%d step %%c1 iter_args\(%%\w+ = %%\w+\) -> \(f32\) \{`, c.steps)).MatchString(lanes)
		if !inOrder || strings.Count(lanes, "memref.store") != 1 || strings.Count(lanes, "arith.addf") != 1 {
			t.Errorf("%s: the lane kernel is not one in-order loop of %d steps per thread:\n%s", name, c.steps, lanes)
		}
		if c.rest > 0 {
			// The tail: one more position for each of the first rest lanes.
			tail := kernelBody(t, mlir, ls[2].kernel)
			if n := total(ls[2]); n < c.points*c.rest {
				t.Errorf("%s: the tail kernel runs %d threads, want at least %d x %d", name, n, c.points, c.rest)
			}
			if strings.Contains(tail, "scf.for") || strings.Count(tail, "memref.store") != 1 || strings.Count(tail, "arith.addf") != 1 ||
				!strings.Contains(tail, fmt.Sprintf("%%c%d", c.rest)) {
				t.Errorf("%s: the tail kernel is not one position for each of %d lanes:\n%s", name, c.rest, tail)
			}
		}
		fold := kernelBody(t, mlir, ls[len(ls)-1].kernel)
		if !regexp.MustCompile(`scf\.for %\w+ = %c0 to %c4096 step %c1 iter_args\(%\w+ = %\w+\) -> \(f32\) \{`).MatchString(fold) {
			t.Errorf("%s: the lane fold is not an in-order loop over the 4096 lanes:\n%s", name, fold)
		}
		if n := total(ls[len(ls)-1]); n < c.points {
			t.Errorf("%s: the lane fold runs %d threads for %d result elements", name, n, c.points)
		}
	}
	// No fused multiply-add, and the PTX has the lane kernel's adds.
	ptx := string(gpuMLIR(t, strings.Replace(laneModule(t, "sum", []int64{3, 5000}, []int{1}, false), "@%s(", "@lanes(", 1), "nvidia:sm_90", "lanes", 1, KindPTX).Kernels)
	if strings.Contains(ptx, "fma.") || !strings.Contains(ptx, "add.rn.f32") {
		t.Errorf("the lane reduction's PTX is not add.rn without fma")
	}
}
