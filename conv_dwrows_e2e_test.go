package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/tensorio"
)

// dwRowsCases are depthwise convolutions without a channel multiplier
// (groups = C = M) that take the plain row form of emit/conv_dwmult.go:
// output widths with every kind of column segment and remainder of the
// 8 × 32 (f32) or 8 × 16 (f64) block, row and column strides, dilations,
// asymmetric pads, a 1×3 and a 5×3 kernel, X read in place (no padding),
// two images, with and without bias (33 columns without: with a bias,
// a width of 32k + 1, 16k + 1 for f64, takes the channels-last block,
// dwRowsCol1Op).
var dwRowsCases = []convCase{
	{x: []int64{1, 3, 5, 2}, w: []int64{3, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3},
	{x: []int64{1, 5, 9, 7}, w: []int64{5, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 5, bias: true},
	{x: []int64{2, 4, 11, 33}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4},
	{x: []int64{1, 3, 10, 57}, w: []int64{3, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3},
	{x: []int64{1, 2, 13, 58}, w: []int64{2, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true},
	{x: []int64{1, 3, 12, 23}, w: []int64{3, 1, 3, 3}, strides: []int64{3, 2}, dilations: []int64{2, 1}, pads: []int64{2, 0, 0, 1}, groups: 3, bias: true},
	{x: []int64{1, 2, 9, 40}, w: []int64{2, 1, 3, 3}, strides: []int64{1, 2}, dilations: []int64{1, 3}, pads: []int64{0, 2, 1, 3}, groups: 2},
	{x: []int64{1, 3, 9, 30}, w: []int64{3, 1, 5, 3}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{2, 1, 3, 0}, groups: 3},
	{x: []int64{1, 4, 6, 20}, w: []int64{4, 1, 1, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 1, 0, 1}, groups: 4, bias: true},
	{x: []int64{2, 3, 8, 18}, w: []int64{3, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 3},
}

// dwRowsAcc matches the row form's convolution generic writing the NCHW
// result (or a column segment of it) as its accumulator (tagged _e where
// its bias is fused into the block).
func dwRowsAcc(o []int64, e string) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`outs\(%%t[0-9]+ : tensor<%dx%dx%dx[0-9]+x%s>\) attrs = \{niro\.dwconv2d(_e)?\}`, o[0], o[1], o[2], e))
}

// TestConvDWRowsForm checks that the depthwise convolutions of
// dwRowsCases take the plain row form (a niro.dwconv2d generic whose
// accumulator is the N×C×OH×OW result) and that the schedule leaves no
// convolution generic behind (every block became vector code, multiply
// and add separate).
func TestConvDWRowsForm(t *testing.T) {
	requireTools(t)
	for i, c := range dwRowsCases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !dwRowsAcc(c.out(), e).MatchString(out.MLIR) {
					t.Fatalf("not the row form (output %v):\n%s", c.out(), out.MLIR)
				}
				ir := fusedIRThrough(t, path, "conv")
				if strings.Contains(ir, "niro.dwconv2d") {
					t.Errorf("a convolution generic is left after the schedule:\n%s", ir)
				}
				if !regexp.MustCompile(`arith\.mulf .* : vector<[0-9x]*`+e+`>`).MatchString(ir) ||
					!regexp.MustCompile(`arith\.addf .* : vector<[0-9x]*`+e+`>`).MatchString(ir) {
					t.Errorf("no vector multiply and add after the schedule:\n%s", ir)
				}
				for _, bad := range []string{"vector.fma", "vector.contract", "math.fma"} {
					if strings.Contains(ir, bad) {
						t.Errorf("%s after the schedule", bad)
					}
				}
			})
		}
	}
}

// TestE2EConvDWRowsExact checks the convolutions of dwRowsCases bit for
// bit on f32 and f64 (f16 and bf16 for every third case, accumulated in
// f32 and rounded once): host against host-O0 and both against the Go
// loop nest (kh, then kw, ascending from zero, the bias last).
func TestE2EConvDWRowsExact(t *testing.T) {
	for i, c := range dwRowsCases {
		types := []string{"f32", "f64"}
		if i%3 == 0 {
			types = append(types, "f16", "bf16")
		}
		for _, e := range types {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				checkConvExact(t, c, e)
			})
		}
	}
}

// dwRowsChain is a 1×1 convolution, a depthwise 3×3 and a 1×1 one (a
// MobileNetV2 block without its activations): the values between them
// are carried channels-last (layout.go), so the depthwise convolution
// keeps the channels-last block.
const dwRowsChain = `func @net(tensor<1x4x9x21xf32>, tensor<12x4x1x1xf32>, tensor<12x1x3x3xf32>, tensor<4x12x1x1xf32>) -> (tensor<1x4x9x21xf32>) {
^bb0(%0: tensor<1x4x9x21xf32>, %1: tensor<12x4x1x1xf32>, %2: tensor<12x1x3x3xf32>, %3: tensor<4x12x1x1xf32>):
  %4 = conv %0, %1 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x4x9x21xf32>, tensor<12x4x1x1xf32>) -> tensor<1x12x9x21xf32>
  %5 = conv %4, %2 {dilations = [1, 1], group = 12, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x9x21xf32>, tensor<12x1x3x3xf32>) -> tensor<1x12x9x21xf32>
  %6 = conv %5, %3 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x12x9x21xf32>, tensor<4x12x1x1xf32>) -> tensor<1x4x9x21xf32>
  return %6 : tensor<1x4x9x21xf32>
}`

