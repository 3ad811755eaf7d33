package toolchain

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

var (
	sharedOnce sync.Once
	sharedTC   *Toolchain
	sharedErr  error
)

// needTools returns the discovered toolchain. Without the tools the test
// is skipped, unless NIRO_REQUIRE_TOOLS is set, when it fails.
func needTools(t testing.TB) *Toolchain {
	t.Helper()
	sharedOnce.Do(func() {
		sharedTC, sharedErr = Find(context.Background(), FindOptions{})
		if sharedTC != nil {
			sharedTC.Progress = nil
		}
	})
	if sharedErr != nil {
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
			t.Fatalf("LLVM/MLIR tools required (NIRO_REQUIRE_TOOLS is set): %v", sharedErr)
		}
		t.Skipf("LLVM/MLIR tools not found: %v", sharedErr)
	}
	// A copy, so that tests may set KeepTemps or CPU, or drop a tool.
	tc := *sharedTC
	tc.tools = maps.Clone(sharedTC.tools)
	return &tc
}

// repoPipelines parses passes.txt at the repository root.
func repoPipelines(t testing.TB) Pipelines {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "passes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParsePipelines(string(text))
	if err != nil {
		t.Fatalf("passes.txt: %v", err)
	}
	return ps
}

func pipeline(t testing.TB, name string) Pipeline {
	t.Helper()
	p, ok := repoPipelines(t).Lookup(name)
	if !ok {
		t.Fatalf("passes.txt has no pipeline %s", name)
	}
	return p
}

// matmulModule returns a function @name computing A (m x k) times B (k x n)
// in the form niro emits: a fill generic and a contraction generic tagged
// niro.contraction. With batch > 0 the operands carry a leading batch axis.
func matmulModule(name string, batch, m, n, k int, elem string) string {
	return mixedMatmulModule(name, batch, m, n, k, elem, elem)
}

// mixedMatmulModule is matmulModule with operands of element type in and an
// accumulator and result of type acc; when they differ the body widens the
// operands with arith.extf, as niro emits half-precision products.
func mixedMatmulModule(name string, batch, m, n, k int, in, acc string) string {
	shape := func(elem string, dims ...int) string {
		var b strings.Builder
		b.WriteString("tensor<")
		if batch > 0 {
			fmt.Fprintf(&b, "%dx", batch)
		}
		for _, d := range dims {
			fmt.Fprintf(&b, "%dx", d)
		}
		b.WriteString(elem + ">")
		return b.String()
	}
	ta, tb, tc := shape(in, m, k), shape(in, k, n), shape(acc, m, n)
	body := `^bb0(%in: ` + in + `, %in_0: ` + in + `, %out: ` + acc + `):
    %3 = arith.mulf %in, %in_0 : ` + acc
	if in != acc {
		body = `^bb0(%x: ` + in + `, %y: ` + in + `, %out: ` + acc + `):
    %in = arith.extf %x : ` + in + ` to ` + acc + `
    %in_0 = arith.extf %y : ` + in + ` to ` + acc + `
    %3 = arith.mulf %in, %in_0 : ` + acc
	}
	fillMaps := `[affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]`
	fillIters := `["parallel", "parallel"]`
	maps := `[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]`
	iters := `["parallel", "parallel", "reduction"]`
	if batch > 0 {
		fillMaps = `[affine_map<(b, d0, d1) -> ()>, affine_map<(b, d0, d1) -> (b, d0, d1)>]`
		fillIters = `["parallel", "parallel", "parallel"]`
		maps = `[affine_map<(b, d0, d1, d2) -> (b, d0, d2)>, affine_map<(b, d0, d1, d2) -> (b, d2, d1)>, affine_map<(b, d0, d1, d2) -> (b, d0, d1)>]`
		iters = `["parallel", "parallel", "parallel", "reduction"]`
	}
	return fmt.Sprintf(`func.func @%[1]s(%%arg0: %[2]s, %%arg1: %[3]s) -> %[4]s {
  %%0 = tensor.empty() : %[4]s
  %%cst = arith.constant 0.000000e+00 : %[5]s
  %%1 = linalg.generic {indexing_maps = %[6]s, iterator_types = %[7]s}
      ins(%%cst : %[5]s) outs(%%0 : %[4]s) {
  ^bb0(%%in: %[5]s, %%out: %[5]s):
    linalg.yield %%in : %[5]s
  } -> %[4]s
  %%2 = linalg.generic {indexing_maps = %[8]s, iterator_types = %[9]s}
      ins(%%arg0, %%arg1 : %[2]s, %[3]s) outs(%%1 : %[4]s) attrs = {niro.contraction} {
  %[10]s
    %%4 = arith.addf %%out, %%3 : %[5]s
    linalg.yield %%4 : %[5]s
  } -> %[4]s
  return %%2 : %[4]s
}
`, name, ta, tb, tc, acc, fillMaps, fillIters, maps, iters, body)
}

