package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// convCase is one Conv instance of TestE2EConvExact.
type convCase struct {
	x, w               []int64 // N×C×D…, M×C/G×K…
	strides, dilations []int64
	pads               []int64
	groups             int64
	bias               bool
}

// out returns the result shape of c.
func (c convCase) out() []int64 {
	s := len(c.x) - 2
	o := []int64{c.x[0], c.w[0]}
	for i := 0; i < s; i++ {
		o = append(o, (c.x[2+i]+c.pads[i]+c.pads[s+i]-c.dilations[i]*(c.w[2+i]-1)-1)/c.strides[i]+1)
	}
	return o
}

func numel(d []int64) int {
	n := 1
	for _, e := range d {
		n *= int(e)
	}
	return n
}

// convRef is Conv in the documented order: per result element the sum
// from 0 over the group's input channels, then the kernel positions in
// row-major order, each product and sum rounded to T (the conversions keep
// Go from fusing them), the bias added last. Reads of the padding are
// skipped: niro adds their product ±0, which leaves the bits of a sum that
// starts from +0 unchanged (such a sum is never −0) for finite weights.
func convRef[T float32 | float64](c convCase, x, w, b []T) []T {
	s := len(c.x) - 2
	od := c.out()
	out := make([]T, numel(od))
	cg, mg := c.x[1]/c.groups, c.w[0]/c.groups
	kn := numel(c.w[2:])
	on := numel(od[2:])
	// strides of the spatial axes of X, W and the output
	spatial := func(d []int64) []int {
		st := make([]int, s)
		acc := 1
		for i := s - 1; i >= 0; i-- {
			st[i] = acc
			acc *= int(d[2+i])
		}
		return st
	}
	xs, ws, os := spatial(c.x), spatial(c.w), spatial(od)
	xsp := numel(c.x[2:])
	for n := int64(0); n < od[0]; n++ {
		for m := int64(0); m < od[1]; m++ {
			g := m / mg
			for o := 0; o < on; o++ {
				var sum T
				for ci := int64(0); ci < cg; ci++ {
					xc := int((n*c.x[1] + g*cg + ci)) * xsp
					wc := int(m*cg+ci) * kn
				kernel:
					for k := 0; k < kn; k++ {
						xi := 0
						for a := 0; a < s; a++ {
							oa, ka := int64(o/os[a]%int(od[2+a])), int64(k/ws[a]%int(c.w[2+a]))
							p := oa*c.strides[a] + ka*c.dilations[a] - c.pads[a]
							if p < 0 || p >= c.x[2+a] {
								continue kernel
							}
							xi += int(p) * xs[a]
						}
						prod := T(x[xc+xi] * w[wc+k])
						sum = T(sum + prod)
					}
				}
				if c.bias {
					sum = T(sum + b[m])
				}
				out[(int(n*od[1]+m))*on+o] = sum
			}
		}
	}
	return out
}

func dimsText(d []int64, e string) string {
	parts := make([]string, len(d))
	for i, v := range d {
		parts[i] = fmt.Sprint(v)
	}
	return "tensor<" + strings.Join(parts, "x") + "x" + e + ">"
}

