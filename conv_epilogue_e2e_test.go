package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// epiCase is a convolution followed by element-wise ops whose generics
// the convolution schedule fuses into the convolution's tile loop
// (emit/conv_epilogue.go, toolchain/conv.mlir @conv_epi_tiles).
type epiCase struct {
	name string
	conv convCase
	// body is the program after the convolution %5: it reads %5 and the
	// parameters %2 (a C×1×1 tensor), %3 (C×1×1) and %4 (the residual,
	// the result's shape), and returns %9; empty: %5 is returned.
	body string
	// ref applies the epilogue to one element: y the convolution's result
	// (bias included), p2, p3 the parameters of its channel, r the
	// residual element.
	ref func(y, p2, p3, r float32) float32
	// ops are the epilogue's arithmetic, which must all sit in the tile
	// loop on vectors and in no generic outside a loop.
	ops []string
	// rows: the convolution takes the row form.
	rows bool
	// root is the root's tag after "niro.epi_" ("nhwc32", "rows32", ...);
	// empty: not checked.
	root string
}

const epiBN = `  %6 = sub %5, %2 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %7 = mul %6, %3 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %10 = div %7, %3 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %11 = add %10, %2 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %8 = const 0x00000000 : tensor<f32>
  %9 = max %11, %8 : (tensor<RES>, tensor<f32>) -> tensor<RES>
`

func epiBNRef(y, p2, p3, _ float32) float32 {
	v := float32(y - p2)
	v = float32(v * p3)
	v = float32(v / p3)
	v = float32(v + p2)
	return max(v, 0)
}

// HardSwish as the importer writes it: x · min(max(x/6 + 1/2, 0), 1)
// (constants in little-endian bytes).
const epiHardSwish = `  %6 = const 0xABAA2A3E : tensor<f32>
  %7 = mul %5, %6 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %8 = const 0x0000003F : tensor<f32>
  %10 = add %7, %8 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %11 = const 0x00000000 : tensor<f32>
  %12 = max %10, %11 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %13 = const 0x0000803F : tensor<f32>
  %14 = min %12, %13 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %9 = mul %5, %14 : (tensor<RES>, tensor<RES>) -> tensor<RES>
`

func epiHardSwishRef(y, _, _, _ float32) float32 {
	v := float32(y * math.Float32frombits(0x3E2AAAAB))
	v = float32(v + 0.5)
	v = min(max(v, 0), 1)
	return float32(y * v)
}

// A residual Add, then Relu.
const epiResidual = `  %6 = add %5, %4 : (tensor<RES>, tensor<RES>) -> tensor<RES>
  %8 = const 0x00000000 : tensor<f32>
  %9 = max %6, %8 : (tensor<RES>, tensor<f32>) -> tensor<RES>
`

func epiResidualRef(y, _, _, r float32) float32 { return max(float32(y+r), 0) }

// BatchNormalization's arithmetic, a residual Add, then Relu.
const epiBNResidual = `  %6 = sub %5, %2 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %7 = mul %6, %3 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %10 = add %7, %4 : (tensor<RES>, tensor<RES>) -> tensor<RES>
  %8 = const 0x00000000 : tensor<f32>
  %9 = max %10, %8 : (tensor<RES>, tensor<f32>) -> tensor<RES>
`

func epiBNResidualRef(y, p2, p3, r float32) float32 {
	v := float32(y - p2)
	v = float32(v * p3)
	return max(float32(v+r), 0)
}

func (c epiCase) program() string {
	out := c.conv.out()
	res := dimsText(out, "f32")
	res = strings.TrimSuffix(strings.TrimPrefix(res, "tensor<"), ">")
	ch := fmt.Sprint(out[1])
	xt, wt := dimsText(c.conv.x, "f32"), dimsText(c.conv.w, "f32")
	bt := fmt.Sprintf("tensor<%dxf32>", out[1])
	pt := fmt.Sprintf("tensor<%sx1x1xf32>", ch)
	ret := "%9"
	if c.body == "" {
		ret = "%5" // the bias alone
	}
	body := strings.ReplaceAll(c.body, "RESI1", strings.TrimSuffix(res, "f32")+"i1")
	body = strings.ReplaceAll(strings.ReplaceAll(body, "Cx1x1", ch+"x1x1"), "RES", res)
	return fmt.Sprintf(`func @epi(%s, %s, %s, %s, %s, tensor<%s>) -> (tensor<%s>) {
^bb0(%%0: %s, %%1: %s, %%15: %s, %%2: %s, %%3: %s, %%4: tensor<%s>):
  %%5 = conv %%0, %%1, %%15 {dilations = %s, group = %d, pads = %s, strides = %s} : (%s, %s, %s) -> tensor<%s>
%s  return %s : tensor<%s>
}`, xt, wt, bt, pt, pt, res, res,
		xt, wt, bt, pt, pt, res,
		intsText(c.conv.dilations), c.conv.groups, intsText(c.conv.pads), intsText(c.conv.strides), xt, wt, bt, res,
		body, ret, res)
}

