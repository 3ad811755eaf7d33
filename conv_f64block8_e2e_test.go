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

// f64Block8Cases are one-group f64 convolutions whose channel count
// leaves the 16-channel block a remainder of 9 to 15 (25 = 16 + 9, 28,
// 31): an 8-byte accumulator takes the 8-channel block instead
// (emit/conv.go, chanBlock8; the root niro.epi_<form>8), which leaves 1
// (25: the one-channel block, @conv_steps1), 4 or 7; 24 = 16 + 8 keeps
// the 16-channel block. Each with its epilogue fused: 2-D NCHW (the
// channels-last block with an NCHW root), the bias alone, a stride, two
// images with a residual, 1-D and 3-D (conv_general.go's c1d and c3d).
var f64Block8Cases = []genEpiCase{
	{name: "m28_bn_relu", conv: convCase{x: []int64{1, 6, 7, 10}, w: []int64{28, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "nchw8"},
	{name: "m25_bias", conv: convCase{x: []int64{1, 5, 6, 11}, w: []int64{25, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "nchw8"},
	{name: "m31_residual_batch2_strided", conv: convCase{x: []int64{2, 4, 11, 13}, w: []int64{31, 4, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "nchw8"},
	{name: "m24_bn_relu", conv: convCase{x: []int64{1, 4, 7, 10}, w: []int64{24, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "nchw16"},
	{name: "c1d_m28_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{28, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "c1d8"},
	{name: "c3d_m25_residual", conv: convCase{x: []int64{1, 4, 4, 5, 9}, w: []int64{25, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "c3d8"},
}

// TestConvF64Block8EpilogueFused checks f64Block8Cases: the emitted root
// carries the form's tag (niro.epi_<form>8 for a remainder of 9 to 15
// with an 8-byte accumulator), the epilogue's arithmetic is computed on
// vectors in the tile loops after the block's sum and in no generic
// outside a loop (checkEpiFused), and the results have the bits of
// host-O0 and of a Go loop in the documented order.
func TestConvF64Block8EpilogueFused(t *testing.T) {
	requireTools(t)
	checkGenEpiCases(t, f64Block8Cases)
}

// TestConvF64Block8ChannelsLast checks channels-last roots of 25, 28 and
// 31 f64 channels (niro.epi_nhwc8, chanBlock8; 24 channels
// niro.epi_nhwc16): a convolution without a bias whose channels-last
// result a second convolution reads (16 channels, its bias, the NCHW
// read-back its root, niro.epi_nchw16); the results have the bits of
// host-O0 and of a Go loop in the documented order.
func TestConvF64Block8ChannelsLast(t *testing.T) {
	requireTools(t)
	for _, c := range []struct {
		name   string
		x, w   []int64
		stride int64
		tag    string
	}{
		{"m25", []int64{1, 6, 9, 13}, []int64{25, 6, 3, 3}, 1, "niro.epi_nhwc8"},
		{"m28_strided", []int64{1, 5, 13, 19}, []int64{28, 5, 3, 3}, 2, "niro.epi_nhwc8"},
		{"m31_batch2", []int64{2, 4, 5, 9}, []int64{31, 4, 3, 3}, 1, "niro.epi_nhwc8"},
		{"m24", []int64{1, 4, 7, 10}, []int64{24, 4, 3, 3}, 1, "niro.epi_nhwc16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			M := c.w[0]
			c1 := convCase{x: c.x, w: c.w, strides: []int64{c.stride, c.stride}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
			mid := c1.out()
			c2 := convCase{x: mid, w: []int64{16, M, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}
			xt, w1t, w2t := dimsText(c1.x, "f64"), dimsText(c1.w, "f64"), dimsText(c2.w, "f64")
			src := fmt.Sprintf(`func @g(%[1]s, %[2]s, %[3]s, tensor<16xf64>) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: %[3]s, %%3: tensor<16xf64>):
  %%4 = conv %%0, %%1 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [%[6]d, %[6]d]} : (%[1]s, %[2]s) -> %[4]s
  %%5 = conv %%4, %%2, %%3 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<16xf64>) -> %[5]s
  return %%5 : %[5]s
}`, xt, w1t, w2t, dimsText(mid, "f64"), dimsText(c2.out(), "f64"), c.stride)
			path := filepath.Join(t.TempDir(), c.name+".niro")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tag := range []string{c.tag, "niro.epi_nchw16"} {
				if strings.Count(out.MLIR, tag+"}") != 1 {
					t.Fatalf("%d %s roots, want 1:\n%s", strings.Count(out.MLIR, tag+"}"), tag, out.MLIR)
				}
			}
			wide := func(n int, scale float32, k float64) []float64 {
				v := seq(n, scale)
				o := make([]float64, n)
				for i, f := range v {
					o[i] = float64(f) * k // inexact in f32
				}
				return o
			}
			x, w1, w2, b2 := wide(numel(c1.x), 1.5, 1.1), wide(numel(c1.w), 0.75, 0.9), wide(numel(c2.w), 0.6, 1.1), wide(16, 0.25, 1.3)
			want := convRef(c2, convRef(c1, x, w1, make([]float64, M)), w2, b2)
			res := runNiroWithin(t, 4*time.Minute, src, tf64(c1.x, x), tf64(c1.w, w1), tf64(c2.w, w2), tf64([]int64{16}, b2))
			checkF64(t, res[0].Data, want)
		})
	}
}

// TestConvF64Block8Unfused checks the schedule on the unfused blocks of
// f64Block8Cases (2-D, 1-D, 3-D): the emitted text with its epilogue
// root's tag and the block's _e removed (as a convolution whose epilogue
// is not fused is emitted), niro.conv2d8 for 16k + 9 to 16k + 15 channels
// (convBlockTag), niro.conv2d for 24. The convolution schedule finishes
// (lowerThroughConv), leaves no block tag and no reduction generic, and
// computes the block's products on f64 vectors of at most 8 lanes.
func TestConvF64Block8Unfused(t *testing.T) {
	requireTools(t)
	for _, c := range f64Block8Cases {
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
			if m := c.conv.w[0] % 16; m > 8 {
				tag = "niro.conv2d8"
			}
			src := regexp.MustCompile(`niro\.epi_(nhwc|nchw|c1d|c3d)(32|16|8)`).ReplaceAllString(out.MLIR, "niro.not_a_root")
			src = strings.ReplaceAll(src, "niro.conv_epi", "niro.not_epi")
			src = strings.ReplaceAll(src, "niro.conv2d_e", tag)
			ir := lowerThroughConv(t, src)
			for _, left := range []string{"niro.conv2d", "niro.conv_block"} {
				if strings.Contains(ir, left) {
					t.Errorf("%s left after the schedule", left)
				}
			}
			prods := regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<(?:\d+x)*(\d+)xf64>`).FindAllStringSubmatch(ir, -1)
			if len(prods) == 0 {
				t.Errorf("no block product on vectors")
			}
			for _, p := range prods {
				if tag == "niro.conv2d8" && len(p[1]) > 1 {
					t.Errorf("a product of %s channel lanes: %s", p[1], p[0])
				}
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
