package main

import "testing"

// The last corners of one output channel whose epilogue is fused: one
// input channel and one output column (the row form's transposed view,
// emit/conv_rows_t.go, root niro.epi_rows<bits>; the 1×1 product over the
// taps for a kernel of one row or column, niro.epi_mm32 or niro.epi_mmk),
// one input and one output channel at the widths the depthwise row form
// does not fuse (the taps for a kernel of one row or column, the row form
// otherwise); one output position
// from a strided, padded or dilated kernel (its window gathered, the 1×1
// product over the flattened window: niro.epi_mm32 or the cache block
// niro.epi_mmk, 1-D niro.epi_mmk1d, 3-D niro.epi_mmk3d, which a 3-D one of
// one output column takes too, im2col); a 1-D one of one
// input channel and a 3-D one whose kernel is 1 in both row axes or that
// has one input channel and a kernel of depth 1 (the rank-7 block of one
// channel, @conv_steps1, niro.epi_c1d<bits>, niro.epi_c3d<bits>).
var cornerEpiCases = []genEpiCase{
	// 2-D, one input channel, one output column.
	{name: "c1_ow1_bn_relu", conv: convCase{x: []int64{1, 1, 9, 3}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "c1_ow1_k22_f64", conv: convCase{x: []int64{1, 1, 21, 2}, w: []int64{1, 1, 2, 2}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "rows16"},
	{name: "c1_ow1_strided_hardswish", conv: convCase{x: []int64{2, 1, 40, 7}, w: []int64{1, 1, 3, 3}, strides: []int64{2, 3}, dilations: []int64{1, 2}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
	// 2-D, one input and one output channel: the 1×1 product over the
	// taps (tapsKernel) for one output column and, at the widths of
	// 32k + 1 (f32) and 16k + 1 (f64) that leave the depthwise row
	// form's blocks one column, for a kernel of one row or column; the
	// row form at those widths for a kernel of at least 2 × 2
	// (rowsOneChannel).
	{name: "taps_ow1_k31_residual", conv: convCase{x: []int64{2, 1, 19, 1}, w: []int64{1, 1, 3, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mm32"},
	{name: "taps_ow1_k13_bn_f64", conv: convCase{x: []int64{1, 1, 21, 3}, w: []int64{1, 1, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "mmk"},
	{name: "taps_ow1_k14_strided_hardswish", conv: convCase{x: []int64{1, 1, 30, 9}, w: []int64{1, 1, 1, 4}, strides: []int64{2, 9}, dilations: []int64{1, 2}, pads: []int64{0, 1, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mm32"},
	{name: "taps_ow33_k13_bn", conv: convCase{x: []int64{1, 1, 9, 35}, w: []int64{1, 1, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mm32"},
	{name: "taps_ow17_k31_residual_f64", conv: convCase{x: []int64{2, 1, 7, 17}, w: []int64{1, 1, 3, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk"},
	{name: "rows_c1_ow33_bn", conv: convCase{x: []int64{1, 1, 9, 35}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "rows_c1_ow65_residual_batch2", conv: convCase{x: []int64{2, 1, 5, 65}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "rows32"},
	{name: "rows_c1_ow17_hardswish_f64", conv: convCase{x: []int64{1, 1, 7, 33}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "hardswish", form: "rows16"},
	// 2-D, one output position.
	{name: "one_strided_bias", conv: convCase{x: []int64{1, 6, 4, 4}, w: []int64{1, 6, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bias", form: "mmk"},
	{name: "one_padded_residual_f64", conv: convCase{x: []int64{2, 4, 3, 3}, w: []int64{1, 4, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk"},
	{name: "one_dilated_hardswish", conv: convCase{x: []int64{3, 3, 5, 5}, w: []int64{1, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mm32"},
	{name: "one_c1_padded_bn", conv: convCase{x: []int64{2, 1, 2, 3}, w: []int64{1, 1, 3, 4}, strides: []int64{3, 3}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mm32"},
	// 1-D and 3-D, one output position.
	{name: "c1d_one_bn", conv: convCase{x: []int64{1, 5, 7}, w: []int64{1, 5, 3}, strides: []int64{5}, dilations: []int64{1}, pads: []int64{0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk1d"},
	{name: "c1d_one_dilated_residual_f64", conv: convCase{x: []int64{3, 4, 5}, w: []int64{1, 4, 3}, strides: []int64{1}, dilations: []int64{3}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk1d"},
	{name: "c3d_one_hardswish", conv: convCase{x: []int64{2, 3, 3, 4, 4}, w: []int64{1, 3, 3, 3, 3}, strides: []int64{1, 2, 2}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mmk3d"},
	{name: "c3d_one_c1_bf16", conv: convCase{x: []int64{1, 1, 2, 3, 3}, w: []int64{1, 1, 2, 2, 2}, strides: []int64{2, 2, 2}, dilations: []int64{1, 1, 2}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "bf16", body: "bias", form: "mmk3d"},
	// 3-D, one output column: im2col (oneWindow).
	{name: "c3d_ow1_bn", conv: convCase{x: []int64{1, 2, 4, 5, 3}, w: []int64{1, 2, 2, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk3d"},
	{name: "c3d_ow1_strided_residual_f64", conv: convCase{x: []int64{2, 3, 7, 6, 5}, w: []int64{1, 3, 3, 2, 3}, strides: []int64{2, 1, 3}, dilations: []int64{1, 2, 1}, pads: []int64{1, 0, 0, 1, 1, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk3d"},
	// 1-D and 3-D, the block of one channel.
	{name: "c1d_c1_bn", conv: convCase{x: []int64{1, 1, 37}, w: []int64{1, 1, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c1d32"},
	{name: "c1d_c1_strided_residual_f64", conv: convCase{x: []int64{2, 1, 19}, w: []int64{1, 1, 4}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "c1d16"},
	{name: "c3d_k211_bn", conv: convCase{x: []int64{1, 3, 4, 5, 6}, w: []int64{1, 3, 2, 1, 1}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c3d32"},
	{name: "c3d_c1_hardswish", conv: convCase{x: []int64{1, 1, 4, 5, 10}, w: []int64{1, 1, 1, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 0, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "c3d32"},
	{name: "c3d_k311_strided_bias_f64", conv: convCase{x: []int64{2, 2, 7, 3, 9}, w: []int64{1, 2, 3, 1, 1}, strides: []int64{2, 1, 2}, dilations: []int64{2, 1, 1}, pads: []int64{1, 0, 0, 1, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "c3d16"},
	// The depthwise row form's widths of 32k + 1 (f32) and 16k + 1 (f64),
	// NCHW values (dwRowsCol1Op): the channels-last blocks, a plain
	// depthwise one's, a multiplier's per output channel and per group,
	// one input channel's one-group block.
	{name: "dw8_ow33_bn", conv: convCase{x: []int64{1, 8, 6, 35}, w: []int64{8, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 8, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
	{name: "dw4_ow17_residual_f64", conv: convCase{x: []int64{2, 4, 5, 17}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f64", body: "residual", form: "nchw16"},
	{name: "mult2_ow33_hardswish", conv: convCase{x: []int64{1, 2, 6, 65}, w: []int64{4, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f32", body: "hardswish", form: "nchw32"},
	{name: "mult8_ow33_bn", conv: convCase{x: []int64{1, 2, 5, 33}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true}, elem: "f32", body: "bn", form: "gnchw32"},
	{name: "mult2_ow17_bias_f64", conv: convCase{x: []int64{1, 3, 6, 17}, w: []int64{6, 1, 2, 2}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 3, bias: true}, elem: "f64", body: "bias", form: "nchw16"},
	{name: "dw4_ow33_bias", conv: convCase{x: []int64{2, 4, 11, 33}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, elem: "f32", body: "bias", form: "nchw32"},
	{name: "gray4_ow65_bn", conv: convCase{x: []int64{1, 1, 5, 65}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
}

// TestConvCornerEpilogueFused checks, for the corners above, the root's
// tag, that the epilogue's arithmetic is computed inside the
// convolution's tile loop on vectors and in no generic outside a loop
// (checkEpiFused), and the bits of host and host-O0 against the Go loop
// nest (checkGenEpiBits).
func TestConvCornerEpilogueFused(t *testing.T) {
	requireTools(t)
	checkGenEpiCases(t, cornerEpiCases)
}

// TestE2EConvCornerExact checks the 2-D corners without an epilogue to
// fuse (no bias, or the bias alone, rounded for f16): one input channel
// and one output column takes the row form's block (niro.conv2d_rows),
// or from a kernel of one row or column the 1×1 product over its taps;
// one output position the 1×1 product over its gathered window
// (niro.contraction, or niro.mm_e with the bias fused); no padding
// channel, and the results have the bits of host-O0 and of the Go loop
// nest, f32, f64 and f16.
func TestE2EConvCornerExact(t *testing.T) {
	requireTools(t)
	cases := []convCase{
		{x: []int64{1, 1, 9, 3}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1},
		{x: []int64{2, 1, 23, 8}, w: []int64{1, 1, 4, 3}, strides: []int64{2, 6}, dilations: []int64{2, 1}, pads: []int64{2, 0, 1, 0}, groups: 1, bias: true},
		{x: []int64{1, 7, 4, 4}, w: []int64{1, 7, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 3, 3, 2}, w: []int64{1, 3, 4, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 2, 0, 1}, groups: 1},
		{x: []int64{2, 5, 5, 6}, w: []int64{1, 5, 3, 2}, strides: []int64{4, 5}, dilations: []int64{2, 3}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 1, 19, 1}, w: []int64{1, 1, 3, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true},
		{x: []int64{1, 1, 30, 9}, w: []int64{1, 1, 1, 4}, strides: []int64{2, 9}, dilations: []int64{1, 2}, pads: []int64{0, 1, 0, 0}, groups: 1},
	}
	checkOneChannelExact(t, "corner", cases)
}