func epiBiasRef(y, _, _, _ float32) float32 { return y }

// Relu6 (Clip to [0, 6]).
const epiRelu6 = `  %8 = const 0x00000000 : tensor<f32>
  %6 = max %5, %8 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %7 = const 0x0000C040 : tensor<f32>
  %9 = min %6, %7 : (tensor<RES>, tensor<f32>) -> tensor<RES>
`

func epiRelu6Ref(y, _, _, _ float32) float32 { return min(max(y, 0), 6) }

// LeakyRelu as the importer writes it: select(x < 0, x·α, x), α = 0.1.
const epiLeakyRelu = `  %8 = const 0x00000000 : tensor<f32>
  %6 = cmp_lt %5, %8 : (tensor<RES>, tensor<f32>) -> tensor<RESI1>
  %10 = const 0xCDCCCC3D : tensor<f32>
  %7 = mul %5, %10 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %9 = select %6, %7, %5 : (tensor<RESI1>, tensor<RES>, tensor<RES>) -> tensor<RES>
`

func epiLeakyReluRef(y, _, _, _ float32) float32 {
	if y < 0 {
		return float32(y * math.Float32frombits(0x3DCCCCCD))
	}
	return y
}

// BatchNormalization's arithmetic, then HardSwish (MobileNetV3's
// depthwise block).
const epiBNHardSwish = `  %6 = sub %5, %2 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %7 = mul %6, %3 : (tensor<RES>, tensor<Cx1x1xf32>) -> tensor<RES>
  %10 = const 0xABAA2A3E : tensor<f32>
  %11 = mul %7, %10 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %12 = const 0x0000003F : tensor<f32>
  %13 = add %11, %12 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %14 = const 0x00000000 : tensor<f32>
  %16 = max %13, %14 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %17 = const 0x0000803F : tensor<f32>
  %18 = min %16, %17 : (tensor<RES>, tensor<f32>) -> tensor<RES>
  %9 = mul %7, %18 : (tensor<RES>, tensor<RES>) -> tensor<RES>
`

func epiBNHardSwishRef(y, p2, p3, _ float32) float32 {
	v := float32(y - p2)
	v = float32(v * p3)
	return epiHardSwishRef(v, 0, 0, 0)
}

