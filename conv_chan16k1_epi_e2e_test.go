package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// chan16k1Cases are one-group convolutions whose block channel count is
// 16k + 1 (17, 33, 49), k ≥ 1: without a padding channel (emit/conv.go,
// paddedChannelConv), the schedule's blocks leave a one-channel block
// (toolchain/conv.mlir, @conv_steps1), or 17 channels of a 4-byte
// accumulator the 16-channel block (convBlockTag, the root niro.epi_<form>16)
// and then one; each with its epilogue fused: 2-D NCHW (the channels-last
// block with an NCHW root), strides, dilations, odd output widths (column
// remainders of the 8-column block), two images, f32 and f64; 1-D and 3-D
// (conv_general.go's c1d and c3d), a 1-D pointwise one (the cache block
// of the NC… product, emit/conv_pw1d3d.go: a channel remainder of one).
var chan16k1Cases = []genEpiCase{
	{name: "m17_bn_relu", conv: convCase{x: []int64{1, 8, 9, 13}, w: []int64{17, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw16"},
	{name: "m33_bn_relu", conv: convCase{x: []int64{1, 6, 7, 10}, w: []int64{33, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
	{name: "m49_hardswish_strided", conv: convCase{x: []int64{1, 5, 13, 19}, w: []int64{49, 5, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "nchw16"},
	{name: "m33_residual_batch2_dilated", conv: convCase{x: []int64{2, 4, 9, 11}, w: []int64{33, 4, 3, 2}, strides: []int64{1, 2}, dilations: []int64{2, 1}, pads: []int64{2, 0, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "nchw32"},
	{name: "rows_m17_wide_bias", conv: convCase{x: []int64{1, 4, 5, 32}, w: []int64{17, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bias", form: "rows32"},
	{name: "m17_bn_relu_f64", conv: convCase{x: []int64{1, 6, 7, 11}, w: []int64{17, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "nchw16"},
	{name: "m33_residual_f64", conv: convCase{x: []int64{2, 3, 6, 9}, w: []int64{33, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 1, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "nchw16"},
	// The row form (NCHW, OW a multiple of 8 from 16): a channel
	// remainder of one after the 16-channel blocks, a column remainder of
	// 8 (OW = 24), two images, f64.
	{name: "rows_m17_bn_relu", conv: convCase{x: []int64{1, 6, 5, 24}, w: []int64{17, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "rows_m33_residual_batch2", conv: convCase{x: []int64{2, 4, 6, 32}, w: []int64{33, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "rows32"},
	{name: "rows_m17_hardswish_f64", conv: convCase{x: []int64{1, 5, 4, 16}, w: []int64{17, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "hardswish", form: "rows16"},
	// 1×1 (the NCHW product's register block, 8 channels: a remainder of
	// one).
	{name: "mm_m17_bn_relu", conv: convCase{x: []int64{1, 16, 6, 20}, w: []int64{17, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mm32"},
	{name: "mm_m33_residual", conv: convCase{x: []int64{1, 8, 5, 12}, w: []int64{33, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mm32"},
	// 1-D and 3-D.
	{name: "c1d_m17_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{17, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c1d16"},
	{name: "c1d_m33_hardswish_strided", conv: convCase{x: []int64{2, 6, 29}, w: []int64{33, 6, 4}, strides: []int64{3}, dilations: []int64{2}, pads: []int64{2, 3}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "c1d32"},
	{name: "c1d_m17_residual_f64", conv: convCase{x: []int64{1, 4, 19}, w: []int64{17, 4, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 2}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "c1d16"},
	{name: "c1d_pointwise_m17_bn_relu", conv: convCase{x: []int64{1, 24, 21}, w: []int64{17, 24, 1}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d, niro.mmk_h0"},
	{name: "c3d_m17_bn_relu", conv: convCase{x: []int64{1, 4, 5, 7, 11}, w: []int64{17, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c3d16"},
	{name: "c3d_m33_bias_f64", conv: convCase{x: []int64{1, 3, 4, 5, 9}, w: []int64{33, 3, 2, 3, 3}, strides: []int64{1, 1, 2}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 1, 0, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "c3d16"},
}

// TestConvChan16k1EpilogueFused checks chan16k1Cases: the emitted root
// carries the form's tag and no padding channel is emitted (the
// accumulator has the result's channel count); after
// linalg-fuse-elementwise-ops (under a deadline: a one-channel block the
// schedule did not finish on would hang), the epilogue's arithmetic is
// computed on vectors inside the convolution's tile loop, after the
// block's sum, and in no generic outside a loop, the one-channel block's
// sum on vectors along its output columns; and the results have the bits
// of host-O0 and of a Go loop in the documented order.
func TestConvChan16k1EpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range chan16k1Cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			mlir := emitEpi(t, c.name, src, c.form)
			M := c.conv.w[0]
			// The block's accumulator: the result's channel count, no
			// padding channel.
			mm := strings.HasPrefix(c.form, "mm") || strings.HasPrefix(c.form, "rows")
			blk := regexp.MustCompile(`outs\(%\w+ : tensor<[\dx]+x(\d+)x`+c.elem+`>\) attrs = \{niro\.conv2d_e\}`).FindAllStringSubmatch(mlir, -1)
			if !mm && (len(blk) != 1 || blk[0][1] != fmt.Sprint(M)) {
				t.Fatalf("want one niro.conv2d_e block of %d channels, got %v:\n%s", M, blk, mlir)
			}
			checkChan16k1Fused(t, c, src)
			if t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}

// checkChan16k1Fused checks src, c's program, after
// linalg-fuse-elementwise-ops: its epilogue fused into the tile loops
// (checkEpiFused), no scalar product, and the one-channel block's sum on
// vectors of its columns (vector<8x…> or vector<…x…> of at most 8
// elements with no channel dimension: the one-channel tile reads X along
// the columns).
func checkChan16k1Fused(t *testing.T, c genEpiCase, src string) {
	t.Helper()
	ir, _ := checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body])
	for _, l := range strings.Split(ir, "\n") {
		if strings.Contains(l, "arith.mulf") && !strings.Contains(l, "vector<") {
			t.Errorf("a scalar product (a block left a loop nest): %s", strings.TrimSpace(l))
		}
	}
	// The one-channel block: a product on a 1-D vector of the block's
	// columns, the channel dimension folded away (a 1×1 product's
	// remainder channel: a vector along the output row).
	one := regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<\d+x` + c.elem + `>`)
	if !strings.HasPrefix(c.form, "mm") && !one.MatchString(ir) {
		t.Errorf("no one-channel block product on a vector of columns (vector<≤8x%s>)", c.elem)
	}
	if t.Failed() {
		t.Logf("IR:\n%s", ir)
	}
}

// TestConvChan16k1EpilogueChannelsLast checks a channels-last root of
// 33 channels (niro.epi_nhwc32): a convolution with its bias and Relu
// kept channels-last, read by a second convolution of 17 channels that
// writes the NCHW result (its read-back the root, niro.epi_nchw16); both
// epilogues in their tile loops, the bits of host-O0 and of a Go loop.
func TestConvChan16k1EpilogueChannelsLast(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 8, 7, 10}, w: []int64{33, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}
	c2 := convCase{x: []int64{1, 33, 7, 10}, w: []int64{17, 33, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
	mid, res := dimsText(c1.out(), "f32"), dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<33xf32>, %[3]s, tensor<17xf32>) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<33xf32>, %%3: %[3]s, %%4: tensor<17xf32>):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<33xf32>) -> %[4]s
  %%6 = const 0x00000000 : tensor<f32>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f32>) -> %[4]s
  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<17xf32>) -> %[5]s
  return %%8 : %[5]s
}`, xt, w1t, w2t, mid, res)
	if _, loops := checkEpiFused(t, "g", src, []string{"nhwc32", "nchw16"}, []string{"arith.maximumf"}, []string{"arith.addf"}); loops < 2 || t.Failed() {
		t.Fatalf("%d tile loops hold an epilogue, want 2 or more", loops)
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(33, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(17, 0.25)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{33}, b1), tf32(c2.w, w2), tf32([]int64{17}, b2))
	checkF32(t, got[0], want)
}

// TestConvChan16k1Unfused checks the schedule on the unfused blocks of
// 16k + 1 channels: the emitted text with its epilogue root's tag and the
// block's _e removed (as a convolution whose epilogue is not fused is
// emitted), niro.conv2d16 for 32k + 17 channels of f32 (the 16-channel
// block), niro.conv2d otherwise, niro.conv2d_rows for the row form. The convolution schedule finishes
// (lowerThroughConv), leaves no block generic (no reduction generic, no
// block tag), and vectorizes the one-channel block along its columns.
func TestConvChan16k1Unfused(t *testing.T) {
	requireTools(t)
	for _, c := range chan16k1Cases {
		if len(c.conv.x) != 4 || c.body == "bias" || strings.HasPrefix(c.form, "mm") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".niro")
			if err := os.WriteFile(path, []byte(c.program()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tag := "niro.conv2d"
			if c.elem == "f32" && c.conv.w[0]%32 == 17 {
				tag = "niro.conv2d16"
			}
			src := regexp.MustCompile(`niro\.epi_(nhwc|nchw|rows)(32|16)`).ReplaceAllString(out.MLIR, "niro.not_a_root")
			src = strings.ReplaceAll(src, "niro.conv_epi", "niro.not_epi")
			src = strings.ReplaceAll(src, "niro.conv2d_rows_e", "niro.conv2d_rows")
			src = strings.ReplaceAll(src, "niro.conv2d_e", tag)
			ir := lowerThroughConv(t, src)
			for _, left := range []string{"niro.conv2d", "niro.conv_block"} {
				if strings.Contains(ir, left) {
					t.Errorf("%s left after the schedule", left)
				}
			}
			if !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<\d+x` + c.elem + `>`).MatchString(ir) {
				t.Errorf("no one-channel block product on a vector of columns")
			}
			for _, l := range strings.Split(ir, "\n") {
				if strings.Contains(l, "linalg.generic") && strings.Contains(l, `"reduction"`) {
					t.Errorf("a block left a loop nest: %s", strings.TrimSpace(l))
				}
			}
			if t.Failed() {
				t.Logf("IR:\n%s", ir)
			}
		})
	}
}