// TestConvDWRowsChain checks that a depthwise convolution between
// channels-last values keeps the channels-last block (its accumulator
// N×OH×OW×C, not the row form's), with the bits of the Go loop nests.
func TestConvDWRowsChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.niro")
	if err := os.WriteFile(path, []byte(dwRowsChain), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dwRowsAcc([]int64{1, 12, 9}, "f32").MatchString(out.MLIR) {
		t.Errorf("the depthwise convolution takes the row form between channels-last values:\n%s", out.MLIR)
	}
	if !regexp.MustCompile(`outs\(%t[0-9]+ : tensor<1x9x21x12xf32>\) attrs = \{niro\.dwconv2d(_e)?\}`).MatchString(out.MLIR) {
		t.Errorf("no channels-last depthwise block:\n%s", out.MLIR)
	}
	c1 := convCase{x: []int64{1, 4, 9, 21}, w: []int64{12, 4, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}
	cd := convCase{x: []int64{1, 12, 9, 21}, w: []int64{12, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 12}
	c2 := convCase{x: []int64{1, 12, 9, 21}, w: []int64{4, 12, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}
	x, w1, wd, w2 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(numel(cd.w), 0.6), seq(numel(c2.w), 0.8)
	want := convRef(c2, convRef(cd, convRef(c1, x, w1, nil), wd, nil), w2, nil)
	res := runNiro(t, dwRowsChain, tf32(c1.x, x), tf32(c1.w, w1), tf32(cd.w, wd), tf32(c2.w, w2))
	checkF32(t, res[0], want)
}

// TestConvDWRowsEpilogueF64 checks a fused epilogue on the f64 row form,
// without and with a channel multiplier (the 8 × 16 block, niro.epi_dwrows16, and the half-width 8 × 8 one,
// niro.epi_dwrowsh16): bias, then Relu6, computed in the tile loop on
// vectors and nowhere outside it (checkEpiFused), bit for bit as the Go
// loop, and as host-O0 for the first case of each form (epiPipes).
func TestConvDWRowsEpilogueF64(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	for _, tc := range []struct {
		c    convCase
		root string
	}{
		{convCase{x: []int64{1, 5, 9, 32}, w: []int64{5, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 5, bias: true}, "dwrows16"},
		{convCase{x: []int64{2, 3, 10, 28}, w: []int64{3, 1, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, "dwrowsh16"},
		// With a channel multiplier (k = 2, 3; the loops n, m, oh, ow).
		{convCase{x: []int64{1, 4, 9, 32}, w: []int64{8, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true}, "dwrows16"},
		{convCase{x: []int64{2, 3, 11, 30}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 2}, dilations: []int64{2, 1}, pads: []int64{2, 1, 1, 0}, groups: 3, bias: true}, "dwrowsh16"},
	} {
		c, root := tc.c, tc.root
		o := c.out()
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			res := dimsText(o, "f64")
			src := fmt.Sprintf(`func @epi(%s, %s, tensor<%dxf64>) -> (%s) {
^bb0(%%0: %s, %%1: %s, %%2: tensor<%dxf64>):
  %%3 = conv %%0, %%1, %%2 {dilations = %s, group = %d, pads = %s, strides = %s} : (%s, %s, tensor<%dxf64>) -> %s
  %%4 = const 0x0000000000000000 : tensor<f64>
  %%5 = max %%3, %%4 : (%s, tensor<f64>) -> %s
  %%6 = const 0x0000000000001840 : tensor<f64>
  %%7 = min %%5, %%6 : (%s, tensor<f64>) -> %s
  return %%7 : %s
}`, dimsText(c.x, "f64"), dimsText(c.w, "f64"), o[1], res,
				dimsText(c.x, "f64"), dimsText(c.w, "f64"), o[1],
				intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides), dimsText(c.x, "f64"), dimsText(c.w, "f64"), o[1], res,
				res, res, res, res, res)
			if checkEpiFused(t, "epi", src, []string{root}, []string{"arith.minimumf", "arith.maximumf"}); t.Failed() {
				return
			}
			x32, w32, b32 := seq(numel(c.x), 1.5), seq(numel(c.w), 0.75), seq(int(o[1]), 0.5)
			x, w, b := widen(x32, 1.1), widen(w32, 0.9), widen(b32, 1.3)
			want := convRef(c, x, w, b)
			for i, v := range want {
				want[i] = min(max(v, 0), 6)
			}
			got := runNiroOn(t, 0, epiPipes(o0, root), src, []tensorio.Tensor{tf64(c.x, x), tf64(c.w, w), tf64(o[1:2], b)}...)[0].Data
			checkF64(t, got, want)
		})
	}
}
