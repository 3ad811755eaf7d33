package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// layoutProgram is a chain of convolutions joined by element-wise ops:
// a one-group 3×3 convolution, a per-channel scale (a C×1×1 operand), a
// residual Add of an NCHW input and a square; then a grouped 3×3 (4
// groups of 3 channels, the per-channel block of conv_general.go) and a
// depthwise 3×3 of that value; the grouped result squared, max-pooled
// 3×3 and fed to a 1×1 convolution. %5 to %9, %11 and %15 stay channels-last; %10 and %12
// (returned) are NCHW.
const layoutProgram = `func @net(tensor<1x5x9x11xf32>, tensor<12x5x3x3xf32>, tensor<12x1x1xf32>, tensor<1x12x9x11xf32>, tensor<8x3x3x3xf32>, tensor<12x1x3x3xf32>, tensor<3x8x1x1xf32>) -> (tensor<1x12x9x11xf32>, tensor<1x3x9x11xf32>) {
^bb0(%0: tensor<1x5x9x11xf32>, %1: tensor<12x5x3x3xf32>, %2: tensor<12x1x1xf32>, %3: tensor<1x12x9x11xf32>, %4: tensor<8x3x3x3xf32>, %13: tensor<12x1x3x3xf32>, %14: tensor<3x8x1x1xf32>):
  %5 = conv %0, %1 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x5x9x11xf32>, tensor<12x5x3x3xf32>) -> tensor<1x12x9x11xf32>
  %6 = mul %5, %2 : (tensor<1x12x9x11xf32>, tensor<12x1x1xf32>) -> tensor<1x12x9x11xf32>
  %7 = add %6, %3 : (tensor<1x12x9x11xf32>, tensor<1x12x9x11xf32>) -> tensor<1x12x9x11xf32>
  %8 = mul %7, %7 : (tensor<1x12x9x11xf32>, tensor<1x12x9x11xf32>) -> tensor<1x12x9x11xf32>
  %9 = conv %8, %4 {dilations = [1, 1], group = 4, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x9x11xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x9x11xf32>
  %10 = conv %8, %13 {dilations = [1, 1], group = 12, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x9x11xf32>, tensor<12x1x3x3xf32>) -> tensor<1x12x9x11xf32>
  %11 = mul %9, %9 : (tensor<1x8x9x11xf32>, tensor<1x8x9x11xf32>) -> tensor<1x8x9x11xf32>
  %15 = max_pool %11 {dilations = [1, 1], kernel = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x8x9x11xf32>) -> tensor<1x8x9x11xf32>
  %12 = conv %15, %14 {dilations = [1, 1], group = 1, pads = [0, 0, 0, 0], strides = [1, 1]} : (tensor<1x8x9x11xf32>, tensor<3x8x1x1xf32>) -> tensor<1x3x9x11xf32>
  return %10, %12 : tensor<1x12x9x11xf32>, tensor<1x3x9x11xf32>
}`

// TestConvLayoutCarried checks that the values between the convolutions
// of layoutProgram are kept channels-last (their generics have N×H×W×C
// results) while the returned ones are NCHW, and that the results have
// the bits of host-O0 and of a Go loop nest in the documented order.
func TestConvLayoutCarried(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.niro")
	if err := os.WriteFile(path, []byte(layoutProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mlir := out.MLIR
	for v, want := range map[string]string{
		"%6": "tensor<1x9x11x12xf32>", "%7": "tensor<1x9x11x12xf32>", "%8": "tensor<1x9x11x12xf32>",
		"%11": "tensor<1x9x11x8xf32>", "%15": "tensor<1x9x11x8xf32>", "%10": "tensor<1x12x9x11xf32>", "%12": "tensor<1x3x9x11xf32>",
	} {
		if got := genericResult(mlir, v); got != want {
			t.Errorf("%s is a %s, want %s:\n%s", v, got, want, mlir)
		}
	}
	for _, want := range []string{
		`tensor\.extract %8\[[^]]*\] : tensor<1x9x11x12xf32>`,
		`tensor\.extract %11\[[^]]*\] : tensor<1x9x11x8xf32>`,
		`tensor\.extract %15\[[^]]*\] : tensor<1x9x11x8xf32>`,
	} {
		if !regexp.MustCompile(want).MatchString(mlir) {
			t.Errorf("no match for %s in\n%s", want, mlir)
		}
	}

	c1 := convCase{x: []int64{1, 5, 9, 11}, w: []int64{12, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
	cg := convCase{x: []int64{1, 12, 9, 11}, w: []int64{8, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4}
	cd := convCase{x: []int64{1, 12, 9, 11}, w: []int64{12, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 12}
	cp := convCase{x: []int64{1, 8, 9, 11}, w: []int64{3, 8, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}
	x, w1, s, r := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(12, 0.5), seq(numel(cg.x), 0.25)
	w4, w13, w14 := seq(numel(cg.w), 0.6), seq(numel(cd.w), 0.7), seq(numel(cp.w), 0.8)
	a := convRef(c1, x, w1, nil)
	hw := 9 * 11
	for i := range a {
		v := float32(a[i] * s[i/hw%12])
		v = float32(v + r[i])
		a[i] = float32(v * v)
	}
	g := convRef(cg, a, w4, nil)
	d := convRef(cd, a, w13, nil)
	for i := range g {
		g[i] = float32(g[i] * g[i])
	}
	// 3×3 max pool, pads 1 (the padding never wins).
	mp := make([]float32, len(g))
	for c := 0; c < 8; c++ {
		for h := 0; h < 9; h++ {
			for w := 0; w < 11; w++ {
				m := float32(math.Inf(-1))
				for kh := -1; kh <= 1; kh++ {
					for kw := -1; kw <= 1; kw++ {
						if y, x := h+kh, w+kw; y >= 0 && y < 9 && x >= 0 && x < 11 {
							m = max(m, g[(c*9+y)*11+x])
						}
					}
				}
				mp[(c*9+h)*11+w] = m
			}
		}
	}
	p := convRef(cp, mp, w14, nil)
	res := runNiro(t, layoutProgram,
		tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{12, 1, 1}, s), tf32(cg.x, r),
		tf32(cg.w, w4), tf32(cd.w, w13), tf32(cp.w, w14))
	checkF32(t, res[0], d)
	checkF32(t, res[1], p)
}

// genericResult returns the result type of the linalg.generic defining
// v in mlir, or "".
func genericResult(mlir, v string) string {
	i := strings.Index(mlir, v+" = linalg.generic ")
	if i < 0 {
		return ""
	}
	rest := mlir[i:]
	j := strings.Index(rest, "} -> ")
	if j < 0 {
		return ""
	}
	line := rest[j+len("} -> "):]
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	return strings.TrimSpace(line)
}
