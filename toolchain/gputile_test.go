package toolchain

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestChooseGPUTile(t *testing.T) {
	type ax struct {
		threads int
		dim     string
		blocks  int64
		strided bool
	}
	for _, c := range []struct {
		ext  []int64
		want []ax
	}{
		{[]int64{7}, []ax{{256, "x", 1, false}}},
		{[]int64{1000}, []ax{{256, "x", 4, false}}},
		{[]int64{5, 18}, []ax{{8, "y", 1, false}, {32, "x", 1, false}}},
		{[]int64{3, 4, 100}, []ax{{1, "z", 3, false}, {8, "y", 1, false}, {32, "x", 4, false}}},
		{[]int64{2, 3, 4, 5}, []ax{{16, "x", 1, false}, {16, "y", 1, false}, {0, "", 0, false}, {0, "", 0, false}, {1, "z", 20, false}}},
		{[]int64{2, 3, 4, 5, 6}, []ax{{16, "x", 1, false}, {16, "y", 1, false}, {0, "", 0, false}, {0, "", 0, false}, {0, "", 0, false}, {1, "z", 120, false}}},
		// More than 65,535 points on grid z: the blocks stride.
		{[]int64{2, 3, 400, 500}, []ax{{16, "x", 1, false}, {16, "y", 1, false}, {0, "", 0, false}, {0, "", 0, false}, {1, "z", 65535, true}}},
		// An extent not known: the other axes loop in the thread.
		{[]int64{2, 3, -1, 5}, []ax{{16, "x", 1, false}, {16, "y", 1, false}, {0, "", 0, false}, {0, "", 0, false}}},
		// Grid y would need 75,000 blocks of 8 rows: 16 x 16.
		{[]int64{600000, 2}, []ax{{16, "x", 37500, false}, {16, "y", 1, false}}},
		// The last 8-row tile still fits (65,535 x 8 = 524,280 rows).
		{[]int64{524280, 2}, []ax{{8, "y", 65535, false}, {32, "x", 1, false}}},
		// Grid z would need 70,000 blocks: 16 x 16, the third axis in the thread.
		{[]int64{70000, 2, 3}, []ax{{16, "x", 4375, false}, {16, "y", 1, false}, {0, "", 0, false}, {1, "z", 3, false}}},
		// Even 16-wide tiles overflow grid y: the blocks stride.
		{[]int64{1, 1048577, 1, 1}, []ax{{16, "x", 1, false}, {16, "y", 65535, true}, {0, "", 0, false}, {0, "", 0, false}, {1, "z", 1, false}}},
		// An extent not known while compiling: strided, the grid computed at run time.
		{[]int64{-1, 8}, []ax{{8, "y", -1, true}, {32, "x", 1, false}}},
	} {
		got := ChooseGPUTile(c.ext)
		var g []ax
		for _, a := range got.Axes {
			g = append(g, ax{a.Threads, a.Dim, a.Blocks, a.Strided})
		}
		if a := got.Rest; a.Threads > 0 {
			g = append(g, ax{a.Threads, a.Dim, a.Blocks, a.Strided})
		}
		if fmt.Sprint(g) != fmt.Sprint(c.want) {
			t.Errorf("extents %v: got %v, want %v", c.ext, g, c.want)
		}
		if n := got.Threads(); n != 256 && len(c.ext) <= 3 && c.want[0].threads != 16 {
			t.Errorf("extents %v: %d threads a block, want 256", c.ext, n)
		}
	}
}

// launch is one gpu.launch_func: its kernel and its grid and block sizes.
type launch struct {
	kernel          string
	blocks, threads [3]int64
}

var (
	launchFuncRE = regexp.MustCompile(`gpu\.launch_func\s+(?:\[[^\]]*\]\s*)?@\w+::@(\w+) blocks in \((%\w+), (%\w+), (%\w+)\) threads in \((%\w+), (%\w+), (%\w+)\)`)
	indexDefRE   = regexp.MustCompile(`(%\w+) = arith\.constant (\d+) : index`)
)

