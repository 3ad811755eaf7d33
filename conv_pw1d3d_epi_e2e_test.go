package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
)

// 1-D and 3-D pointwise convolutions (one group, kernel 1), whose
// epilogue is fused into the cache block of their NC… product
// (emit/conv_pw1d3d.go; toolchain/conv.mlir, @conv_epi_mmk_pw_tiles):
// 256 output channels × whole rows (or 128/256 columns of a long 1-D
// row, or rows of one depth slice in 3-D), the product blocked inside it
// by the contraction schedule, the epilogue tiled into vectors of 4
// channels × 16 columns. form is the root's tag after niro.epi_, elem
// f32, f64 or bf16.
var pwEpiCases = []genEpiCase{
	// 1-D: 512 → 1024 over 200 columns (the whole row one block; four
	// blocks of channels), bias alone; BN and Relu with 260 → 300 (a
	// channel remainder of 44, of 0 for the vector tiles) over 37 columns
	// (a column remainder of 5 for the vector tiles); two images, strided
	// and padded (gathered), a residual Add; 600 columns (blocks of 256,
	// a remainder of 88), HardSwish; M = 258 (a remainder of 2 channels).
	{name: "c1d_512_1024_bias", conv: convCase{x: []int64{1, 512, 200}, w: []int64{1024, 512, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bias", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_bn_relu", conv: convCase{x: []int64{1, 260, 37}, w: []int64{300, 260, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_batch2_strided_residual", conv: convCase{x: []int64{2, 272, 41}, w: []int64{258, 272, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 2}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_cols_hardswish", conv: convCase{x: []int64{1, 300, 600}, w: []int64{240, 300, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mmk1d, niro.mmk_h2"},
	// f64: 300 columns, blocks of 128; a small one.
	{name: "c1d_f64_cols_bn_relu", conv: convCase{x: []int64{1, 200, 300}, w: []int64{180, 200, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "mmk1d, niro.mmk_h1"},
	{name: "c1d_f64_residual", conv: convCase{x: []int64{1, 260, 19}, w: []int64{130, 260, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk1d, niro.mmk_h0"},
	// 3-D: 256 → 512 over 8 × 14 × 14 (one depth slice per block), BN and
	// Relu; 3 × 5 × 11 (the whole volume one block), HardSwish; 2 × 20 ×
	// 30 (blocks of 4 rows of one depth slice, a remainder of 0 and 14
	// columns for the vector tiles), strided and padded, a residual Add.
	{name: "c3d_256_512_bn_relu", conv: convCase{x: []int64{1, 256, 8, 14, 14}, w: []int64{512, 256, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk3d, niro.mmk_h8"},
	{name: "c3d_whole_hardswish", conv: convCase{x: []int64{1, 270, 3, 5, 11}, w: []int64{260, 270, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mmk3d, niro.mmk_h0"},
	{name: "c3d_rows_strided_residual", conv: convCase{x: []int64{1, 264, 4, 40, 60}, w: []int64{260, 264, 1, 1, 1}, strides: []int64{2, 2, 2}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mmk3d, niro.mmk_h4"},
	{name: "c3d_f64_bias", conv: convCase{x: []int64{1, 200, 2, 12, 9}, w: []int64{170, 200, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "mmk3d, niro.mmk_h8"},
	// bf16 (f32 accumulation, rounded once, each op rounded once): 1-D,
	// and strided (X gathered widened to f32, W widened with it: 17
	// columns, a remainder of 1 for the contraction's register blocks),
	// and 3-D.
	{name: "bf16_c1d_bn_relu", conv: convCase{x: []int64{1, 260, 37}, w: []int64{300, 260, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "bf16", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "bf16_c1d_strided_hardswish", conv: convCase{x: []int64{2, 264, 33}, w: []int64{266, 264, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "bf16", body: "hardswish", form: "mmk1d, niro.mmk_h0"},
	// Small f32 ones (the product measured faster than the rank-7 block
	// at every size): 24 → 40 over 37 columns, 8 → 8 over 300 (blocks of
	// 256 columns, a remainder of 44), 16 → 21 over 3 × 5 × 11.
	{name: "c1d_small_bn_relu", conv: convCase{x: []int64{1, 24, 37}, w: []int64{40, 24, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_small_cols_residual", conv: convCase{x: []int64{1, 8, 300}, w: []int64{8, 8, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mmk1d, niro.mmk_h2"},
	{name: "c3d_small_hardswish", conv: convCase{x: []int64{2, 16, 3, 5, 11}, w: []int64{21, 16, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mmk3d, niro.mmk_h0"},
	// (Moved from genEpiCases, where the rank-7 block took them: a
	// stride and padding in 1-D, 64 × 150, M = 21 in 3-D.)
	{name: "c1d_pointwise_bn_relu", conv: convCase{x: []int64{2, 24, 37}, w: []int64{40, 24, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_pointwise_strided_residual", conv: convCase{x: []int64{1, 8, 30}, w: []int64{18, 8, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 2}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mmk1d, niro.mmk_h0"},
	{name: "c1d_pointwise_wide_bn_relu", conv: convCase{x: []int64{1, 64, 20}, w: []int64{150, 64, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "c3d_pointwise_bn_relu", conv: convCase{x: []int64{1, 16, 3, 5, 11}, w: []int64{21, 16, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk3d, niro.mmk_h0"},
	{name: "c1d_pointwise_hardswish_f64", conv: convCase{x: []int64{1, 6, 19}, w: []int64{20, 6, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f64", body: "hardswish", form: "mmk1d, niro.mmk_h0"},
	{name: "bf16_c1d_small_bn_relu", conv: convCase{x: []int64{1, 12, 40}, w: []int64{20, 12, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "bf16", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "bf16_c3d_residual", conv: convCase{x: []int64{1, 264, 2, 5, 11}, w: []int64{260, 264, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "bf16", body: "residual", form: "mmk3d, niro.mmk_h0"},
}

// TestConvPointwise1D3DEpilogueFused checks the 1-D and 3-D pointwise
// convolutions: the root carries the cache block's
// tag; on the IR after linalg-fuse-elementwise-ops, the epilogue's
// arithmetic is computed on vectors (never on scalars) inside a tile loop
// after the contraction's register blocks, and in no generic outside a
// loop; the results have the bits of host-O0 and of a Go loop in the
// documented order (bf16: the f32 computation rounded once per op).
func TestConvPointwise1D3DEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pwEpiCases {
		t.Run(c.name, func(t *testing.T) {
			var src string
			if c.elem == "bf16" {
				src = bf16Program(c)
			} else {
				src = c.program()
			}
			if !strings.Contains(emitEpi(t, c.name, src, c.form), "niro.mm_e") {
				t.Fatalf("no niro.mm_e product for the niro.epi_%s root", c.form)
			}
			ops := append(append([]string(nil), genEpiOps[c.body]...), pwHalfOps(c.elem)...)
			if _, n := checkEpiFused(t, c.name, src, []string{c.form}, ops); n == 0 || t.Failed() {
				t.Fatalf("no tile loop holds the product's register blocks and then the epilogue")
			}
			checkGenEpiBits(t, c, src)
		})
	}
}

// pwHalfOps are the ops a 16-bit epilogue adds: its rounding.
func pwHalfOps(elem string) []string {
	if elem == "bf16" {
		return []string{"arith.truncf"}
	}
	return nil
}

// TestConvPointwise1DAfterReshape checks a 1-D pointwise convolution
// whose X is a 2-D convolution's result (with Relu) reshaped to rank 3:
// the one case where a channels-last value could reach a 1-D
// convolution. The layout pass keeps that X NC… (emit/layout.go drops
// the X of every convolution that is not 2-D, and the Reshape carries
// that back), so the 1-D convolution's epilogue is fused as any
// (niro.epi_mmk1d), and the results have the bits of host-O0 and a Go
// loop.
func TestConvPointwise1DAfterReshape(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 16, 6, 20}, w: []int64{32, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}
	c2 := convCase{x: []int64{1, 32, 120}, w: []int64{40, 32, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}
	src := `func @f(tensor<1x16x6x20xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>, tensor<40x32x1xf32>, tensor<40xf32>) -> (tensor<1x40x120xf32>) {
^bb0(%0: tensor<1x16x6x20xf32>, %1: tensor<32x16x3x3xf32>, %2: tensor<32xf32>, %3: tensor<40x32x1xf32>, %4: tensor<40xf32>):
  %5 = conv %0, %1, %2 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x16x6x20xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x6x20xf32>
  %6 = const 0x00000000 : tensor<f32>
  %7 = max %5, %6 : (tensor<1x32x6x20xf32>, tensor<f32>) -> tensor<1x32x6x20xf32>
  %8 = reshape %7 : (tensor<1x32x6x20xf32>) -> tensor<1x32x120xf32>
  %9 = conv %8, %3, %4 {dilations = [1], group = 1, pads = [0, 0], strides = [1]} : (tensor<1x32x120xf32>, tensor<40x32x1xf32>, tensor<40xf32>) -> tensor<1x40x120xf32>
  %10 = max %9, %6 : (tensor<1x40x120xf32>, tensor<f32>) -> tensor<1x40x120xf32>
  return %10 : tensor<1x40x120xf32>
}`
	path := filepath.Join(t.TempDir(), "f.niro")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	em, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(em.MLIR, "niro.epi_mmk1d, niro.mmk_h0"); n != 1 {
		t.Fatalf("%d niro.epi_mmk1d roots in the emitted text, want 1:\n%s", n, em.MLIR)
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(32, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(40, 0.25)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	for i := range want {
		want[i] = max(want[i], 0)
	}
	got := runNiroWithin(t, 4*time.Minute, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{32}, b1), tf32(c2.w, w2), tf32([]int64{40}, b2))
	checkF32(t, got[0], want)
}

// TestConvPointwise1D3DNoBias checks the product's cache block without a
// bias (f32): the product is the convolution's result and the region's
// first op, Relu, the root (1-D, strided; 3-D), with the bits of host-O0
// and a Go loop.
func TestConvPointwise1D3DNoBias(t *testing.T) {
	requireTools(t)
	for _, c := range []convCase{
		{x: []int64{1, 40, 61}, w: []int64{24, 40, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1},
		{x: []int64{2, 20, 3, 4, 9}, w: []int64{36, 20, 1, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1},
	} {
		t.Run(fmt.Sprintf("%dd", len(c.x)-2), func(t *testing.T) {
			xt, wt, rt := dimsText(c.x, "f32"), dimsText(c.w, "f32"), dimsText(c.out(), "f32")
			src := fmt.Sprintf(`func @f(%[1]s, %[2]s) -> (%[3]s) {
^bb0(%%0: %[1]s, %%1: %[2]s):
  %%2 = conv %%0, %%1 {dilations = %[4]s, group = 1, pads = %[5]s, strides = %[6]s} : (%[1]s, %[2]s) -> %[3]s
  %%3 = const 0x00000000 : tensor<f32>
  %%4 = max %%2, %%3 : (%[3]s, tensor<f32>) -> %[3]s
  return %%4 : %[3]s
}`, xt, wt, rt, intsText(c.dilations), intsText(c.pads), intsText(c.strides))
			root := fmt.Sprintf("mmk%dd, niro.mmk_h0", len(c.x)-2)
			if _, n := checkEpiFused(t, "f", src, []string{root}, []string{"arith.maximumf"}); n == 0 || t.Failed() {
				t.Fatalf("no tile loop holds the product's register blocks and then Relu")
			}
			x, w := seq(numel(c.x), 1.5), seq(numel(c.w), 0.75)
			want := convRef(c, x, w, nil)
			for i := range want {
				want[i] = max(want[i], 0)
			}
			got := runNiroWithin(t, 4*time.Minute, src, tf32(c.x, x), tf32(c.w, w))
			checkF32(t, got[0], want)
		})
	}
}
