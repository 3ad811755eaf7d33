package toolchain

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hostTail lowers a module of mapped parallel loops (TileGPULoops' output)
// for the CPU: each scf.parallel becomes a sequential loop nest, so every
// (block, thread) pair of the launch runs in turn, guards and strides
// included.
var hostTail = Pipeline{Name: "gpu-on-host", OptLevel: 2, Steps: []Step{
	{Pass: "convert-scf-to-cf"}, {Pass: "expand-strided-metadata"}, {Pass: "lower-affine"},
	{Pass: "finalize-memref-to-llvm"}, {Pass: "convert-math-to-llvm"}, {Pass: "convert-math-to-libm"},
	{Pass: "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}"}, {Pass: "convert-arith-to-llvm"},
	{Pass: "convert-cf-to-llvm"}, {Pass: "convert-index-to-llvm"}, {Pass: "convert-ub-to-llvm"},
	{Pass: "reconcile-unrealized-casts"},
}}

var tensorArgRE = regexp.MustCompile(`tensor<([0-9x]*)x?f32>`)

// elems returns the element count of a tensor type's shape ("3x4" -> 12,
// "" -> 1).
func elems(shape string) int64 {
	n := int64(1)
	for _, d := range strings.Split(shape, "x") {
		if d != "" {
			v, _ := strconv.ParseInt(d, 10, 64)
			n *= v
		}
	}
	return n
}

// TestGPUKernelsOnHost runs the GPU kernels' loop nests, exactly as
// TileGPULoops maps them onto blocks and threads (tiles, bounds guards,
// striding grids, grid-z axes, contraction blocks, one-thread kernels), on
// the CPU, and checks they give the host pipeline's bits. No GPU runs
// here: this checks the index arithmetic and the order of every sum, not
// the hardware.
func TestGPUKernelsOnHost(t *testing.T) {
	tc := needTools(t)
	reduce := func(rows, run int64) string {
		return fmt.Sprintf(`func.func @%%s(%%a: tensor<%[1]dx%[2]dxf32>) -> tensor<%[1]dxf32> {
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
`, rows, run)
	}
	whole := `func.func @%s(%a: tensor<3x1000xf32>) -> tensor<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%a : tensor<3x1000xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
`
	conv := `func.func @%s(%in: tensor<2x3x10x11xf32>, %w: tensor<5x3x3x2xf32>) -> tensor<2x5x8x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x5x8x10xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x5x8x10xf32>) -> tensor<2x5x8x10xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<2x3x10x11xf32>, tensor<5x3x3x2xf32>) outs(%f : tensor<2x5x8x10xf32>) -> tensor<2x5x8x10xf32>
  return %r : tensor<2x5x8x10xf32>
}
`
	cases := map[string]string{
		"conv":      conv, // rank 4: 16 x 16 over N and C, H x W on grid z, the window in the thread
		"r1":        elementwiseModule([]int64{1000}),
		"r2":        elementwiseModule([]int64{20, 100}),
		"r3":        elementwiseModule([]int64{3, 20, 100}),
		"r4":        elementwiseModule([]int64{40, 20, 5, 6}),
		"r5":        elementwiseModule([]int64{2, 3, 4, 5, 6}),
		"r2long":    elementwiseModule([]int64{600000, 2}),      // 16 x 16 for grid y's limit
		"r4stridez": elementwiseModule([]int64{2, 3, 400, 500}), // grid z strides
		"mm4x4":     matmulModule("%s", 0, 64, 96, 32, "f32"),   // 4 x 4 blocks
		"mm3x4":     matmulModule("%s", 0, 6, 8, 5, "f32"),      // 3 x 4
		"mm2x1":     matmulModule("%s", 0, 10, 7, 19, "f32"),    // 2 x 1
		"bmm":       matmulModule("%s", 2, 8, 12, 3, "f32"),     // batched 1 x 4 x 4
		"mmplain":   matmulModule("%s", 0, 3, 4, 7, "f32"),      // one block would cover it
		"mmodd":     matmulModule("%s", 0, 37, 53, 129, "f32"),  // 1 x 1: the plain kernel
		"red":       reduce(300, 100),
		"redlong":   reduce(3, 10000),
		"whole":     whole,
		// Runs longer than the 4096 lanes, as emit writes them: partials
		// with a lane axis, then the lanes in order (TestGPULaneReduction).
		"lanes":      laneModule(t, "sum", []int64{3, 5000}, []int{1}, false),
		"lanespool":  laneModule(t, "max", []int64{1, 4, 112, 112}, []int{2, 3}, true),
		"laneswhole": laneModule(t, "sum", []int64{70000}, []int{0}, false),
	}
	r := rand.New(rand.NewPCG(10, 11))
	dir := t.TempDir()
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			fn := "k_" + name
			src := strings.Replace(src, "@ew(", "@%s(", 1)
			src = strings.Replace(src, "@%s(", "@"+fn+"(", 1)
			// The signature's tensors: inputs, then the one result.
			sig := src[:strings.Index(src, "{")]
			types := tensorArgRE.FindAllStringSubmatch(sig, -1)
			var call ioCall
			call.fn = fn
			for i, ty := range types {
				n := elems(ty[1])
				if i == len(types)-1 {
					call.outBytes = append(call.outBytes, 4*n)
					continue
				}
				p := filepath.Join(dir, fmt.Sprintf("%s_in%d.bin", name, i))
				if err := os.WriteFile(p, encodeF32(randomValues(r, int(n))), 0o644); err != nil {
					t.Fatal(err)
				}
				call.inputs = append(call.inputs, p)
				call.inBytes = append(call.inBytes, 4*n)
			}
			want, got := runGPUOnHost(t, tc, src, call, dir)
			if bad := diffBits(got, want, false); len(bad) > 0 {
				t.Errorf("%d elements differ from the host's bits (first at %d)", len(bad), bad[0])
			}
		})
	}
}
