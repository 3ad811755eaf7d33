package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
)

// rem17Cases are one-group convolutions whose channel count leaves the
// 32-channel block a remainder of 17 to 31 (20, 28, 52 = 32 + 20, 60 =
// 32 + 28): a 4-byte accumulator takes the 16-channel block instead
// (emit/conv.go, chanBlock16; the root niro.epi_<form>16), which leaves 4
// or 12; 48 = 32 + 16 keeps the 32-channel block. Each with its epilogue
// fused: 2-D NCHW (the channels-last block with an NCHW root), odd output
// widths, a stride, two images with a residual, f64 (16-channel blocks
// anyway), 1-D and 3-D (conv_general.go's c1d and c3d).
var rem17Cases = []genEpiCase{
	{name: "m20_bn_relu", conv: convCase{x: []int64{1, 8, 9, 13}, w: []int64{20, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw16"},
	{name: "m28_bn_relu", conv: convCase{x: []int64{1, 6, 7, 10}, w: []int64{28, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw16"},
	{name: "m28_hardswish_strided", conv: convCase{x: []int64{1, 5, 13, 19}, w: []int64{28, 5, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "nchw16"},
	{name: "m52_residual_batch2", conv: convCase{x: []int64{2, 4, 6, 11}, w: []int64{52, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "nchw16"},
	{name: "m60_bias", conv: convCase{x: []int64{1, 4, 5, 9}, w: []int64{60, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bias", form: "nchw16"},
	{name: "m48_bn_relu", conv: convCase{x: []int64{1, 4, 7, 10}, w: []int64{48, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
	{name: "m20_bn_relu_f64", conv: convCase{x: []int64{1, 6, 7, 11}, w: []int64{20, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "nchw16"},
	{name: "c1d_m28_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{28, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c1d16"},
	{name: "c3d_m20_residual", conv: convCase{x: []int64{1, 4, 4, 5, 9}, w: []int64{20, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "c3d16"},
}

// TestConvRem17EpilogueFused checks rem17Cases: the emitted root carries
// the form's tag (niro.epi_<form>16 for a remainder of 17 to 31 with a
// 4-byte accumulator), the epilogue's arithmetic is computed on vectors in
// the tile loops after the block's sum and in no generic outside a loop
// (checkEpiFused), and the results have the bits of host-O0 and of a Go
// loop in the documented order.
func TestConvRem17EpilogueFused(t *testing.T) {
	requireTools(t)
	checkGenEpiCases(t, rem17Cases)
}

// TestConvRem17EpilogueChannelsLast checks channels-last roots of 20, 28
// and 60 channels (niro.epi_nhwc16, chanBlock16; 48 channels
// niro.epi_nhwc32): a convolution without a bias whose channels-last
// result a second convolution reads (16 channels, its bias, the NCHW
// read-back its root, niro.epi_nchw32); the results have the bits of
// host-O0 and of a Go loop in the documented order.
func TestConvRem17EpilogueChannelsLast(t *testing.T) {
	requireTools(t)
	for _, c := range []struct {
		name   string
		x, w   []int64
		stride int64
		tag    string
	}{
		{"m20", []int64{1, 8, 9, 13}, []int64{20, 8, 3, 3}, 1, "niro.epi_nhwc16"},
		{"m28_strided", []int64{1, 5, 13, 19}, []int64{28, 5, 3, 3}, 2, "niro.epi_nhwc16"},
		{"m60_batch2", []int64{2, 4, 5, 9}, []int64{60, 4, 3, 3}, 1, "niro.epi_nhwc16"},
		{"m48", []int64{1, 4, 7, 10}, []int64{48, 4, 3, 3}, 1, "niro.epi_nhwc32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			M := c.w[0]
			c1 := convCase{x: c.x, w: c.w, strides: []int64{c.stride, c.stride}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
			mid := c1.out()
			c2 := convCase{x: mid, w: []int64{16, M, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}
			xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
			src := fmt.Sprintf(`func @g(%[1]s, %[2]s, %[3]s, tensor<16xf32>) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: %[3]s, %%3: tensor<16xf32>):
  %%4 = conv %%0, %%1 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [%[6]d, %[6]d]} : (%[1]s, %[2]s) -> %[4]s
  %%5 = conv %%4, %%2, %%3 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<16xf32>) -> %[5]s
  return %%5 : %[5]s
}`, xt, w1t, w2t, dimsText(mid, "f32"), dimsText(c2.out(), "f32"), c.stride)
			path := filepath.Join(t.TempDir(), c.name+".niro")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tag := range []string{c.tag, "niro.epi_nchw32"} {
				if strings.Count(out.MLIR, tag+"}") != 1 {
					t.Fatalf("%d %s roots, want 1:\n%s", strings.Count(out.MLIR, tag+"}"), tag, out.MLIR)
				}
			}
			x, w1, w2, b2 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(numel(c2.w), 0.6), seq(16, 0.25)
			want := convRef(c2, convRef(c1, x, w1, make([]float32, M)), w2, b2)
			res := runNiroWithin(t, 4*time.Minute, src, tf32(c1.x, x), tf32(c1.w, w1), tf32(c2.w, w2), tf32([]int64{16}, b2))
			checkF32(t, res[0], want)
		})
	}
}

// TestConvRem17Unfused checks the schedule on the unfused blocks of
// rem17Cases (2-D, f32): the emitted text with its epilogue root's tag and
// the block's _e removed (as a convolution whose epilogue is not fused is
// emitted), niro.conv2d16 for 32k + 17 to 32k + 31 channels (convBlockTag),
// niro.conv2d for 48. The convolution schedule finishes
// (lowerThroughConv), leaves no block tag and no reduction generic, and
// computes the block's products on vectors.
func TestConvRem17Unfused(t *testing.T) {
	requireTools(t)
	for _, c := range rem17Cases {
		if len(c.conv.x) != 4 || c.elem != "f32" {
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
			if m := c.conv.w[0] % 32; m > 16 {
				tag = "niro.conv2d16"
			}
			src := regexp.MustCompile(`niro\.epi_(nhwc|nchw)(32|16)`).ReplaceAllString(out.MLIR, "niro.not_a_root")
			src = strings.ReplaceAll(src, "niro.conv_epi", "niro.not_epi")
			src = strings.ReplaceAll(src, "niro.conv2d_e", tag)
			ir := lowerThroughConv(t, src)
			for _, left := range []string{"niro.conv2d", "niro.conv_block"} {
				if strings.Contains(ir, left) {
					t.Errorf("%s left after the schedule", left)
				}
			}
			if !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<[\dx]+xf32>`).MatchString(ir) {
				t.Errorf("no block product on vectors")
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
