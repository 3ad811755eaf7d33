package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

func randomF32(r *rand.Rand, dims ...int64) tensorio.Tensor {
	n := tensorio.NumElements(dims)
	t := newTensor(niro.F32, dims)
	for i := range t.f32 {
		t.f32[i] = float32(r.NormFloat64())
	}
	_ = n
	return t.encode()
}

// benchModule builds @f(inputs) -> (op(inputs)).
func benchModule(ins []niro.Type, mk func(b *niro.Builder, args []niro.Value) niro.Value) *niro.Module {
	m := niro.NewModule()
	f := m.AddFunction("f", niro.FunctionType{Inputs: ins})
	b := f.Builder()
	v := mk(b, f.Args())
	b.Return(v)
	f.Type.Outputs = []niro.Type{v.Type}
	return m
}

// BenchmarkMatMul256 is a 256×256×256 f32 matmul (2·256³ flops).
func BenchmarkMatMul256(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	t := niro.Tensor(niro.F32, 256, 256)
	m := benchModule([]niro.Type{t, t}, func(bd *niro.Builder, a []niro.Value) niro.Value { return bd.MatMul(a[0], a[1]) })
	ins := []tensorio.Tensor{randomF32(r, 256, 256), randomF32(r, 256, 256)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(m, ins, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*256*256*256*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkConv56 is a 3×3 f32 convolution of 1×64×56×56 to 64 channels
// with padding 1 (2·64·64·9·56·56 flops).
func BenchmarkConv56(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	xt, wt, bt := niro.Tensor(niro.F32, 1, 64, 56, 56), niro.Tensor(niro.F32, 64, 64, 3, 3), niro.Tensor(niro.F32, 64)
	m := benchModule([]niro.Type{xt, wt, bt}, func(bd *niro.Builder, a []niro.Value) niro.Value {
		return bd.Insert(&niro.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, Pads: []int64{1, 1, 1, 1}, Groups: 1, X: a[0], W: a[1], B: a[2]})[0]
	})
	ins := []tensorio.Tensor{randomF32(r, 1, 64, 56, 56), randomF32(r, 64, 64, 3, 3), randomF32(r, 64)}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(m, ins, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*64*64*9*56*56*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
