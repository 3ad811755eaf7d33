package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestConvOneChannelAfterPoolFused checks a convolution of one input and
// one output channel (C = M = 1) whose input a 2-D pool defines: the pool's
// result would be channels-last, but layout.go keeps a one-channel
// convolution NCHW (oneChannelRows: a one-channel value has the same
// memory in either layout), so the plain depthwise row form takes it and
// fuses its epilogue (root niro.epi_dwrows<bits> or dwrowsh); the results
// have the bits of host-O0 and of a Go loop nest in the documented order
// (the pool's max, then the convolution summed over (kh, kw) from 0, the
// bias, then the epilogue's ops, each rounded).
func TestConvOneChannelAfterPoolFused(t *testing.T) {
	requireTools(t)
	for _, c := range []genEpiCase{
		{name: "pool_c1m1_bn_relu", conv: convCase{x: []int64{1, 1, 9, 40}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "dwrowsh32"},
		{name: "pool_c1m1_residual_batch2_f64", conv: convCase{x: []int64{2, 1, 7, 21}, w: []int64{1, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "dwrowsh16"},
		// A 1×1 convolution of one output channel whose input a pool
		// defines: X channels-last, the product conv1x1NHWC's ([N·OH·OW,
		// C] times [C, 1]), its epilogue fused (mmnchw, or the cache
		// block mmk past mmEpiLastMaxC input channels and for f64).
		{name: "pool_1x1m1_bn_relu", conv: convCase{x: []int64{1, 16, 14, 14}, w: []int64{1, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmnchw32"},
		{name: "pool_1x1m1_strided_residual", conv: convCase{x: []int64{2, 24, 13, 15}, w: []int64{1, 24, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "residual", form: "mmnchw32"},
		{name: "pool_1x1m1_c300_bn_relu", conv: convCase{x: []int64{1, 300, 7, 9}, w: []int64{1, 300, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "mmk"},
		{name: "pool_1x1m1_residual_f64", conv: convCase{x: []int64{2, 8, 9, 11}, w: []int64{1, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "mmk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			xt := dimsText(c.conv.x, c.elem)
			src := strings.Replace(c.program(), "  %5 = conv %0, %1, %15 ",
				fmt.Sprintf("  %%16 = max_pool %%0 {dilations = [1, 1], kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (%s) -> %s\n  %%5 = conv %%16, %%1, %%15 ", xt, xt), 1)
			if !strings.Contains(src, "max_pool") {
				t.Fatalf("no pool in the program:\n%s", src)
			}
			// The epilogue's ops other than the pool's own maximumf, which
			// runs before the convolution, outside its tile loop.
			ops := map[string][]string{"bn": {"arith.subf", "arith.divf"}, "residual": {"arith.addf"}}[c.body]
			if checkEpiFused(t, c.name, src, []string{c.form}, ops); t.Failed() {
				return
			}
			out := c.conv.out()
			ch := int(out[1])
			pd := append([]int64{out[1]}, make1s(len(out)-2)...)
			x, w, b := seq(numel(c.conv.x), 1.5), seq(numel(c.conv.w), 0.75), seq(ch, 0.5)
			p2, p3, r := seq(ch, 0.6), seq(ch, 1.25), seq(numel(out), 0.9)
			for i := range p3 {
				p3[i] += 2 // away from 0 for the division
			}
			if c.elem == "f32" {
				got := runNiroOn(t, 0, hostPipelines, src, tf32(c.conv.x, x), tf32(c.conv.w, w), tf32(out[1:2], b), tf32(pd, p2), tf32(pd, p3), tf32(out, r))
				checkF32(t, got[0], genEpiWant(c, maxPool3(c.conv.x, x), w, b, p2, p3, r))
				return
			}
			x64, w64, b64 := widen(x, 1.1), widen(w, 0.9), widen(b, 1.3)
			p264, p364, r64 := widen(p2, 1.1), widen(p3, 1.1), widen(r, 0.7)
			got := runNiroOn(t, 0, hostPipelines, src, tf64(c.conv.x, x64), tf64(c.conv.w, w64), tf64(out[1:2], b64), tf64(pd, p264), tf64(pd, p364), tf64(out, r64))[0].Data
			checkF64(t, got, genEpiWant(c, maxPool3(c.conv.x, x64), w64, b64, p264, p364, r64))
		})
	}
}

// maxPool3 is a 3×3 max pool, stride 1, pads 1 (the padding never
// chosen), of the N×C×H×W tensor x.
func maxPool3[T float32 | float64](dims []int64, x []T) []T {
	N, C, H, W := int(dims[0]), int(dims[1]), int(dims[2]), int(dims[3])
	out := make([]T, len(x))
	for n := range N {
		for c := range C {
			base := (n*C + c) * H * W
			for h := range H {
				for w := range W {
					m := T(math.Inf(-1))
					for kh := -1; kh <= 1; kh++ {
						for kw := -1; kw <= 1; kw++ {
							if y, z := h+kh, w+kw; y >= 0 && y < H && z >= 0 && z < W && x[base+y*W+z] > m {
								m = x[base+y*W+z]
							}
						}
					}
					out[base+h*W+w] = m
				}
			}
		}
	}
	return out
}

// TestConv1x1HeadChannelsLastFused checks a 1×1 convolution of one output
// channel between two pools: both its X and its result are channels-last
// (layout.go), so it is conv1x1NHWC's product with a channels-last
// result, its epilogue (a division) fused in the product's tile (root
// niro.epi_mmnhwc32); host and host-O0 (the naive loop nests) give the
// same bits (runNiroWithin).
func TestConv1x1HeadChannelsLastFused(t *testing.T) {
	requireTools(t)
	src := `func @chain(tensor<2x16x14x13xf32>, tensor<1x16x1x1xf32>, tensor<1xf32>) -> (tensor<2x1x14x13xf32>) {
^bb0(%0: tensor<2x16x14x13xf32>, %1: tensor<1x16x1x1xf32>, %2: tensor<1xf32>):
  %4 = max_pool %0 {dilations = [1, 1], kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<2x16x14x13xf32>) -> tensor<2x16x14x13xf32>
  %5 = conv %4, %1, %2 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<2x16x14x13xf32>, tensor<1x16x1x1xf32>, tensor<1xf32>) -> tensor<2x1x14x13xf32>
  %6 = const 0x0000C03F : tensor<f32>
  %7 = div %5, %6 : (tensor<2x1x14x13xf32>, tensor<f32>) -> tensor<2x1x14x13xf32>
  %8 = max_pool %7 {dilations = [1, 1], kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<2x1x14x13xf32>) -> tensor<2x1x14x13xf32>
  return %8 : tensor<2x1x14x13xf32>
}`
	if checkEpiFused(t, "head1x1_nhwc", src, []string{"mmnhwc32"}, []string{"arith.divf"}); t.Failed() {
		return
	}
	x, w, b := seq(2*16*14*13, 1.5), seq(16, 0.75), seq(1, 0.5)
	runNiroWithin(t, 3*time.Minute, src, tf32([]int64{2, 16, 14, 13}, x), tf32([]int64{1, 16, 1, 1}, w), tf32([]int64{1}, b))
}
