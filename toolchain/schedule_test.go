package toolchain

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// matmulCase is one contraction the schedule must get exactly right.
type matmulCase struct {
	batch, m, n, k int
	elem           string // accumulator and result: f32 or f64
	in             string // operands, when not elem: f16 or bf16 (with elem f32)
	transB         bool   // the right operand arrives as N x K, transposed by a generic first
}

func (c matmulCase) String() string {
	s := fmt.Sprintf("%dx%dx%d_%s", c.m, c.n, c.k, c.elem)
	if c.in != "" {
		s = fmt.Sprintf("%dx%dx%d_%s_%s", c.m, c.n, c.k, c.in, c.elem)
	}
	if c.batch > 0 {
		s = fmt.Sprintf("b%d_%s", c.batch, s)
	}
	if c.transB {
		s += "_transB"
	}
	return s
}

// transposedRHS rewrites a module from mixedMatmulModule so that its right
// operand arrives as [batch x] N x K and is transposed to K x N by a
// generic (the form niro emits for Gemm's transB) before the contraction.
func transposedRHS(module string, batch, m, n, k int, in string) string {
	pre := ""
	if batch > 0 {
		pre = fmt.Sprintf("%dx", batch)
	}
	kn := fmt.Sprintf("tensor<%s%dx%dx%s>", pre, k, n, in)
	nk := fmt.Sprintf("tensor<%s%dx%dx%s>", pre, n, k, in)
	maps := `[affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]`
	if batch > 0 {
		maps = `[affine_map<(b, d0, d1) -> (b, d1, d0)>, affine_map<(b, d0, d1) -> (b, d0, d1)>], iterator_types = ["parallel", "parallel", "parallel"]`
	}
	module = strings.Replace(module, "%arg1: "+kn, "%arg1t: "+nk, 1)
	i := strings.Index(module, "{\n") + 2
	tr := fmt.Sprintf(`  %%t0 = tensor.empty() : %[1]s
  %%arg1 = linalg.generic {indexing_maps = %[3]s}
      ins(%%arg1t : %[2]s) outs(%%t0 : %[1]s) {
  ^bb0(%%x: %[4]s, %%y: %[4]s):
    linalg.yield %%x : %[4]s
  } -> %[1]s
`, kn, nk, maps, in)
	return module[:i] + tr + module[i:]
}

// width is the register block's column count: 64 bytes of elements.
func (c matmulCase) width() int {
	if c.elem == "f64" {
		return 8
	}
	return 16
}