var epiCases = []epiCase{
	{name: "nhwc_leakyrelu", conv: convCase{x: []int64{1, 8, 10, 10}, w: []int64{32, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiLeakyRelu, ref: epiLeakyReluRef, ops: []string{"arith.cmpf"}, root: "nchw32"}, // (the gathers of X select too)
	// Depthwise, NCHW: the plain row form (conv_dwmult.go; OW = 14, one
	// block of 14 columns; OH = 14: a row remainder of 6).
	{name: "depthwise_relu6", conv: convCase{x: []int64{1, 48, 14, 14}, w: []int64{48, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 48, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "dwrows32"},
	// The depthwise row form (conv_dwmult.go; NCHW): two images, OW = 56,
	// the half-width block (niro.epi_dwrowsh32, a column remainder of 8);
	// stride 2 and dilation 2, OW = 16, the full block. (A residual Add on
	// the half-width block: dwmult2_batch2_residual.)
	{name: "dwrows_batch2_bn_hardswish", conv: convCase{x: []int64{2, 6, 9, 56}, w: []int64{6, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 6, bias: true},
		body: epiBNHardSwish, ref: epiBNHardSwishRef,
		ops: []string{"arith.subf", "arith.minimumf", "arith.maximumf"}, root: "dwrowsh32"},
	{name: "dwrows_strided_relu6", conv: convCase{x: []int64{1, 5, 13, 33}, w: []int64{5, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{2, 2}, pads: []int64{2, 1, 1, 0}, groups: 5, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "dwrows32"},
	// The depthwise row form with a channel multiplier (conv_dwmult.go;
	// loops n, m, oh, ow, X's channel m floordiv k): k = 3, stride 2,
	// dilation 2 and uneven pads, OW = 16 (the full block); two images,
	// k = 2, OW = 40 (half-width, a remainder of 8); k = 2, OW = 24
	// (half-width) and uneven pads.
	{name: "dwmult3_strided_relu6", conv: convCase{x: []int64{1, 5, 13, 33}, w: []int64{15, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{2, 2}, pads: []int64{2, 1, 1, 0}, groups: 5, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "dwrows32"},
	{name: "dwmult2_batch2_residual", conv: convCase{x: []int64{2, 3, 7, 40}, w: []int64{6, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "dwrowsh32"},
	{name: "dwmult2_bn_relu", conv: convCase{x: []int64{1, 4, 10, 24}, w: []int64{8, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 2, 1}, groups: 4, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "dwrowsh32"},
	// The bias alone: the convolution's own epilogue generic is the root.
	{name: "nhwc_bias", conv: convCase{x: []int64{1, 8, 6, 12}, w: []int64{24, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, root: "nchw16"},
	{name: "rows_bias_2x2", conv: convCase{x: []int64{1, 8, 9, 17}, w: []int64{16, 8, 2, 2}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, rows: true, root: "rows32"},
	// Channels-last form (OW = 10: a column remainder of 2; M = 40: a
	// channel remainder of 8), NCHW result.
	{name: "nhwc_bn_relu", conv: convCase{x: []int64{1, 16, 9, 10}, w: []int64{40, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "nchw32"},
	// Row form (OW = 24: a remainder of 8 columns; M = 20: 4 channels).
	{name: "rows_bn_relu", conv: convCase{x: []int64{1, 8, 10, 24}, w: []int64{20, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true, root: "rows32"},
	{name: "nhwc_hardswish", conv: convCase{x: []int64{1, 12, 7, 9}, w: []int64{24, 12, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "nchw16"},
	{name: "rows_hardswish", conv: convCase{x: []int64{1, 6, 8, 16}, w: []int64{18, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, rows: true, root: "rows32"},
	// A stride-2 channels-last convolution of two images (OW = 6, M = 16:
	// smaller than a block on both) and a residual Add.
	{name: "nhwc_batch2_strided_residual", conv: convCase{x: []int64{2, 8, 12, 12}, w: []int64{16, 8, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "nchw32"},
	{name: "rows_batch2_bn_relu", conv: convCase{x: []int64{2, 4, 5, 16}, w: []int64{8, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true, root: "rows32"},
	{name: "rows_residual", conv: convCase{x: []int64{1, 4, 6, 32}, w: []int64{16, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, rows: true, root: "rows32"},
	// 1×1 convolutions, the matrix product (M = 20: a remainder of 4
	// channels; OW = 20: of 4 columns).
	{name: "mm_bias_hardswish", conv: convCase{x: []int64{1, 16, 6, 20}, w: []int64{20, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, root: "mm32"},
	{name: "mm_bias", conv: convCase{x: []int64{1, 8, 3, 16}, w: []int64{16, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, root: "mm32"},
	{name: "mm_bn_residual", conv: convCase{x: []int64{1, 12, 9, 40}, w: []int64{24, 12, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBNResidual, ref: epiBNResidualRef, ops: []string{"arith.subf", "arith.maximumf"}, root: "mm32"},
	// Strided and padded (X gathered first).
	{name: "mm_strided_residual", conv: convCase{x: []int64{1, 8, 12, 12}, w: []int64{32, 8, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "mm32"},
	{name: "mm_batch2_bn_relu", conv: convCase{x: []int64{2, 8, 4, 10}, w: []int64{16, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "mm32"},
	// One output channel of a 1×1 convolution (a segmentation or depth
	// head): the product's register block (C ≤ 32), vectors along the
	// output row (its cache block: epiMMKCases).
	{name: "mm_m1_bias", conv: convCase{x: []int64{1, 16, 6, 20}, w: []int64{1, 16, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, root: "mm32"},
	{name: "mm_m1_bn_relu", conv: convCase{x: []int64{1, 8, 5, 40}, w: []int64{1, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, root: "mm32"},
	// One output channel in the row form (vectors along the output row;
	// OW = 24: a column remainder of 8), f32 here and f64 in
	// TestE2EConvExact.
	{name: "rows_m1_bn_relu", conv: convCase{x: []int64{1, 8, 10, 24}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true, root: "rows32"},
	{name: "rows_m1_bias", conv: convCase{x: []int64{1, 6, 5, 16}, w: []int64{1, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, rows: true, root: "rows32"},
	{name: "rows_m1_batch2_residual", conv: convCase{x: []int64{2, 4, 6, 32}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, rows: true, root: "rows32"},
	{name: "mm_m1_batch2_residual", conv: convCase{x: []int64{2, 12, 4, 24}, w: []int64{1, 12, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, root: "mm32"},
}

// funcStatements splits the body of the first func.func of ir into its
// top-level operations (each with its regions).
func funcStatements(ir string) []string {
	lines := strings.Split(ir, "\n")
	var out []string
	depth, inFunc := 0, -1
	var cur []string
	for _, l := range lines {
		open, close := strings.Count(l, "{"), strings.Count(l, "}")
		if inFunc < 0 {
			if strings.Contains(l, "func.func @") && strings.HasSuffix(strings.TrimSpace(l), "{") {
				inFunc = depth + 1
			}
			depth += open - close
			continue
		}
		if depth == inFunc && close > open && strings.TrimSpace(l) == "}" {
			break
		}
		cur = append(cur, l)
		depth += open - close
		if depth == inFunc {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	return out
}

// TestConvEpilogueFused checks, for each case, that the emitted root
// carries its form's tag; on the IR after linalg-fuse-elementwise-ops, that
// the epilogue (bias, BatchNormalization's arithmetic, Relu, HardSwish, a
// residual Add) is computed inside the convolution's tile loop on the
// block's vectors after its sum, and that no generic outside a loop (a pass
// over the whole accumulator) computes any of it (checkEpiFused); and that
// the results have the bits of a Go loop in the documented order, and of
// host-O0 for the first case of each root tag (checkEpiBitsOn).
func TestConvEpilogueFused(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	for _, c := range epiCases {
		t.Run(c.name, func(t *testing.T) {
			out := c.conv.out()
			if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); got != c.rows {
				t.Fatalf("row form %v, want %v", got, c.rows)
			}
			ir, _ := checkEpiFused(t, c.name, c.program(), []string{c.root}, c.ops)
			// A 1×1 product is blocked in the tile loop, not handed to
			// the contraction schedule.
			if strings.HasPrefix(c.name, "mm_") && (strings.Contains(ir, "niro.contraction") || strings.Contains(ir, "niro.block_")) {
				t.Errorf("the 1×1 product is left to the contraction schedule")
			}
			if t.Failed() {
				return
			}
			checkEpiBitsOn(t, c, epiPipes(o0, c.root))
		})
	}
}

// epiPipes is the pipelines a fused epilogue's bits are checked under:
// host and host-O0 for the first case of a form (its root tag, marked in
// seen), host alone for the others (the Go loop is exact for each).
func epiPipes(seen map[string]bool, form string) []string {
	if seen[form] {
		return hostPipelines[:1]
	}
	seen[form] = true
	return hostPipelines
}

// TestConvEpilogueUnfused checks the schedule's fallback: a convolution
// tagged for a fused epilogue whose root is not there to tile (the tag
// removed from the emitted text, as if the fusion had not taken it) is
// blocked and vectorized like an untagged one, not left a loop nest.
func TestConvEpilogueUnfused(t *testing.T) {
	requireTools(t)
	for _, c := range epiCases {
		if c.name != "nhwc_bn_relu" && c.name != "rows_bn_relu" && c.name != "depthwise_relu6" && c.name != "mm_bn_residual" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mlir := emitCase(t, c)
			src := regexp.MustCompile(`niro\.epi_(nhwc|nchw|rows|mm|dwrowsh|dwrows)(32|16)`).ReplaceAllString(mlir, "niro.not_a_root")
			if src == mlir {
				t.Fatalf("no epilogue root in\n%s", mlir)
			}
			// (A 1×1 product is handed to the contraction schedule.)
			last := "conv"
			if strings.HasPrefix(c.name, "mm_") {
				last = "contraction"
			}
			ir := lowerThrough(t, 0, src, last)
			for _, tag := range []string{"niro.conv2d_e", "niro.conv2d_rows_e", "niro.dwconv2d_e"} {
				if strings.Contains(ir, tag) {
					t.Errorf("a %s generic is left after the schedule:\n%s", tag, ir)
				}
			}
			if strings.HasPrefix(c.name, "mm_") && !regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<4x16xf32>`).MatchString(ir) {
				t.Errorf("the unfused 1×1 product is not blocked by the contraction schedule:\n%s", ir)
			}
			// Register blocks: no vector wider than a block (8 × 32 or
			// 16 × 16 elements), as a whole convolution vectorized at once
			// would give.
			muls := regexp.MustCompile(`arith\.mulf %\w+, %\w+ : vector<([\dx]+)xf(?:32|64)>`).FindAllStringSubmatch(ir, -1)
			if len(muls) == 0 {
				t.Errorf("no vector multiply after the schedule:\n%s", ir)
			}
			for _, m := range muls {
				if n := tensorElems(m[1]); n > 256 {
					t.Errorf("a vector multiply of %d elements (vector<%s>) after the schedule", n, m[1])
				}
			}
		})
	}
}

// TestConvEpilogueFused1x1Channels checks the channels-last 1×1 product
// (conv1x1NHWC) with its epilogue in the tile loop: a 1×1 convolution,
// HardSwish and a second 1×1 convolution, so that the first result and
// the HardSwish are kept channels-last (a channels-last root,
// niro.epi_mmnhwc32) and the second convolution reads a channels-last X
// and writes the NCHW result (its bias generic the root, niro.epi_mmnchw32).
// OW = 20 leaves a remainder of 4 columns, M = 24 one of 8 channels.
func TestConvEpilogueFused1x1Channels(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 8, 6, 20}, w: []int64{24, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}
	c2 := convCase{x: []int64{1, 24, 6, 20}, w: []int64{16, 24, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}
	mid := strings.TrimSuffix(strings.TrimPrefix(dimsText(c1.out(), "f32"), "tensor<"), ">")
	res := dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @epi(tensor<1x8x6x20xf32>, tensor<24x8x1x1xf32>, tensor<24xf32>, tensor<16x24x1x1xf32>, tensor<16xf32>) -> (%s) {
^bb0(%%0: tensor<1x8x6x20xf32>, %%1: tensor<24x8x1x1xf32>, %%15: tensor<24xf32>, %%2: tensor<16x24x1x1xf32>, %%3: tensor<16xf32>):
  %%5 = conv %%0, %%1, %%15 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x8x6x20xf32>, tensor<24x8x1x1xf32>, tensor<24xf32>) -> tensor<%s>
%s  %%20 = conv %%9, %%2, %%3 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<%s>, tensor<16x24x1x1xf32>, tensor<16xf32>) -> %s
  return %%20 : %s
}`, res, mid, strings.ReplaceAll(epiHardSwish, "RES", mid), mid, res, res)
	// (The second convolution's epilogue is its bias alone.)
	ir, loops := checkEpiFused(t, "epi1x1", src, []string{"mmnhwc32", "mmnchw32"}, []string{"arith.minimumf", "arith.maximumf"}, []string{"arith.addf"})
	if strings.Contains(ir, "niro.contraction") || strings.Contains(ir, "niro.block_") {
		t.Errorf("a 1×1 product is left to the contraction schedule")
	}
	if loops != 2 {
		t.Errorf("%d tile loops with a fused epilogue, want 2", loops)
	}
	if t.Failed() {
		return
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(24, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(16, 0.25)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = epiHardSwishRef(y[i], 0, 0, 0)
	}
	want := convRef(c2, y, w2, b2)
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{24}, b1), tf32(c2.w, w2), tf32([]int64{16}, b2))
	checkF32(t, got[0], want)
}

// TestConvEpilogue1x1Bounds checks which block a 1×1 convolution's fused
// epilogue takes (emit/conv_epilogue.go): an f32 one of at most 32 input
// and 128 output channels (mmEpiMaxC, mmEpiMaxM) the product's register
// block (niro.epi_mm), a wider or larger one, and an f64 or f16 one, the
// product's cache block (niro.epi_mmk with niro.mmk_h<rows>, mmkRows: all
// rows up to 256 columns, 128 for f64, else 4, 2 or 1 of them), as a bf16
// one does (its widening written as integers, emit/bf16.go).
func TestConvEpilogue1x1Bounds(t *testing.T) {
	for _, c := range []struct {
		elem       string
		c, m, h, w int
		want       string // the root's tag, "" for none
	}{
		{"f32", 16, 96, 4, 16, "niro.epi_mm32"}, {"f32", 32, 128, 4, 16, "niro.epi_mm32"},
		{"f32", 48, 48, 4, 16, "niro.epi_mmk, niro.mmk_h0"}, {"f32", 32, 192, 4, 16, "niro.epi_mmk, niro.mmk_h0"},
		{"f32", 512, 64, 4, 16, "niro.epi_mmk, niro.mmk_h0"}, {"f32", 256, 1024, 4, 16, "niro.epi_mmk, niro.mmk_h0"},
		{"f32", 512, 64, 28, 28, "niro.epi_mmk, niro.mmk_h4"}, {"f32", 512, 64, 14, 112, "niro.epi_mmk, niro.mmk_h2"},
		{"f32", 512, 64, 3, 300, "niro.epi_mmk, niro.mmk_h1"},
		{"f64", 64, 64, 4, 16, "niro.epi_mmk, niro.mmk_h0"}, {"f64", 64, 64, 14, 14, "niro.epi_mmk, niro.mmk_h4"},
		{"f16", 64, 64, 4, 16, "niro.epi_mmk, niro.mmk_h0"}, {"bf16", 64, 64, 4, 16, "niro.epi_mmk, niro.mmk_h0"},
	} {
		src := fmt.Sprintf(`func @m(tensor<1x%[2]dx%[4]dx%[5]dx%[1]s>, tensor<%[3]dx%[2]dx1x1x%[1]s>, tensor<%[3]dx%[1]s>) -> (tensor<1x%[3]dx%[4]dx%[5]dx%[1]s>) {
^bb0(%%0: tensor<1x%[2]dx%[4]dx%[5]dx%[1]s>, %%1: tensor<%[3]dx%[2]dx1x1x%[1]s>, %%2: tensor<%[3]dx%[1]s>):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x%[2]dx%[4]dx%[5]dx%[1]s>, tensor<%[3]dx%[2]dx1x1x%[1]s>, tensor<%[3]dx%[1]s>) -> tensor<1x%[3]dx%[4]dx%[5]dx%[1]s>
  return %%5 : tensor<1x%[3]dx%[4]dx%[5]dx%[1]s>
}`, c.elem, c.c, c.m, c.h, c.w)
		path := filepath.Join(t.TempDir(), "m.niro")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := emitModel(path, ShapeFlags{}, emit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := regexp.MustCompile(`niro\.epi_mm[\w, .]*`).FindString(out.MLIR)
		if got != c.want || (got != "") != strings.Contains(out.MLIR, "niro.mm_e") {
			t.Errorf("%s C = %d, M = %d, %d × %d: root %q, want %q", c.elem, c.c, c.m, c.h, c.w, got, c.want)
		}
	}
}

// TestConvEpilogue1x1ChannelsLastBounds checks the rule for the 1×1
// products with a channels-last operand or result: within mmEpiLastMaxC
// input channels and mmEpiLastMaxW filter elements they keep the register
// block. examples/mobilenetv2's project convolution (64 → 16, its X
// channels-last, its result NCHW) is one (niro.epi_mmnchw32), and no
// product of the model takes the cache block.
func TestConvEpilogue1x1ChannelsLastBounds(t *testing.T) {
	out, err := emitModel(filepath.Join("examples", "mobilenetv2", "model.onnx"), ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.MLIR, "niro.epi_mmnchw32"); n != 1 {
		t.Errorf("%d niro.epi_mmnchw32 roots, want 1", n)
	}
	if strings.Contains(out.MLIR, "niro.epi_mmk") {
		t.Errorf("a channels-last 1×1 product within the bounds takes the cache block")
	}
}
