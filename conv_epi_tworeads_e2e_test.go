package main

import (
	"strings"
	"testing"
	"time"
)

// TestConvEpilogueReadTwiceOnce checks that an epilogue reading the
// convolution's value twice (HardSwish, x·min(max(x/6 + 1/2, 0), 1))
// computes the convolution's block once per tile: fused into the root's
// tile loop for each of its two reads, the two copies of the block must be
// merged (toolchain/conv.mlir, @conv_epi_fuse), so after the convolution
// schedule the IR has as many loops as the same convolution with an
// epilogue that reads it once (a residual Add, then Relu). One case per
// fused form: the channels-last block with NCHW values, the row form, the
// depthwise row form, the 1×1 product and its cache block, the 1-D block
// and the per-group block.
func TestConvEpilogueReadTwiceOnce(t *testing.T) {
	requireTools(t)
	for _, c := range []genEpiCase{
		{name: "nchw", conv: convCase{x: []int64{1, 8, 12, 10}, w: []int64{16, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", form: "nchw32"},
		{name: "rows", conv: convCase{x: []int64{1, 8, 12, 40}, w: []int64{16, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", form: "rows32"},
		{name: "dwrows", conv: convCase{x: []int64{1, 8, 20, 64}, w: []int64{8, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true}, elem: "f32", form: "dwrows32"},
		{name: "dwrowsh_f64", conv: convCase{x: []int64{2, 4, 9, 30}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f64", form: "dwrowsh16"},
		{name: "rows_c1", conv: convCase{x: []int64{1, 1, 9, 35}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", form: "rows32"},
		{name: "mm", conv: convCase{x: []int64{1, 16, 14, 14}, w: []int64{32, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", form: "mm32"},
		{name: "mmk_f64", conv: convCase{x: []int64{1, 16, 14, 14}, w: []int64{32, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", form: "mmk"},
		{name: "c1d", conv: convCase{x: []int64{1, 5, 37}, w: []int64{19, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", form: "c1d16"},
		{name: "gnchw", conv: convCase{x: []int64{1, 16, 10, 12}, w: []int64{32, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f32", form: "gnchw32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			loops := map[string]int{}
			for _, body := range []string{"hardswish", "residual"} {
				b := c
				b.body = body
				ir := lowerThrough(t, 3*time.Minute, emitEpi(t, c.name+"_"+body, b.program(), c.form), "conv")
				loops[body] = strings.Count(ir, "scf.for")
			}
			if loops["hardswish"] != loops["residual"] {
				t.Errorf("%d loops with HardSwish, %d with an epilogue that reads the convolution once: the block is computed for each read", loops["hardswish"], loops["residual"])
			}
		})
	}
}
