package main

import (
	"fmt"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// Heads of one output channel (segmentation, depth) outside the 1×1
// product and the row form's 2-D kernels: a kernel with a side of 1, one
// input channel, an output width of 8k + 1. Each takes a fused form
// without a padding channel (emit/conv.go, paddedChannelConv): the row
// form (emit/conv_rows.go; the schedule's @conv_steps_rows4p for a
// kernel side of 1) or, with one input channel, the plain depthwise row
// form (emit/conv_dwmult.go).
var headEpiCases = []genEpiCase{
	// (a) 1×3 and 3×1 kernels, the second with strides (the per-column
	// gather of X); OW = 20 and 13 (column remainders of 4 and 13).
	{name: "k1x3_bn_relu", conv: convCase{x: []int64{1, 6, 7, 20}, w: []int64{1, 6, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 0, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "k3x1_hardswish_strided", conv: convCase{x: []int64{1, 5, 11, 26}, w: []int64{1, 5, 3, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
	{name: "k1x3_residual_f64", conv: convCase{x: []int64{2, 3, 5, 19}, w: []int64{1, 3, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 2}, pads: []int64{0, 2, 0, 2}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "rows16"},
	{name: "k3x1_bias_f64", conv: convCase{x: []int64{1, 4, 9, 12}, w: []int64{1, 4, 3, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "rows16"},
	// (b) one input channel, one output channel: the plain depthwise row
	// form (the half-width block: OW = 20, 40 = 2·16 + 8, 18 in f64).
	// HardSwish reads the convolution twice, and the depthwise row form's
	// fusion computes the block once for each read (as for every depthwise
	// row form); two images keep a tile loop around both, which
	// checkEpiLoops needs (with every loop folded, the first block's
	// product is followed by the second's, not by its epilogue).
	{name: "c1m1_bn_relu", conv: convCase{x: []int64{1, 1, 9, 20}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "dwrowsh32"},
	{name: "c1m1_residual", conv: convCase{x: []int64{2, 1, 6, 40}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "dwrowsh32"},
	{name: "c1m1_hardswish", conv: convCase{x: []int64{2, 1, 12, 18}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "dwrowsh32"},
	{name: "c1m1_hardswish_f64", conv: convCase{x: []int64{2, 1, 12, 18}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "hardswish", form: "dwrowsh16"},
	// (c) widths of 8k + 1 in the row form: a one-column block (17 =
	// 16 + 1 in f32, 8 + 8 + 1 in f64), one output row (the tile's loops
	// folded away: 33 = 2·16 + 1).
	{name: "w17_bn_relu", conv: convCase{x: []int64{1, 6, 5, 17}, w: []int64{1, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "w33_row1_hardswish", conv: convCase{x: []int64{1, 4, 3, 33}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 0, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
	{name: "w17_residual_f64", conv: convCase{x: []int64{1, 6, 5, 17}, w: []int64{1, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "rows16"},
	{name: "w9_bn_relu_f64", conv: convCase{x: []int64{2, 3, 4, 9}, w: []int64{1, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "rows16"},
}

// TestConvHeadEpilogueFused checks headEpiCases: the root's tag, the
// epilogue computed in the convolution's tile loop on vectors
// (checkEpiFused), and the bits of the Go loop nest and of host-O0
// (checkGenEpiBits).
func TestConvHeadEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range headEpiCases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src) // host and host-O0
		})
	}
}

// TestConvHeadHalfExact checks the 8k + 1 widths of the row form in f16
// and bf16 (the one-column block's 0-d accumulator transfers, folded
// through their subviews after bufferization: toolchain/schedule.mlir),
// with the bias and without: host against host-O0 and both against the
// Go loop nest (the bias is the fused read-back's epilogue).
func TestConvHeadHalfExact(t *testing.T) {
	requireTools(t)
	cases := []convCase{
		{x: []int64{1, 6, 5, 17}, w: []int64{1, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		{x: []int64{1, 4, 1, 33}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{1, 5, 4, 25}, w: []int64{1, 5, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
	}
	for i, c := range cases {
		for _, e := range []string{"f16", "bf16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				checkConvExact(t, c, e)
			})
		}
	}
}

// TestConvHeadForms checks which forms the heads take (emit.UsesConvRows).
func TestConvHeadForms(t *testing.T) {
	for _, c := range []struct {
		ow, m, c, kh, kw int64
		want             bool
	}{
		{17, 1, 6, 3, 3, true},  // 8k + 1
		{9, 1, 6, 3, 3, true},   // 8k + 1
		{20, 1, 6, 1, 3, true},  // a kernel side of 1
		{13, 1, 5, 3, 1, true},  // a kernel side of 1
		{20, 1, 6, 1, 1, false}, // the 1×1 product
		{20, 1, 1, 3, 3, false}, // one input channel: the depthwise row form
		{17, 2, 6, 3, 3, false}, // two channels: a width of a multiple of 8 only
		{24, 8, 6, 1, 3, false}, // a kernel side of 1 with more channels
	} {
		if got := emit.UsesConvRows(c.ow, c.m, c.c, c.kh, c.kw); got != c.want {
			t.Errorf("UsesConvRows(OW %d, M %d, C %d, %d×%d) = %v, want %v", c.ow, c.m, c.c, c.kh, c.kw, got, c.want)
		}
	}
}
