package harness

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/toolchain"
)

// hostTools finds the LLVM/MLIR tools as niro does and reads the host
// pipeline from the repository's passes.txt. It skips the test when the
// tools are missing, unless NIRO_REQUIRE_TOOLS is set.
func hostTools(t *testing.T) (*toolchain.Toolchain, toolchain.Pipeline) {
	t.Helper()
	tc, err := toolchain.Find(context.Background(), toolchain.FindOptions{})
	if err != nil {
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
			t.Fatalf("required tools missing: %v", err)
		}
		t.Skipf("tools missing: %v", err)
	}
	text, err := os.ReadFile("../passes.txt")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := toolchain.ParsePipelines(string(text))
	if err != nil {
		t.Fatal(err)
	}
	host, ok := ps.Lookup("host")
	if !ok {
		t.Fatal("passes.txt has no host pipeline")
	}
	return tc, host
}

// lower runs the host pipeline on tensor-level MLIR text.
func lower(t *testing.T, tc *toolchain.Toolchain, host toolchain.Pipeline, src string) string {
	t.Helper()
	out, err := tc.Lower(context.Background(), src, host)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runHarness splices the harness for s into lowered and runs it under
// mlir-runner; it returns the runner's exit code and stderr.
func runHarness(t *testing.T, tc *toolchain.Toolchain, lowered string, s Spec) (int, string) {
	t.Helper()
	mod, err := Build(lowered, s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tc.Run(context.Background(), mod, toolchain.RunOptions{OptLevel: 3})
	var te *toolchain.ToolError
	var ee *exec.ExitError
	if errors.As(err, &te) && errors.As(err, &ee) {
		return ee.ExitCode(), te.Stderr
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, ""
}

func mustRun(t *testing.T, tc *toolchain.Toolchain, lowered string, s Spec) {
	t.Helper()
	if code, stderr := runHarness(t, tc, lowered, s); code != 0 {
		t.Fatalf("mlir-runner exited with %d:\n%s", code, stderr)
	}
}

// fusedOps returns the lines of an LLVM-dialect module that allow a
// multiply and an add to be fused into one FMA when compiled for a CPU that
// has one: llvm.intr.fmuladd (which vector.fma, and so vector.outerproduct
// with an accumulator, lowers to), and operations carrying the "contract"
// or "fast" fast-math flag. A plain llvm.fmul followed by llvm.fadd is never
// fused. Explicit llvm.intr.fma is an exact single-rounding operation and is
// not reported.
func fusedOps(module string) []string {
	var out []string
	for _, line := range strings.Split(module, "\n") {
		if strings.Contains(line, "llvm.intr.fmuladd") || hasContractFlag(line) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

func hasContractFlag(line string) bool {
	i := strings.Index(line, "fastmath<")
	if i < 0 {
		return false
	}
	flags, _, _ := strings.Cut(line[i+len("fastmath<"):], ">")
	for _, f := range strings.Split(flags, ",") {
		switch strings.TrimSpace(f) {
		case "contract", "fast":
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, dir, name string, data []byte) Buffer {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return Buffer{Path: p, Bytes: int64(len(data))}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

const addModel = `
func.func @model(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}`

func TestRunAdd(t *testing.T) {
	tc, host := hostTools(t)
	lowered := lower(t, tc, host, addModel)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b, want := make([]float32, 4), make([]float32, 4), make([]float32, 4)
	for i := range a {
		a[i], b[i] = rng.Float32()*2-1, rng.Float32()*2-1
		want[i] = a[i] + b[i]
	}
	const runs = 5
	s := Spec{
		Func:        "model",
		Inputs:      []Buffer{writeFile(t, dir, "a.bin", f32Bytes(a)), writeFile(t, dir, "b.bin", f32Bytes(b))},
		Outputs:     []Buffer{{filepath.Join(dir, "out.bin"), 16}},
		Warmup:      1,
		Runs:        runs,
		TimingsPath: filepath.Join(dir, "times.bin"),
	}
	mustRun(t, tc, lowered, s)
	if got := readFile(t, s.Outputs[0].Path); !bytes.Equal(got, f32Bytes(want)) {
		t.Errorf("output = %x, want %x", got, f32Bytes(want))
	}
	times, err := ReadTimings(s.TimingsPath, runs)
	if err != nil {
		t.Fatal(err)
	}
	for i, sec := range times {
		if !(sec >= 0 && sec < 10) {
			t.Errorf("timing %d = %v seconds, want a small non-negative value", i, sec)
		}
	}
}

const weightsModel = `
func.func @model(%w: memref<64xi8>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c16 = arith.constant 16 : index
  %v = memref.view %w[%c16][] : memref<64xi8> to memref<4xf32>
  %wt = bufferization.to_tensor %v restrict : memref<4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %wt : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}`

func TestRunWeights(t *testing.T) {
	tc, host := hostTools(t)
	lowered := lower(t, tc, host, weightsModel)
	dir := t.TempDir()
	x := []float32{1.5, -2, 3.25, 1e-3}
	wv := []float32{2, 0.5, -4, 1e3}
	blob := make([]byte, 64)
	copy(blob[16:], f32Bytes(wv))
	want := make([]float32, 4)
	for i := range x {
		want[i] = x[i] * wv[i]
	}
	s := Spec{
		Func:    "model",
		Weights: writeFile(t, dir, "model.weights", blob),
		Inputs:  []Buffer{writeFile(t, dir, "x.bin", f32Bytes(x))},
		Outputs: []Buffer{{filepath.Join(dir, "y.bin"), 16}},
		Runs:    1,
	}
	mustRun(t, tc, lowered, s)
	if got := readFile(t, s.Outputs[0].Path); !bytes.Equal(got, f32Bytes(want)) {
		t.Errorf("output = %x, want %x", got, f32Bytes(want))
	}

	// A blob of the wrong size is refused before the model runs.
	short := writeFile(t, dir, "short.weights", blob[:60])
	s.Weights = Buffer{short.Path, 64}
	code, stderr := runHarness(t, tc, lowered, s)
	if code != 1 || !strings.Contains(stderr, "weights file "+short.Path+" does not hold exactly 64 bytes") {
		t.Errorf("short weights: exit %d, stderr %q", code, stderr)
	}
}

const mixedModel = `
func.func @mixed(%a: tensor<3xi64>, %b: tensor<2x2xf64>, %c: tensor<5xi1>)
    -> (tensor<5xi1>, tensor<3xi64>, tensor<2x2xf64>) {
  %ea = tensor.empty() : tensor<3xi64>
  %ra = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<3xi64>) outs(%ea : tensor<3xi64>) {
  ^bb0(%x: i64, %o: i64):
    %k = arith.constant -3 : i64
    %y = arith.muli %x, %k : i64
    linalg.yield %y : i64
  } -> tensor<3xi64>
  %eb = tensor.empty() : tensor<2x2xf64>
  %rb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<2x2xf64>) outs(%eb : tensor<2x2xf64>) {
  ^bb0(%x: f64, %o: f64):
    %y = arith.divf %x, %x : f64
    %z = arith.addf %x, %y : f64
    linalg.yield %z : f64
  } -> tensor<2x2xf64>
  %ec = tensor.empty() : tensor<5xi1>
  %rc = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%c : tensor<5xi1>) outs(%ec : tensor<5xi1>) {
  ^bb0(%x: i1, %o: i1):
    %t = arith.constant true
    %y = arith.xori %x, %t : i1
    linalg.yield %y : i1
  } -> tensor<5xi1>
  return %rc, %ra, %rb : tensor<5xi1>, tensor<3xi64>, tensor<2x2xf64>
}`

func TestRunMixedTypes(t *testing.T) {
	tc, host := hostTools(t)
	lowered := lower(t, tc, host, mixedModel)
	dir := t.TempDir()

	a := []int64{7, -1 << 40, math.MaxInt64 / 5}
	ab := make([]byte, 24)
	wantA := make([]byte, 24)
	for i, v := range a {
		binary.LittleEndian.PutUint64(ab[8*i:], uint64(v))
		binary.LittleEndian.PutUint64(wantA[8*i:], uint64(v*-3))
	}
	b := []float64{0.1, -2.5, 1e300, 3}
	bb := make([]byte, 32)
	wantB := make([]byte, 32)
	for i, v := range b {
		binary.LittleEndian.PutUint64(bb[8*i:], math.Float64bits(v))
	}
	for i := range 2 {
		for j := range 2 {
			x := b[2*j+i] // transposed read
			binary.LittleEndian.PutUint64(wantB[8*(2*i+j):], math.Float64bits(x+x/x))
		}
	}
	c := []byte{1, 0, 0, 1, 1}
	wantC := []byte{0, 1, 1, 0, 0}

	s := Spec{
		Func: "mixed",
		Inputs: []Buffer{
			writeFile(t, dir, "a.bin", ab), writeFile(t, dir, "b.bin", bb), writeFile(t, dir, "c.bin", c),
		},
		Outputs: []Buffer{
			{filepath.Join(dir, "out0.bin"), 5}, {filepath.Join(dir, "out1.bin"), 24}, {filepath.Join(dir, "out2.bin"), 32},
		},
		Warmup: 2,
		Runs:   3,
	}
	mustRun(t, tc, lowered, s)
	for i, want := range [][]byte{wantC, wantA, wantB} {
		if got := readFile(t, s.Outputs[i].Path); !bytes.Equal(got, want) {
			t.Errorf("output %d = %x, want %x", i, got, want)
		}
	}
}

// TestRunInputErrors checks that bad input files stop the harness with
// exit status 1 and a message naming the file.
func TestRunInputErrors(t *testing.T) {
	tc, host := hostTools(t)
	lowered := lower(t, tc, host, addModel)
	dir := t.TempDir()
	good := writeFile(t, dir, "good.bin", make([]byte, 16))
	short := writeFile(t, dir, "short.bin", make([]byte, 12))
	long := writeFile(t, dir, "long.bin", make([]byte, 17))
	missing := filepath.Join(dir, "missing.bin")
	for _, tt := range []struct {
		in   Buffer
		out  string
		want string
	}{
		{Buffer{missing, 16}, filepath.Join(dir, "o.bin"), "niro: cannot open input file " + missing + ": No such file or directory"},
		{Buffer{short.Path, 16}, filepath.Join(dir, "o.bin"), "niro: input file " + short.Path + " is shorter than 16 bytes"},
		{Buffer{long.Path, 16}, filepath.Join(dir, "o.bin"), "niro: input file " + long.Path + " is longer than 16 bytes"},
		{good, filepath.Join(dir, "no", "such", "dir", "o.bin"), "niro: cannot create output file " + filepath.Join(dir, "no", "such", "dir", "o.bin")},
	} {
		s := Spec{Func: "model", Inputs: []Buffer{good, tt.in}, Outputs: []Buffer{{tt.out, 16}}, Runs: 1}
		code, stderr := runHarness(t, tc, lowered, s)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, tt.want)
		}
	}
}

// fmaModel computes a*b+c with separate arith.mulf and arith.addf.
const fmaModel = `
func.func @model(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b, %c : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %z : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}`

// TestRunNoFMAContraction checks that the runner flags keep a separate
// multiply and add rounded separately. The values are chosen so that a
// fused multiply-add gives a different result: a*a = 1 + 2^-22 + 2^-46
// rounds to 1 + 2^-22 in f32, so a*a - (1 + 2^-22) is 0 when rounded
// separately and 2^-46 when fused.
func TestRunNoFMAContraction(t *testing.T) {
	tc, host := hostTools(t)
	lowered := lower(t, tc, host, fmaModel)
	if fused := fusedOps(lowered); len(fused) > 0 {
		t.Fatalf("the host pipeline produced fusable operations: %q", fused)
	}
	dir := t.TempDir()
	a := float32(1 + 0x1p-23)
	c := float32(-(1 + 0x1p-22))
	av, bv, cv, want := make([]float32, 8), make([]float32, 8), make([]float32, 8), make([]float32, 8)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range av {
		av[i], bv[i], cv[i] = a, a, c
		if i%2 == 1 {
			av[i], bv[i], cv[i] = rng.Float32(), rng.Float32(), rng.Float32()-1
		}
		p := av[i] * bv[i] // explicitly rounded
		want[i] = p + cv[i]
	}
	if want[0] != 0 {
		t.Fatalf("separately rounded reference = %g, want 0", want[0])
	}
	s := Spec{
		Func:    "model",
		Inputs:  []Buffer{writeFile(t, dir, "a.bin", f32Bytes(av)), writeFile(t, dir, "b.bin", f32Bytes(bv)), writeFile(t, dir, "c.bin", f32Bytes(cv))},
		Outputs: []Buffer{{filepath.Join(dir, "out.bin"), 32}},
		Runs:    1,
	}
	mustRun(t, tc, lowered, s)
	got := readFile(t, s.Outputs[0].Path)
	if !bytes.Equal(got, f32Bytes(want)) {
		t.Errorf("output = %x, want %x (separately rounded); first element %g",
			got, f32Bytes(want), math.Float32frombits(binary.LittleEndian.Uint32(got)))
	}
}
