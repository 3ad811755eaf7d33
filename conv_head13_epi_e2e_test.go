package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// 1-D and 3-D convolutions of one output channel (emit/conv_rows_view.go):
// the 2-D row form's 4-D view, no padding channel, the epilogue fused in
// that view (root niro.epi_rows32, f64 niro.epi_rows16). Odd lengths,
// strides, dilations, two images; a 3-D residual read through the view
// collapsed, BatchNormalization's parameters broadcast.
var head13Cases = []genEpiCase{
	{name: "h1d_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{1, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "h1d_hardswish_strided", conv: convCase{x: []int64{2, 6, 29}, w: []int64{1, 6, 4}, strides: []int64{2}, dilations: []int64{2}, pads: []int64{2, 3}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
	{name: "h1d_residual_f64", conv: convCase{x: []int64{2, 4, 19}, w: []int64{1, 4, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 2}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "rows16"},
	{name: "h1d_bias_bf16", conv: convCase{x: []int64{1, 8, 30}, w: []int64{1, 8, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "bf16", body: "bias", form: "rows32"},
	{name: "h3d_bn_relu", conv: convCase{x: []int64{1, 4, 5, 7, 19}, w: []int64{1, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "h3d_residual_f64", conv: convCase{x: []int64{2, 3, 6, 9, 11}, w: []int64{1, 3, 2, 3, 3}, strides: []int64{2, 1, 2}, dilations: []int64{1, 2, 1}, pads: []int64{1, 0, 1, 0, 2, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "rows16"},
	{name: "h3d_hardswish", conv: convCase{x: []int64{2, 2, 4, 5, 13}, w: []int64{1, 2, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
}

// TestConvHead13EpilogueFused checks, for 1-D and 3-D one-output-channel
// heads, the root's tag, that the epilogue's arithmetic is computed
// inside the convolution's tile loop on vectors and in no generic outside
// a loop (checkEpiFused), that no padding channel is left (no block of
// two channels: the accumulator is the result's view), and the bits of
// host and host-O0 against the Go loop nest (checkGenEpiBits).
func TestConvHead13EpilogueFused(t *testing.T) {
	requireTools(t)
	checkGenEpiCases(t, head13Cases)
}

// TestE2EConvHead13Exact checks 1-D and 3-D one-channel heads without an
// epilogue to fuse (no bias, or the bias alone, rounded for f16), which
// take the row form's view too (emit/conv_rows_view.go): the emitted
// MLIR has the row form's block (niro.conv2d_rows) and no padding
// channel, and the results have the bits of host-O0 and of the Go loop
// nest, f32, f64 and f16; strides, a dilation, odd lengths, two images.
func TestE2EConvHead13Exact(t *testing.T) {
	requireTools(t)
	cases := []convCase{
		{x: []int64{1, 6, 37}, w: []int64{1, 6, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1},
		{x: []int64{2, 5, 41}, w: []int64{1, 5, 4}, strides: []int64{2}, dilations: []int64{2}, pads: []int64{2, 1}, groups: 1, bias: true},
		{x: []int64{1, 3, 4, 6, 9}, w: []int64{1, 3, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1},
		{x: []int64{2, 2, 5, 7, 13}, w: []int64{1, 2, 2, 3, 3}, strides: []int64{2, 1, 2}, dilations: []int64{1, 2, 1}, pads: []int64{0, 1, 1, 1, 2, 0}, groups: 1, bias: true},
	}
	for i, c := range cases {
		for _, e := range []string{"f32", "f64", "f16"} {
			t.Run(fmt.Sprintf("%d_%dd_%s", i, len(c.x)-2, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "head.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				em, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(em.MLIR, "niro.conv2d_rows") || strings.Contains(em.MLIR, "x2x"+e+">) attrs = {niro.conv2d") {
					t.Fatalf("want the row form's block without a padding channel:\n%s", em.MLIR)
				}
				checkConvExact(t, c, e)
			})
		}
	}
}
