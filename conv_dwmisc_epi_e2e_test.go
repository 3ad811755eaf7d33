package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
)

// dwMiscEpiCase is an epiCase (its root the tag it must emit) with the
// convolution generic's fused tag.
type dwMiscEpiCase struct {
	epiCase
	convTag string
}

// dwMiscEpiCases are the depthwise-multiplier and one-input-channel forms
// whose epilogue is fused into the depthwise row form (conv_dwmult.go,
// forms dwrows and dwrowsh): a single input channel (groups 1, C = 1,
// M = k channels, X read without its channel axis), odd output widths,
// strides, dilations, two images, a 1×1 kernel.
var dwMiscEpiCases = []dwMiscEpiCase{
	// One input channel, 16 channels: OW = 28 (the half-width block, a
	// remainder of 12 columns).
	{epiCase: epiCase{name: "c1_m16_bn_relu", conv: convCase{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "dwrowsh32"},
		convTag: "niro.dwconv2d_e"},
	// 17 channels (no block remainder: one channel per tile), OW = 13,
	// stride 2, dilation 2, uneven pads.
	{epiCase: epiCase{name: "c1_m17_strided_relu6", conv: convCase{x: []int64{1, 1, 15, 27}, w: []int64{17, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{2, 2}, pads: []int64{2, 1, 1, 0}, groups: 1, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "dwrows32"},
		convTag: "niro.dwconv2d_e"},
	// Two images, a 5×5 kernel, OW = 35, a residual Add.
	{epiCase: epiCase{name: "c1_m8_batch2_residual", conv: convCase{x: []int64{2, 1, 7, 35}, w: []int64{8, 1, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{2, 2, 2, 2}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "dwrowsh32"},
		convTag: "niro.dwconv2d_e"},
	// X read in place (no padding), HardSwish.
	{epiCase: epiCase{name: "c1_m4_nopad_hardswish", conv: convCase{x: []int64{1, 1, 10, 42}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "dwrowsh32"},
		convTag: "niro.dwconv2d_e"},
	// A multiplier k = 3 with OW = 19 (an odd width).
	{epiCase: epiCase{name: "dwmult3_odd_bn_relu", conv: convCase{x: []int64{1, 3, 8, 19}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "dwrowsh32"},
		convTag: "niro.dwconv2d_e"},
	// One output channel in the row form (conv_rows.go) at widths that
	// are no multiple of 8: OW = 28 (a remainder of 12 columns), 14 (one
	// block narrower than 16), 3, stride 2 (OW = 10), dilation 2 with
	// uneven pads (OW = 19), two images (OW = 22), a residual Add.
	{epiCase: epiCase{name: "rows_m1_w28_bn_relu", conv: convCase{x: []int64{1, 8, 6, 28}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_w14_hardswish", conv: convCase{x: []int64{1, 16, 5, 14}, w: []int64{1, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_w3_bias", conv: convCase{x: []int64{1, 4, 4, 5}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_strided_relu6", conv: convCase{x: []int64{1, 6, 11, 20}, w: []int64{1, 6, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_dilated_leakyrelu", conv: convCase{x: []int64{1, 3, 9, 21}, w: []int64{1, 3, 3, 2}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 1, 0, 0}, groups: 1, bias: true},
		body: epiLeakyRelu, ref: epiLeakyReluRef, ops: []string{"arith.cmpf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_batch2_residual", conv: convCase{x: []int64{2, 5, 4, 22}, w: []int64{1, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, rows: true, root: "rows32"},
		convTag: "niro.conv2d_rows_e"},
}

// TestConvDWMiscEpilogueFused checks the cases of dwMiscEpiCases (f32):
// the root tag, the epilogue's ops on vectors in the convolution's tile
// loop and in no generic outside it, and the bits of host-O0 and of a Go
// loop in the documented order.
func TestConvDWMiscEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range dwMiscEpiCases {
		t.Run(c.name, func(t *testing.T) {
			out := c.conv.out()
			if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); got != c.rows {
				t.Fatalf("row form %v, want %v", got, c.rows)
			}
			if mlir := emitCase(t, c.epiCase); !strings.Contains(mlir, c.convTag+"}") {
				t.Fatalf("no %s generic in\n%s", c.convTag, mlir)
			}
			if checkEpiFused(t, c.name, c.program(), []string{c.root}, c.ops); t.Failed() {
				return
			}
			checkEpiBits(t, c.epiCase)
		})
	}
}

// dwMiscF64Cases are f64 cases of the same forms (the 64-bit blocks:
// 8 × 16 and 8 × 8 depthwise rows, 16 × 8 rows): one input channel, a
// multiplier of 3, one output channel at widths of no multiple of 8
// (OW = 12: a remainder of 4 columns; 6; 13 at stride 2).
var dwMiscF64Cases = []struct {
	c          convCase
	root, conv string
}{
	{convCase{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, "dwrowsh16", "niro.dwconv2d_e"},
	{convCase{x: []int64{2, 1, 8, 21}, w: []int64{5, 1, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 2, 0, 2}, groups: 1, bias: true}, "dwrowsh16", "niro.dwconv2d_e"},
	{convCase{x: []int64{1, 3, 8, 19}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, "dwrowsh16", "niro.dwconv2d_e"},
	{convCase{x: []int64{1, 8, 6, 12}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, "rows16", "niro.conv2d_rows_e"},
	{convCase{x: []int64{2, 4, 5, 6}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, "rows16", "niro.conv2d_rows_e"},
	{convCase{x: []int64{1, 5, 9, 26}, w: []int64{1, 5, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, "rows16", "niro.conv2d_rows_e"},
}

// TestConvDWMiscEpilogueF64 checks dwMiscF64Cases with their bias and
// Relu6: the 64-bit root tag, Relu6 on vectors in the tile loop and in no
// generic outside it, and the bits of host-O0 and of the Go loop.
func TestConvDWMiscEpilogueF64(t *testing.T) {
	requireTools(t)
	for _, k := range dwMiscF64Cases {
		c, o := k.c, k.c.out()
		t.Run(fmt.Sprint(c.x, c.w, o), func(t *testing.T) {
			res := dimsText(o, "f64")
			xt, wt := dimsText(c.x, "f64"), dimsText(c.w, "f64")
			src := fmt.Sprintf(`func @epi(%s, %s, tensor<%dxf64>) -> (%s) {
^bb0(%%0: %s, %%1: %s, %%2: tensor<%dxf64>):
  %%3 = conv %%0, %%1, %%2 {dilations = %s, group = %d, pads = %s, strides = %s} : (%s, %s, tensor<%dxf64>) -> %s
  %%4 = const 0x0000000000000000 : tensor<f64>
  %%5 = max %%3, %%4 : (%s, tensor<f64>) -> %s
  %%6 = const 0x0000000000001840 : tensor<f64>
  %%7 = min %%5, %%6 : (%s, tensor<f64>) -> %s
  return %%7 : %s
}`, xt, wt, o[1], res, xt, wt, o[1],
				intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides), xt, wt, o[1], res,
				res, res, res, res, res)
			if mlir := emitEpi(t, "epi", src, k.root); !strings.Contains(mlir, k.conv+"}") {
				t.Fatalf("no %s generic in\n%s", k.conv, mlir)
			}
			if checkEpiFused(t, "epi", src, []string{k.root}, []string{"arith.maximumf", "arith.minimumf"}); t.Failed() {
				return
			}
			x32, w32, b32 := seq(numel(c.x), 1.5), seq(numel(c.w), 0.75), seq(int(o[1]), 0.5)
			wide := func(v []float32, k float64) []float64 {
				r := make([]float64, len(v))
				for i, f := range v {
					r[i] = float64(f) * k
				}
				return r
			}
			x, w, b := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3)
			want := convRef(c, x, w, b)
			for i, v := range want {
				want[i] = min(max(v, 0), 6)
			}
			got := runNiroWithin(t, 3*time.Minute, src, tf64(c.x, x), tf64(c.w, w), tf64(o[1:2], b))[0].Data
			if len(got) != 8*len(want) {
				t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
			}
			for i, v := range want {
				if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(v) {
					t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
				}
			}
		})
	}
}

// dwMiscExactCases are the same forms without an epilogue to fuse (no
// bias, or the bias alone): one input channel (NCHW, the depthwise row
// form over the result), one output channel in the row form at odd
// widths, strides and dilations.
var dwMiscExactCases = []convCase{
	{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{2, 1, 8, 21}, w: []int64{5, 1, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 2, 0, 2}, groups: 1, bias: true},
	{x: []int64{1, 1, 6, 10}, w: []int64{3, 1, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
	{x: []int64{1, 8, 6, 28}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{1, 6, 11, 20}, w: []int64{1, 6, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{2, 3, 9, 21}, w: []int64{1, 3, 3, 2}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 1, 0, 0}, groups: 1},
	{x: []int64{1, 4, 4, 5}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
	// (OW = 17: a width of 8k + 1, conv_general.go's padded block.)
	{x: []int64{1, 6, 5, 17}, w: []int64{1, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{2, 3, 6, 11}, w: []int64{1, 3, 2, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 1, 0}, groups: 1, bias: true},
}

// TestE2EConvDWMiscExact checks dwMiscExactCases bit for bit on f32, f64,
// f16 and bf16 (the 16-bit ones accumulated in f32, rounded once): host
// against host-O0 and both against the Go loop nest.
func TestE2EConvDWMiscExact(t *testing.T) {
	requireTools(t)
	for i, c := range dwMiscExactCases {
		for _, e := range []string{"f32", "f64", "f16", "bf16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				checkConvExact(t, c, e)
			})
		}
	}
}

// dwMiscChainCase is a convolution c1 with its bias and Relu, then a
// second convolution c2 of that result, with its bias when c2.bias (and
// Relu then too): emit/layout.go keeps the value between them
// channels-last or NCHW, as the pair asks.
type dwMiscChainCase struct {
	name   string
	c1, c2 convCase
	// roots are the epilogue roots the pair must emit for each element
	// type (emitEpi: a root's tag after "niro.epi_"), the first's first;
	// conv is the tag the generic of the form under test (the depthwise
	// or one-channel convolution) must carry, "" where the first
	// convolution's epilogue is not fused.
	roots map[string][]string
	conv  string
}

func (k dwMiscChainCase) program(e string) string {
	o1, o2 := k.c1.out(), k.c2.out()
	x, w1, b1, w2, b2 := dimsText(k.c1.x, e), dimsText(k.c1.w, e), dimsText(k.c1.w[:1], e), dimsText(k.c2.w, e), dimsText(k.c2.w[:1], e)
	r1, r2 := dimsText(o1, e), dimsText(o2, e)
	zero := "0x00000000"
	if e == "f64" {
		zero = "0x0000000000000000"
	}
	attrs := func(c convCase) string {
		return fmt.Sprintf("{dilations = %s, group = %d, pads = %s, strides = %s}", intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides))
	}
	second := fmt.Sprintf("  %%7 = conv %%6, %%3 %s : (%s, %s) -> %s\n  return %%7 : %s\n", attrs(k.c2), r1, w2, r2, r2)
	if k.c2.bias {
		second = fmt.Sprintf("  %%7 = conv %%6, %%3, %%8 %s : (%s, %s, %s) -> %s\n  %%9 = max %%7, %%5 : (%s, tensor<%s>) -> %s\n  return %%9 : %s\n",
			attrs(k.c2), r1, w2, b2, r2, r2, e, r2, r2)
	}
	return fmt.Sprintf(`func @net(%s, %s, %s, %s, %s) -> (%s) {
^bb0(%%0: %s, %%1: %s, %%2: %s, %%3: %s, %%8: %s):
  %%4 = conv %%0, %%1, %%2 %s : (%s, %s, %s) -> %s
  %%5 = const %s : tensor<%s>
  %%6 = max %%4, %%5 : (%s, tensor<%s>) -> %s
%s}`, x, w1, b1, w2, b2, r2, x, w1, b1, w2, b2, attrs(k.c1), x, w1, b1, r1, zero, e, r1, e, r1, second)
}

// dwMiscChainCases: a channel multiplier (k = 2, 3) or a single input
// channel whose result a 1×1 convolution reads (channels-last: the
// per-output-channel depthwise block of conv_general.go, its per-group
// block for k = 8 of 4 groups, or the channels-last block of
// conv_nhwc.go for C = 1), and a one-channel head
// after a 1×1 convolution (its X kept NCHW for the row form).
var dwMiscChainCases = []dwMiscChainCase{
	{name: "dwmult2_nhwc",
		c1:    convCase{x: []int64{1, 6, 9, 22}, w: []int64{12, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 6, bias: true},
		c2:    convCase{x: []int64{1, 12, 9, 22}, w: []int64{8, 12, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
	{name: "dwmult3_strided_nhwc",
		c1:    convCase{x: []int64{2, 4, 11, 19}, w: []int64{12, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 2}, groups: 4, bias: true},
		c2:    convCase{x: []int64{2, 12, 6, 10}, w: []int64{12, 12, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
	{name: "c1_nhwc",
		c1:    convCase{x: []int64{1, 1, 10, 13}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		c2:    convCase{x: []int64{1, 16, 10, 13}, w: []int64{8, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.conv2d_e"},
	// A block per group (k = 8, 4 groups): the per-group block with its
	// split-view epilogue (conv_general.go, gnhwc; before, the view
	// [N·C, k, OH, OW] and its separate pass).
	{name: "dwmult8_pergroup_nhwc",
		c1:    convCase{x: []int64{1, 4, 7, 12}, w: []int64{32, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true},
		c2:    convCase{x: []int64{1, 32, 7, 12}, w: []int64{8, 32, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"gnhwc32", "mmnchw32"}, "f64": {"gnhwc16", "mmk"}}, conv: "niro.conv2dg_e"},
	{name: "head_m1_after_1x1",
		c1:    convCase{x: []int64{1, 8, 7, 28}, w: []int64{16, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		c2:    convCase{x: []int64{1, 16, 7, 28}, w: []int64{1, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		roots: map[string][]string{"f32": {"mm32", "rows32"}, "f64": {"mmk", "rows16"}}, conv: "niro.conv2d_rows_e"},
}

// TestConvDWMiscEpilogueChain checks dwMiscChainCases (f32 and f64): the
// tags, Relu (arith.maximumf) on vectors in a tile loop of the
// convolutions and in no generic outside one, and the bits of host-O0 and
// of the Go loop nests.
func TestConvDWMiscEpilogueChain(t *testing.T) {
	requireTools(t)
	for _, k := range dwMiscChainCases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(k.name+"_"+e, func(t *testing.T) {
				src := k.program(e)
				mlir := emitEpi(t, k.name, src, k.roots[e]...)
				if k.conv == "" {
					if strings.Contains(mlir, "niro.dwconv2d_e") {
						t.Errorf("the view's epilogue is fused:\n%s", mlir)
					}
				} else {
					if !strings.Contains(mlir, k.conv) {
						t.Errorf("no %s generic in\n%s", k.conv, mlir)
					}
					// Relu after each convolution with a bias; c2 without
					// one: its product's sum (arith.addf), read back by its
					// root.
					second := []string{"arith.addf"}
					if k.c2.bias {
						second = []string{"arith.maximumf"}
					}
					if _, n := checkEpiFused(t, k.name, src, k.roots[e], []string{"arith.maximumf"}, second); n < 2 {
						t.Errorf("%d tile loops hold an epilogue, want 2 or more", n)
					}
				}
				if t.Failed() {
					return
				}
				checkDWChainBits(t, k, e, src)
			})
		}
	}
}
