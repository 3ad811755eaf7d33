package main

import "testing"

// pg1d3dEpiCases are 1-D and 3-D per-group grouped convolutions (M/G ≥ 8
// output channels per group, at most 16 groups: the rank-8 block
// niro.conv2dg_e) whose epilogue is fused in the split view of the result
// (emit/conv_pergroup_epi.go): 1-D roots niro.epi_gn1d<bits> (loops n, g,
// m′, ow), 3-D roots niro.epi_gn3d<bits> (loops n, g, m′, od, oh, ow).
// QuartzNet-style 4 groups of 16 with kernel 5, output widths leaving
// column remainders, strides (a column stride takes the per-kernel-column
// gather), dilation, two images, Mg = 8, 20 (the 16-channel block, 16 +
// 4, perGroupBlock16), 24 and 80 (channel remainders after the 32- and
// 16-channel blocks), BatchNormalization and Relu, HardSwish, a residual
// Add, the bias alone and no bias, f32 and f64.
var pg1d3dEpiCases = []genEpiCase{
	{name: "gn1d_g4_mg16_k5_bn_relu", conv: convCase{x: []int64{1, 64, 37}, w: []int64{64, 16, 5}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{2, 2}, groups: 4, bias: true}, elem: "f32", body: "bn", form: "gn1d32"},
	{name: "gn1d_g3_mg80_hardswish_nobias", conv: convCase{x: []int64{1, 12, 21}, w: []int64{240, 4, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 3}, elem: "f32", body: "hardswish", form: "gn1d32"},
	{name: "gn1d_g3_mg20_strided_dilated_residual", conv: convCase{x: []int64{2, 12, 29}, w: []int64{60, 4, 3}, strides: []int64{2}, dilations: []int64{2}, pads: []int64{2, 1}, groups: 3, bias: true}, elem: "f32", body: "residual", form: "gn1d16"},
	{name: "gn1d_g8_mg8_bias", conv: convCase{x: []int64{1, 16, 19}, w: []int64{64, 2, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 2}, groups: 8, bias: true}, elem: "f32", body: "bias", form: "gn1d32"},
	{name: "gn1d_g4_mg24_bn_relu_f64", conv: convCase{x: []int64{2, 8, 13}, w: []int64{96, 2, 5}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{2, 2}, groups: 4, bias: true}, elem: "f64", body: "bn", form: "gn1d16"},
}

// TestConvPerGroup1D3DEpilogueFused checks pg1d3dEpiCases
// (checkGenEpiFused: the root tag and the niro.conv2dg_e block, the
// epilogue on vectors in the tile loop and in no generic outside it, the
// bits of host-O0 and of a Go loop).
func TestConvPerGroup1D3DEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pg1d3dEpiCases {
		t.Run(c.name, func(t *testing.T) { checkGenEpiFused(t, c) })
	}
}

// pg3dEpiCases are 3-D per-group convolutions (roots niro.epi_gn3d<bits>):
// depth strides and dilation, two images, column remainders, Mg = 8, 20
// (16 + 4, perGroupBlock16), 24 and 80, f32 and f64.
var pg3dEpiCases = []genEpiCase{
	{name: "gn3d_g4_mg16_bn_relu", conv: convCase{x: []int64{1, 16, 4, 5, 11}, w: []int64{64, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 4, bias: true}, elem: "f32", body: "bn", form: "gn3d32"},
	{name: "gn3d_g3_mg80_hardswish_nobias", conv: convCase{x: []int64{1, 6, 3, 4, 9}, w: []int64{240, 2, 1, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 1, 0, 1, 1}, groups: 3}, elem: "f32", body: "hardswish", form: "gn3d32"},
	{name: "gn3d_g3_mg20_strided_residual", conv: convCase{x: []int64{2, 6, 6, 5, 13}, w: []int64{60, 2, 3, 2, 3}, strides: []int64{2, 1, 2}, dilations: []int64{1, 2, 1}, pads: []int64{1, 0, 1, 1, 0, 1}, groups: 3, bias: true}, elem: "f32", body: "residual", form: "gn3d16"},
	{name: "gn3d_g8_mg8_bias", conv: convCase{x: []int64{1, 16, 3, 3, 10}, w: []int64{64, 2, 2, 1, 3}, strides: []int64{1, 1, 1}, dilations: []int64{2, 1, 1}, pads: []int64{1, 0, 1, 1, 0, 1}, groups: 8, bias: true}, elem: "f32", body: "bias", form: "gn3d32"},
	{name: "gn3d_g4_mg24_bn_relu_f64", conv: convCase{x: []int64{2, 8, 3, 4, 7}, w: []int64{96, 2, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 4, bias: true}, elem: "f64", body: "bn", form: "gn3d16"},
}

// TestConvPerGroup3DEpilogueFused checks pg3dEpiCases (checkGenEpiFused).
func TestConvPerGroup3DEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range pg3dEpiCases {
		t.Run(c.name, func(t *testing.T) { checkGenEpiFused(t, c) })
	}
}
