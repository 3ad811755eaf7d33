package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// 2-D convolutions of one output channel and one output column
// (emit/conv_rows_t.go): the row form's transposed view, no padding
// channel, the epilogue fused in that view (root niro.epi_rows32, f64
// niro.epi_rows16). A kernel covering the whole width, a strided kernel
// leaving one column, a row stride, dilations, two images; a kernel
// covering the whole of X (one output row and column) takes the 1×1
// product over the flattened window, its cache block (niro.epi_mmk).
var headCornerCases = []genEpiCase{
	{name: "ow1_full_bn_relu", conv: convCase{x: []int64{1, 6, 7, 7}, w: []int64{1, 6, 3, 7}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "rows32"},
	{name: "ow1_strided_bias", conv: convCase{x: []int64{2, 5, 19, 6}, w: []int64{1, 5, 3, 3}, strides: []int64{2, 4}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bias", form: "rows32"},
	{name: "ow1_residual_f64", conv: convCase{x: []int64{2, 4, 21, 5}, w: []int64{1, 4, 3, 5}, strides: []int64{1, 1}, dilations: []int64{2, 1}, pads: []int64{2, 0, 1, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "rows16"},
	{name: "ow1_bn_f64_strided", conv: convCase{x: []int64{1, 3, 17, 9}, w: []int64{1, 3, 4, 3}, strides: []int64{3, 5}, dilations: []int64{1, 2}, pads: []int64{1, 1, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "rows16"},
	{name: "ow1_hardswish", conv: convCase{x: []int64{1, 8, 33, 4}, w: []int64{1, 8, 3, 4}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "rows32"},
	// A kernel covering the whole of X (one output row and column): the
	// 1×1 product over the flattened window, its cache block (mmk).
	{name: "full_bn_relu", conv: convCase{x: []int64{1, 16, 5, 5}, w: []int64{1, 16, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk"},
	{name: "full_residual_f64", conv: convCase{x: []int64{2, 8, 3, 4}, w: []int64{1, 8, 3, 4}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk"},
	{name: "full_hardswish_strided", conv: convCase{x: []int64{1, 12, 7, 7}, w: []int64{1, 12, 7, 7}, strides: []int64{2, 3}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "mmk"},
}

// TestConvHeadCornerEpilogueFused checks, for one-output-column heads,
// the root's tag, that the epilogue's arithmetic is computed inside the
// convolution's tile loop on vectors and in no generic outside a loop
// (checkEpiFused), and the bits of host and host-O0 against the Go loop
// nest (checkGenEpiBits).
func TestConvHeadCornerEpilogueFused(t *testing.T) {
	requireTools(t)
	checkGenEpiCases(t, headCornerCases)
}

// TestE2EConvHeadCornerExact checks one-output-column heads without an
// epilogue to fuse (no bias, or the bias alone, rounded for f16): the
// emitted MLIR has the row form's block (niro.conv2d_rows; a kernel
// covering X, the 1×1 product's niro.contraction or niro.mm_e) and no padding channel, and the results have the bits of host-O0 and of the Go
// loop nest, f32, f64 and f16.
func TestE2EConvHeadCornerExact(t *testing.T) {
	requireTools(t)
	cases := []convCase{
		{x: []int64{1, 6, 9, 7}, w: []int64{1, 6, 3, 7}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 0}, groups: 1},
		{x: []int64{2, 5, 23, 8}, w: []int64{1, 5, 4, 3}, strides: []int64{2, 6}, dilations: []int64{2, 1}, pads: []int64{2, 0, 1, 0}, groups: 1, bias: true},
		{x: []int64{1, 20, 7, 7}, w: []int64{1, 20, 7, 7}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 3, 4, 6}, w: []int64{1, 3, 4, 6}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
	}
	checkOneChannelExact(t, "head", cases)
}

// checkOneChannelExact emits each one-output-channel case of cases in
// f32, f64 and f16 and checks that it takes the row form's block
// (niro.conv2d_rows) or, for one output position or one input channel,
// one output column and a kernel of one row or column, the 1×1 product
// (niro.contraction, or niro.mm_e with the bias fused), without a
// padding channel, then its bits against host-O0 and the Go loop nest
// (checkConvExact).
func checkOneChannelExact(t *testing.T, name string, cases []convCase) {
	t.Helper()
	for i, c := range cases {
		for _, e := range []string{"f32", "f64", "f16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), name+".niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				em, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				out := c.out()
				block := strings.Contains(em.MLIR, "niro.conv2d_rows")
				if out[2] == 1 && out[3] == 1 || c.x[1] == 1 && out[3] == 1 && (c.w[2] == 1 || c.w[3] == 1) {
					block = strings.Contains(em.MLIR, "niro.contraction") || strings.Contains(em.MLIR, "niro.mm_e")
				}
				if !block || strings.Contains(em.MLIR, "x2x"+e+">) attrs = {niro.conv2d") {
					t.Fatalf("want the row form's block or the product, without a padding channel:\n%s", em.MLIR)
				}
				checkConvExact(t, c, e)
			})
		}
	}
}
