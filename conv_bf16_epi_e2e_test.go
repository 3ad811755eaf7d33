package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// bf16EpiCases are bf16 convolutions whose epilogue the convolution
// schedule fuses into the tile loop, one per form: form is the root's
// tag after "niro.epi_". The widening of bf16 is written as integers
// (emit/bf16.go); before it, the 1-D grouped one with its bias alone
// (3×6×17 → 9, 3 groups: TestE2EConvExact's case 3) crashed LLVM 22's x86
// instruction selection, and the 1×1 ones took the rank-7 block unfused.
var bf16EpiCases = []genEpiCase{
	{name: "crash_c1d_grouped_bias", conv: convCase{x: []int64{3, 6, 17}, w: []int64{9, 2, 5}, strides: []int64{2}, dilations: []int64{3}, pads: []int64{4, 1}, groups: 3, bias: true}, body: "bias", form: "c1d32"},
	{name: "c1d_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{19, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, body: "bn", form: "c1d16"},
	{name: "c3d_hardswish", conv: convCase{x: []int64{1, 6, 4, 5, 6}, w: []int64{9, 2, 3, 1, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 0, 1, 1, 0, 1}, groups: 3, bias: true}, body: "hardswish", form: "c3d32"},
	{name: "g2d_residual", conv: convCase{x: []int64{1, 12, 11, 13}, w: []int64{18, 4, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, body: "residual", form: "nchw32"},
	{name: "2d_bn_relu", conv: convCase{x: []int64{1, 5, 9, 19}, w: []int64{37, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, body: "bn", form: "nchw32"},
	{name: "2d_rows_hardswish", conv: convCase{x: []int64{1, 16, 6, 40}, w: []int64{40, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, body: "hardswish", form: "rows32"},
	{name: "depthwise_residual", conv: convCase{x: []int64{1, 37, 9, 11}, w: []int64{37, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 37, bias: true}, body: "residual", form: "dwrows32"},
	{name: "1x1_bn_relu", conv: convCase{x: []int64{2, 7, 1, 8}, w: []int64{9, 7, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true}, body: "bn", form: "mmk"},
}

// bf16Round rounds f to bf16 (nearest even) and back: the value a bf16
// op's f32 result is stored as.
func bf16Round(f float32) float32 {
	return math.Float32frombits(uint32(tensorio.BF16FromFloat32(f)) << 16)
}

// bf16Program is c's program (genEpiCase.program) on bf16, its constants
// rounded to bf16.
func bf16Program(c genEpiCase) string {
	c.elem = "f32"
	src := c.program()
	for _, v := range []float64{0, genEpiSixth, genEpiAlpha, 1} {
		h := tensorio.BF16FromFloat32(float32(v))
		src = strings.ReplaceAll(src, "const "+leBytes(v, "f32")+" ", fmt.Sprintf("const 0x%02X%02X ", h&0xFF, h>>8))
	}
	return strings.NewReplacer("xf32>", "xbf16>", "tensor<f32>", "tensor<bf16>").Replace(src)
}

// bf16EpiWant is the result of c on the bf16 inputs (widened to x, ...):
// the convolution accumulated in f32 with its bias and rounded once, then
// each op of the body computed in f32 and rounded once, as a bf16 op is.
func bf16EpiWant(c genEpiCase, x, w, b, p2, p3, r []float32) []float32 {
	out := c.conv.out()
	want := convRef(c.conv, x, w, b)
	ch, sp := int(out[1]), numel(out[2:])
	rb := bf16Round
	for i, y := range want {
		m := i / sp % ch
		y = rb(y)
		switch c.body {
		case "bn":
			v := rb(y - p2[m])
			v = rb(v * p3[m])
			v = rb(v / p3[m])
			v = rb(v + p2[m])
			y = max(v, 0)
		case "hardswish":
			v := rb(y * rb(genEpiSixth))
			v = rb(v + genEpiAlpha)
			v = min(max(v, 0), 1)
			y = rb(y * v)
		case "residual":
			y = max(rb(y+r[i]), 0)
		}
		want[i] = y
	}
	return want
}

// TestConvBF16EpilogueFused checks bf16 convolutions of every scheduled
// form with an epilogue (bias alone, BatchNormalization's arithmetic and
// Relu, HardSwish, a residual Add and Relu): the emitted root carries the
// form's tag; on the IR after linalg-fuse-elementwise-ops, the epilogue's
// arithmetic is computed inside a tile loop on vectors after the block's
// products, and in no generic outside a loop (checkEpiFused); the results
// have the bits of the f32 computation rounded once per op, and of
// host-O0 for the first case of each form (epiPipes).
func TestConvBF16EpilogueFused(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	for _, c := range bf16EpiCases {
		t.Run(c.name, func(t *testing.T) {
			src := bf16Program(c)
			// (The result is rounded to bf16 in the tile loop too.)
			if checkEpiFused(t, c.name, src, []string{c.form}, append(genEpiOps[c.body], "arith.truncf")); t.Failed() {
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
			half := func(dims []int64, v []float32) tensorio.Tensor {
				data := make([]byte, 2*len(v))
				for i, f := range v {
					h := tensorio.BF16FromFloat32(f)
					binary.LittleEndian.PutUint16(data[2*i:], h)
					v[i] = math.Float32frombits(uint32(h) << 16)
				}
				return tensorio.Tensor{Elem: niro.BF16, Dims: dims, Data: data}
			}
			got := runNiroOn(t, 0, epiPipes(o0, c.form), src, half(c.conv.x, x), half(c.conv.w, w), half(out[1:2], b), half(pd, p2), half(pd, p3), half(out, r))[0].Data
			want := bf16EpiWant(c, x, w, b, p2, p3, r)
			if len(got) != 2*len(want) {
				t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
			}
			for i, v := range want {
				if g, h := binary.LittleEndian.Uint16(got[2*i:]), tensorio.BF16FromFloat32(v); g != h {
					t.Fatalf("element %d: got %#x, want %#x (%v)", i, g, h, v)
				}
			}
		})
	}
}
