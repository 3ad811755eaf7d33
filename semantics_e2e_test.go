package main

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

func i32s(vals ...int32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

func fromI32s(b []byte) []int32 {
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// TestE2ESemantics pins the element-wise semantics docs/ops.md fixes, on the
// compiled code of both host pipelines: integer div truncates toward zero,
// rem takes the dividend's sign and mod the divisor's, max and min
// propagate NaN, round rounds half to even, a float-to-int cast truncates,
// a cast to f16 rounds to nearest even, and clamping with min > max gives
// max (ONNX Clip: min(max(x, lo), hi)).
func TestE2ESemantics(t *testing.T) {
	const src = `
func @sem(tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xf32>) {
^bb0(%0: tensor<4xi32>, %1: tensor<4xi32>, %2: tensor<4xf32>, %3: tensor<4xf32>):
  %4 = div %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = rem %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = mod %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %7 = max %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %8 = min %2, %3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %9 = round %3 : (tensor<4xf32>) -> tensor<4xf32>
  %10 = cast %3 : (tensor<4xf32>) -> tensor<4xi32>
  %11 = cast %2 : (tensor<4xf32>) -> tensor<4xf16>
  %12 = const 0x00004040 : tensor<f32>
  %13 = const 0x00000040 : tensor<f32>
  %14 = max %3, %12 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %15 = min %14, %13 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4, %5, %6, %7, %8, %9, %10, %11, %15 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf16>, tensor<4xf32>
}`
	nan := float32(math.NaN())
	// f16 has 10 mantissa bits: 1 + 2^-11 is halfway between 1 and
	// 1 + 2^-10 and rounds to even (1); 1 + 3·2^-11 rounds up to 1 + 2^-9.
	halfway, up := float32(1+math.Ldexp(1, -11)), float32(1+3*math.Ldexp(1, -11))
	ins := []tensorio.Tensor{
		{Elem: niro.I32, Dims: []int64{4}, Data: i32s(-7, 7, -7, 7)},
		{Elem: niro.I32, Dims: []int64{4}, Data: i32s(2, -2, -2, 2)},
		tf32([]int64{4}, []float32{nan, 1, halfway, up}),
		tf32([]int64{4}, []float32{2.5, nan, -2.5, -3.7}),
	}
	out := runNiro(t, src, ins...)
	checkI32 := func(name string, got tensorio.Tensor, want ...int32) {
		t.Helper()
		g := fromI32s(got.Data)
		for i := range want {
			if g[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, g, want)
				return
			}
		}
	}
	checkI32("div", out[0], -3, -3, 3, 3)
	checkI32("rem", out[1], -1, 1, -1, 1)
	checkI32("mod", out[2], 1, -1, -1, 1)
	for i, name := range []string{3: "max", 4: "min"} {
		if name == "" {
			continue
		}
		if g := fromF32s(out[i].Data); !math.IsNaN(float64(g[0])) || !math.IsNaN(float64(g[1])) {
			t.Errorf("%s does not propagate NaN: %v", name, g)
		}
	}
	if g := fromF32s(out[3].Data); g[2] != halfway || g[3] != up {
		t.Errorf("max: got %v", g)
	}
	if g := fromF32s(out[4].Data); g[2] != -2.5 || g[3] != -3.7 {
		t.Errorf("min: got %v", g)
	}
	if g := fromF32s(out[5].Data); g[0] != 2 || !math.IsNaN(float64(g[1])) || g[2] != -2 || g[3] != -4 {
		t.Errorf("round (half to even): got %v, want [2 NaN -2 -4]", g)
	}
	if g := fromI32s(out[6].Data); g[0] != 2 || g[2] != -2 || g[3] != -3 {
		t.Errorf("cast to i32 (truncation): got %v, want [2 _ -2 -3]", g)
	}
	h := out[7].Data
	bits := func(i int) uint16 { return binary.LittleEndian.Uint16(h[2*i:]) }
	if bits(1) != 0x3C00 || bits(2) != 0x3C00 || bits(3) != 0x3C02 {
		t.Errorf("cast to f16 (nearest even): got %#04x %#04x %#04x, want 0x3c00 0x3c00 0x3c02", bits(1), bits(2), bits(3))
	}
	if g := fromF32s(out[8].Data); g[0] != 2 || g[2] != 2 || g[3] != 2 {
		t.Errorf("clamp with min 3 > max 2: got %v, want max (2) everywhere but NaN", g)
	}
}
