package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// pg16k1Cases are per-group grouped convolutions (emit/conv_general.go,
// M/G ≥ 8, at most 16 groups: the rank-8 block niro.conv2dg_e) whose
// group block has 16k + 1 channels (17, 33): without a padding channel,
// their epilogue fused in the split view of the result
// (emit/conv_pergroup_epi.go), the root's tile leaving the block a
// one-channel remainder (toolchain/conv.mlir, @conv_steps8_1) after the
// 16-channel block (f32's 17, perGroupBlock16; f64) or the 32-channel one
// (f32's 33): 2-D NCHW with 2 and 4 groups, strides, dilations, odd
// output widths (column remainders), two images; 1-D and 3-D; f32 and
// f64; the bias alone, BatchNormalization and Relu, HardSwish, a residual
// Add. g3_mg11 is 3 groups of 11 (M = 33: no remainder of one, fused as
// any per-group block).
var pg16k1Cases = []genEpiCase{
	{name: "g2_mg17_bn_relu", conv: convCase{x: []int64{1, 8, 6, 11}, w: []int64{34, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f32", body: "bn", form: "gnchw16"},
	{name: "g4_mg17_hardswish_strided", conv: convCase{x: []int64{1, 8, 11, 13}, w: []int64{68, 2, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f32", body: "hardswish", form: "gnchw16"},
	{name: "g2_mg33_residual_batch2_dilated", conv: convCase{x: []int64{2, 6, 9, 11}, w: []int64{66, 3, 3, 2}, strides: []int64{1, 2}, dilations: []int64{2, 1}, pads: []int64{2, 0, 1, 1}, groups: 2, bias: true}, elem: "f32", body: "residual", form: "gnchw32"},
	{name: "g4_mg17_bias_odd", conv: convCase{x: []int64{1, 12, 5, 13}, w: []int64{68, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f32", body: "bias", form: "gnchw16"},
	{name: "g2_mg17_1x1_bn_relu", conv: convCase{x: []int64{1, 16, 5, 10}, w: []int64{34, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 2, bias: true}, elem: "f32", body: "bn", form: "gnchw16"},
	{name: "g3_mg11_bias", conv: convCase{x: []int64{1, 6, 5, 9}, w: []int64{33, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, elem: "f32", body: "bias", form: "gnchw32"},
	{name: "g2_mg17_bn_relu_f64", conv: convCase{x: []int64{1, 6, 6, 11}, w: []int64{34, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f64", body: "bn", form: "gnchw16"},
	{name: "g2_mg33_residual_f64", conv: convCase{x: []int64{2, 4, 5, 9}, w: []int64{66, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 1, 0}, groups: 2, bias: true}, elem: "f64", body: "residual", form: "gnchw16"},
	// 1-D and 3-D.
	{name: "gn1d_g2_mg17_bn_relu", conv: convCase{x: []int64{1, 6, 29}, w: []int64{34, 3, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 2, bias: true}, elem: "f32", body: "bn", form: "gn1d16"},
	{name: "gn1d_g4_mg33_hardswish_strided_f64", conv: convCase{x: []int64{2, 8, 23}, w: []int64{132, 2, 4}, strides: []int64{2}, dilations: []int64{2}, pads: []int64{2, 3}, groups: 4, bias: true}, elem: "f64", body: "hardswish", form: "gn1d16"},
	{name: "gn3d_g2_mg17_bn_relu", conv: convCase{x: []int64{1, 4, 4, 5, 10}, w: []int64{34, 2, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 2, bias: true}, elem: "f32", body: "bn", form: "gn3d16"},
	{name: "gn3d_g2_mg17_residual_f64", conv: convCase{x: []int64{1, 4, 3, 4, 7}, w: []int64{34, 2, 2, 3, 3}, strides: []int64{1, 1, 2}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 1, 0, 1, 1}, groups: 2, bias: true}, elem: "f64", body: "residual", form: "gn3d16"},
}

// pgBlockChannels returns the channel count of every rank-8 per-group
// block's accumulator (niro.conv2dg_e) in emitted text: the group block,
// no padding channel.
func pgBlockChannels(mlir string) []string {
	var r []string
	for _, m := range regexp.MustCompile(`outs\(%\w+ : tensor<[\dx]+x(\d+)x(?:f32|f64)>\) attrs = \{niro\.conv2dg_e\}`).FindAllStringSubmatch(mlir, -1) {
		r = append(r, m[1])
	}
	return r
}

// TestConvPerGroup16k1EpilogueFused checks pg16k1Cases: the emitted root
// carries the form's tag and the rank-8 block's accumulator has the
// group's channel count (no padding channel); after
// linalg-fuse-elementwise-ops (under a deadline: a schedule that does not
// finish on the one-channel block would hang) the epilogue's arithmetic
// is computed on vectors inside the tile loop and in no generic outside
// one, no product is scalar, the one-channel remainder's product is on a
// vector of output columns (checkChan16k1Fused); and the results have the
// bits of host-O0 and of the Go loop nest.
func TestConvPerGroup16k1EpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pg16k1Cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			mlir := emitEpi(t, c.name, src, c.form)
			mg := fmt.Sprint(c.conv.w[0] / c.conv.groups)
			if got := pgBlockChannels(mlir); len(got) != 1 || got[0] != mg {
				t.Fatalf("want one niro.conv2dg_e block of %s channels, got %v:\n%s", mg, got, mlir)
			}
			if c.conv.w[0]/c.conv.groups%16 == 1 {
				checkChan16k1Fused(t, c, src)
			} else {
				checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body])
			}
			if t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}

// TestConvPerGroup16k1EpilogueChannelsLast checks a chain: 2 groups of 17
// with the bias and Relu kept channels-last (root niro.epi_gnhwc16, loops
// n, oh, ow, g, m′), read by 2 groups of 33 that write the NCHW result
// with a residual Add (niro.epi_gnchw32); OW = 11 leaves a column
// remainder of 3. Both blocks without a padding channel, both epilogues in
// their tile loops, the bits of host-O0 and of the Go loop nest.
func TestConvPerGroup16k1EpilogueChannelsLast(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 8, 6, 11}, w: []int64{34, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}
	c2 := convCase{x: []int64{1, 34, 6, 11}, w: []int64{66, 17, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
	mid, res := dimsText(c1.out(), "f32"), dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<34xf32>, %[3]s, tensor<66xf32>, %[5]s) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<34xf32>, %%3: %[3]s, %%4: tensor<66xf32>, %%9: %[5]s):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 2, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<34xf32>) -> %[4]s
  %%6 = const 0x00000000 : tensor<f32>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f32>) -> %[4]s
  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 2, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<66xf32>) -> %[5]s
  %%10 = add %%8, %%9 : (%[5]s, %[5]s) -> %[5]s
  return %%10 : %[5]s
}`, xt, w1t, w2t, mid, res)
	roots := []string{"gnhwc16", "gnchw32"}
	if got := pgBlockChannels(emitEpi(t, "g", src, roots...)); len(got) != 2 || got[0] != "17" || got[1] != "33" {
		t.Fatalf("niro.conv2dg_e blocks of %v channels, want [17 33]", got)
	}
	ir, loops := checkEpiFused(t, "g", src, roots, []string{"arith.maximumf"}, []string{"arith.addf"})
	if loops < 2 || t.Failed() {
		t.Fatalf("%d tile loops hold an epilogue, want 2 or more", loops)
	}
	if !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<\d+xf32>`).MatchString(ir) {
		t.Errorf("no one-channel block product on a vector of columns")
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(34, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(66, 0.25)
	r := seq(numel(c2.out()), 0.9)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	for i := range want {
		want[i] = float32(want[i] + r[i])
	}
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{34}, b1), tf32(c2.w, w2), tf32([]int64{66}, b2), tf32(c2.out(), r))
	checkF32(t, got[0], want)
}

// TestConvPerGroup16k1Unfused checks the schedule on the unfused rank-8
// blocks of 16k + 1 channels per group: the emitted text with its root's
// tag, the region's and the block's _e removed (as a convolution whose
// epilogue is not fused is emitted: niro.conv2dg16 for f32's 32k + 17
// channels, perGroupTag, niro.conv2dg otherwise). The convolution
// schedule finishes (lowerThroughConv), leaves no block generic, and
// vectorizes the one-channel remainder along its columns.
func TestConvPerGroup16k1Unfused(t *testing.T) {
	requireTools(t)
	for _, c := range pg16k1Cases {
		Mg := c.conv.w[0] / c.conv.groups
		if Mg%16 != 1 || c.body == "bias" || len(c.conv.x) == 5 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mlir := emitEpi(t, c.name, c.program(), c.form)
			tag := "niro.conv2dg"
			if c.elem == "f32" && Mg%32 == 17 {
				tag = "niro.conv2dg16"
			}
			src := regexp.MustCompile(`niro\.epi_gn(chw|hwc|1d|3d)(32|16)`).ReplaceAllString(mlir, "niro.not_a_root")
			src = strings.ReplaceAll(src, "niro.conv_epi", "niro.not_epi")
			src = strings.ReplaceAll(src, "niro.conv2dg_e", tag)
			ir := lowerThroughConv(t, src)
			for _, left := range []string{"niro.conv2dg", "niro.conv8_block"} {
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

// TestConvPerGroup16k1EpilogueBF16 checks 2 groups of 17 on bf16
// (accumulated in f32: the 16-channel root tile, niro.epi_gnchw16, and
// the one-channel remainder) with BatchNormalization and Relu: no padding
// channel, the epilogue (its rounding included) fused, the bits of
// host-O0 and of the Go loop nest.
func TestConvPerGroup16k1EpilogueBF16(t *testing.T) {
	requireTools(t)
	c := genEpiCase{name: "bf16_g2_mg17_bn_relu", conv: convCase{x: []int64{1, 8, 6, 11}, w: []int64{34, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, body: "bn", form: "gnchw16"}
	src := bf16Program(c)
	if got := pgBlockChannels(emitEpi(t, c.name, src, c.form)); len(got) != 1 || got[0] != "17" {
		t.Fatalf("niro.conv2dg_e blocks of %v channels, want [17]", got)
	}
	if checkEpiFused(t, c.name, src, []string{c.form}, append(genEpiOps[c.body], "arith.truncf")); t.Failed() {
		return
	}
	c.elem = "bf16"
	checkGenEpiBits(t, c, src)
}
