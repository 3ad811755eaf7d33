package main

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// requireTools skips a test without the LLVM/MLIR tools, unless
// NIRO_REQUIRE_TOOLS is set, in which case it fails.
func requireTools(t *testing.T) {
	t.Helper()
	if toolsInstalled() {
		return
	}
	if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
		t.Fatal("NIRO_REQUIRE_TOOLS is set but the LLVM/MLIR 22 tools are missing")
	}
	t.Skip("LLVM/MLIR 22 tools not installed")
}

func f32s(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func fromF32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// seq returns n deterministic, inexact float32 values.
func seq(n int, scale float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.Sin(float64(i)*1.3+0.7)) * scale
	}
	return out
}

// runNiro compiles src for the host under each pipeline and runs it on
// inputs, returning the outputs of the first pipeline after checking that
// every pipeline gives the same bits.
func runNiro(t *testing.T, src string, inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	return runNiroWithin(t, 0, src, inputs...)
}

// runNiroWithin is runNiro with a deadline when limit > 0: each build and
// run under host and host-O0 must finish within limit, so that a schedule
// that does not terminate fails the test instead of hanging it.
func runNiroWithin(t *testing.T, limit time.Duration, src string, inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	return runNiroOn(t, limit, hostPipelines, src, inputs...)
}

// hostPipelines are the pipelines runNiro compares: host, and host-O0 (no
// schedule, the naive loop nests).
var hostPipelines = []string{"host", "host-O0"}

// runNiroOn is runNiroWithin under the pipelines pipes (the first one's
// outputs returned, the others' compared with them byte for byte).
func runNiroOn(t *testing.T, limit time.Duration, pipes []string, src string, inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	requireTools(t)
	m, err := niro.Parse(t.Name()+".niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := niro.Verify(m); err != nil {
		t.Fatalf("invalid test program:\n%v", err)
	}
	return runPipelines(t, limit, pipes, func() (*niro.Module, error) { return m, nil }, inputs...)
}

// runHostPipelines builds the module load returns (called once for each
// pipeline) under host and host-O0 and runs it on inputs, each build and
// run within limit when limit > 0. It returns the host outputs after
// checking that host-O0 gives the same bytes.
func runHostPipelines(t *testing.T, limit time.Duration, load func() (*niro.Module, error), inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	return runPipelines(t, limit, hostPipelines, load, inputs...)
}

// runPipelines is runHostPipelines under the pipelines pipes.
func runPipelines(t *testing.T, limit time.Duration, pipes []string, load func() (*niro.Module, error), inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	requireTools(t)
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc := testTools(t)
	within := ""
	if limit > 0 {
		within = fmt.Sprintf(" (limit %v)", limit)
	}
	var first []tensorio.Tensor
	for _, p := range pipes {
		m, err := load()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if limit > 0 {
			ctx, cancel = context.WithTimeout(ctx, limit)
		}
		hm, err := env.buildHost(ctx, tc, m, p)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v%s", p, err, within)
		}
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		hm.cleanup()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v%s", p, err, within)
		}
		if first == nil {
			first = res.Outputs
			continue
		}
		for i := range first {
			if string(first[i].Data) != string(res.Outputs[i].Data) {
				t.Errorf("output %d differs between %s and %s", i, pipes[0], p)
			}
		}
	}
	return first
}

var testToolsOnce struct {
	sync.Once
	tc  *toolchain.Toolchain
	err error
}

// testTools is the toolchain of a plain Env (no flags, output discarded),
// discovered once per test binary (a discovery runs every tool, about half
// a second): each call gets its own copy, Progress nil.
func testTools(t *testing.T) *toolchain.Toolchain {
	t.Helper()
	testToolsOnce.Do(func() {
		env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
		testToolsOnce.tc, testToolsOnce.err = env.findTools(context.Background())
	})
	if testToolsOnce.err != nil {
		t.Fatal(testToolsOnce.err)
	}
	tc := *testToolsOnce.tc
	tc.Progress = nil
	return &tc
}

func tf32(dims []int64, vals []float32) tensorio.Tensor {
	return tensorio.Tensor{Elem: niro.F32, Dims: dims, Data: f32s(vals...)}
}

