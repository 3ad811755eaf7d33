package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

// multViewCase is a chain: a 1×1 convolution of X (C → C channels, no
// bias), the depthwise convolution with a channel multiplier conv (groups
// = C, M = k·C, k ≥ 8, at most 16 groups: the per-group geometry) with its
// bias and epilogue body (genEpiCase's: "bias", "bn", "hardswish",
// "residual"), then a 1×1 convolution of M → 8 channels (no bias), so
// that emit/layout.go keeps both middle values channels-last. Where it
// was left to the view [N·C, k, OH, OW] with a separate pass before,
// emit/conv_general.go now fuses the multiplier's epilogue: in the
// per-group block (niro.conv2dg_e, k channels per group, its root
// niro.epi_gnhwc<bits> in the split view), or, for k = 16j + 1 (which
// the per-group block would pad), in the depthwise block of M channels
// over X gathered per output channel (niro.dwconv2d_e, form nhwc;
// dwMultOwnChannels).
type multViewCase struct {
	name string
	conv convCase
	elem string
	body string
	// roots: the three convolutions' roots (emitEpi), the multiplier's
	// second.
	roots []string
}

// perGroup reports whether k's multiplier takes the per-group block.
func (k multViewCase) perGroup() bool { return strings.HasPrefix(k.roots[1], "gn") }