func intsText(v []int64) string {
	parts := make([]string, len(v))
	for i, e := range v {
		parts[i] = fmt.Sprint(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// convProgram returns a Niro function computing c on element type e.
func convProgram(c convCase, e string) string {
	xt, wt, bt, ot := dimsText(c.x, e), dimsText(c.w, e), dimsText(c.w[:1], e), dimsText(c.out(), e)
	attrs := fmt.Sprintf("{dilations = %s, group = %d, pads = %s, strides = %s}", intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides))
	if c.bias {
		return fmt.Sprintf("func @conv(%s, %s, %s) -> (%s) {\n^bb0(%%0: %s, %%1: %s, %%2: %s):\n  %%3 = conv %%0, %%1, %%2 %s : (%s, %s, %s) -> %s\n  return %%3 : %s\n}",
			xt, wt, bt, ot, xt, wt, bt, attrs, xt, wt, bt, ot, ot)
	}
	return fmt.Sprintf("func @conv(%s, %s) -> (%s) {\n^bb0(%%0: %s, %%1: %s):\n  %%2 = conv %%0, %%1 %s : (%s, %s) -> %s\n  return %%2 : %s\n}",
		xt, wt, ot, xt, wt, attrs, xt, wt, ot, ot)
}

// TestE2EConvExact checks Conv at odd sizes (strides, dilations, groups,
// asymmetric pads, with and without bias; 1, 2 and 3 spatial axes) on f32,
// f64, f16 and bf16 bit for bit: host against host-O0 (runNiro) and both against a
// Go loop in the summation order of docs/ops.md.
func TestE2EConvExact(t *testing.T) {
	cases := []convCase{
		{x: []int64{2, 6, 13, 11}, w: []int64{4, 3, 3, 4}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 0, 2, 3}, groups: 2, bias: true},
		{x: []int64{1, 5, 9, 7}, w: []int64{7, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		{x: []int64{1, 6, 8, 9}, w: []int64{12, 1, 3, 3}, strides: []int64{3, 2}, dilations: []int64{2, 1}, pads: []int64{2, 0, 0, 1}, groups: 6, bias: true},
		{x: []int64{3, 6, 17}, w: []int64{9, 2, 5}, strides: []int64{2}, dilations: []int64{3}, pads: []int64{4, 1}, groups: 3, bias: true},
		{x: []int64{1, 3, 5, 6, 7}, w: []int64{2, 3, 2, 3, 2}, strides: []int64{1, 2, 1}, dilations: []int64{2, 1, 1}, pads: []int64{1, 0, 1, 0, 1, 1}, groups: 1, bias: true},
		// Through the convolution schedule (2-D, one group): output widths
		// and channel counts with every kind of remainder of the 8 x 32
		// (f32) or 8 x 16 (f64) register block, column strides (the
		// per-kernel-column gather), dilations, asymmetric pads.
		{x: []int64{2, 5, 9, 19}, w: []int64{37, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		{x: []int64{1, 16, 6, 40}, w: []int64{40, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{1, 3, 11, 23}, w: []int64{19, 3, 3, 2}, strides: []int64{2, 3}, dilations: []int64{2, 1}, pads: []int64{0, 1, 2, 3}, groups: 1, bias: true},
		{x: []int64{1, 4, 12, 13}, w: []int64{8, 4, 5, 5}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{4, 3, 4, 5}, groups: 1},
		{x: []int64{1, 2, 17, 33}, w: []int64{3, 2, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		// One output channel: conv_general.go's block of two channels,
		// the second (zero filter) never read back (emit/conv.go,
		// paddedChannelConv).
		{x: []int64{1, 2, 5, 5}, w: []int64{1, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		// 1 x 1 convolutions, matrix products through the contraction
		// schedule: plain, strided with pads.
		{x: []int64{1, 7, 10, 10}, w: []int64{33, 7, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 6, 9, 9}, w: []int64{17, 6, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 1},
		// Batches: one batched product (its bias, for f32, in the
		// product's block; emit/conv_epilogue.go).
		{x: []int64{3, 6, 5, 7}, w: []int64{12, 6, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1},
		{x: []int64{2, 8, 6, 6}, w: []int64{20, 8, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 1, bias: true},
		// Depthwise (groups = C = M) through the schedule's own block:
		// channel and width remainders, strides, dilations.
		{x: []int64{1, 37, 9, 11}, w: []int64{37, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 37, bias: true},
		{x: []int64{2, 20, 10, 13}, w: []int64{20, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 20},
		{x: []int64{1, 6, 9, 9}, w: []int64{6, 1, 5, 3}, strides: []int64{1, 2}, dilations: []int64{2, 1}, pads: []int64{2, 0, 3, 1}, groups: 6, bias: true},
		// One output channel: the padded block with a bias, strided, two
		// images; a 1×1 one, the matrix product (its bias in the product's
		// block for f32) and past its 32 input channels.
		{x: []int64{2, 3, 9, 20}, w: []int64{1, 3, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{1, 5, 7, 9}, w: []int64{1, 5, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{1, 40, 6, 11}, w: []int64{1, 40, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		// 17 channels: no padding channel, the 16-channel block and a
		// one-channel remainder block (toolchain/conv.mlir, @conv_steps1;
		// niro.conv2d16 or a root of 16 channels for a 4-byte accumulator).
		{x: []int64{1, 6, 7, 10}, w: []int64{17, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		// One output channel in the row form (OW a multiple of 8).
		{x: []int64{1, 3, 6, 16}, w: []int64{1, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{2, 5, 9, 44}, w: []int64{1, 5, 3, 2}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 1, 0, 1}, groups: 1},
	}
	for i, c := range cases {
		for _, e := range []string{"f32", "f64", "f16", "bf16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				src := convProgram(c, e)
				xn, wn, bn := numel(c.x), numel(c.w), int(c.w[0])
				x32, w32, b32 := seq(xn, 1.5), seq(wn, 0.75), seq(bn, 0.5)
				if e == "f16" || e == "bf16" {
					checkHalfConv(t, c, e, src, x32, w32, b32)
					return
				}
				if e == "f32" {
					in := []tensorio.Tensor{tf32(c.x, x32), tf32(c.w, w32)}
					if c.bias {
						in = append(in, tf32(c.w[:1], b32))
					}
					out := runNiro(t, src, in...)
					checkF32(t, out[0], convRef(c, x32, w32, b32))
					return
				}
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
				out := runNiro(t, src, in...)
				want := convRef(c, x64, w64, b64)
				got := out[0].Data
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
}

// checkHalfConv runs c on f16 or bf16 (e) inputs rounded from x, w and b
// and checks the result bit for bit against the f32 reference on the
// widened inputs (products of 16-bit floats are exact in f32), rounded
// once.
func checkHalfConv(t *testing.T, c convCase, e, src string, x, w, b []float32) {
	t.Helper()
	elem, to, from := niro.F16, tensorio.F16FromFloat32, func(h uint16) float32 { return float32(tensorio.F16ToFloat64(h)) }
	if e == "bf16" {
		elem, to, from = niro.BF16, tensorio.BF16FromFloat32, func(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
	}
	half := func(dims []int64, v []float32) (tensorio.Tensor, []float32) {
		data := make([]byte, 2*len(v))
		wide := make([]float32, len(v))
		for i, f := range v {
			h := to(f)
			binary.LittleEndian.PutUint16(data[2*i:], h)
			wide[i] = from(h)
		}
		return tensorio.Tensor{Elem: elem, Dims: dims, Data: data}, wide
	}
	xt, xw := half(c.x, x)
	wt, ww := half(c.w, w)
	bt, bw := half(c.w[:1], b)
	in := []tensorio.Tensor{xt, wt}
	if c.bias {
		in = append(in, bt)
	}
	out := runNiro(t, src, in...)
	want := convRef(c, xw, ww, bw)
	got := out[0].Data
	if len(got) != 2*len(want) {
		t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
	}
	for i, v := range want {
		if g, h := binary.LittleEndian.Uint16(got[2*i:]), to(v); g != h {
			t.Fatalf("element %d: got %#x, want %#x (%v)", i, g, h, v)
		}
	}
}

func tf64(dims []int64, vals []float64) tensorio.Tensor {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return tensorio.Tensor{Elem: niro.F64, Dims: dims, Data: b}
}

// bestTime compiles src under the host pipeline and returns its best time
// in seconds over runs calls (after a warm-up).
func bestTime(t *testing.T, src string, in []tensorio.Tensor, runs int) float64 {
	t.Helper()
	m, err := niro.Parse("speed.niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hm, err := env.buildHost(ctx, tc, m, "host")
	if err != nil {
		t.Fatal(err)
	}
	defer hm.cleanup()
	res, err := env.execute(ctx, tc, hm, in, 1, runs)
	if err != nil {
		t.Fatal(err)
	}
	best := res.Timings[0]
	for _, s := range res.Timings {
		best = min(best, s)
	}
	return best
}

// TestConvSpeed times convolutions under the host pipeline and logs
// GFLOP/s, best of NIRO_CONV_RUNS calls (default 20): the ResNet 3×3
// convolution (1×64×56×56, 64 output channels, pads 1; 0.231 GFLOP) next
// to the scheduled matrix product of equal work (3136×576 by 576×64), a
// depthwise 3×3 (1×144×56×56, pads 1) and a 1×1 (1×64×56×56 → 256). It
// runs only with NIRO_CONV_BENCH=1.
func TestConvSpeed(t *testing.T) {
	if os.Getenv("NIRO_CONV_BENCH") != "1" {
		t.Skip("set NIRO_CONV_BENCH=1 to time the convolution")
	}
	requireTools(t)
	runs := 20
	if v, err := strconv.Atoi(os.Getenv("NIRO_CONV_RUNS")); err == nil && v > 0 {
		runs = v
	}
	for _, b := range []struct {
		name string
		c    convCase
	}{
		{"resnet 3x3 1x64x56x56 -> 64", convCase{x: []int64{1, 64, 56, 56}, w: []int64{64, 64, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}},
		{"depthwise 3x3 1x144x56x56", convCase{x: []int64{1, 144, 56, 56}, w: []int64{144, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 144}},
		{"1x1 1x64x56x56 -> 256", convCase{x: []int64{1, 64, 56, 56}, w: []int64{256, 64, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1}},
	} {
		c := b.c
		best := bestTime(t, convProgram(c, "f32"), []tensorio.Tensor{tf32(c.x, seq(numel(c.x), 1)), tf32(c.w, seq(numel(c.w), 0.5))}, runs)
		flop := 2.0 * float64(numel(c.out())) * float64(numel(c.w[1:]))
		t.Logf("conv %s: best %.3f ms, %.2f GFLOP/s", b.name, best*1e3, flop/best/1e9)
	}
	const m, n, k = 3136, 64, 576
	src := fmt.Sprintf("func @mm(tensor<%[1]dx%[3]dxf32>, tensor<%[3]dx%[2]dxf32>) -> (tensor<%[1]dx%[2]dxf32>) {\n^bb0(%%0: tensor<%[1]dx%[3]dxf32>, %%1: tensor<%[3]dx%[2]dxf32>):\n  %%2 = matmul %%0, %%1 : (tensor<%[1]dx%[3]dxf32>, tensor<%[3]dx%[2]dxf32>) -> tensor<%[1]dx%[2]dxf32>\n  return %%2 : tensor<%[1]dx%[2]dxf32>\n}", m, n, k)
	best := bestTime(t, src, []tensorio.Tensor{tf32([]int64{m, k}, seq(m*k, 1)), tf32([]int64{k, n}, seq(k*n, 0.5))}, runs)
	t.Logf("matmul %dx%dx%d (the 3x3 conv's work): best %.3f ms, %.2f GFLOP/s", m, n, k, best*1e3, 2.0*m*n*k/best/1e9)
}

// TestConvScheduled checks that the convolution schedule takes 2-D
// one-group and depthwise cases of TestE2EConvExact (f32 and f64): after
// it, no niro.conv2d or niro.dwconv2d generic is left (each block became vector code), the blocks
// multiply and add as separate vector operations, and nothing fuses them.
func TestConvScheduled(t *testing.T) {
	requireTools(t)
	cases := []convCase{
		{x: []int64{2, 5, 9, 19}, w: []int64{37, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		{x: []int64{1, 3, 11, 23}, w: []int64{19, 3, 3, 2}, strides: []int64{2, 3}, dilations: []int64{2, 1}, pads: []int64{0, 1, 2, 3}, groups: 1, bias: true},
		{x: []int64{1, 4, 12, 13}, w: []int64{8, 4, 5, 5}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{4, 3, 4, 5}, groups: 1},
		{x: []int64{1, 37, 9, 11}, w: []int64{37, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 37, bias: true},
		{x: []int64{2, 20, 10, 13}, w: []int64{20, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 20},
	}
	for i, c := range cases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				ir := fusedIRThrough(t, path, "conv")
				if strings.Contains(ir, "niro.conv2d") || strings.Contains(ir, "niro.dwconv2d") {
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
