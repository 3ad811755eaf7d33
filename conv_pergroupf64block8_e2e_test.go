package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// pgF64Block8Cases are f64 per-group grouped convolutions
// (emit/conv_general.go, M/G ≥ 8, at most 16 groups: the rank-8 block
// niro.conv2dg_e) whose group block has 16k + 9 to 16k + 15 channels
// (perGroupBlock8): their root takes the 8-channel tile
// (niro.epi_gn…8, toolchain/conv.mlir @conv_epi_gnchw8 etc.), which leaves
// the block a remainder of 1 to 7 channels rather than one of 9 to 15
// f64 lanes: 2-D NCHW with 2, 3 and 4 groups of 12, 28, 10 and 9 (8 + 1:
// the one-channel remainder, @conv_steps8_1), a stride, a dilation, odd
// output widths (column remainders), two images; 1-D and 3-D; the bias
// alone, BatchNormalization and Relu, HardSwish, a residual Add.
var pgF64Block8Cases = []genEpiCase{
	{name: "g2_mg12_bn_relu", conv: convCase{x: []int64{1, 6, 6, 11}, w: []int64{24, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f64", body: "bn", form: "gnchw8"},
	{name: "g3_mg28_residual_batch2", conv: convCase{x: []int64{2, 6, 5, 9}, w: []int64{84, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 1, 0}, groups: 3, bias: true}, elem: "f64", body: "residual", form: "gnchw8"},
	{name: "g4_mg10_bias_strided", conv: convCase{x: []int64{1, 8, 9, 13}, w: []int64{40, 2, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f64", body: "bias", form: "gnchw8"},
	{name: "g2_mg9_hardswish_dilated", conv: convCase{x: []int64{1, 4, 7, 10}, w: []int64{18, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 1}, pads: []int64{2, 1, 2, 1}, groups: 2, bias: true}, elem: "f64", body: "hardswish", form: "gnchw8"},
	// 1-D and 3-D.
	{name: "gn1d_g2_mg12_bn_relu", conv: convCase{x: []int64{1, 6, 29}, w: []int64{24, 3, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 2, bias: true}, elem: "f64", body: "bn", form: "gn1d8"},
	{name: "gn1d_g4_mg13_residual_strided", conv: convCase{x: []int64{2, 8, 23}, w: []int64{52, 2, 4}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{2, 1}, groups: 4, bias: true}, elem: "f64", body: "residual", form: "gn1d8"},
	{name: "gn3d_g2_mg14_residual", conv: convCase{x: []int64{1, 4, 3, 4, 7}, w: []int64{28, 2, 2, 3, 3}, strides: []int64{1, 1, 2}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 1, 0, 1, 1}, groups: 2, bias: true}, elem: "f64", body: "residual", form: "gn3d8"},
	{name: "gn3d_g2_mg12_bn_relu", conv: convCase{x: []int64{1, 4, 3, 4, 6}, w: []int64{24, 2, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 2, bias: true}, elem: "f64", body: "bn", form: "gn3d8"},
}

// wideF64 matches an f64 vector of 9 to 15 lanes (the 16-channel block's
// remainder that the 8-channel one avoids).
var wideF64 = regexp.MustCompile(`vector<(?:\d+x)*(?:9|1[0-5])xf64>`)

// checkNoWideF64 reports an f64 vector of 9 to 15 lanes in ir.
func checkNoWideF64(t *testing.T, ir string) {
	t.Helper()
	if m := wideF64.FindString(ir); m != "" {
		t.Errorf("a %s in the scheduled IR (the 8-channel block leaves at most 7 lanes)", m)
	}
}

// TestConvPerGroupF64Block8EpilogueFused checks pgF64Block8Cases: the
// emitted root carries the 8-channel form's tag and the rank-8 block's
// accumulator has the group's channel count; after
// linalg-fuse-elementwise-ops (under a deadline) the epilogue's arithmetic
// is on vectors inside the tile loop and in no generic outside one, no
// product is scalar, no vector has 9 to 15 f64 lanes; and the results
// have the bits of host-O0 and of the Go loop nest.
func TestConvPerGroupF64Block8EpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pgF64Block8Cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			mlir := emitEpi(t, c.name, src, c.form)
			mg := fmt.Sprint(c.conv.w[0] / c.conv.groups)
			if got := pgBlockChannels(mlir); len(got) != 1 || got[0] != mg {
				t.Fatalf("want one niro.conv2dg_e block of %s channels, got %v:\n%s", mg, got, mlir)
			}
			ir, _ := checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body])
			for _, l := range strings.Split(ir, "\n") {
				if strings.Contains(l, "arith.mulf") && !strings.Contains(l, "vector<") {
					t.Errorf("a scalar product (a block left a loop nest): %s", strings.TrimSpace(l))
				}
			}
			checkNoWideF64(t, ir)
			if t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}

// TestConvPerGroupF64Block8ChannelsLast checks an f64 chain: 2 groups of
// 12 with the bias and Relu kept channels-last (root niro.epi_gnhwc8,
// loops n, oh, ow, g, m′), read by 2 groups of 28 that write the NCHW
// result with a residual Add (niro.epi_gnchw8); OW = 11 leaves a column
// remainder of 3. Both epilogues in their tile loops, no vector of 9 to
// 15 f64 lanes, the bits of host-O0 and of the Go loop nest.
func TestConvPerGroupF64Block8ChannelsLast(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 8, 6, 11}, w: []int64{24, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}
	c2 := convCase{x: []int64{1, 24, 6, 11}, w: []int64{56, 12, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f64"), dimsText(c1.w, "f64"), dimsText(c2.w, "f64")
	mid, res := dimsText(c1.out(), "f64"), dimsText(c2.out(), "f64")
	src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<24xf64>, %[3]s, tensor<56xf64>, %[5]s) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<24xf64>, %%3: %[3]s, %%4: tensor<56xf64>, %%9: %[5]s):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 2, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<24xf64>) -> %[4]s
  %%6 = const %[6]s : tensor<f64>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f64>) -> %[4]s
  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 2, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<56xf64>) -> %[5]s
  %%10 = add %%8, %%9 : (%[5]s, %[5]s) -> %[5]s
  return %%10 : %[5]s
}`, xt, w1t, w2t, mid, res, leBytes(0, "f64"))
	roots := []string{"gnhwc8", "gnchw8"}
	if got := pgBlockChannels(emitEpi(t, "g", src, roots...)); len(got) != 2 || got[0] != "12" || got[1] != "28" {
		t.Fatalf("niro.conv2dg_e blocks of %v channels, want [12 28]", got)
	}
	ir, loops := checkEpiFused(t, "g", src, roots, []string{"arith.maximumf"}, []string{"arith.addf"})
	if loops < 2 || t.Failed() {
		t.Fatalf("%d tile loops hold an epilogue, want 2 or more", loops)
	}
	checkNoWideF64(t, ir)
	x, w1, b1 := widen(seq(numel(c1.x), 1.5), 1.1), widen(seq(numel(c1.w), 0.75), 0.9), widen(seq(24, 0.5), 1.3)
	w2, b2 := widen(seq(numel(c2.w), 0.6), 0.9), widen(seq(56, 0.25), 1.3)
	r := widen(seq(numel(c2.out()), 0.9), 0.7)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	for i := range want {
		want[i] += r[i]
	}
	got := runNiro(t, src, tf64(c1.x, x), tf64(c1.w, w1), tf64([]int64{24}, b1), tf64(c2.w, w2), tf64([]int64{56}, b2), tf64(c2.out(), r))
	checkF64(t, got[0].Data, want)
}

// TestConvPerGroupF64Block8Unfused checks the schedule on the unfused
// rank-8 f64 blocks of 16k + 9 to 16k + 15 channels per group: the
// emitted text of pgF64Block8Cases with the root's tag, the region's and
// the block's _e rewritten as a convolution whose epilogue is not fused
// is emitted (niro.conv2dg8, perGroupTag; emit's TestPerGroupTag pins the
// tag) is scheduled: the convolution schedule finishes
// (lowerThroughConv), leaves no block generic and no reduction loop
// nest, computes the 8 × 8 block (output columns by channels) and no
// vector of 9 to 15 f64 lanes.
func TestConvPerGroupF64Block8Unfused(t *testing.T) {
	requireTools(t)
	for _, c := range pgF64Block8Cases {
		if c.body == "bias" || len(c.conv.x) == 5 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mlir := emitEpi(t, c.name, c.program(), c.form)
			src := regexp.MustCompile(`niro\.epi_gn(chw|hwc|1d|3d)8`).ReplaceAllString(mlir, "niro.not_a_root")
			src = strings.ReplaceAll(src, "niro.conv_epi", "niro.not_epi")
			src = strings.ReplaceAll(src, "niro.conv2dg_e", "niro.conv2dg8")
			ir := lowerThroughConv(t, src)
			for _, left := range []string{"niro.conv2dg", "niro.conv8_block"} {
				if strings.Contains(ir, left) {
					t.Errorf("%s left after the schedule", left)
				}
			}
			for _, l := range strings.Split(ir, "\n") {
				if strings.Contains(l, "linalg.generic") && strings.Contains(l, `"reduction"`) {
					t.Errorf("a block left a loop nest: %s", strings.TrimSpace(l))
				}
			}
			if !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<8x8xf64>`).MatchString(ir) {
				t.Errorf("no product on the 8 × 8 block")
			}
			checkNoWideF64(t, ir)
			if t.Failed() {
				t.Logf("IR:\n%s", ir)
			}
		})
	}
}