// mlirString returns s as an MLIR string literal body, NUL-terminated.
func mlirString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-+", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\%02X`, c)
		}
	}
	b.WriteString(`\00`)
	return b.String()
}

// ioCall is one call ioMain makes: fn gets a fresh buffer per input file
// (read from it) and per output (written to its file afterwards), inputs
// first, in the bare-pointer ABI.
type ioCall struct {
	fn                string
	inputs, outputs   []string
	inBytes, outBytes []int64
}

// ioMain returns an llvm.func @main, plus the globals and declarations it
// needs, that makes each call in turn. With timed > 0 it then repeats the
// last call timed times, printing each call's seconds on a line of its own.
// lowered is the module it joins, so that nothing is declared twice.
func ioMain(lowered string, calls []ioCall, timed int) string {
	var b strings.Builder
	declare := func(name, sig string) {
		if !strings.Contains(lowered, "@"+name+"(") {
			fmt.Fprintf(&b, "llvm.func @%s%s\n", name, sig)
		}
	}
	declare("fopen", "(!llvm.ptr, !llvm.ptr) -> !llvm.ptr")
	declare("fread", "(!llvm.ptr, i64, i64, !llvm.ptr) -> i64")
	declare("fwrite", "(!llvm.ptr, i64, i64, !llvm.ptr) -> i64")
	declare("fclose", "(!llvm.ptr) -> i32")
	declare("aligned_alloc", "(i64, i64) -> !llvm.ptr")
	if timed > 0 {
		declare("rtclock", "() -> f64")
		declare("printF64", "(f64)")
		declare("printNewline", "()")
	}
	global := func(name, s string) {
		fmt.Fprintf(&b, "llvm.mlir.global internal constant @%s(\"%s\") {addr_space = 0 : i32} : !llvm.array<%d x i8>\n",
			name, mlirString(s), len(s)+1)
	}
	global("niro_io_rb", "rb")
	global("niro_io_wb", "wb")
	for ci, c := range calls {
		for i, p := range c.inputs {
			global(fmt.Sprintf("niro_io_c%d_in%d", ci, i), p)
		}
		for i, p := range c.outputs {
			global(fmt.Sprintf("niro_io_c%d_out%d", ci, i), p)
		}
	}
	b.WriteString("llvm.func @main() {\n")
	b.WriteString("  %one = llvm.mlir.constant(1 : i64) : i64\n")
	b.WriteString("  %align = llvm.mlir.constant(64 : i64) : i64\n")
	b.WriteString("  %rb = llvm.mlir.addressof @niro_io_rb : !llvm.ptr\n")
	b.WriteString("  %wb = llvm.mlir.addressof @niro_io_wb : !llvm.ptr\n")
	file := func(v, mode, fn string) {
		fmt.Fprintf(&b, "  %%%s_path = llvm.mlir.addressof @niro_io_%s : !llvm.ptr\n", v, v)
		fmt.Fprintf(&b, "  %%%s_f = llvm.call @fopen(%%%s_path, %%%s) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr\n", v, v, mode)
		fmt.Fprintf(&b, "  %%%s_rw = llvm.call @%s(%%%s, %%one, %%%s_n, %%%s_f) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64\n", v, fn, v, v, v)
		fmt.Fprintf(&b, "  %%%s_c = llvm.call @fclose(%%%s_f) : (!llvm.ptr) -> i32\n", v, v)
	}
	var call string
	for ci, c := range calls {
		var args []string
		buffer := func(v string, size int64) {
			// aligned_alloc wants a multiple of the alignment.
			fmt.Fprintf(&b, "  %%%s_n = llvm.mlir.constant(%d : i64) : i64\n", v, size)
			fmt.Fprintf(&b, "  %%%s_cap = llvm.mlir.constant(%d : i64) : i64\n", v, (size+63)/64*64)
			fmt.Fprintf(&b, "  %%%s = llvm.call @aligned_alloc(%%align, %%%s_cap) : (i64, i64) -> !llvm.ptr\n", v, v)
			args = append(args, "%"+v)
		}
		for i := range c.inputs {
			v := fmt.Sprintf("c%d_in%d", ci, i)
			buffer(v, c.inBytes[i])
			file(v, "rb", "fread")
		}
		for i := range c.outputs {
			buffer(fmt.Sprintf("c%d_out%d", ci, i), c.outBytes[i])
		}
		types := strings.TrimSuffix(strings.Repeat("!llvm.ptr, ", len(args)), ", ")
		call = fmt.Sprintf("  llvm.call @%s(%s) : (%s) -> ()\n", c.fn, strings.Join(args, ", "), types)
		b.WriteString(call)
		for i := range c.outputs {
			file(fmt.Sprintf("c%d_out%d", ci, i), "wb", "fwrite")
		}
	}
	for r := 0; r < timed; r++ {
		fmt.Fprintf(&b, "  %%t%d_0 = llvm.call @rtclock() : () -> f64\n", r)
		b.WriteString(call)
		fmt.Fprintf(&b, "  %%t%d_1 = llvm.call @rtclock() : () -> f64\n", r)
		fmt.Fprintf(&b, "  %%t%d = llvm.fsub %%t%d_1, %%t%d_0 : f64\n", r, r, r)
		fmt.Fprintf(&b, "  llvm.call @printF64(%%t%d) : (f64) -> ()\n", r)
		b.WriteString("  llvm.call @printNewline() : () -> ()\n")
	}
	b.WriteString("  llvm.return\n}\n")
	return b.String()
}

