package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/toolchain"
)

// tenOps is a 10-op model: three matmuls, element-wise ops with
// broadcasting, and transposes on 64×64 tensors.
const tenOps = `
func @ten(tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> (tensor<64x64xf32>) {
^bb0(%0: tensor<64x64xf32>, %1: tensor<64x64xf32>, %2: tensor<64xf32>):
  %3 = matmul %0, %1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = add %3, %2 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %5 = mul %4, %4 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %6 = transpose %5 [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %7 = matmul %6, %1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %8 = add %7, %0 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %9 = mul %8, %2 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %10 = matmul %9, %0 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %11 = add %10, %9 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %12 = transpose %11 [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %12 : tensor<64x64xf32>
}
`

func benchToolchain(b *testing.B) (*toolchain.Toolchain, toolchain.Pipeline) {
	b.Helper()
	if !toolsInstalled() {
		b.Skip("LLVM/MLIR 22 tools not installed")
	}
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	tc.Progress = nil
	p, err := lookupPipeline("host")
	if err != nil {
		b.Fatal(err)
	}
	return tc, p
}

// compileObj runs what `niro compile --emit obj --weights file` does after
// loading: emit, the pipeline to an object, and the weights file. It
// returns the time spent in the Go front end (verify and emit).
func compileObj(b *testing.B, tc *toolchain.Toolchain, p toolchain.Pipeline, m *niro.Module, dir string) time.Duration {
	start := time.Now()
	out, err := emit.Module(m, emit.Options{}) // verifies, then emits

	if err != nil {
		b.Fatal(err)
	}
	front := time.Since(start)
	res, err := tc.Build(context.Background(), toolchain.BuildRequest{MLIR: out.MLIR, Pipeline: p, Emit: []toolchain.Kind{toolchain.KindObj}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.o"), res.Obj, 0o644); err != nil {
		b.Fatal(err)
	}
	if out.Blob != nil {
		if err := writeBlob(filepath.Join(dir, "model.weights"), out.Blob); err != nil {
			b.Fatal(err)
		}
	}
	return front
}

// BenchmarkCompileTenOps compiles a 10-op model end to end (text → object)
// and reports the Go front end's share of the time (parse, verify, emit).
func BenchmarkCompileTenOps(b *testing.B) {
	tc, p := benchToolchain(b)
	dir := b.TempDir()
	var front time.Duration
	start := time.Now()
	for b.Loop() {
		t0 := time.Now()
		m, err := niro.Parse("ten.niro", []byte(tenOps))
		if err != nil {
			b.Fatal(err)
		}
		front += time.Since(t0)
		front += compileObj(b, tc, p, m, dir)
	}
	total := time.Since(start)
	b.ReportMetric(100*float64(front)/float64(total), "%frontend")
}

// denseModule builds y = x · W + b with W a k×k f32 matrix, as a 100 MB
// global (weights) or as a second input (no weights).
func denseModule(k int64, withWeights bool) *niro.Module {
	m := niro.NewModule()
	wt := niro.Tensor(niro.F32, k, k)
	ins := []niro.Type{niro.Tensor(niro.F32, 1, k)}
	if !withWeights {
		ins = append(ins, wt)
	}
	f := m.AddFunction("dense", niro.FunctionType{Inputs: ins, Outputs: []niro.Type{niro.Tensor(niro.F32, 1, k)}})
	bld := f.Builder()
	var w niro.Value
	if withWeights {
		data := make([]byte, 4*k*k)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		w = bld.GetGlobal(m.AddGlobal("W", wt, niro.BytesLit(data)))
	} else {
		w = f.Args()[1]
	}
	bias := bld.GetGlobal(m.AddGlobal("b", niro.Tensor(niro.F32, k), niro.BytesLit(make([]byte, 4*k))))
	y := bld.Add(bld.MatMul(f.Args()[0], w), bias)
	bld.Return(y)
	return m
}

// BenchmarkCompileWeights compares compiling a model with 100 MB of
// weights (written to a .weights file beside the object) with the same
// model whose matrix is an input instead.
func BenchmarkCompileWeights(b *testing.B) {
	tc, p := benchToolchain(b)
	const k = 5000 // 100 MB of f32
	for _, bc := range []struct {
		name    string
		weights bool
	}{{"none", false}, {"100MB", true}} {
		m := denseModule(k, bc.weights)
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				compileObj(b, tc, p, m, dir)
			}
		})
	}
}
