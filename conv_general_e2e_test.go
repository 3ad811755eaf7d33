package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/tensorio"
)

// generalConvCases are the convolutions of emit/conv_general.go: 1-D,
// 3-D, and 2-D with a group count other than 1 and C = M, at sizes that
// leave remainders of the schedule's 8 × 32 (f32) and 8 × 16 (f64)
// register blocks, with strides (a column stride takes the per-kernel-
// column gather), dilations, asymmetric pads, pointwise kernels, channel
// multipliers, per-channel grouped blocks (M/G < 8 or more than 16 groups)
// and per-group blocks (M/G ≥ 8, at most 16 groups), and block channel
// counts of 16k + 1: per-group (34 = 2 × 17), one-group (33) and
// depthwise ones the schedule's one-channel remainder blocks, without a
// padding channel.
var generalConvCases = []convCase{
	// 1-D
	{x: []int64{2, 5, 37}, w: []int64{19, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true},
	{x: []int64{1, 6, 29}, w: []int64{33, 6, 4}, strides: []int64{3}, dilations: []int64{2}, pads: []int64{2, 3}, groups: 1},
	{x: []int64{3, 8, 17}, w: []int64{12, 2, 5}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{4, 1}, groups: 4, bias: true},
	{x: []int64{2, 7, 15}, w: []int64{9, 7, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 0}, groups: 1, bias: true},
	{x: []int64{1, 17, 20}, w: []int64{17, 1, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 17},
	{x: []int64{1, 16, 40}, w: []int64{32, 8, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 2, bias: true},
	// 2-D grouped: per output channel (M/G < 8), channel multipliers
	{x: []int64{1, 40, 7, 9}, w: []int64{40, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 20, bias: true},
	{x: []int64{1, 5, 11, 12}, w: []int64{15, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 5, bias: true},
	{x: []int64{2, 6, 10, 13}, w: []int64{12, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{2, 1}, pads: []int64{2, 0, 2, 1}, groups: 6},
	{x: []int64{1, 12, 5, 7}, w: []int64{18, 4, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 3},
	{x: []int64{1, 34, 5, 6}, w: []int64{170, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 17},
	// 2-D grouped: per group (M/G ≥ 8)
	{x: []int64{1, 12, 9, 11}, w: []int64{24, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true},
	{x: []int64{2, 8, 10, 13}, w: []int64{36, 4, 3, 2}, strides: []int64{1, 2}, dilations: []int64{2, 1}, pads: []int64{2, 1, 0, 1}, groups: 2},
	{x: []int64{1, 4, 6, 7}, w: []int64{40, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 4, bias: true},
	{x: []int64{1, 4, 6, 7}, w: []int64{34, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2, bias: true},
	// 2-D with 16k + 1 output channels: one group (conv_nhwc.go's block
	// and its one-channel remainder block), depthwise (the depthwise
	// block's one-channel remainder block, @conv_steps_dw1)
	{x: []int64{1, 6, 5, 12}, w: []int64{33, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{1, 33, 5, 12}, w: []int64{33, 1, 3, 3}, strides: []int64{1, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 33},
	// 3-D
	{x: []int64{1, 4, 5, 7, 19}, w: []int64{35, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{2, 3, 6, 9, 11}, w: []int64{10, 3, 2, 3, 3}, strides: []int64{2, 1, 2}, dilations: []int64{1, 2, 1}, pads: []int64{1, 0, 1, 0, 2, 1}, groups: 1},
	{x: []int64{1, 6, 4, 5, 6}, w: []int64{9, 2, 3, 1, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 0, 1, 1, 0, 1}, groups: 3, bias: true},
	{x: []int64{1, 5, 3, 4, 5}, w: []int64{11, 5, 1, 1, 1}, strides: []int64{1, 2, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 0, 0, 0, 1}, groups: 1},
	{x: []int64{1, 4, 3, 5, 9}, w: []int64{16, 2, 2, 2, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{0, 1, 1, 1, 0, 1}, groups: 2, bias: true},
	// 2-D depthwise with a channel multiplier k (emit/conv_dwmult.go's row
	// form): k = 2, 3, 4, output widths leaving remainders of the 32 (16)
	// column blocks, a stride and dilation per axis, X read in place (no
	// padding, N = 2), output widths 17 and 33 (a one-column remainder of
	// the 16- or 32-column blocks, merged into a segment of 9 or 17), and
	// a one-group convolution of one input channel (the case C = G = 1,
	// also the row form), and a one-column output, which takes
	// conv_general.go's form instead
	{x: []int64{1, 8, 13, 37}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 8, bias: true},
	{x: []int64{2, 3, 9, 17}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 3},
	{x: []int64{1, 4, 11, 40}, w: []int64{16, 1, 5, 3}, strides: []int64{2, 2}, dilations: []int64{1, 2}, pads: []int64{2, 1, 2, 1}, groups: 4, bias: true},
	{x: []int64{1, 3, 6, 17}, w: []int64{6, 1, 2, 2}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 3, bias: true},
	{x: []int64{1, 2, 5, 33}, w: []int64{8, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 2},
	{x: []int64{2, 1, 7, 30}, w: []int64{5, 1, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{2, 2, 2, 2}, groups: 1, bias: true},
	{x: []int64{1, 2, 5, 3}, w: []int64{6, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 2, bias: true},
}

// checkConvExact runs c on element type e (f32, f64, f16 or bf16) under
// host and host-O0 (runNiro) and checks the result bit for bit against
// convRef, the Go loop in the order of docs/ops.md.
func checkConvExact(t *testing.T, c convCase, e string) {
	t.Helper()
	src := convProgram(c, e)
	xn, wn, bn := numel(c.x), numel(c.w), int(c.w[0])
	x32, w32, b32 := seq(xn, 1.5), seq(wn, 0.75), seq(bn, 0.5)
	switch e {
	case "f16", "bf16":
		checkHalfConv(t, c, e, src, x32, w32, b32)
	case "f32":
		in := []tensorio.Tensor{tf32(c.x, x32), tf32(c.w, w32)}
		if c.bias {
			in = append(in, tf32(c.w[:1], b32))
		}
		checkF32(t, runNiro(t, src, in...)[0], convRef(c, x32, w32, b32))
	default:
		wide := func(v []float32, k float64) []float64 {
			out := make([]float64, len(v))
			for i, f := range v {
				out[i] = float64(f) * k // inexact in f32
			}
			return out
		}
		x64, w64, b64 := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3)
		in := []tensorio.Tensor{tf64(c.x, x64), tf64(c.w, w64)}
		if c.bias {
			in = append(in, tf64(c.w[:1], b64))
		}
		got := runNiro(t, src, in...)[0].Data
		want := convRef(c, x64, w64, b64)
		if len(got) != 8*len(want) {
			t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
		}
		for i, v := range want {
			if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(v) {
				t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
			}
		}
	}
}

// TestE2EConvGeneralExact checks the convolutions of generalConvCases bit
// for bit on f32 and f64, and on f16 and bf16 (accumulated in f32, rounded
// once) for every third case.
func TestE2EConvGeneralExact(t *testing.T) {
	for i, c := range generalConvCases {
		types := []string{"f32", "f64"}
		if i%3 == 0 {
			types = append(types, "f16", "bf16")
		}
		for _, e := range types {
			t.Run(fmt.Sprintf("%d_%dd_g%d_%s", i, len(c.x)-2, c.groups, e), func(t *testing.T) {
				checkConvExact(t, c, e)
			})
		}
	}
}

// TestE2EConvBF16Pointwise checks bf16 1×1 convolutions (1-D and 2-D)
// whose contraction form LLVM 22 could not select on x86 while bf16 was
// widened with arith.extf (emit/bf16.go): bit for bit as the loop nest.
func TestE2EConvBF16Pointwise(t *testing.T) {
	for i, c := range []convCase{
		{x: []int64{2, 7, 1, 8}, w: []int64{9, 7, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 7, 15}, w: []int64{9, 7, 1}, strides: []int64{2}, dilations: []int64{1}, pads: []int64{1, 0}, groups: 1, bias: true},
		{x: []int64{1, 5, 3, 5}, w: []int64{11, 5, 1, 1}, strides: []int64{2, 1}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 2}, groups: 1, bias: true},
		{x: []int64{3, 3, 7, 9}, w: []int64{9, 3, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{1, 13, 5, 3}, w: []int64{5, 13, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkConvExact(t, c, "bf16") })
	}
}

// TestConvGeneralScheduled checks that the convolution schedule takes the
// cases of generalConvCases with more than one output channel per block
// (f32 and f64): after it, no niro.conv2d or niro.dwconv2d generic (a
// channel multiplier's depthwise block) is left, the blocks
// multiply and add as separate vector operations, and nothing fuses them.
// The pointwise ones are contractions and are checked after the
// contraction schedule.
func TestConvGeneralScheduled(t *testing.T) {
	requireTools(t)
	for i, c := range generalConvCases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				pointwise := numel(c.w[2:]) == 1 && c.groups == 1
				stage, tag := "conv", "niro.conv2d"
				if pointwise {
					stage, tag = "contraction", "niro.contraction"
				}
				ir := fusedIRThrough(t, path, stage)
				for _, tag := range []string{tag, "niro.dwconv2d"} {
					if strings.Contains(ir, tag) {
						t.Errorf("a %s generic is left after the schedule:\n%s", tag, ir)
					}
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