// checkF64 compares got (f64 bytes) with want bit for bit.
func checkF64(t *testing.T, got []byte, want []float64) {
	t.Helper()
	if len(got) != 8*len(want) {
		t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
	}
	for i, v := range want {
		if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(v) {
			t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
		}
	}
}

// widen returns v in f64, each element times k (inexact in f32).
func widen(v []float32, k float64) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f) * k
	}
	return out
}

func checkF32(t *testing.T, got tensorio.Tensor, want []float32) {
	t.Helper()
	g := fromF32s(got.Data)
	if len(g) != len(want) {
		t.Fatalf("got %d elements, want %d", len(g), len(want))
	}
	for i := range want {
		if math.Float32bits(g[i]) != math.Float32bits(want[i]) {
			t.Fatalf("element %d: got %v (%#x), want %v (%#x)", i, g[i], math.Float32bits(g[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

func TestE2EBroadcast(t *testing.T) {
	const src = `
func @bc(tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> (tensor<2x3xf32>) {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3xf32>, %2: tensor<2x1xf32>):
  %3 = add %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = mul %3, %2 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}`
	a, b, c := seq(6, 3), seq(3, 2), seq(2, 1.5)
	out := runNiro(t, src, tf32([]int64{2, 3}, a), tf32([]int64{3}, b), tf32([]int64{2, 1}, c))
	want := make([]float32, 6)
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			s := a[i*3+j] + b[j]
			want[i*3+j] = s * c[i]
		}
	}
	checkF32(t, out[0], want)
}

// matmulRef is the naive nest: each element sums its products in order,
// rounding the multiply and the add separately.
func matmulRef(a, b []float32, m, k, n int) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc float32
			for p := 0; p < k; p++ {
				prod := a[i*k+p] * b[p*n+j]
				acc = acc + prod
			}
			out[i*n+j] = acc
		}
	}
	return out
}

func TestE2EMatMulAdd(t *testing.T) {
	const src = `
func @mm(tensor<37x53xf32>, tensor<53x29xf32>, tensor<29xf32>) -> (tensor<37x29xf32>) {
^bb0(%0: tensor<37x53xf32>, %1: tensor<53x29xf32>, %2: tensor<29xf32>):
  %3 = matmul %0, %1 : (tensor<37x53xf32>, tensor<53x29xf32>) -> tensor<37x29xf32>
  %4 = add %3, %2 : (tensor<37x29xf32>, tensor<29xf32>) -> tensor<37x29xf32>
  return %4 : tensor<37x29xf32>
}`
	a, b, c := seq(37*53, 1), seq(53*29, 0.5), seq(29, 2)
	out := runNiro(t, src, tf32([]int64{37, 53}, a), tf32([]int64{53, 29}, b), tf32([]int64{29}, c))
	want := matmulRef(a, b, 37, 53, 29)
	for i := range want {
		want[i] = want[i] + c[i%29]
	}
	checkF32(t, out[0], want)
}

func TestE2ETranspose(t *testing.T) {
	const src = `
func @tr(tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>) {
^bb0(%0: tensor<2x3x4xf32>):
  %1 = transpose %0 [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}`
	a := seq(24, 1)
	out := runNiro(t, src, tf32([]int64{2, 3, 4}, a))
	want := make([]float32, 24)
	for i := 0; i < 4; i++ {
		for j := 0; j < 2; j++ {
			for k := 0; k < 3; k++ {
				want[(i*2+j)*3+k] = a[(j*3+k)*4+i]
			}
		}
	}
	checkF32(t, out[0], want)
}

func TestE2EIf(t *testing.T) {
	const src = `
func @sel(tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>) {
^bb0(%0: tensor<i1>, %1: tensor<4xf32>, %2: tensor<4xf32>):
  %3 = tensor_extract %0[] : (tensor<i1>) -> i1
  %4 = if %3 : i1 -> (tensor<4xf32>) {
    %5 = add %1, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    yield %5 : tensor<4xf32>
  } else {
    %6 = mul %1, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    yield %6 : tensor<4xf32>
  }
  return %4 : tensor<4xf32>
}`
	a, b := seq(4, 2), seq(4, 3)
	for _, cond := range []bool{true, false} {
		c := tensorio.Tensor{Elem: niro.Bool, Dims: []int64{}, Data: []byte{0}}
		if cond {
			c.Data[0] = 1
		}
		out := runNiro(t, src, c, tf32([]int64{4}, a), tf32([]int64{4}, b))
		want := make([]float32, 4)
		for i := range want {
			if cond {
				want[i] = a[i] + b[i]
			} else {
				want[i] = a[i] * b[i]
			}
		}
		checkF32(t, out[0], want)
	}
}

func TestE2ECall(t *testing.T) {
	const src = `
func @axpy(tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>) {
^bb0(%0: tensor<5xf32>, %1: tensor<5xf32>, %2: tensor<5xf32>):
  %3 = mul %0, %1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %4 = add %3, %2 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %4 : tensor<5xf32>
}

func @main_fn(tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>) {
^bb0(%0: tensor<5xf32>, %1: tensor<5xf32>):
  %2 = call @axpy(%0, %1, %1) : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>)
  %3 = call @axpy(%2, %0, %1) : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>)
  return %3 : tensor<5xf32>
}`
	src2 := "module attributes {entry = \"main_fn\"}\n" + src
	a, b := seq(5, 2), seq(5, 3)
	out := runNiro(t, src2, tf32([]int64{5}, a), tf32([]int64{5}, b))
	want := make([]float32, 5)
	for i := range want {
		p := a[i] * b[i]
		x := p + b[i]
		q := x * a[i]
		want[i] = q + b[i]
	}
	checkF32(t, out[0], want)
}

func TestE2ELoop(t *testing.T) {
	// acc = x; while flags[i] { acc = acc * x + x; i++ }
	const src = `
func @loop(tensor<6xi1>, tensor<3xf32>) -> (tensor<3xf32>) {
^bb0(%0: tensor<6xi1>, %1: tensor<3xf32>):
  %2 = const 0 : i64
  br ^bb1(%2, %1 : i64, tensor<3xf32>)
^bb1(%3: i64, %4: tensor<3xf32>):
  %5 = tensor_extract %0[%3] : (tensor<6xi1>, i64) -> i1
  cond_br %5 : i1, ^bb2, ^bb3
^bb2:
  %6 = mul %4, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %7 = add %6, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %8 = const 1 : i64
  %9 = add %3, %8 : (i64, i64) -> i64
  br ^bb1(%9, %7 : i64, tensor<3xf32>)
^bb3:
  return %4 : tensor<3xf32>
}`
	x := seq(3, 0.9)
	flags := tensorio.Tensor{Elem: niro.Bool, Dims: []int64{6}, Data: []byte{1, 1, 1, 1, 0, 0}}
	out := runNiro(t, src, flags, tf32([]int64{3}, x))
	want := append([]float32(nil), x...)
	for it := 0; it < 4; it++ {
		for i := range want {
			p := want[i] * x[i]
			want[i] = p + x[i]
		}
	}
	checkF32(t, out[0], want)
}

// TestCompileEmbedsWeights compiles the example model to one object and
// checks that it defines the model function and its weights symbol, whose
// bytes are the weights file's.
func TestCompileEmbedsWeights(t *testing.T) {
	requireTools(t)
	dir := t.TempDir()
	var stderr strings.Builder
	model := filepath.Join("examples", "mlp", "model.onnx")
	if code := run([]string{"compile", model, "--dim", "N=2", "-o", filepath.Join(dir, "mlp.o")}, io.Discard, &stderr); code != 0 {
		t.Fatalf("compile (embed): exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"compile", model, "--dim", "N=2", "--weights", "file", "-o", filepath.Join(dir, "file.o")}, io.Discard, &stderr); code != 0 {
		t.Fatalf("compile (file): exit %d: %s", code, stderr.String())
	}
	want, err := os.ReadFile(filepath.Join(dir, "file.weights"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(filepath.Join(dir, "mlp.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]elf.Symbol{}
	for _, s := range syms {
		found[s.Name] = s
	}
	if _, ok := found["mlp"]; !ok {
		t.Error("object does not define mlp")
	}
	ws, ok := found["mlp_weights"]
	if !ok {
		t.Fatal("object does not define mlp_weights")
	}
	sec := f.Sections[ws.Section]
	got, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	if sec.Addralign%64 != 0 || ws.Size != uint64(len(want)) || string(got[ws.Value:ws.Value+ws.Size]) != string(want) {
		t.Errorf("mlp_weights: align %d, size %d; want 64-aligned, %d bytes equal to file.weights", sec.Addralign, ws.Size, len(want))
	}
}

// TestE2EBatchedMatMul runs batched products with broadcasting batch axes
// (a stretched axis of 1, a missing one, two batch axes, collapsed into one
// or not) through both pipelines against the naive nest per batch.
func TestE2EBatchedMatMul(t *testing.T) {
	const src = `
func @bmm(tensor<5x37x53xf32>, tensor<5x53x29xf32>, tensor<1x53x29xf32>, tensor<3x1x37x53xf32>, tensor<3x5x37x53xf32>, tensor<3x5x53x29xf32>) -> (tensor<5x37x29xf32>, tensor<5x37x29xf32>, tensor<3x5x37x29xf32>, tensor<3x5x37x29xf32>, tensor<3x5x37x29xf32>) {
^bb0(%0: tensor<5x37x53xf32>, %1: tensor<5x53x29xf32>, %2: tensor<1x53x29xf32>, %3: tensor<3x1x37x53xf32>, %4: tensor<3x5x37x53xf32>, %5: tensor<3x5x53x29xf32>):
  %6 = matmul %0, %1 : (tensor<5x37x53xf32>, tensor<5x53x29xf32>) -> tensor<5x37x29xf32>
  %7 = matmul %0, %2 : (tensor<5x37x53xf32>, tensor<1x53x29xf32>) -> tensor<5x37x29xf32>
  %8 = matmul %3, %1 : (tensor<3x1x37x53xf32>, tensor<5x53x29xf32>) -> tensor<3x5x37x29xf32>
  %9 = matmul %4, %5 : (tensor<3x5x37x53xf32>, tensor<3x5x53x29xf32>) -> tensor<3x5x37x29xf32>
  %10 = matmul %4, %2 : (tensor<3x5x37x53xf32>, tensor<1x53x29xf32>) -> tensor<3x5x37x29xf32>
  return %6, %7, %8, %9, %10 : tensor<5x37x29xf32>, tensor<5x37x29xf32>, tensor<3x5x37x29xf32>, tensor<3x5x37x29xf32>, tensor<3x5x37x29xf32>
}`
	const m, k, n = 37, 53, 29
	a, b, c, d := seq(5*m*k, 1), seq(5*k*n, 0.5), seq(k*n, 0.25), seq(3*m*k, 2)
	e, f := seq(15*m*k, 0.75), seq(15*k*n, 1.5)
	out := runNiro(t, src, tf32([]int64{5, m, k}, a), tf32([]int64{5, k, n}, b), tf32([]int64{1, k, n}, c),
		tf32([]int64{3, 1, m, k}, d), tf32([]int64{3, 5, m, k}, e), tf32([]int64{3, 5, k, n}, f))
	lhs := func(x []float32, i int) []float32 { return x[i*m*k : (i+1)*m*k] }
	rhs := func(x []float32, i int) []float32 { return x[i*k*n : (i+1)*k*n] }
	want := make([][]float32, 5)
	for i := 0; i < 5; i++ {
		want[0] = append(want[0], matmulRef(lhs(a, i), rhs(b, i), m, k, n)...)
		want[1] = append(want[1], matmulRef(lhs(a, i), c, m, k, n)...)
	}
	for h := 0; h < 3; h++ {
		for i := 0; i < 5; i++ {
			want[2] = append(want[2], matmulRef(lhs(d, h), rhs(b, i), m, k, n)...)
			want[3] = append(want[3], matmulRef(lhs(e, 5*h+i), rhs(f, 5*h+i), m, k, n)...)
			want[4] = append(want[4], matmulRef(lhs(e, 5*h+i), c, m, k, n)...)
		}
	}
	for i := range want {
		checkF32(t, out[i], want[i])
	}
}