// launches returns the gpu.launch_func ops of a GPU-dialect module, their
// sizes resolved from the host function's index constants.
func launches(t *testing.T, mlir string) []launch {
	t.Helper()
	host, _, _ := strings.Cut(mlir, "gpu.module @")
	vals := map[string]int64{}
	for _, m := range indexDefRE.FindAllStringSubmatch(host, -1) {
		vals[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	var out []launch
	for _, m := range launchFuncRE.FindAllStringSubmatch(host, -1) {
		l := launch{kernel: m[1]}
		for i := range 3 {
			var ok1, ok2 bool
			l.blocks[i], ok1 = vals[m[2+i]]
			l.threads[i], ok2 = vals[m[5+i]]
			if !ok1 || !ok2 {
				t.Fatalf("launch %s: a size is not a constant: %s", m[1], m[0])
			}
		}
		out = append(out, l)
	}
	return out
}

// kernelBody returns the text of gpu.func @name in a GPU-dialect module.
func kernelBody(t *testing.T, mlir, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(mlir, "    gpu.func @"+name+"(")
	if !ok {
		t.Fatalf("no gpu.func @%s", name)
	}
	body, _, _ := strings.Cut(rest, "\n    }\n")
	return body
}

// elementwiseModule is f(a, b) = (a + b) * a - b over the shape: three
// element-wise generics that fuse into one.
func elementwiseModule(dims []int64) string {
	var s []string
	var d []string
	for i, n := range dims {
		s = append(s, strconv.FormatInt(n, 10))
		d = append(d, fmt.Sprintf("d%d", i))
	}
	ty := "tensor<" + strings.Join(s, "x") + "xf32>"
	m := fmt.Sprintf("affine_map<(%s) -> (%s)>", strings.Join(d, ", "), strings.Join(d, ", "))
	iters := strings.TrimSuffix(strings.Repeat(`"parallel", `, len(dims)), ", ")
	gen := func(res, x, y, op string) string {
		return fmt.Sprintf(`  %%e%[1]s = tensor.empty() : %[2]s
  %%%[1]s = linalg.generic {indexing_maps = [%[3]s, %[3]s, %[3]s], iterator_types = [%[4]s]} ins(%%%[5]s, %%%[6]s : %[2]s, %[2]s) outs(%%e%[1]s : %[2]s) {
  ^bb0(%%x: f32, %%y: f32, %%o: f32):
    %%r = %[7]s %%x, %%y : f32
    linalg.yield %%r : f32
  } -> %[2]s
`, res, ty, m, iters, x, y, op)
	}
	return fmt.Sprintf("func.func @ew(%%a: %[1]s, %%b: %[1]s) -> %[1]s {\n%[2]s%[3]s%[4]s  return %%s3 : %[1]s\n}\n", ty,
		gen("s1", "a", "b", "arith.addf"), gen("s2", "s1", "a", "arith.mulf"), gen("s3", "s2", "b", "arith.subf"))
}

func gpuMLIR(t *testing.T, src, target, entry string, outputs int, kind Kind) *GPUResult {
	t.Helper()
	tc := needTools(t)
	tg, err := ParseGPUTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tc.BuildGPU(context.Background(), GPURequest{
		MLIR: src, Target: tg, Entry: entry, NumOutputs: outputs,
		Pipelines: gpuPipelines(t, string(tg.Vendor)), Emit: kind,
	})
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return res
}

// TestGPULaunchShapes: the block and grid of an element-wise chain's one
// kernel for ranks 1 to 5 and for axes too long for grid y or z.
func TestGPULaunchShapes(t *testing.T) {
	for _, c := range []struct {
		dims            []int64
		blocks, threads [3]int64
		loops           int // scf.for in the kernel (axes run in the thread, strides)
	}{
		{[]int64{1000}, [3]int64{4, 1, 1}, [3]int64{256, 1, 1}, 0},
		{[]int64{20, 100}, [3]int64{4, 3, 1}, [3]int64{32, 8, 1}, 0},
		{[]int64{3, 20, 100}, [3]int64{4, 3, 3}, [3]int64{32, 8, 1}, 0},
		// Rank 4 and 5: 16 x 16 over the first two axes, the others on grid z.
		{[]int64{40, 20, 5, 6}, [3]int64{3, 2, 30}, [3]int64{16, 16, 1}, 0},
		{[]int64{2, 3, 4, 5, 6}, [3]int64{1, 1, 120}, [3]int64{16, 16, 1}, 0},
		// 200,000 points for grid z, which holds 65,535: the blocks stride.
		{[]int64{2, 3, 400, 500}, [3]int64{1, 1, 65535}, [3]int64{16, 16, 1}, 1},
		// Grid y would be 75,000 blocks of 8: 16 x 16, the outer axis on grid x.
		{[]int64{600000, 2}, [3]int64{37500, 1, 1}, [3]int64{16, 16, 1}, 0},
		// Grid z would be 70,000: 16 x 16, the last axis on grid z.
		{[]int64{70000, 2, 3}, [3]int64{4375, 1, 3}, [3]int64{16, 16, 1}, 0},
		// Grid y holds 65,535 of the 65,537 16-wide tiles: each block strides.
		// (The unit axes' loops fold away.)
		{[]int64{1, 1048577, 1, 1}, [3]int64{1, 65535, 1}, [3]int64{16, 16, 1}, 1},
	} {
		name := fmt.Sprint(c.dims)
		mlir := gpuMLIR(t, elementwiseModule(c.dims), "nvidia:sm_90", "ew", 1, KindMLIR).MLIR
		ls := launches(t, mlir)
		if len(ls) != 1 {
			t.Errorf("%s: %d launches, want 1 (the chain fuses into one kernel)", name, len(ls))
			continue
		}
		if ls[0].blocks != c.blocks || ls[0].threads != c.threads {
			t.Errorf("%s: blocks %v threads %v, want blocks %v threads %v", name, ls[0].blocks, ls[0].threads, c.blocks, c.threads)
		}
		body := kernelBody(t, mlir, ls[0].kernel)
		if n := strings.Count(body, "scf.for "); n != c.loops {
			t.Errorf("%s: %d scf.for in the kernel, want %d:\n%s", name, n, c.loops, body)
		}
		if !strings.Contains(body, "scf.if") {
			t.Errorf("%s: no bounds guard in the kernel", name)
		}
		if len(c.dims) == 5 && (strings.Count(body, "arith.divui") != 2 || !strings.Contains(body, "gpu.block_id  z")) {
			t.Errorf("%s: the last three axes are not taken from grid z:\n%s", name, body)
		}
		if c.blocks[1] == 65535 && !strings.Contains(body, "step %c65535") {
			t.Errorf("%s: the blocks do not stride by the grid:\n%s", name, body)
		}
		// One fused body: the add, the multiply and the subtract.
		for _, op := range []string{"arith.addf", "arith.mulf", "arith.subf"} {
			if strings.Count(body, op) != 1 {
				t.Errorf("%s: %d %s in the kernel, want 1", name, strings.Count(body, op), op)
			}
		}
	}
}

// TestGPUMatmulKernels: a matrix product is two kernels, the zero fill and
// the contraction, whose threads each compute a 4 x 4 block (sized to
// divide the result) in contracted order; a product one block covers keeps
// the plain kernel.
func TestGPUMatmulKernels(t *testing.T) {
	for _, c := range []struct {
		batch, m, n, k int
		block          string // the thread's result block: the subview of the result it writes
		blocks         [3]int64
		threads        [3]int64
		blockElems     int // multiply-adds per contracted step in the thread
	}{
		{0, 64, 96, 32, "[4, 4] [1, 1]", [3]int64{1, 2, 1}, [3]int64{32, 8, 1}, 16}, // 16 x 24 threads
		{0, 6, 8, 5, "[3, 4] [1, 1]", [3]int64{1, 1, 1}, [3]int64{32, 8, 1}, 12},
		{0, 10, 7, 5, "[2, 1] [1, 1]", [3]int64{1, 1, 1}, [3]int64{32, 8, 1}, 2},
		{2, 8, 12, 3, "[1, 4, 4] [1, 1, 1]", [3]int64{1, 1, 2}, [3]int64{32, 8, 1}, 16},
		{0, 3, 4, 7, "", [3]int64{1, 1, 1}, [3]int64{32, 8, 1}, 1}, // one block would cover it
	} {
		name := fmt.Sprintf("%dx%dx%dx%d", c.batch, c.m, c.n, c.k)
		src := matmulModule("mm", c.batch, c.m, c.n, c.k, "f32")
		mlir := gpuMLIR(t, src, "nvidia:sm_90", "mm", 1, KindMLIR).MLIR
		ls := launches(t, mlir)
		if len(ls) != 2 {
			t.Fatalf("%s: %d kernels, want 2 (fill, contraction):\n%s", name, len(ls), mlir)
		}
		fill, mm := kernelBody(t, mlir, ls[0].kernel), kernelBody(t, mlir, ls[1].kernel)
		if strings.Contains(fill, "arith.mulf") || !strings.Contains(fill, "memref.store %cst") {
			t.Errorf("%s: the first kernel is not the zero fill:\n%s", name, fill)
		}
		if ls[1].blocks != c.blocks || ls[1].threads != c.threads {
			t.Errorf("%s: contraction blocks %v threads %v, want %v %v", name, ls[1].blocks, ls[1].threads, c.blocks, c.threads)
		}
		if c.block != "" && !regexp.MustCompile(`memref\.subview %arg2\[[^\]]*\] `+regexp.QuoteMeta(c.block)).MatchString(mm) {
			t.Errorf("%s: the contraction's thread does not write a %s block:\n%s", name, c.block, mm)
		}
		if c.block == "" && strings.Contains(mm, "memref.subview") {
			t.Errorf("%s: a product one block covers is blocked:\n%s", name, mm)
		}
		// In contracted order: per step, one multiply then one add per
		// element of the thread's block, the contracted loop sequential in
		// the thread and carrying each element's sum in a register (one
		// store per element, after the loop).
		elems := c.blockElems
		if strings.Count(mm, "arith.mulf") != elems || strings.Count(mm, "arith.addf") != elems || strings.Count(mm, "memref.store") != elems {
			t.Errorf("%s: the contraction kernel is not %d sequential multiply-adds:\n%s", name, elems, mm)
		}
		if !regexp.MustCompile(fmt.Sprintf(`= scf\.for %%\w+ = %%c0 to %%c%d step %%c1 iter_args\(`, c.k)).MatchString(mm) {
			t.Errorf("%s: the contraction's sums are not carried in registers:\n%s", name, mm)
		}
	}
	// The PTX of the blocked product: no fused multiply-add.
	ptx := string(gpuMLIR(t, matmulModule("mm", 0, 64, 96, 32, "f32"), "nvidia:sm_90", "mm", 1, KindPTX).Kernels)
	if strings.Contains(ptx, "fma.") || !strings.Contains(ptx, "mul.rn.f32") || !strings.Contains(ptx, "add.rn.f32") {
		t.Errorf("the blocked product's PTX is not mul.rn + add.rn without fma")
	}
	isa := string(gpuMLIR(t, matmulModule("mm", 0, 64, 96, 32, "f32"), "amd:gfx942", "mm", 1, KindISA).Kernels)
	if m := regexp.MustCompile(`\b(v_fma\w*|v_fmac\w*|v_mad_f32\w*|v_mac_f32\w*|v_pk_fma\w*)`).FindString(isa); m != "" {
		t.Errorf("the blocked product's AMD code has %s", m)
	}
	// The block's multiply-adds pair up into packed multiplies and adds
	// (v_pk_mul_f32, v_pk_add_f32: two lanes, each rounded apart).
	if !regexp.MustCompile(`\bv_(pk_)?mul_f32`).MatchString(isa) || !regexp.MustCompile(`\bv_(pk_)?add_f32`).MatchString(isa) {
		t.Errorf("the blocked product's AMD code has no v_mul_f32/v_add_f32")
	}
}

// TestGPUReductionShape: a reduction generic is a seed kernel and a fold
// kernel with one thread per result element, the reduced axis an in-order
// loop in the thread, whatever the run's length (emit writes a run longer
// than 4096 as a lane reduction instead: TestGPULaneReduction).
func TestGPUReductionShape(t *testing.T) {
	for _, c := range []struct {
		rows, run int64
		blocks    [3]int64
	}{
		{300, 100, [3]int64{2, 1, 1}},
		{3, 10000, [3]int64{1, 1, 1}},
	} {
		src := fmt.Sprintf(`func.func @rs(%%a: tensor<%[1]dx%[2]dxf32>) -> tensor<%[1]dxf32> {
  %%cst = arith.constant 0.000000e+00 : f32
  %%e = tensor.empty() : tensor<%[1]dxf32>
  %%f = linalg.fill ins(%%cst : f32) outs(%%e : tensor<%[1]dxf32>) -> tensor<%[1]dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%%a : tensor<%[1]dx%[2]dxf32>) outs(%%f : tensor<%[1]dxf32>) {
  ^bb0(%%x: f32, %%o: f32):
    %%s = arith.addf %%o, %%x : f32
    linalg.yield %%s : f32
  } -> tensor<%[1]dxf32>
  return %%r : tensor<%[1]dxf32>
}
`, c.rows, c.run)
		mlir := gpuMLIR(t, src, "nvidia:sm_90", "rs", 1, KindMLIR).MLIR
		ls := launches(t, mlir)
		if len(ls) != 2 {
			t.Fatalf("%d x %d: %d kernels, want 2 (seed, fold)", c.rows, c.run, len(ls))
		}
		if ls[1].threads != [3]int64{256, 1, 1} || ls[1].blocks != c.blocks {
			t.Errorf("%d x %d: fold blocks %v threads %v, want %v [256 1 1]", c.rows, c.run, ls[1].blocks, ls[1].threads, c.blocks)
		}
		body := kernelBody(t, mlir, ls[1].kernel)
		// The run in order, its running sum carried in a register: loaded
		// once, stored once.
		if !regexp.MustCompile(fmt.Sprintf(`scf\.for %%\w+ = %%c0 to %%c%d step %%c1 iter_args\(%%\w+ = %%\w+\) -> \(f32\) \{`, c.run)).MatchString(body) ||
			strings.Count(body, "memref.store") != 1 {
			t.Errorf("%d x %d: the fold is not an in-order loop over the run with its sum in a register:\n%s", c.rows, c.run, body)
		}
	}
}

// TestGPUSerialKernels: a computation with no parallel axis (a sum of a
// whole tensor, a rank-0 add) runs in a kernel on one thread, in order,
// rather than on the host against device buffers.
func TestGPUSerialKernels(t *testing.T) {
	src := `func.func @s(%a: tensor<3x100xf32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%a : tensor<3x100xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<f32>
  %r2 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%b : tensor<f32>) outs(%e2 : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r, %r2 : tensor<f32>, tensor<f32>
}
`
	mlir := gpuMLIR(t, src, "nvidia:sm_90", "s", 2, KindMLIR).MLIR
	ls := launches(t, mlir)
	if len(ls) != 3 {
		t.Fatalf("%d kernels, want 3 (seed, fold, product):\n%s", len(ls), mlir)
	}
	for _, l := range ls {
		if l.blocks != [3]int64{1, 1, 1} {
			t.Errorf("%s: blocks %v, want one", l.kernel, l.blocks)
		}
	}
	fold := kernelBody(t, mlir, ls[1].kernel)
	if !regexp.MustCompile(`(?s)scf\.for %\w+ = %c0 to %c3 step %c1 iter_args\([^)]*\) -> \(f32\) \{\s+%\w+ = scf\.for %\w+ = %c0 to %c100 step %c1 iter_args`).MatchString(fold) {
		t.Errorf("the whole-tensor sum is not an in-order loop nest in one thread:\n%s", fold)
	}
	if !strings.Contains(kernelBody(t, mlir, ls[2].kernel), "arith.mulf") {
		t.Errorf("the rank-0 product is not a kernel")
	}
	// A loaded value the host branches on stays on the host: refused.
	src2 := `func.func @c(%p: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.extract %p[] : tensor<i1>
  %r = scf.if %c -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  } else {
    %e = tensor.empty() : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
`
	tc := needTools(t)
	tg, _ := ParseGPUTarget("nvidia:sm_90")
	_, err := tc.BuildGPU(context.Background(), GPURequest{MLIR: src2, Target: tg, Entry: "c", NumOutputs: 1,
		Pipelines: gpuPipelines(t, "nvidia"), Emit: KindMLIR})
	if err == nil || !strings.Contains(err.Error(), "memref.load on the host") {
		t.Errorf("a host branch on a loaded value: error %v, want the host-load refusal", err)
	}
}

// TestTileGPULoopsDynamic: a loop nest whose extents are not constants
// still maps onto the GPU: its grid is computed at run time (at most the
// grid's limit) and each block strides over the tiles.
func TestTileGPULoopsDynamic(t *testing.T) {
	tc := needTools(t)
	src := `module {
  func.func @d(%arg0: memref<?x8xf32>, %arg1: memref<?x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = memref.dim %arg0, %c0 : memref<?x8xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c8) step (%c1, %c1) {
      %x = memref.load %arg0[%i, %j] : memref<?x8xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %arg1[%i, %j] : memref<?x8xf32>
      scf.reduce
    }
    return
  }
}
`
	mapped, err := TileGPULoops(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"arith.ceildivui", "arith.minui", "arith.maxui", "scf.for %niro_p0_k0 = %niro_p0_b0 to %niro_p0_nb0 step %niro_p0_g0"} {
		if !strings.Contains(mapped, want) {
			t.Errorf("the mapped loops lack %q:\n%s", want, mapped)
		}
	}
	out, err := tc.Lower(context.Background(), mapped, gpuPipelines(t, "nvidia").Kernels)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`gpu\.launch_func\s+@\w+::@\w+ blocks in \(%c1, %\w+, %c1\) threads in \(%c32, %c8, %c1\)`).MatchString(out) {
		t.Errorf("no 8 x 32 launch with a computed grid y:\n%s", out)
	}
}

// TestTileGPULoopsEmpty: a loop nest with an empty axis has nothing to do
// and launches nothing.
func TestTileGPULoopsEmpty(t *testing.T) {
	src := `module {
  func.func @e(%arg0: memref<0x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %cst = arith.constant 0.000000e+00 : f32
    scf.parallel (%i, %j) = (%c0, %c0) to (%c0, %c8) step (%c1, %c1) {
      memref.store %cst, %arg0[%i, %j] : memref<0x8xf32>
      scf.reduce
    }
    return
  }
}
`
	out, err := TileGPULoops(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "scf.parallel") || strings.Contains(out, "memref.store") {
		t.Errorf("an empty loop nest is kept:\n%s", out)
	}
}

// TestGPULauncherShapes: the launcher's mgpuLaunchKernel calls carry the
// grid and block sizes (x, y, z each) for ranks 1 to 5.
func TestGPULauncherShapes(t *testing.T) {
	for _, c := range []struct {
		dims []int64
		want string // grid x, y, z, block x, y, z
	}{
		{[]int64{1000}, "i64 4, i64 1, i64 1, i64 256, i64 1, i64 1"},
		{[]int64{20, 100}, "i64 4, i64 3, i64 1, i64 32, i64 8, i64 1"},
		{[]int64{3, 20, 100}, "i64 4, i64 3, i64 3, i64 32, i64 8, i64 1"},
		{[]int64{40, 20, 5, 6}, "i64 3, i64 2, i64 30, i64 16, i64 16, i64 1"},
		{[]int64{2, 3, 4, 5, 6}, "i64 1, i64 1, i64 120, i64 16, i64 16, i64 1"},
	} {
		ll := gpuMLIR(t, elementwiseModule(c.dims), "nvidia:sm_90", "ew", 1, KindLL).LL
		m := regexp.MustCompile(`call void @mgpuLaunchKernel\(ptr %\w+, (i64 \d+, i64 \d+, i64 \d+, i64 \d+, i64 \d+, i64 \d+),`).FindAllStringSubmatch(ll, -1)
		if len(m) != 1 || m[0][1] != c.want {
			t.Errorf("%v: launches %v, want one with %s", c.dims, m, c.want)
		}
	}
}
