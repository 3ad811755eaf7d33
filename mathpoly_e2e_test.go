package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

// TestE2EMathPoly runs exp, log, tanh and erf on f32 through the host
// pipelines (vectorized loops with a remainder) and checks that every
// element has exactly the bits emit.EvalMathPoly computes (any NaN for a
// NaN), on special values, random bit patterns and random values in
// [-12, 12].
func TestE2EMathPoly(t *testing.T) {
	const n = 4099
	const src = `
func @m(tensor<4099xf32>) -> (tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>) {
^bb0(%0: tensor<4099xf32>):
  %1 = exp %0 : (tensor<4099xf32>) -> tensor<4099xf32>
  %2 = log %0 : (tensor<4099xf32>) -> tensor<4099xf32>
  %3 = tanh %0 : (tensor<4099xf32>) -> tensor<4099xf32>
  %4 = erf %0 : (tensor<4099xf32>) -> tensor<4099xf32>
  return %1, %2, %3, %4 : tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>, tensor<4099xf32>
}`
	inf := float32(math.Inf(1))
	x := []float32{0, float32(math.Copysign(0, -1)), 1, -1, inf, -inf, float32(math.NaN()), 0x1p-149, -0x1p-149, 0x1p-126,
		88.72283, 88.7229, -87.33654, -103.9, -104, 89, 0.625, 0.875, 4, 10, math.MaxFloat32, -math.MaxFloat32}
	r := rand.New(rand.NewPCG(1, 2))
	for len(x) < n {
		if len(x)%2 == 0 {
			x = append(x, math.Float32frombits(r.Uint32()))
		} else {
			x = append(x, float32(r.Float64()*24-12))
		}
	}
	out := runNiro(t, src, tf32([]int64{n}, x))
	for i, k := range []niro.UnaryKind{niro.Exp, niro.Log, niro.Tanh, niro.Erf} {
		got := fromF32s(out[i].Data)
		bad := 0
		for j, v := range x {
			want, _ := emit.EvalMathPoly(k, v)
			if math.Float32bits(got[j]) != math.Float32bits(want) && !(got[j] != got[j] && want != want) {
				if bad++; bad <= 5 {
					t.Errorf("%s(%g = 0x%08X) = %g (0x%08X), want %g (0x%08X)", k, v, math.Float32bits(v), got[j], math.Float32bits(got[j]), want, math.Float32bits(want))
				}
			}
		}
		if bad > 5 {
			t.Errorf("%s: %d elements differ", k, bad)
		}
	}
}
