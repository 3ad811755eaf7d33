package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// 1×1 convolutions past the register block's bounds (more than 32 input
// or 128 output channels; here also past its earlier ones, 256 input
// channels or 256 × 256 filter elements), whose epilogue is fused into a
// cache block of the product (emit/conv_epilogue.go, mmkRows;
// toolchain/conv.mlir, @conv_epi_mmk_tiles): 256 output channels × whole
// output rows, the product blocked inside it by the contraction schedule.
var epiMMKCases = []epiCase{
	// 272 input channels, 290 output channels: two blocks of channels (a
	// remainder of 34: of 2 for the epilogue's 4-channel vector tiles),
	// all 40 columns in each; OW = 10.
	{name: "mmk_channels_bn_relu", conv: convCase{x: []int64{1, 272, 4, 10}, w: []int64{290, 272, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "mmk"},
	// 360 columns: blocks of 4 output rows (160 columns; OH = 9 leaves a
	// remainder of 1 row); OW = 40: vector tiles of 16, 16 and 8.
	{name: "mmk_rows_hardswish", conv: convCase{x: []int64{1, 260, 9, 40}, w: []int64{20, 260, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "mmk"},
	// 128 input channels but 520 × 128 filter elements: three blocks of
	// channels (256, 256, 8); a residual Add.
	{name: "mmk_filter_residual", conv: convCase{x: []int64{1, 128, 3, 7}, w: []int64{520, 128, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "mmk"},
	// Strided and padded (X gathered first), two images.
	{name: "mmk_batch2_strided_bn_residual", conv: convCase{x: []int64{2, 264, 9, 9}, w: []int64{24, 264, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBNResidual, ref: epiBNResidualRef, ops: []string{"arith.subf", "arith.maximumf"}, root: "mmk"},
	// One output channel past 32 input channels (a segmentation or depth
	// head), strided (X gathered first): the whole image, 7 × 20, one
	// block (mmkRows 0).
	{name: "mmk_m1_strided_bn_relu", conv: convCase{x: []int64{1, 64, 14, 40}, w: []int64{1, 64, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "mmk"},
	// 360 columns: blocks of 4 rows of 30 (a remainder of 2 columns).
	{name: "mmk_m1_rows_residual", conv: convCase{x: []int64{1, 40, 12, 30}, w: []int64{1, 40, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "mmk"},
}

// TestConvEpilogueFusedCacheBlock checks the 1×1 convolutions past the
// register block's bounds: the root is tagged for the cache block, the
// epilogue (BatchNormalization's arithmetic, Relu, HardSwish, a residual
// Add) is computed on vectors in the block's tile loop after the
// contraction schedule's register blocks of the product and in no generic
// outside it, and the results have the bits of host-O0 and of a Go loop in
// the documented order.
func TestConvEpilogueFusedCacheBlock(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	for _, c := range epiMMKCases {
		t.Run(c.name, func(t *testing.T) {
			if checkEpiFused(t, c.name, c.program(), []string{c.root}, c.ops); t.Failed() {
				return
			}
			checkEpiBitsOn(t, c, epiPipes(o0, c.root))
		})
	}
}

// TestConvEpilogueFusedCacheBlockLayouts checks the channels-last forms of
// the cache block (conv1x1NHWC): a 1×1 convolution of 272 to 264 channels,
// HardSwish and a 1×1 convolution of 264 to 16, so that the first result
// and the HardSwish are kept channels-last (a channels-last root,
// niro.epi_mmkl) and the second convolution, past the register block's 256
// input channels, reads a channels-last X and writes the NCHW result (its
// bias generic the root, niro.epi_mmk). OH·OW = 120 columns (OW = 20);
// 264 channels: a block of 256 and one of 8.
func TestConvEpilogueFusedCacheBlockLayouts(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 272, 6, 20}, w: []int64{264, 272, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}
	c2 := convCase{x: []int64{1, 264, 6, 20}, w: []int64{16, 264, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}
	mid := strings.TrimSuffix(strings.TrimPrefix(dimsText(c1.out(), "f32"), "tensor<"), ">")
	res := dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @epi(tensor<1x272x6x20xf32>, tensor<264x272x1x1xf32>, tensor<264xf32>, tensor<16x264x1x1xf32>, tensor<16xf32>) -> (%s) {
^bb0(%%0: tensor<1x272x6x20xf32>, %%1: tensor<264x272x1x1xf32>, %%15: tensor<264xf32>, %%2: tensor<16x264x1x1xf32>, %%3: tensor<16xf32>):
  %%5 = conv %%0, %%1, %%15 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x272x6x20xf32>, tensor<264x272x1x1xf32>, tensor<264xf32>) -> tensor<%s>
%s  %%20 = conv %%9, %%2, %%3 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<%s>, tensor<16x264x1x1xf32>, tensor<16xf32>) -> %s
  return %%20 : %s
}`, res, mid, strings.ReplaceAll(epiHardSwish, "RES", mid), mid, res, res)
	// (The second convolution's epilogue is its bias alone.)
	if checkEpiFused(t, "epi1x1", src, []string{"mmkl", "mmk"}, []string{"arith.minimumf", "arith.maximumf"}, []string{"arith.addf"}); t.Failed() {
		return
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(264, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(16, 0.25)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = epiHardSwishRef(y[i], 0, 0, 0)
	}
	want := convRef(c2, y, w2, b2)
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{264}, b1), tf32(c2.w, w2), tf32([]int64{16}, b2))
	checkF32(t, got[0], want)
}

// TestConvEpilogueFusedCacheBlockTypes checks the cache block on f64 and
// f16 (the product accumulated in f32, rounded once, then Relu): a 1×1
// convolution of 300 to 40 channels with its bias and Relu, 2 × 80 columns
// (OW = 40: f64 blocks of 2 rows, 128 columns at most), and one of 300 to
// 1. The epilogue is in the tile loop (checkEpiFused), and host and the Go
// loop agree bit for bit, and host-O0 for the first case of each type.
func TestConvEpilogueFusedCacheBlockTypes(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	// (And one output channel, the whole block one row of the product.)
	for _, c := range []convCase{
		{x: []int64{1, 300, 4, 40}, w: []int64{40, 300, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{1, 300, 4, 40}, w: []int64{1, 300, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
	} {
		for _, e := range []string{"f64", "f16"} {
			if c.w[0] == 1 {
				e += "_m1"
			}
			t.Run(e, func(t *testing.T) {
				e := strings.TrimSuffix(e, "_m1")
				xt, wt, bt, ot := dimsText(c.x, e), dimsText(c.w, e), dimsText(c.w[:1], e), dimsText(c.out(), e)
				src := fmt.Sprintf(`func @epi(%[1]s, %[2]s, %[3]s) -> (%[4]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: %[3]s):
  %%3 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (%[1]s, %[2]s, %[3]s) -> %[4]s
  %%4 = const %[5]s : tensor<%[6]s>
  %%5 = max %%3, %%4 : (%[4]s, tensor<%[6]s>) -> %[4]s
  return %%5 : %[4]s
}`, xt, wt, bt, ot, map[string]string{"f64": "0x0000000000000000", "f16": "0x0000"}[e], e)
				if checkEpiFused(t, "m", src, []string{"mmk"}, []string{"arith.maximumf"}); t.Failed() {
					return
				}
				pipes := epiPipes(o0, e)
				x32, w32, b32 := seq(numel(c.x), 1.5), seq(numel(c.w), 0.75), seq(int(c.w[0]), 0.5)
				if e == "f16" {
					var in []tensorio.Tensor
					var wide [][]float32
					for i, v := range [][]float32{x32, w32, b32} {
						dims := [][]int64{c.x, c.w, c.w[:1]}[i]
						data := make([]byte, 2*len(v))
						wv := make([]float32, len(v))
						for j, f := range v {
							h := tensorio.F16FromFloat32(f)
							binary.LittleEndian.PutUint16(data[2*j:], h)
							wv[j] = float32(tensorio.F16ToFloat64(h))
						}
						in = append(in, tensorio.Tensor{Elem: niro.F16, Dims: dims, Data: data})
						wide = append(wide, wv)
					}
					got := runNiroOn(t, 3*time.Minute, pipes, src, in...)[0].Data
					want := convRef(c, wide[0], wide[1], wide[2])
					for i, v := range want {
						h := tensorio.F16FromFloat32(v)
						if h&0x8000 != 0 {
							h = 0 // Relu: max(x, +0) is +0 for x ≤ -0
						}
						if g := binary.LittleEndian.Uint16(got[2*i:]); g != h {
							t.Fatalf("element %d: got %#x, want %#x (%v)", i, g, h, v)
						}
					}
					return
				}
				x64, w64, b64 := widen(x32, 1.1), widen(w32, 0.9), widen(b32, 1.3)
				got := runNiroOn(t, 3*time.Minute, pipes, src, tf64(c.x, x64), tf64(c.w, w64), tf64(c.w[:1], b64))[0].Data
				want := convRef(c, x64, w64, b64)
				for i, v := range want {
					want[i] = math.Max(v, 0)
				}
				checkF64(t, got, want)
			})
		}
	}
}
