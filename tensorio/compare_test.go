package tensorio

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

func f32Tensor(vs ...float32) Tensor {
	return Tensor{Elem: niro.F32, Dims: []int64{int64(len(vs))}, Data: le32(vs...)}
}

func TestCompareFloat(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name       string
		got, want  Tensor
		rtol, atol float64
		ok         bool
		mismatches int64
		first      int64
		maxAbs     float64
	}{
		{"equal", f32Tensor(1, 2, 3), f32Tensor(1, 2, 3), 0, 0, true, 0, -1, 0},
		{"within atol", f32Tensor(1, 2.5), f32Tensor(1, 2), 0, 0.5, true, 0, -1, 0.5},
		{"within rtol", f32Tensor(1, 2.5), f32Tensor(1, 2), 0.25, 0, true, 0, -1, 0.5},
		{"outside", f32Tensor(1, 2.5, 7), f32Tensor(1, 2, 7), 0.1, 0.1, false, 1, 1, 0.5},
		{"nan equals nan", f32Tensor(nan, 1), f32Tensor(nan, 1), 0, 0, true, 0, -1, 0},
		{"nan vs number", f32Tensor(1, nan), f32Tensor(1, 1), 1, 1, false, 1, 1, math.Inf(1)},
		{"number vs nan", f32Tensor(1), f32Tensor(nan), 1, 1, false, 1, 0, math.Inf(1)},
		{"same inf", f32Tensor(inf, -inf), f32Tensor(inf, -inf), 0, 0, true, 0, -1, 0},
		{"opposite inf", f32Tensor(inf), f32Tensor(-inf), 1, 1, false, 1, 0, math.Inf(1)},
		{"inf vs big", f32Tensor(inf), f32Tensor(math.MaxFloat32), 1, 1, false, 1, 0, math.Inf(1)},
		{"empty", f32Tensor(), f32Tensor(), 0, 0, true, 0, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(tt.got, tt.want, tt.rtol, tt.atol)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK != tt.ok || r.Mismatches != tt.mismatches || r.First != tt.first || r.MaxAbs != tt.maxAbs {
				t.Errorf("Compare = %+v; want ok %v, %d mismatches, first %d, max abs %v", r, tt.ok, tt.mismatches, tt.first, tt.maxAbs)
			}
		})
	}
}