// runMatmuls lowers one module holding a function per case (@mm_I for
// cases[I]) through p, runs each on random inputs with mlir-runner and
// returns the lowered module and, per case, the result's bits next to the
// naive loop nest's.
func runMatmuls(t *testing.T, tc *Toolchain, p Pipeline, cases []matmulCase, seed uint64) (lowered string, got, want [][]uint64) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	var module strings.Builder
	var calls []ioCall
	type data struct{ a, b []float64 }
	inputs := make([]data, len(cases))
	for i, c := range cases {
		batches := max(c.batch, 1)
		var a, b []float64
		size, encode, inSize := int64(4), encodeF32, int64(4)
		switch {
		case c.in == "f16" || c.in == "bf16":
			a = randomHalves(r, batches*c.m*c.k, c.in == "bf16")
			b = randomHalves(r, batches*c.k*c.n, c.in == "bf16")
			encode, inSize = encodeF16, 2
			if c.in == "bf16" {
				encode = encodeBF16
			}
		case c.elem == "f64":
			a, b = randomValues(r, batches*c.m*c.k), randomValues(r, batches*c.k*c.n)
			size, encode, inSize = 8, encodeF64, 8
		default:
			a, b = randomValues(r, batches*c.m*c.k), randomValues(r, batches*c.k*c.n)
		}
		inputs[i] = data{a, b}
		pa := filepath.Join(dir, fmt.Sprintf("a%d.bin", i))
		pb := filepath.Join(dir, fmt.Sprintf("b%d.bin", i))
		pc := filepath.Join(dir, fmt.Sprintf("c%d.bin", i))
		if err := os.WriteFile(pa, encode(a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pb, encode(b), 0o644); err != nil {
			t.Fatal(err)
		}
		in := c.in
		if in == "" {
			in = c.elem
		}
		mod := mixedMatmulModule(fmt.Sprintf("mm_%d", i), c.batch, c.m, c.n, c.k, in, c.elem)
		if c.transB {
			mod = transposedRHS(mod, c.batch, c.m, c.n, c.k, in)
		}
		module.WriteString(mod)
		calls = append(calls, ioCall{
			fn:     fmt.Sprintf("mm_%d", i),
			inputs: []string{pa, pb}, outputs: []string{pc},
			inBytes:  []int64{int64(len(a)) * inSize, int64(len(b)) * inSize},
			outBytes: []int64{int64(batches*c.m*c.n) * size},
		})
	}
	lowered, err := tc.Lower(ctx, module.String(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Run(ctx, joinModule(t, lowered, ioMain(lowered, calls, 0)), RunOptions{OptLevel: p.OptLevel}); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		out, err := os.ReadFile(calls[i].outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(out)) != calls[i].outBytes[0] {
			t.Fatalf("%v: result has %d bytes, want %d", c, len(out), calls[i].outBytes[0])
		}
		var g, w []uint64
		sa, sb := c.m*c.k, c.k*c.n
		for bi := 0; bi < max(c.batch, 1); bi++ {
			ab, bb := inputs[i].a[bi*sa:(bi+1)*sa], inputs[i].b[bi*sb:(bi+1)*sb]
			if c.transB { // bb is N x K
				t := make([]float64, len(bb))
				for r := 0; r < c.k; r++ {
					for col := 0; col < c.n; col++ {
						t[r*c.n+col] = bb[col*c.k+r]
					}
				}
				bb = t
			}
			if c.elem == "f64" {
				w = append(w, naiveF64(ab, bb, c.m, c.n, c.k)...)
			} else {
				for _, x := range naiveF32(ab, bb, c.m, c.n, c.k) {
					w = append(w, uint64(x))
				}
			}
		}
		for j := 0; j < len(out); {
			if c.elem == "f64" {
				g = append(g, binary.LittleEndian.Uint64(out[j:]))
				j += 8
			} else {
				g = append(g, uint64(binary.LittleEndian.Uint32(out[j:])))
				j += 4
			}
		}
		got, want = append(got, g), append(want, w)
	}
	return lowered, got, want
}

// loweredFunc returns the text of llvm.func @name in a lowered module.
func loweredFunc(lowered, name string) string {
	i := strings.Index(lowered, "llvm.func @"+name+"(")
	if i < 0 {
		return ""
	}
	rest := lowered[i+1:]
	if j := strings.Index(rest, "llvm.func @"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// compareBits reports the first few elements whose bits differ.
func compareBits(t *testing.T, c matmulCase, got, want []uint64) {
	t.Helper()
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("%v: element %d: got bits %#x, naive loop nest gives %#x", c, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%v: %d of %d elements differ from the naive loop nest", c, bad, len(want))
	}
}

// TestScheduleExact checks that scheduled contractions have exactly the
// bits of the naive loop nest: sizes the register block does and does not
// divide, f32 and f64, a contracted extent above the cache block, batched
// products, and every column remainder and row count; and that the
// schedule did fire (full-width vector multiplies in the output) without
// fusing multiply and add.
func TestScheduleExact(t *testing.T) {
	tc := needTools(t)
	host := pipeline(t, "host")
	cases := []matmulCase{
		{m: 37, n: 53, k: 29, elem: "f32"},
		{m: 37, n: 53, k: 29, elem: "f64"},
		{m: 64, n: 48, k: 40, elem: "f32"}, // the block divides both result axes
		{m: 16, n: 24, k: 9, elem: "f64"},  // likewise, f64
		{m: 9, n: 35, k: 300, elem: "f32"}, // contracted extent > the 128 cache block
		{m: 3, n: 5, k: 7, elem: "f32"},    // smaller than one block
		{m: 4, n: 16, k: 8, elem: "f32"},   // exactly one block
		{m: 5, n: 17, k: 129, elem: "f32"}, // a contracted remainder of one
		{m: 9, n: 8, k: 257, elem: "f64"},
		{m: 8, n: 32, k: 1, elem: "f32"}, // nothing to contract but one product
		{batch: 3, m: 9, n: 20, k: 7, elem: "f32"},
		{batch: 2, m: 5, n: 12, k: 6, elem: "f64"},
		// Half precision, widened in the body and accumulated in f32.
		{m: 13, n: 37, k: 150, elem: "f32", in: "f16"},
		{m: 6, n: 20, k: 9, elem: "f32", in: "bf16"},
		{batch: 2, m: 5, n: 17, k: 4, elem: "f32", in: "f16"},
		// More rows than the MC = 256 row block: a full block and a
		// remainder of 1, of 88, of 257 (itself a block and a row), of a
		// multiple of 4; with contracted remainders; f64, batched, half.
		{m: 257, n: 263, k: 300, elem: "f32"},
		{m: 600, n: 70, k: 260, elem: "f32"},
		{m: 513, n: 33, k: 129, elem: "f32"},
		{m: 512, n: 16, k: 128, elem: "f32"}, // every loop divides
		{m: 260, n: 35, k: 513, elem: "f32"}, // contracted remainder of 1 past two f32 KC blocks
		{m: 8, n: 16, k: 257, elem: "f32", in: "f16"},
		{batch: 2, m: 9, n: 17, k: 300, elem: "f32"},
		{m: 259, n: 17, k: 131, elem: "f64"},
		{m: 520, n: 9, k: 5, elem: "f64"},
		{batch: 2, m: 300, n: 20, k: 130, elem: "f32"},
		{batch: 3, m: 261, n: 9, k: 5, elem: "f64"},
		{m: 270, n: 19, k: 140, elem: "f32", in: "bf16"},
		{batch: 2, m: 258, n: 18, k: 3, elem: "f32", in: "f16"},
		// A right operand transposed first (Gemm's transB): the transpose
		// is tiled, the contraction packs its result.
		{m: 37, n: 53, k: 29, elem: "f32", transB: true},
		{m: 270, n: 40, k: 150, elem: "f32", transB: true},
		{m: 9, n: 19, k: 17, elem: "f64", transB: true},
		{batch: 2, m: 7, n: 33, k: 20, elem: "f32", transB: true},
	}
	// Every column remainder and every row count.
	for n := 1; n <= 33; n++ {
		cases = append(cases, matmulCase{m: 5, n: n, k: 3, elem: "f32"})
	}
	for n := 1; n <= 17; n++ {
		cases = append(cases, matmulCase{m: 5, n: n, k: 3, elem: "f64"})
	}
	for m := 1; m <= 9; m++ {
		cases = append(cases, matmulCase{m: m, n: 16, k: 2, elem: "f32"})
	}
	lowered, got, want := runMatmuls(t, tc, host, cases, 1)
	for _, bad := range []string{"llvm.intr.fma", "llvm.intr.fmuladd", "contract"} {
		if strings.Contains(lowered, bad) {
			t.Errorf("lowered module contains %q", bad)
		}
	}
	for i, c := range cases {
		compareBits(t, c, got[i], want[i])
		vec := fmt.Sprintf("vector<%dx%s>", c.width(), c.elem)
		if c.n >= c.width() && !regexp.MustCompile(`llvm\.fmul .*: `+regexp.QuoteMeta(vec)).MatchString(loweredFunc(lowered, fmt.Sprintf("mm_%d", i))) {
			t.Errorf("%v: no %s multiply in the lowered function: the schedule did not fire", c, vec)
		}
	}
}

// TestNaiveExact checks the host-O0 pipeline (no schedule) against the same
// reference, so that the reference itself is known to be the naive nest.
func TestNaiveExact(t *testing.T) {
	tc := needTools(t)
	cases := []matmulCase{{m: 37, n: 53, k: 29, elem: "f32"}, {m: 6, n: 7, k: 8, elem: "f64"}}
	lowered, got, want := runMatmuls(t, tc, pipeline(t, "host-O0"), cases, 7)
	for i, c := range cases {
		compareBits(t, c, got[i], want[i])
	}
	if strings.Contains(lowered, "vector<") {
		t.Errorf("host-O0 output has vector types; it should hold the naive loop nest")
	}
}

// TestNoFMA compiles scheduled contractions for the host CPU (which has
// FMA here) and checks that no multiply-add was fused on the way: not in
// the LLVM IR, not in the assembly.
func TestNoFMA(t *testing.T) {
	tc := needTools(t)
	ctx := context.Background()
	host := pipeline(t, "host")
	for _, c := range []struct {
		name, elem, module string
	}{
		{"f32", "f32", matmulModule("matmul", 0, 37, 53, 29, "f32")},
		{"f64", "f64", matmulModule("matmul", 0, 37, 53, 29, "f64")},
		// Past the MC row block, with remainders everywhere.
		{"f32_rows300", "f32", matmulModule("matmul", 0, 300, 53, 140, "f32")},
		{"f64_rows300", "f64", matmulModule("matmul", 0, 300, 21, 140, "f64")},
		{"f32_batched", "f32", matmulModule("matmul", 2, 270, 20, 130, "f32")},
		{"f16", "f32", mixedMatmulModule("matmul", 0, 270, 37, 150, "f16", "f32")},
		{"f32_transB", "f32", transposedRHS(matmulModule("matmul", 0, 270, 40, 150, "f32"), 0, 270, 40, 150, "f32")},
	} {
		elem := c.name
		res, err := tc.Build(ctx, BuildRequest{
			MLIR:     c.module,
			Pipeline: host,
			Emit:     []Kind{KindLL, KindAsm},
		})
		if err != nil {
			t.Fatalf("%s: %v", elem, err)
		}
		for _, bad := range []string{"fma", "fmuladd", " contract "} {
			if strings.Contains(res.LL, bad) {
				t.Errorf("%s: LLVM IR contains %q", elem, bad)
			}
		}
		asm := string(res.Asm)
		if m := regexp.MustCompile(`(?m)^\s*vf(n?)m(add|sub)\S*`).FindString(asm); m != "" {
			t.Errorf("%s: assembly contains a fused multiply-add: %s", elem, strings.TrimSpace(m))
		}
		suffix := map[string]string{"f32": "ps", "f64": "pd"}[c.elem]
		if !strings.Contains(asm, "vmul"+suffix) || !strings.Contains(asm, "vadd"+suffix) {
			t.Errorf("%s: assembly lacks vmul%s/vadd%s: the block was not vectorized", elem, suffix, suffix)
		}
	}
}

// dynamicHalfModule is a matmul with dynamic row and column extents over
// half-precision operands (in: f16 or bf16) accumulated in f32.
func dynamicHalfModule(name, in string) string {
	return fmt.Sprintf(`func.func @%[1]s(%%arg0: tensor<?x29x%[2]s>, %%arg1: tensor<29x?x%[2]s>) -> tensor<?x?xf32> {
  %%c0 = arith.constant 0 : index
  %%c1 = arith.constant 1 : index
  %%m = tensor.dim %%arg0, %%c0 : tensor<?x29x%[2]s>
  %%n = tensor.dim %%arg1, %%c1 : tensor<29x?x%[2]s>
  %%0 = tensor.empty(%%m, %%n) : tensor<?x?xf32>
  %%cst = arith.constant 0.000000e+00 : f32
  %%1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%%cst : f32) outs(%%0 : tensor<?x?xf32>) {
  ^bb0(%%in: f32, %%out: f32):
    linalg.yield %%in : f32
  } -> tensor<?x?xf32>
  %%2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%%arg0, %%arg1 : tensor<?x29x%[2]s>, tensor<29x?x%[2]s>) outs(%%1 : tensor<?x?xf32>) attrs = {niro.contraction} {
  ^bb0(%%x: %[2]s, %%y: %[2]s, %%out: f32):
    %%a = arith.extf %%x : %[2]s to f32
    %%b = arith.extf %%y : %[2]s to f32
    %%3 = arith.mulf %%a, %%b : f32
    %%4 = arith.addf %%out, %%3 : f32
    linalg.yield %%4 : f32
  } -> tensor<?x?xf32>
  return %%2 : tensor<?x?xf32>
}
`, name, in)
}

// TestScheduleDynamicHalf lowers half-precision products with dynamic row
// and column extents through the host pipeline: their panels are packed
// (padded), which gives every leftover block a static shape, so the
// schedule vectorizes them (it used to fail with "Attempted to vectorize").
func TestScheduleDynamicHalf(t *testing.T) {
	tc := needTools(t)
	for _, in := range []string{"f16", "bf16"} {
		lowered, err := tc.Lower(context.Background(), dynamicHalfModule("mm", in), pipeline(t, "host"))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !regexp.MustCompile(`llvm\.fmul .*: vector<16xf32>`).MatchString(lowered) {
			t.Errorf("%s: no vector<16xf32> multiply in the lowered module: the schedule did not fire", in)
		}
		for _, bad := range []string{"llvm.intr.fma", "llvm.intr.fmuladd"} {
			if strings.Contains(lowered, bad) {
				t.Errorf("%s: lowered module contains %q", in, bad)
			}
		}
	}
}
