package tensorio

import (
	"testing"

	"github.com/niro-dev/niro/niro"
)

// TestCheckBernoulli accepts a draw near its expectation and rejects
// values other than 0 and 1, impossible values, counts far from the
// expectation and a wrong type.
func TestCheckBernoulli(t *testing.T) {
	p, half, ones := make([]float32, 100), make([]float32, 100), make([]float32, 100)
	for i := range p {
		p[i], ones[i] = 0.5, 1
		if i%2 == 0 {
			half[i] = 1
		}
	}
	pt, want := f32Tensor(p...), f32Tensor(half...)
	if err := CheckBernoulli(pt, f32Tensor(half...), want, false); err != nil {
		t.Errorf("50 ones of 100 at p = 0.5: %v", err)
	}
	if err := CheckBernoulli(pt, f32Tensor(ones...), want, false); err == nil {
		t.Error("100 ones of 100 at p = 0.5 passed")
	}
	bad := append([]float32{}, half...)
	bad[1] = 2
	if err := CheckBernoulli(pt, f32Tensor(bad...), want, false); err == nil {
		t.Error("a 2 passed")
	}
	sure := f32Tensor(1, 0)
	if err := CheckBernoulli(sure, f32Tensor(0, 0), f32Tensor(1, 0), false); err == nil {
		t.Error("a 0 at p = 1 passed")
	}
	if err := CheckBernoulli(sure, f32Tensor(0, 1), f32Tensor(0, 1), true); err != nil {
		t.Errorf("the complement of p = (1, 0): %v", err)
	}
	f64 := Tensor{Elem: niro.F64, Dims: []int64{100}, Data: make([]byte, 800)}
	if err := CheckBernoulli(pt, f64, want, false); err == nil {
		t.Error("an f64 result passed for an f32 one")
	}
}

// TestCheckDropout accepts a dropout that keeps about 1 − ratio of the
// elements, scaled, and rejects wrong values, masks that disagree and
// counts far from the expectation.
func TestCheckDropout(t *testing.T) {
	x, y, all := make([]float32, 100), make([]float32, 100), make([]float32, 100)
	mask := Tensor{Elem: niro.Bool, Dims: []int64{100}, Data: make([]byte, 100)}
	for i := range x {
		x[i] = float32(i + 1)
		all[i] = x[i] * 2
		if i%2 == 0 {
			y[i] = x[i] * 2
			mask.Data[i] = 1
		}
	}
	xt, yt := f32Tensor(x...), f32Tensor(y...)
	if err := CheckDropout(xt, 0.5, yt, yt, &mask, &mask); err != nil {
		t.Errorf("half kept with a mask: %v", err)
	}
	if err := CheckDropout(xt, 0.5, yt, yt, nil, nil); err != nil {
		t.Errorf("half kept: %v", err)
	}
	if err := CheckDropout(xt, 0.5, f32Tensor(all...), yt, nil, nil); err == nil {
		t.Error("all kept at ratio 0.5 passed")
	}
	bad := append([]float32{}, y...)
	bad[0] = 3
	if err := CheckDropout(xt, 0.5, f32Tensor(bad...), yt, nil, nil); err == nil {
		t.Error("an element neither 0 nor x·scale passed")
	}
	flipped := Tensor{Elem: niro.Bool, Dims: []int64{100}, Data: append([]byte{}, mask.Data...)}
	flipped.Data[0] = 0
	if err := CheckDropout(xt, 0.5, yt, yt, &flipped, &mask); err == nil {
		t.Error("a mask that disagrees with the output passed")
	}
}