// multViewCases: 4 groups of 8 (M = 32), 2 groups of 16, 16 groups of 8
// (M = 128), M = 33 and 65 (16j + 1 channels; k = 11 and 13 per group,
// which f64 takes in the 8-channel block, perGroupBlock8: gnhwc8),
// 2 groups of 17 (k = 16 + 1: the per-output-channel depthwise block,
// and its one-channel block for f64's 16-channel one); strides, a
// dilation, asymmetric pads, odd output widths, two images; f32 and f64.
var multViewCases = []multViewCase{
	{name: "c4k8_bn", conv: convCase{x: []int64{1, 4, 7, 13}, w: []int64{32, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true},
		elem: "f32", body: "bn", roots: []string{"mmnhwc32", "gnhwc32", "mmnchw32"}},
	{name: "c2k16_hardswish_strided_f64", conv: convCase{x: []int64{1, 2, 9, 17}, w: []int64{32, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true},
		elem: "f64", body: "hardswish", roots: []string{"mmkl", "gnhwc16", "mmk"}},
	{name: "c3k11_m33_residual_batch2", conv: convCase{x: []int64{2, 3, 6, 11}, w: []int64{33, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true},
		elem: "f32", body: "residual", roots: []string{"mmnhwc32", "gnhwc32", "mmnchw32"}},
	{name: "c3k11_m33_bias_f64", conv: convCase{x: []int64{1, 3, 5, 9}, w: []int64{33, 1, 3, 3}, strides: []int64{1, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 1, 2}, groups: 3, bias: true},
		elem: "f64", body: "bias", roots: []string{"mmkl", "gnhwc8", "mmk"}},
	{name: "c16k8_m128_hardswish_strided", conv: convCase{x: []int64{1, 16, 5, 9}, w: []int64{128, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 16, bias: true},
		elem: "f32", body: "hardswish", roots: []string{"mmnhwc32", "gnhwc32", "mmnchw32"}},
	{name: "c5k13_m65_residual_f64", conv: convCase{x: []int64{1, 5, 4, 7}, w: []int64{65, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 5, bias: true},
		elem: "f64", body: "residual", roots: []string{"mmkl", "gnhwc8", "mmk"}},
	{name: "c2k17_m34_bn_dilated_f64", conv: convCase{x: []int64{1, 2, 7, 11}, w: []int64{34, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 1, 2, 2}, groups: 2, bias: true},
		elem: "f64", body: "bn", roots: []string{"mmkl", "nhwc16", "mmk"}},
	{name: "c2k17_m34_hardswish", conv: convCase{x: []int64{1, 2, 5, 9}, w: []int64{34, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true},
		elem: "f32", body: "hardswish", roots: []string{"mmnhwc32", "nhwc32", "mmnchw32"}},
}

// mvTrail is the channel count of the chain's last 1×1 convolution.
const mvTrail = 8

func (k multViewCase) lead() convCase {
	C := k.conv.x[1]
	return convCase{x: k.conv.x, w: []int64{C, C, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}
}

func (k multViewCase) trail() convCase {
	o := k.conv.out()
	return convCase{x: o, w: []int64{mvTrail, o[1], 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}
}

// program is the chain's Niro text: genEpiCase's program of the
// multiplier with the 1×1 convolutions before (%22 of X, W %20) and
// after (%23, W %21) it.
func (k multViewCase) program() string {
	src := genEpiCase{name: k.name, conv: k.conv, elem: k.elem, body: k.body}.program()
	e := k.elem
	xt, rt := dimsText(k.conv.x, e), dimsText(k.conv.out(), e)
	l, tr := k.lead(), k.trail()
	w0, w2, ot := dimsText(l.w, e), dimsText(tr.w, e), dimsText(tr.out(), e)
	one := "{dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]}"
	// The signature: W0 and W2 appended; the result the trail's.
	head, rest, _ := strings.Cut(src, "\n")
	sig, _, _ := strings.Cut(head, ") -> (")
	head = fmt.Sprintf("%s, %s, %s) -> (%s) {", sig, w0, w2, ot)
	bb, rest, _ := strings.Cut(rest, "\n")
	bb = strings.TrimSuffix(bb, "):") + fmt.Sprintf(", %%20: %s, %%21: %s):", w0, w2)
	body, ret, _ := strings.Cut(rest, "  return ")
	body = strings.Replace(body, "conv %0, %1,", "conv %22, %1,", 1)
	retv, _, _ := strings.Cut(ret, " :")
	return fmt.Sprintf("%s\n%s\n  %%22 = conv %%0, %%20 %s : (%s, %s) -> %s\n%s  %%23 = conv %s, %%21 %s : (%s, %s) -> %s\n  return %%23 : %s\n}",
		head, bb, one, xt, w0, xt, body, retv, one, rt, w2, ot, ot)
}

// mvWant is the Go loop nests of k's chain in T: the lead 1×1, the
// multiplier with its bias and body (genEpiWant's order), the trail 1×1.
func mvWant[T float32 | float64](k multViewCase, x, w0, w, b, p2, p3, r, w2 []T) []T {
	l, tr := k.lead(), k.trail()
	y := convRef(l, x, w0, nil)
	y = genEpiWant(genEpiCase{conv: k.conv, elem: k.elem, body: k.body}, y, w, b, p2, p3, r)
	return convRef(tr, y, w2, nil)
}

// TestConvDWMultViewEpilogueFused checks multViewCases: the roots (the
// multiplier's niro.epi_gnhwc<bits> or niro.epi_nhwc<bits>), one block
// generic for the multiplier (niro.conv2dg_e with k channels per group,
// or niro.dwconv2d_e with M channels: no padding channel), no view; after
// linalg-fuse-elementwise-ops the multiplier's epilogue on vectors in a
// tile loop and in no generic outside one, every product on vectors; and
// the bits of host and host-O0 against the Go loop nests.
func TestConvDWMultViewEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, k := range multViewCases {
		t.Run(k.name, func(t *testing.T) {
			src := k.program()
			e, M, G := k.elem, k.conv.w[0], k.conv.groups
			mlir := emitEpi(t, k.name, src, k.roots...)
			tag, ch, other := "niro.dwconv2d_e", M, "niro.conv2dg"
			if k.perGroup() {
				tag, ch, other = "niro.conv2dg_e", M/G, "niro.dwconv2d"
			}
			blk := regexp.MustCompile(`outs\(%\w+ : tensor<[\dx]+x(\d+)x`+e+`>\) attrs = \{`+regexp.QuoteMeta(tag)+`\}`).FindAllStringSubmatch(mlir, -1)
			if len(blk) != 1 || blk[0][1] != fmt.Sprint(ch) {
				t.Fatalf("want one %s block of %d channels, got %v:\n%s", tag, ch, blk, mlir)
			}
			if strings.Contains(mlir, other) || strings.Contains(mlir, "niro.dwconv2d}") {
				t.Fatalf("%s or the unfused view's niro.dwconv2d:\n%s", other, mlir)
			}
			// The 1×1 convolutions have no bias: their products' sums,
			// read back by their roots.
			ir, n := checkEpiFused(t, k.name, src, k.roots, genEpiOps[k.body], []string{"arith.addf"})
			if n < 3 {
				t.Errorf("%d tile loops hold an epilogue, want 3 or more", n)
			}
			for _, l := range regexp.MustCompile(`(?m)^.*arith\.mulf.*$`).FindAllString(ir, -1) {
				if !strings.Contains(l, "vector<") {
					t.Errorf("a scalar product (a block left a loop nest): %s", l)
				}
			}
			if t.Failed() {
				return
			}
			checkMultViewBits(t, k, src)
		})
	}
}

// checkMultViewBits runs src (host and host-O0) on k's inputs and
// compares the result bit for bit with mvWant.
func checkMultViewBits(t *testing.T, k multViewCase, src string) {
	t.Helper()
	out := k.conv.out()
	ch := int(out[1])
	pd := []int64{out[1], 1, 1}
	l, tr := k.lead(), k.trail()
	x, w0, w, b := seq(numel(k.conv.x), 1.5), seq(numel(l.w), 0.35), seq(numel(k.conv.w), 0.75), seq(ch, 0.5)
	p2, p3, r, w2 := seq(ch, 0.6), seq(ch, 1.25), seq(numel(out), 0.9), seq(numel(tr.w), 0.3)
	for i := range p3 {
		p3[i] += 2 // away from 0 for the division
	}
	const limit = 4 * time.Minute
	if k.elem == "f32" {
		got := runNiroWithin(t, limit, src, tf32(k.conv.x, x), tf32(k.conv.w, w), tf32(out[1:2], b), tf32(pd, p2), tf32(pd, p3), tf32(out, r), tf32(l.w, w0), tf32(tr.w, w2))
		checkF32(t, got[0], mvWant(k, x, w0, w, b, p2, p3, r, w2))
		return
	}
	wide := func(v []float32, s float64) []float64 {
		o := make([]float64, len(v))
		for i, f := range v {
			o[i] = float64(f) * s // inexact in f32
		}
		return o
	}
	x64, w064, w64, b64 := wide(x, 1.1), wide(w0, 1.2), wide(w, 0.9), wide(b, 1.3)
	p264, p364, r64, w264 := wide(p2, 1.1), wide(p3, 1.1), wide(r, 0.7), wide(w2, 0.8)
	got := runNiroWithin(t, limit, src, tf64(k.conv.x, x64), tf64(k.conv.w, w64), tf64(out[1:2], b64), tf64(pd, p264), tf64(pd, p364), tf64(out, r64), tf64(l.w, w064), tf64(tr.w, w264))[0].Data
	want := mvWant(k, x64, w064, w64, b64, p264, p364, r64, w264)
	if len(got) != 8*len(want) {
		t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
	}
	for i, v := range want {
		if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(v) {
			t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
		}
	}
}