// joinModule inserts extra at the end of the printed module text.
func joinModule(t testing.TB, module, extra string) string {
	t.Helper()
	trimmed := strings.TrimRight(module, " \t\n")
	if !strings.HasSuffix(trimmed, "}") {
		t.Fatalf("lowered module does not end with }: %q", trimmed[max(0, len(trimmed)-80):])
	}
	return trimmed[:len(trimmed)-1] + extra + "}\n"
}

// randomValues returns n normally distributed values with varied
// magnitudes, so that products and sums round.
func randomValues(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64() * math.Exp2(float64(r.IntN(7)-3))
	}
	return v
}

// randomHalves returns n random values exactly representable in f16 (or,
// with bf16 set, in bf16), with exponents in [-6, 6].
func randomHalves(r *rand.Rand, n int, bf16 bool) []float64 {
	v := make([]float64, n)
	mant := 10
	if bf16 {
		mant = 7
	}
	for i := range v {
		f := (1 + float64(r.IntN(1<<mant))/float64(int(1)<<mant)) * math.Exp2(float64(r.IntN(13)-6))
		if r.IntN(2) == 1 {
			f = -f
		}
		v[i] = f
	}
	return v
}

// encodeF16 encodes values exactly representable in f16 (normal numbers).
func encodeF16(v []float64) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		bits := math.Float32bits(float32(x))
		sign := uint16(bits>>16) & 0x8000
		exp := int(bits>>23&0xff) - 127 + 15
		mant := uint16(bits>>13) & 0x3ff
		binary.LittleEndian.PutUint16(out[2*i:], sign|uint16(exp)<<10|mant)
	}
	return out
}

// encodeBF16 encodes values exactly representable in bf16.
func encodeBF16(v []float64) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(math.Float32bits(float32(x))>>16))
	}
	return out
}

func encodeF32(v []float64) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(x)))
	}
	return out
}

func encodeF64(v []float64) []byte {
	out := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
	}
	return out
}

// naiveF32 is the naive loop nest in f32: each element starts from zero and
// adds its products in contracted order, the multiply and the add each
// rounded (the conversions forbid fusing them). a is m x k, b is k x n.
func naiveF32(a, b []float64, m, n, k int) []uint32 {
	c := make([]uint32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			acc := float32(0)
			for p := 0; p < k; p++ {
				prod := float32(float32(a[i*k+p]) * float32(b[p*n+j]))
				acc = float32(acc + prod)
			}
			c[i*n+j] = math.Float32bits(acc)
		}
	}
	return c
}

// naiveF64 is naiveF32 in f64.
func naiveF64(a, b []float64, m, n, k int) []uint64 {
	c := make([]uint64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			acc := float64(0)
			for p := 0; p < k; p++ {
				prod := float64(a[i*k+p] * b[p*n+j])
				acc = float64(acc + prod)
			}
			c[i*n+j] = math.Float64bits(acc)
		}
	}
	return c
}

