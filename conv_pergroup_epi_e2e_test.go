package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// pgEpiCases are per-group grouped convolutions (emit/conv_general.go,
// M/G ≥ 8 output channels per group, at most 16 groups: one rank-8
// generic niro.conv2dg_e) whose epilogue is fused in the split view of the
// result (emit/conv_pergroup_epi.go, roots niro.epi_gnchw<bits>): 3 and 8
// groups, Mg = 8, 16, 20, 24, 80 (channel remainders of 8 and 16 after the
// 32-channel block, of 4 and 8 after the 16-channel block of f64 and of
// f32's 20 and 24, perGroupBlock16), output widths
// leaving column remainders, strides (a column stride takes the
// per-kernel-column gather), dilation, two images, 1×1 and 3×3 kernels,
// BatchNormalization and Relu, HardSwish, a residual Add, the bias alone,
// f32 and f64.
var pgEpiCases = []genEpiCase{
	{name: "g3_mg80_1x1_bn_relu", conv: convCase{x: []int64{1, 24, 5, 13}, w: []int64{240, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 3, bias: true}, elem: "f32", body: "bn", form: "gnchw32"},
	{name: "g8_mg16_3x3_hardswish", conv: convCase{x: []int64{1, 32, 7, 11}, w: []int64{128, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true}, elem: "f32", body: "hardswish", form: "gnchw32"},
	{name: "g3_mg24_strided_residual", conv: convCase{x: []int64{2, 12, 11, 13}, w: []int64{72, 4, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, elem: "f32", body: "residual", form: "gnchw16"},
	// ShuffleNet's bottleneck 1×1, 3 groups of 20 (the 16-channel block,
	// perGroupBlock16: 16 + 4 channels).
	{name: "g3_mg20_1x1_bn_relu", conv: convCase{x: []int64{1, 24, 6, 11}, w: []int64{60, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 3, bias: true}, elem: "f32", body: "bn", form: "gnchw16"},
	{name: "g8_mg8_dilated_bias", conv: convCase{x: []int64{1, 16, 9, 10}, w: []int64{64, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 1}, pads: []int64{2, 1, 2, 1}, groups: 8, bias: true}, elem: "f32", body: "bias", form: "gnchw32"},
	{name: "g3_mg24_bn_relu_f64", conv: convCase{x: []int64{1, 9, 6, 11}, w: []int64{72, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, elem: "f64", body: "bn", form: "gnchw16"},
	{name: "g8_mg16_residual_f64", conv: convCase{x: []int64{2, 16, 5, 9}, w: []int64{128, 2, 3, 3}, strides: []int64{1, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true}, elem: "f64", body: "residual", form: "gnchw16"},
	{name: "g3_mg80_hardswish_nobias", conv: convCase{x: []int64{1, 12, 4, 10}, w: []int64{240, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3}, elem: "f32", body: "hardswish", form: "gnchw32"},
}

// checkGenEpiFused checks one case of conv_general.go's fused epilogue:
// the root's tag in the emitted text (and the per-group block's,
// niro.conv2dg_e, for a per-group root); its epilogue fused into the tile
// loops after linalg-fuse-elementwise-ops (checkEpiFused); the bits of
// host-O0 and of a Go loop.
func checkGenEpiFused(t *testing.T, c genEpiCase) {
	t.Helper()
	src := c.program()
	if !c.conv.bias {
		// The convolution without its bias operand (the function keeps
		// the parameter, unused).
		bt := dimsText(c.conv.out()[1:2], c.elem)
		src = strings.Replace(src, "conv %0, %1, %15 ", "conv %0, %1 ", 1)
		src = strings.Replace(src, ", "+bt+") -> ", ") -> ", 1)
	}
	if mlir := emitEpi(t, c.name, src, c.form); strings.HasPrefix(c.form, "gn") && !strings.Contains(mlir, "niro.conv2dg_e") {
		t.Fatalf("no niro.conv2dg_e block in the emitted text:\n%s", mlir)
	}
	if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
		return
	}
	checkGenEpiBits(t, c, src)
}

// TestConvPerGroupEpilogueFused checks pgEpiCases (checkGenEpiFused).
func TestConvPerGroupEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pgEpiCases {
		t.Run(c.name, func(t *testing.T) { checkGenEpiFused(t, c) })
	}
}

// TestConvPerGroupEpilogueFusedChannels checks per-group convolutions
// whose epilogue is fused with a channels-last value between them: 8
// groups of 8 with its bias and Relu kept channels-last (root
// niro.epi_gnhwc32, loops n, oh, ow, g, m′), read by 4 groups of 12 that
// write the NCHW result with a residual Add (niro.epi_gnchw32). OW = 10
// leaves a column remainder of 2, Mg = 12 a block of 12 channels.
func TestConvPerGroupEpilogueFusedChannels(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 32, 7, 10}, w: []int64{64, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true}
	c2 := convCase{x: []int64{1, 64, 7, 10}, w: []int64{48, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
	mid, res := dimsText(c1.out(), "f32"), dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<64xf32>, %[3]s, tensor<48xf32>, %[5]s) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<64xf32>, %%3: %[3]s, %%4: tensor<48xf32>, %%9: %[5]s):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 8, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<64xf32>) -> %[4]s
  %%6 = const 0x00000000 : tensor<f32>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f32>) -> %[4]s
  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 4, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<48xf32>) -> %[5]s
  %%10 = add %%8, %%9 : (%[5]s, %[5]s) -> %[5]s
  return %%10 : %[5]s
}`, xt, w1t, w2t, mid, res)
	roots := []string{"gnhwc32", "gnchw32"}
	if n := strings.Count(emitEpi(t, "g", src, roots...), "niro.conv2dg_e"); n != 2 {
		t.Fatalf("%d niro.conv2dg_e blocks in the emitted text, want 2", n)
	}
	if _, loops := checkEpiFused(t, "g", src, roots, []string{"arith.maximumf"}, []string{"arith.addf"}); loops < 2 || t.Failed() {
		t.Fatalf("%d tile loops hold an epilogue, want 2 or more", loops)
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(64, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(48, 0.25)
	r := seq(numel(c2.out()), 0.9)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	for i := range want {
		want[i] = float32(want[i] + r[i])
	}
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{64}, b1), tf32(c2.w, w2), tf32([]int64{48}, b2), tf32(c2.out(), r))
	checkF32(t, got[0], want)
}

// TestConvPerGroupEpilogueChannelMultiplier checks that a depthwise
// convolution with a channel multiplier of 8 (8 groups of 8 output
// channels, one input channel each) is not given the per-group form's
// split epilogue with an NCHW result (conv_dwmult.go's row form fuses
// it), and is given it with a channels-last one (read by a per-group
// convolution; conv_general.go), and that the results have the bits of
// host-O0 and the Go loop.
func TestConvPerGroupEpilogueChannelMultiplier(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 8, 7, 10}, w: []int64{64, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true}
	c2 := convCase{x: []int64{1, 64, 7, 10}, w: []int64{48, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
	mid, res := dimsText(c1.out(), "f32"), dimsText(c2.out(), "f32")
	for _, chain := range []bool{false, true} {
		body := fmt.Sprintf("  return %%7 : %s\n", mid)
		ret := mid
		if chain {
			body = fmt.Sprintf("  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 4, pads = [1, 1, 1, 1], strides = [1, 1]} : (%s, %s, tensor<48xf32>) -> %s\n  return %%8 : %s\n", mid, w2t, res, res)
			ret = res
		}
		src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<64xf32>, %[3]s, tensor<48xf32>) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<64xf32>, %%3: %[3]s, %%4: tensor<48xf32>):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 8, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<64xf32>) -> %[4]s
  %%6 = const 0x00000000 : tensor<f32>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f32>) -> %[4]s
%[6]s}`, xt, w1t, w2t, mid, ret, body)
		path := filepath.Join(t.TempDir(), "g.niro")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		em, err := emitModel(path, ShapeFlags{}, emit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if chain {
			want = 2 // the multiplier's (channels-last) and the second convolution's
		}
		if n := strings.Count(em.MLIR, "niro.epi_gn"); n != want {
			t.Fatalf("chain %v: %d per-group roots, want %d:\n%s", chain, n, want, em.MLIR)
		}
		x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(64, 0.5)
		w2, b2 := seq(numel(c2.w), 0.6), seq(48, 0.25)
		y := convRef(c1, x, w1, b1)
		for i := range y {
			y[i] = max(y[i], 0)
		}
		if chain {
			y = convRef(c2, y, w2, b2)
		}
		got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{64}, b1), tf32(c2.w, w2), tf32([]int64{48}, b2))
		checkF32(t, got[0], y)
	}
}