func TestCompareReport(t *testing.T) {
	r, err := Compare(f32Tensor(1, 2.5, 0.5), f32Tensor(1, 2, 0), 1e-3, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRel != math.Inf(1) || r.MaxAbs != 0.5 {
		t.Errorf("max abs %v rel %v", r.MaxAbs, r.MaxRel)
	}
	want := "max abs error 0.5, max rel error +Inf, 2 of 3 elements differ; first at index 1: got 2.5, want 2"
	if s := r.String(); s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	r, _ = Compare(f32Tensor(1, 2), f32Tensor(1, 2), 0, 0)
	if s := r.String(); s != "max abs error 0, max rel error 0, ok" {
		t.Errorf("String() = %q", s)
	}
}

func TestCompareTypes(t *testing.T) {
	i64 := func(vs ...int64) Tensor {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return Tensor{Elem: niro.I64, Dims: []int64{int64(len(vs))}, Data: b}
	}
	// Integers compare exactly, whatever the tolerances.
	r, err := Compare(i64(1, 5, -3), i64(1, 4, -3), 1, 1)
	if err != nil || r.OK || r.Mismatches != 1 || r.First != 1 || r.MaxAbs != 1 || r.FirstGot != "5" {
		t.Errorf("i64: %+v %v", r, err)
	}
	u64 := Tensor{Elem: niro.U64, Dims: []int64{1}, Data: binary.LittleEndian.AppendUint64(nil, math.MaxUint64)}
	u64b := Tensor{Elem: niro.U64, Dims: []int64{1}, Data: binary.LittleEndian.AppendUint64(nil, 0)}
	if r, _ := Compare(u64, u64b, 0, 0); r.OK || r.FirstGot != "18446744073709551615" || r.MaxAbs != math.MaxUint64 {
		t.Errorf("u64: %+v", r)
	}
	b1 := Tensor{Elem: niro.Bool, Dims: []int64{3}, Data: []byte{1, 0, 1}}
	b2 := Tensor{Elem: niro.Bool, Dims: []int64{3}, Data: []byte{1, 1, 1}}
	if r, _ := Compare(b1, b2, 0, 0); r.OK || r.First != 1 || r.FirstGot != "false" || r.FirstWant != "true" {
		t.Errorf("bool: %+v", r)
	}
	i4a := Tensor{Elem: niro.I4, Dims: []int64{3}, Data: []byte{0xf7, 0x08}} // 7, -1, -8
	i4b := Tensor{Elem: niro.I4, Dims: []int64{3}, Data: []byte{0xf7, 0x07}} // 7, -1, 7
	if r, _ := Compare(i4a, i4b, 0, 0); r.OK || r.First != 2 || r.FirstGot != "-8" || r.FirstWant != "7" || r.MaxAbs != 15 {
		t.Errorf("i4: %+v", r)
	}
	h := func(vs ...uint16) Tensor {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, v)
		}
		return Tensor{Elem: niro.F16, Dims: []int64{int64(len(vs))}, Data: b}
	}
	// f16: 1.0 vs 1.0009765625 (one ulp).
	if r, _ := Compare(h(0x3c01), h(0x3c00), 1e-3, 0); !r.OK || r.MaxAbs != 0x1p-10 {
		t.Errorf("f16 within: %+v", r)
	}
	if r, _ := Compare(h(0x3c01), h(0x3c00), 1e-4, 0); r.OK || r.FirstGot != "1.0009765625" {
		t.Errorf("f16 outside: %+v", r)
	}
	c := func(re, im float32) Tensor { return Tensor{Elem: niro.C64, Dims: []int64{1}, Data: le32(re, im)} }
	if r, _ := Compare(c(3, 4), c(0, 0), 0, 5); !r.OK || r.MaxAbs != 5 {
		t.Errorf("complex modulus: %+v", r)
	}
	if r, _ := Compare(c(3, 4.1), c(0, 0), 0, 5); r.OK || r.FirstGot != "(3+4.1i)" {
		t.Errorf("complex outside: %+v", r)
	}
	nan := float32(math.NaN())
	if r, _ := Compare(c(nan, 0), c(0, nan), 0, 0); !r.OK {
		t.Errorf("complex NaN: %+v", r)
	}
}

func TestCompareErrors(t *testing.T) {
	for _, tt := range []struct {
		got, want Tensor
		msg       string
	}{
		{f32Tensor(1, 2), f32Tensor(1, 2, 3), "shape 2 differs from the expected 3"},
		{f32Tensor(1), Tensor{Elem: niro.F64, Dims: []int64{1}, Data: make([]byte, 8)}, "element type f32 differs from the expected f64"},
		{Tensor{Elem: niro.F32, Dims: []int64{2}, Data: le32(1)}, f32Tensor(1, 2), "result: f32 tensor of shape 2 needs 8 bytes, has 4"},
		{f32Tensor(1, 2), Tensor{Elem: niro.F32, Dims: []int64{2}, Data: le32(1)}, "expected value:"},
		{Tensor{Elem: niro.F32, Dims: []int64{}, Data: le32(1)}, f32Tensor(1), "shape scalar differs from the expected 1"},
	} {
		if _, err := Compare(tt.got, tt.want, 0, 0); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("error = %v, want %q", err, tt.msg)
		}
	}
}

func TestUnflatten(t *testing.T) {
	got := Unflatten([]int64{2, 3, 4}, 17)
	if len(got) != 3 || got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("Unflatten = %v, want [1 1 1]", got)
	}
}