// runHostAndO0 lowers mod, a module of the functions calls name, through
// the host pipeline and through host-O0 (the naive loop nest of the same
// IR), runs every call on each (their outputs under dir) and returns each
// pipeline's first output of every call, keyed "host" and "host-O0".
func runHostAndO0(t *testing.T, tc *Toolchain, mod string, calls []ioCall, dir string) map[string][][]byte {
	t.Helper()
	ctx := context.Background()
	results := map[string][][]byte{}
	for _, name := range []string{"host", "host-O0"} {
		p := pipeline(t, name)
		lowered, err := tc.Lower(ctx, mod, p)
		if err != nil {
			t.Fatal(err)
		}
		cs := make([]ioCall, len(calls))
		for i, call := range calls {
			call.outputs = []string{filepath.Join(dir, fmt.Sprintf("%s_y%d.bin", name, i))}
			cs[i] = call
		}
		if _, err := tc.Run(ctx, joinModule(t, lowered, ioMain(lowered, cs, 0)), RunOptions{OptLevel: p.OptLevel}); err != nil {
			t.Fatal(err)
		}
		for _, call := range cs {
			b, err := os.ReadFile(call.outputs[0])
			if err != nil {
				t.Fatal(err)
			}
			results[name] = append(results[name], b)
		}
	}
	return results
}

// lowerToReduction lowers mod through the host pipeline up to and
// including its reduction schedule.
func lowerToReduction(t *testing.T, tc *Toolchain, mod string) string {
	t.Helper()
	host := pipeline(t, "host")
	upto := Pipeline{Name: "host-to-reduction", OptLevel: host.OptLevel}
	for _, s := range host.Steps {
		upto.Steps = append(upto.Steps, s)
		if s.Schedule == "reduction" {
			break
		}
	}
	scheduled, err := tc.Lower(context.Background(), mod, upto)
	if err != nil {
		t.Fatal(err)
	}
	return scheduled
}

// emittedFunc emits src, niro text of one function @fn, as emit lowers it
// and returns its func.func alone, without the module around it, renamed
// @name.
func emittedFunc(t *testing.T, src, fn, name string) string {
	t.Helper()
	m, err := niro.Parse(fn+".niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Module(m, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := out.MLIR
	start := strings.Index(text, "  func.func @"+fn+"(")
	end := strings.LastIndex(text, "\n}")
	if start < 0 || end < start {
		t.Fatalf("unexpected emitted module:\n%s", text)
	}
	return strings.Replace(text[start:end+1], "@"+fn+"(", "@"+name+"(", 1)
}

// runGPUOnHost lowers src, a module of the one function call.fn, through
// the host pipeline and, as TileGPULoops maps its GPU kernels onto blocks
// and threads, through the nvidia pipelines and hostTail to run on the
// CPU; it runs call on both (the outputs under dir) and returns the host's
// output and the GPU kernels'.
func runGPUOnHost(t *testing.T, tc *Toolchain, src string, call ioCall, dir string) (host, gpu []byte) {
	t.Helper()
	ctx := context.Background()
	gp := gpuPipelines(t, "nvidia")
	run := func(lowered, tag string) []byte {
		c := call
		c.outputs = []string{filepath.Join(dir, call.fn+"_"+tag+".bin")}
		// A wrong index can write out of bounds and hang the program: a
		// time limit makes that a failure.
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if _, err := tc.Run(rctx, joinModule(t, lowered, ioMain(lowered, []ioCall{c}, 0)), RunOptions{OptLevel: 2}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(c.outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hostLL, err := tc.Lower(ctx, src, pipeline(t, "host"))
	if err != nil {
		t.Fatal(err)
	}
	fused, err := tc.Lower(ctx, src, gp.Fuse)
	if err != nil {
		t.Fatal(err)
	}
	loops, err := tc.Lower(ctx, TagGPUContractions(fused), gp.Loops)
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := TileGPULoops(loops, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mapped, "processor = block_x") {
		t.Fatalf("nothing mapped onto the GPU:\n%s", mapped)
	}
	gpuLL, err := tc.Lower(ctx, mapped, hostTail)
	if err != nil {
		t.Fatal(err)
	}
	return run(hostLL, "host"), run(gpuLL, "gpu")
}

// tensorText is the niro (and MLIR) text of a ranked tensor type of static
// shape dims: tensor<3x4xf32>, tensor<f32>.
func tensorText(dims []int64, elem string) string {
	var sb strings.Builder
	sb.WriteString("tensor<")
	for _, v := range dims {
		fmt.Fprintf(&sb, "%dx", v)
	}
	return sb.String() + elem + ">"
}
