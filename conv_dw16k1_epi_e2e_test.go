package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"testing"
	"time"
)

// dw16k1Cases are depthwise convolutions (groups = C = M, one input
// channel per group) of 16k + 1 channels, k ≥ 1, whose result a 1×1
// convolution reads, so that emit/layout.go keeps it channels-last and
// the depthwise block of emit/conv_nhwc.go (niro.dwconv2d_e) takes it:
// without a padding channel (emit/conv.go, paddedChannelConv), its 32- or
// 16-channel blocks leave a one-channel block (toolchain/conv.mlir,
// @conv_steps_dw1), with the bias and Relu fused. Strides, dilations,
// asymmetric pads, odd output widths (column remainders of the 8-column
// block), two images; f32 and f64 (TestConvDW16k1EpilogueChain).
var dw16k1Cases = []dwMiscChainCase{
	{name: "dw33_nhwc",
		c1:    convCase{x: []int64{1, 33, 9, 22}, w: []int64{33, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 33, bias: true},
		c2:    convCase{x: []int64{1, 33, 9, 22}, w: []int64{8, 33, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
	{name: "dw17_strided_batch2_nhwc",
		c1:    convCase{x: []int64{2, 17, 11, 19}, w: []int64{17, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 2}, groups: 17, bias: true},
		c2:    convCase{x: []int64{2, 17, 6, 10}, w: []int64{12, 17, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
	{name: "dw49_dilated_nhwc",
		c1:    convCase{x: []int64{1, 49, 8, 13}, w: []int64{49, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 2, 2, 2}, groups: 49, bias: true},
		c2:    convCase{x: []int64{1, 49, 8, 13}, w: []int64{8, 49, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
	{name: "dw17_k5_nhwc",
		c1:    convCase{x: []int64{1, 17, 7, 29}, w: []int64{17, 1, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{2, 2, 2, 2}, groups: 17, bias: true},
		c2:    convCase{x: []int64{1, 17, 7, 29}, w: []int64{16, 17, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		roots: map[string][]string{"f32": {"nhwc32", "mmnchw32"}, "f64": {"nhwc16", "mmk"}}, conv: "niro.dwconv2d_e"},
}

// TestConvDW16k1EpilogueChain checks dw16k1Cases on f32 and f64: the
// tags; one depthwise block whose accumulator has the C channels (no
// padding channel); after linalg-fuse-elementwise-ops (under a deadline:
// a one-channel block the schedule did not finish on would hang) Relu on
// vectors in a tile loop and in no generic outside one, every product on
// vectors (no block left a loop nest), the one-channel block's (where
// the blocks leave one) on a vector of its output columns; and the bits of host-O0 and of the Go
// loop nests (checkDWChainBits).
func TestConvDW16k1EpilogueChain(t *testing.T) {
	requireTools(t)
	for _, k := range dw16k1Cases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(k.name+"_"+e, func(t *testing.T) {
				src := k.program(e)
				mlir := emitEpi(t, k.name, src, k.roots[e]...)
				C := k.c1.w[0]
				blk := regexp.MustCompile(`outs\(%\w+ : tensor<[\dx]+x(\d+)x`+e+`>\) attrs = \{niro\.dwconv2d_e\}`).FindAllStringSubmatch(mlir, -1)
				if len(blk) != 1 || blk[0][1] != fmt.Sprint(C) {
					t.Fatalf("want one niro.dwconv2d_e block of %d channels, got %v:\n%s", C, blk, mlir)
				}
				// Relu after the depthwise convolution; the 1×1 without a
				// bias: its product's sum, read back by its root.
				ir, n := checkEpiFused(t, k.name, src, k.roots[e], []string{"arith.maximumf"}, []string{"arith.addf"})
				if n < 2 {
					t.Errorf("%d tile loops hold an epilogue, want 2 or more", n)
				}
				for _, l := range regexp.MustCompile(`(?m)^.*arith\.mulf.*$`).FindAllString(ir, -1) {
					if !regexp.MustCompile(`vector<`).MatchString(l) {
						t.Errorf("a scalar product (a block left a loop nest): %s", l)
					}
				}
				// The 32-channel (f32) or 16-channel (f64) blocks leave one
				// channel where C = 32k + 1 (f32) or 16k + 1 (f64); 32k + 17
				// f32 channels leave a block of 17.
				lanes := map[string]int64{"f32": 32, "f64": 16}[e]
				if C%lanes == 1 && !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<[1-8]x`+e+`>`).MatchString(ir) {
					t.Errorf("no one-channel block product on a vector of columns (vector<≤8x%s>):\n%s", e, ir)
				}
				if t.Failed() {
					return
				}
				checkDWChainBits(t, k, e, src)
			})
		}
	}
}

// checkDWChainBits runs k's program src on element type e (host and
// host-O0, runNiroWithin) and compares its result bit for bit with the
// Go loop nests in the documented order: c1 with its bias, Relu, then c2
// (with its bias and Relu when c2.bias).
func checkDWChainBits(t *testing.T, k dwMiscChainCase, e, src string) {
	t.Helper()
	x32, w32, b32 := seq(numel(k.c1.x), 1.5), seq(numel(k.c1.w), 0.75), seq(int(k.c1.w[0]), 0.5)
	v32, d32 := seq(numel(k.c2.w), 0.6), seq(int(k.c2.w[0]), 0.4)
	if e == "f32" {
		mid := convRef(k.c1, x32, w32, b32)
		for i, v := range mid {
			mid[i] = max(v, 0)
		}
		want := convRef(k.c2, mid, v32, d32)
		if k.c2.bias {
			for i, v := range want {
				want[i] = max(v, 0)
			}
		}
		checkF32(t, runNiroWithin(t, 3*time.Minute, src, tf32(k.c1.x, x32), tf32(k.c1.w, w32), tf32(k.c1.w[:1], b32), tf32(k.c2.w, v32), tf32(k.c2.w[:1], d32))[0], want)
		return
	}
	wide := func(v []float32, s float64) []float64 {
		r := make([]float64, len(v))
		for i, f := range v {
			r[i] = float64(f) * s // inexact in f32
		}
		return r
	}
	x, w, b, v, d := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3), wide(v32, 0.7), wide(d32, 1.2)
	mid := convRef(k.c1, x, w, b)
	for i, u := range mid {
		mid[i] = max(u, 0)
	}
	want := convRef(k.c2, mid, v, d)
	if k.c2.bias {
		for i, u := range want {
			want[i] = max(u, 0)
		}
	}
	got := runNiroWithin(t, 3*time.Minute, src, tf64(k.c1.x, x), tf64(k.c1.w, w), tf64(k.c1.w[:1], b), tf64(k.c2.w, v), tf64(k.c2.w[:1], d))[0].Data
	if len(got) != 8*len(want) {
		t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
	}
	for i, u := range want {
		if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(u) {
			t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), u)
		}
	}
}

// grouped16k1Cases are grouped convolutions of conv_general.go gathered
// per output channel (M/G < 8 or more than 16 groups) with 16k + 1
// output channels, no padding channel, epilogue fused: 2-D (NCHW root,
// the rank-7 block: a remainder block of 17 for f32's 32-channel block,
// one channel, @conv_steps1, for 33 channels and for f64), 1-D
// depthwise (the rank-6 depthwise block; 33 f64 channels leave the
// one-channel block, @conv_steps_dw1) and 1-D grouped (the rank-7 block's
// one-channel remainder); strides, dilations, odd widths, two images.
var grouped16k1Cases = []genEpiCase{
	{name: "g17x1_bn_relu", conv: convCase{x: []int64{1, 34, 9, 10}, w: []int64{17, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 17, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
	{name: "g11x3_hardswish_strided", conv: convCase{x: []int64{1, 22, 11, 13}, w: []int64{33, 2, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 11, bias: true}, elem: "f32", body: "hardswish", form: "nchw32"},
	{name: "g17x1_residual_batch2_f64", conv: convCase{x: []int64{2, 51, 6, 9}, w: []int64{17, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 17, bias: true}, elem: "f64", body: "residual", form: "nchw16"},
	{name: "g11x3_bn_relu_dilated_f64", conv: convCase{x: []int64{1, 22, 9, 11}, w: []int64{33, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 1}, pads: []int64{2, 1, 2, 1}, groups: 11, bias: true}, elem: "f64", body: "bn", form: "nchw16"},
	{name: "c1d_dw17_bn_relu", conv: convCase{x: []int64{1, 17, 20}, w: []int64{17, 1, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 17, bias: true}, elem: "f32", body: "bn", form: "c1d32"},
	{name: "c1d_dw33_residual_f64", conv: convCase{x: []int64{2, 33, 19}, w: []int64{33, 1, 5}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{2, 2}, groups: 33, bias: true}, elem: "f64", body: "residual", form: "c1d16"},
	{name: "c1d_g33x1_hardswish_strided", conv: convCase{x: []int64{1, 66, 29}, w: []int64{33, 2, 3}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 33, bias: true}, elem: "f32", body: "hardswish", form: "c1d32"},
}

// TestConvGrouped16k1EpilogueFused checks grouped16k1Cases: the root's
// tag and a block accumulator of the M channels (no padding channel);
// after linalg-fuse-elementwise-ops (under checkEpiFused's deadline) the
// epilogue's arithmetic on vectors inside the tile loop and in no generic
// outside one; and the bits of host-O0 and of a Go loop (checkGenEpiBits).
func TestConvGrouped16k1EpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range grouped16k1Cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			mlir := emitEpi(t, c.name, src, c.form)
			M := c.conv.w[0]
			blk := regexp.MustCompile(`outs\(%\w+ : tensor<[\dx]+x(\d+)x`+c.elem+`>\) attrs = \{niro\.(?:dw)?conv2d_e\}`).FindAllStringSubmatch(mlir, -1)
			if len(blk) != 1 || blk[0][1] != fmt.Sprint(M) {
				t.Fatalf("want one fused block of %d channels, got %v:\n%s", M, blk, mlir)
			}
			if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}
