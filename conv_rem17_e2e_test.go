package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
	for _, c := range rem17Cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}

// TestConvRem17Unfused checks convolutions of 20, 28 and 60 channels
// without a bias or an epilogue (no root: the block generic is emitted
// unfused): niro.conv2d16 for f32 (chanBlock16), niro.conv2d for 48
// channels and for f64; the convolution schedule finishes and leaves no
// block generic (lowerThroughConv); the bits of host-O0 and of a Go loop.
func TestConvRem17Unfused(t *testing.T) {
	requireTools(t)
	cases := []genEpiCase{
		{name: "m20", conv: convCase{x: []int64{1, 8, 9, 13}, w: []int64{20, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}, elem: "f32", body: "bias", form: "niro.conv2d16"},
		{name: "m28_strided", conv: convCase{x: []int64{1, 5, 13, 19}, w: []int64{28, 5, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}, elem: "f32", body: "bias", form: "niro.conv2d16"},
		{name: "m60_batch2", conv: convCase{x: []int64{2, 4, 5, 9}, w: []int64{60, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}, elem: "f32", body: "bias", form: "niro.conv2d16"},
		{name: "m48", conv: convCase{x: []int64{1, 4, 7, 10}, w: []int64{48, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}, elem: "f32", body: "bias", form: "niro.conv2d"},
		{name: "m28_f64", conv: convCase{x: []int64{1, 6, 7, 10}, w: []int64{28, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}, elem: "f64", body: "bias", form: "niro.conv2d"},
	}
	tags := regexp.MustCompile(`attrs = \{(niro\.conv2d\w*)\}`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			path := filepath.Join(t.TempDir(), c.name+".niro")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.MLIR, "niro.epi_") {
				t.Fatalf("an epilogue root in the emitted text:\n%s", out.MLIR)
			}
			got := tags.FindAllStringSubmatch(out.MLIR, -1)
			if len(got) != 1 || got[0][1] != c.form {
				t.Fatalf("block tags %v, want one %s:\n%s", got, c.form, out.MLIR)
			}
			ir := lowerThroughConv(t, out.MLIR)
			for _, left := range []string{"niro.conv2d", "niro.conv_block"} {
				if strings.Contains(ir, left) {
					t.Errorf("%s left after the schedule", left)
				}
			}
			for _, l := range strings.Split(ir, "\n") {
				if strings.Contains(l, "linalg.generic") && strings.Contains(l, `"reduction"`) {
					t.Errorf("a block left a loop nest: %s", strings.TrimSpace(l))
				}
			}
			if t.Failed() {
				t.Logf("IR:\n%s", ir)
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}
