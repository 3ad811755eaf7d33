package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// TestConvDWMultForm checks which form the depthwise convolutions with a
// channel multiplier of generalConvCases take: the row form of
// emit/conv_dwmult.go (one niro.dwconv2d generic writing the N×M×OH×OW
// result or a column segment of it, loops (n, m, oh, ow, kh, kw), X's
// channel m floordiv k, no copy of X per output channel) unless the output is one column wide, or
// is 32k + 1 columns wide (16k + 1 for f64) with a bias (dwRowsCol1Op). The
// bits are checked by TestE2EConvGeneralExact, the schedule by
// TestConvGeneralScheduled.
func TestConvDWMultForm(t *testing.T) {
	seen := map[bool]int{}
	for i, c := range generalConvCases {
		if len(c.x) != 4 || c.w[1] != 1 || c.groups != c.x[1] || c.w[0] == c.x[1] {
			continue
		}
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				o := c.out()
				// With a bias at an output width that leaves the row
				// form's blocks one column, the channels-last block
				// with the bias fused (dwRowsCol1Op).
				want := emit.UsesDWMultRows(c.x[1], c.groups, c.w[0], c.w[1], o[3]) && !(c.bias && emit.DWRowsCol1(o[3], e == "f64"))
				seen[want]++
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				acc := regexp.MustCompile(fmt.Sprintf(`outs\(%%[t0-9]+ : tensor<%dx%dx%dx[0-9]+x%s>\) attrs = \{niro\.dwconv2d(_e)?\}`,
					o[0], c.w[0], o[2], e))
				got := acc.MatchString(out.MLIR)
				if got != want {
					t.Errorf("row form taken: %v, want %v (output %v)", got, want, o)
				}
			})
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("cases taking the row form / not: %v", seen)
	}
}

// dwMultLayoutProgram is a one-group 3×3 convolution, a depthwise one
// with channel multiplier 2 (and a bias) and a one-group 3×3 one in a
// chain: the two values between them are kept channels-last (layout.go),
// so the multiplier, its bias fused (conv_epilogue.go), takes
// conv_general.go's per-output-channel depthwise block, gathering X from
// N×H×W×C and writing its result N×H×W×C.
const dwMultLayoutProgram = `func @net(tensor<1x3x9x21xf32>, tensor<6x3x3x3xf32>, tensor<12x1x3x3xf32>, tensor<12xf32>, tensor<4x12x3x3xf32>) -> (tensor<1x4x9x21xf32>) {
^bb0(%0: tensor<1x3x9x21xf32>, %1: tensor<6x3x3x3xf32>, %2: tensor<12x1x3x3xf32>, %3: tensor<12xf32>, %4: tensor<4x12x3x3xf32>):
  %5 = conv %0, %1 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x3x9x21xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x9x21xf32>
  %6 = conv %5, %2, %3 {dilations = [1, 1], group = 6, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x6x9x21xf32>, tensor<12x1x3x3xf32>, tensor<12xf32>) -> tensor<1x12x9x21xf32>
  %7 = conv %6, %4 {dilations = [1, 1], group = 1, pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x12x9x21xf32>, tensor<4x12x3x3xf32>) -> tensor<1x4x9x21xf32>
  return %7 : tensor<1x4x9x21xf32>
}`

// TestConvDWMultLayout checks the multiplier between channels-last
// values: its input and result are N×H×W×C, its block is the
// per-output-channel depthwise one with the bias fused, and the result
// has the bits of host-O0 and of the Go loop nests.
func TestConvDWMultLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.niro")
	if err := os.WriteFile(path, []byte(dwMultLayoutProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`%5 = linalg\.generic .* outs\(%t[0-9]+ : tensor<1x9x21x6xf32>\)`,
		`tensor\.extract %5\[[^]]*\] : tensor<1x9x21x6xf32>`,
		// (Its bias fused: conv_general.go's per-output-channel
		// depthwise block, X gathered per output channel.)
		`ins\(%t[0-9]+, %t[0-9]+ : tensor<1x11x23x12xf32>, tensor<3x3x12xf32>\) outs\(%t[0-9]+ : tensor<1x9x21x12xf32>\) attrs = \{niro\.dwconv2d_e\}`,
		`%6 = linalg\.generic .* ins\(%t[0-9]+, %3 : tensor<1x9x21x12xf32>, tensor<12xf32>\) outs\(%t[0-9]+ : tensor<1x9x21x12xf32>\) attrs = \{niro\.epi_nhwc32\}`,
	} {
		if !regexp.MustCompile(want).MatchString(out.MLIR) {
			t.Errorf("no match for %s in\n%s", want, out.MLIR)
		}
	}
	c1 := convCase{x: []int64{1, 3, 9, 21}, w: []int64{6, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
	c2 := convCase{x: []int64{1, 6, 9, 21}, w: []int64{12, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 6, bias: true}
	c3 := convCase{x: []int64{1, 12, 9, 21}, w: []int64{4, 12, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
	x, w1, w2, b2, w3 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(numel(c2.w), 0.6), seq(12, 0.5), seq(numel(c3.w), 0.3)
	want := convRef(c3, convRef(c2, convRef(c1, x, w1, nil), w2, b2), w3, nil)
	res := runNiro(t, dwMultLayoutProgram, tf32(c1.x, x), tf32(c1.w, w1), tf32(c2.w, w2), tf32([]int64{12}, b2), tf32(c3.w, w3))
	checkF32(t, res[0], want)
}
