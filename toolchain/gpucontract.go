package toolchain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The GPU contraction schedule (docs/gpu.md, "Kernel shape"): each thread
// of a matrix product's contraction kernel computes a register block of up
// to 4 x 4 result elements, sized to divide the result's row and column
// extents. TagGPUContractions marks every niro.contraction generic with its
// block (niro.gpu_block = array<i64: [1,] TM, TN, 0>); the "gpu-contraction"
// schedule (gpuContractionLibrary) tiles each marked op with
// tile_using_forall by that block, so the forall's points (one per block)
// become the kernel's threads and each thread computes its TM x TN block
// element by element as sequential loops (TileGPULoops), each element's
// sum over the contracted axis carried in a register
// (promoteAccumulators). Each element still adds its products one at a
// time, in contracted order, from the fill's zero: the naive loop nest's
// bits.
const gpuContractionSchedule = "gpu-contraction"

func init() {
	schedules[gpuContractionSchedule] = Schedule{Name: gpuContractionSchedule, Library: "gpu-contraction",
		EntryPoint: "niro_gpu_contraction", Text: gpuContractionLibrary()}
}

// gpuBlock returns the register block size for a result extent: the
// largest of 4, 3, 2, 1 dividing it.
func gpuBlock(n int64) int64 {
	for b := int64(4); b > 1; b-- {
		if n%b == 0 {
			return b
		}
	}
	return 1
}

var contractionLineRE = regexp.MustCompile(`iterator_types = \[((?:"parallel", )+)"reduction"\]\} ins\([^)]*\) outs\(%[\w]+ : tensor<([0-9x]+)x[a-z0-9]+>\) attrs =\s+(\{niro\.(?:contraction|mm_e)\})`)

// TagGPUContractions marks each rank-3 (row, column, contracted) or rank-4
// (batch first) niro.contraction generic of mlir-opt's printed module with
// its GPU register block, and each niro.mm_e one (a 1×1 convolution's
// product whose epilogue the host's convolution schedule fuses; the same
// product, emit/conv_nhwc.go). A product whose block would be 1 x 1, or would
// cover the whole result, is left untagged: it keeps the plain kernel (one
// thread per element).
func TagGPUContractions(mlir string) string {
	return contractionLineRE.ReplaceAllStringFunc(mlir, func(s string) string {
		m := contractionLineRE.FindStringSubmatch(s)
		par := strings.Count(m[1], "parallel")
		dims := strings.Split(m[2], "x")
		if (par != 2 && par != 3) || len(dims) != par {
			return s
		}
		ext := make([]int64, par)
		for i, d := range dims {
			ext[i], _ = strconv.ParseInt(d, 10, 64)
		}
		rows, cols := ext[par-2], ext[par-1]
		tm, tn := gpuBlock(rows), gpuBlock(cols)
		if tm*tn == 1 || (tm == rows && tn == cols) {
			return s
		}
		return strings.Replace(s, m[3], fmt.Sprintf("{niro.gpu_block = %s}", gpuBlockAttr(par == 3, tm, tn)), 1)
	})
}

func gpuBlockAttr(batched bool, tm, tn int64) string {
	if batched {
		return fmt.Sprintf("array<i64: 1, %d, %d, 0>", tm, tn)
	}
	return fmt.Sprintf("array<i64: %d, %d, 0>", tm, tn)
}

// gpuContractionLibrary writes the transform library: one match-and-tile
// step per block size TagGPUContractions can choose.
func gpuContractionLibrary() string {
	var b strings.Builder
	b.WriteString(`// The GPU contraction schedule (toolchain/gpucontract.go): every linalg
// generic tagged niro.gpu_block = [1,] TM, TN, 0 is tiled into an scf.forall
// of TM x TN result blocks (one per GPU thread); every element still sums
// in contracted order.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @niro_gpu_contraction(%root: !transform.any_op {transform.readonly}) {
`)
	n := 0
	for _, batched := range []bool{false, true} {
		for tm := int64(1); tm <= 4; tm++ {
			for tn := int64(1); tn <= 4; tn++ {
				if tm*tn == 1 {
					continue
				}
				attr := gpuBlockAttr(batched, tm, tn)
				tiles := strings.TrimSuffix(strings.TrimPrefix(attr, "array<i64: "), ">")
				fmt.Fprintf(&b, `    %%ops%d = transform.structured.match attributes {niro.gpu_block = %s} in %%root : (!transform.any_op) -> !transform.any_op
    transform.foreach %%ops%d : !transform.any_op {
    ^bb0(%%op: !transform.any_op):
      %%t, %%f = transform.structured.tile_using_forall %%op tile_sizes [%s] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
`, n, attr, n, tiles)
				n++
			}
		}
	}
	b.WriteString("    transform.yield\n  }\n}\n")
	return b.String()
}
