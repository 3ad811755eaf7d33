package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// genEpiCase is a convolution of emit/conv_general.go (1-D, 3-D, grouped
// 2-D) followed by element-wise ops that the convolution schedule fuses
// into the convolution's tile loop (generalEpilogueForm).
type genEpiCase struct {
	name string
	conv convCase
	elem string // f32 or f64
	// body: "bias" (the read-back alone), "bn" (BatchNormalization's
	// arithmetic and Relu), "hardswish" or "residual" (an Add, then Relu).
	body string
	// form is the root's tag, niro.epi_<form>.
	form string
}

var genEpiCases = []genEpiCase{
	// 1-D: OW = 37 (a column remainder of 5), M = 19 (a channel remainder
	// of 3); a stride and dilation; two images; grouped per channel.
	{name: "c1d_bn_relu", conv: convCase{x: []int64{1, 5, 37}, w: []int64{19, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c1d16"},
	{name: "c1d_hardswish_strided", conv: convCase{x: []int64{2, 6, 29}, w: []int64{40, 6, 4}, strides: []int64{2}, dilations: []int64{2}, pads: []int64{2, 3}, groups: 1, bias: true}, elem: "f32", body: "hardswish", form: "c1d32"},
	{name: "c1d_residual", conv: convCase{x: []int64{2, 8, 17}, w: []int64{12, 2, 5}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{2, 2}, groups: 4, bias: true}, elem: "f32", body: "residual", form: "c1d32"},
	{name: "c1d_bias_f64", conv: convCase{x: []int64{1, 5, 21}, w: []int64{18, 5, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{1, 1}, groups: 1, bias: true}, elem: "f64", body: "bias", form: "c1d16"},
	{name: "c1d_bn_relu_f64", conv: convCase{x: []int64{2, 4, 19}, w: []int64{24, 4, 3}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{0, 2}, groups: 1, bias: true}, elem: "f64", body: "bn", form: "c1d16"},
	// 1-D depthwise (QuartzNet-style; the depthwise block, niro.dwconv2d_e)
	// and with a channel multiplier of 2.
	{name: "c1d_depthwise_bn_relu", conv: convCase{x: []int64{1, 24, 30}, w: []int64{24, 1, 5}, strides: []int64{1}, dilations: []int64{1}, pads: []int64{2, 2}, groups: 24, bias: true}, elem: "f32", body: "bn", form: "c1d32"},
	{name: "c1d_dwmult_hardswish_f64", conv: convCase{x: []int64{2, 10, 13}, w: []int64{20, 1, 3}, strides: []int64{1}, dilations: []int64{2}, pads: []int64{2, 2}, groups: 10, bias: true}, elem: "f64", body: "hardswish", form: "c1d16"},
	// Grouped 2-D, gathered per output channel (M/G < 8): ResNeXt's 32
	// groups of 2 (OW = 10: a column remainder of 2), 3 groups of 6 with a
	// stride, 20 groups in f64.
	{name: "g2d_bn_relu", conv: convCase{x: []int64{1, 64, 9, 10}, w: []int64{64, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 32, bias: true}, elem: "f32", body: "bn", form: "nchw32"},
	{name: "g2d_hardswish_strided", conv: convCase{x: []int64{1, 12, 11, 13}, w: []int64{18, 4, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, elem: "f32", body: "hardswish", form: "nchw32"},
	{name: "g2d_residual_f64", conv: convCase{x: []int64{2, 40, 7, 9}, w: []int64{40, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 20, bias: true}, elem: "f64", body: "residual", form: "nchw16"},
	// 3-D: M = 20 (a channel remainder of 4 after 16), OW = 19 and 5.
	{name: "c3d_bn_relu", conv: convCase{x: []int64{1, 4, 5, 7, 19}, w: []int64{20, 4, 3, 3, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 1, 1, 1, 1, 1}, groups: 1, bias: true}, elem: "f32", body: "bn", form: "c3d16"},
	{name: "c3d_residual_f64", conv: convCase{x: []int64{2, 3, 6, 9, 11}, w: []int64{10, 3, 2, 3, 3}, strides: []int64{2, 1, 2}, dilations: []int64{1, 2, 1}, pads: []int64{1, 0, 1, 0, 2, 1}, groups: 1, bias: true}, elem: "f64", body: "residual", form: "c3d8"}, // 10 = 8 + 2: chanBlock8
	{name: "c3d_grouped_hardswish", conv: convCase{x: []int64{1, 6, 4, 5, 6}, w: []int64{9, 2, 3, 1, 3}, strides: []int64{1, 1, 1}, dilations: []int64{1, 1, 1}, pads: []int64{1, 0, 1, 1, 0, 1}, groups: 3, bias: true}, elem: "f32", body: "hardswish", form: "c3d32"},
}

// genEpiOps are the arithmetic ops of each body, which must all sit in
// the tile loop on vectors and in no generic outside a loop.
var genEpiOps = map[string][]string{
	"bias":      {"arith.addf"},
	"bn":        {"arith.subf", "arith.divf", "arith.maximumf"},
	"hardswish": {"arith.minimumf", "arith.maximumf"},
	"residual":  {"arith.maximumf"},
}

// leBytes is the constant text of v in elem (little-endian bytes).
func leBytes(v float64, elem string) string {
	if elem == "f64" {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		return fmt.Sprintf("0x%X", b[:])
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(v)))
	return fmt.Sprintf("0x%X", b[:])
}

// The constants of the bodies, as the element type rounds them.
const genEpiSixth, genEpiAlpha = 1.0 / 6.0, 0.5

func (c genEpiCase) program() string {
	e := c.elem
	out := c.conv.out()
	res := dimsText(out, e)
	pd := append([]int64{out[1]}, make1s(len(out)-2)...)
	pt := dimsText(pd, e)
	sc := "tensor<" + e + ">"
	xt, wt, bt := dimsText(c.conv.x, e), dimsText(c.conv.w, e), dimsText(out[1:2], e)
	var body string
	switch c.body {
	case "bias":
	case "bn":
		body = fmt.Sprintf(`  %%6 = sub %%5, %%2 : (RES, P) -> RES
  %%7 = mul %%6, %%3 : (RES, P) -> RES
  %%10 = div %%7, %%3 : (RES, P) -> RES
  %%11 = add %%10, %%2 : (RES, P) -> RES
  %%8 = const %s : S
  %%9 = max %%11, %%8 : (RES, S) -> RES
`, leBytes(0, e))
	case "hardswish":
		body = fmt.Sprintf(`  %%6 = const %s : S
  %%7 = mul %%5, %%6 : (RES, S) -> RES
  %%8 = const %s : S
  %%10 = add %%7, %%8 : (RES, S) -> RES
  %%11 = const %s : S
  %%12 = max %%10, %%11 : (RES, S) -> RES
  %%13 = const %s : S
  %%14 = min %%12, %%13 : (RES, S) -> RES
  %%9 = mul %%5, %%14 : (RES, RES) -> RES
`, leBytes(genEpiSixth, e), leBytes(genEpiAlpha, e), leBytes(0, e), leBytes(1, e))
	case "residual":
		body = fmt.Sprintf(`  %%6 = add %%5, %%4 : (RES, RES) -> RES
  %%8 = const %s : S
  %%9 = max %%6, %%8 : (RES, S) -> RES
`, leBytes(0, e))
	}
	ret := "%9"
	if body == "" {
		ret = "%5"
	}
	body = strings.NewReplacer("RES", res, "P", pt, "S", sc).Replace(body)
	return fmt.Sprintf(`func @epi(%s, %s, %s, %s, %s, %s) -> (%s) {
^bb0(%%0: %s, %%1: %s, %%15: %s, %%2: %s, %%3: %s, %%4: %s):
  %%5 = conv %%0, %%1, %%15 {dilations = %s, group = %d, pads = %s, strides = %s} : (%s, %s, %s) -> %s
%s  return %s : %s
}`, xt, wt, bt, pt, pt, res, res,
		xt, wt, bt, pt, pt, res,
		intsText(c.conv.dilations), c.conv.groups, intsText(c.conv.pads), intsText(c.conv.strides), xt, wt, bt, res,
		body, ret, res)
}

func make1s(n int) []int64 {
	r := make([]int64, n)
	for i := range r {
		r[i] = 1
	}
	return r
}

// genEpiRef applies c's body to y, the convolution's result (bias
// included), in T: p2, p3 the parameters of the element's channel, r the
// residual element; every operation rounded to T.
func genEpiRef[T float32 | float64](body string, y, p2, p3, r T) T {
	switch body {
	case "bn":
		v := T(y - p2)
		v = T(v * p3)
		v = T(v / p3)
		v = T(v + p2)
		return max(v, 0)
	case "hardswish":
		v := T(y * T(genEpiSixth))
		v = T(v + T(genEpiAlpha))
		v = min(max(v, 0), 1)
		return T(y * v)
	case "residual":
		return max(T(y+r), 0)
	}
	return y
}

func genEpiWant[T float32 | float64](c genEpiCase, x, w, b, p2, p3, r []T) []T {
	out := c.conv.out()
	want := convRef(c.conv, x, w, b)
	ch, sp := int(out[1]), numel(out[2:])
	for i := range want {
		m := i / sp % ch
		want[i] = genEpiRef(c.body, want[i], p2[m], p3[m], r[i])
	}
	return want
}

// TestConvGeneralEpilogueFused checks, for the convolutions of
// conv_general.go whose epilogue is fused (1-D, 3-D, grouped 2-D), that
// the emitted root carries the form's tag; on the IR after
// linalg-fuse-elementwise-ops, that the epilogue's arithmetic is computed
// inside the convolution's tile loop on vectors, after the block's sum,
// and in no generic outside a loop (checkEpiFused); and that the results
// have the bits of a Go loop in the documented order, and of host-O0 for
// the first case of each form (epiPipes).
func TestConvGeneralEpilogueFused(t *testing.T) {
	requireTools(t)
	o0 := map[string]bool{}
	for _, c := range genEpiCases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
				return
			}
			pipes := epiPipes(o0, c.form)
			out := c.conv.out()
			ch := int(out[1])
			pd := append([]int64{out[1]}, make1s(len(out)-2)...)
			x, w, b := seq(numel(c.conv.x), 1.5), seq(numel(c.conv.w), 0.75), seq(ch, 0.5)
			p2, p3, r := seq(ch, 0.6), seq(ch, 1.25), seq(numel(out), 0.9)
			for i := range p3 {
				p3[i] += 2 // away from 0 for the division
			}
			if c.elem == "f32" {
				got := runNiroOn(t, 0, pipes, src, tf32(c.conv.x, x), tf32(c.conv.w, w), tf32(out[1:2], b), tf32(pd, p2), tf32(pd, p3), tf32(out, r))
				checkF32(t, got[0], genEpiWant(c, x, w, b, p2, p3, r))
				return
			}
			x64, w64, b64 := widen(x, 1.1), widen(w, 0.9), widen(b, 1.3)
			p264, p364, r64 := widen(p2, 1.1), widen(p3, 1.1), widen(r, 0.7)
			got := runNiroOn(t, 0, pipes, src, tf64(c.conv.x, x64), tf64(c.conv.w, w64), tf64(out[1:2], b64), tf64(pd, p264), tf64(pd, p364), tf64(out, r64))[0].Data
			checkF64(t, got, genEpiWant(c, x64, w64, b64, p264, p364, r64))
		})
	}
}

// TestConvGeneralEpilogueFusedChannels checks grouped 2-D convolutions of
// conv_general.go (per output channel) whose epilogue is fused with a
// channels-last value between them: a grouped convolution with its bias
// and Relu kept channels-last (root niro.epi_nhwc32), read by a second
// grouped convolution that writes the NCHW result (its read-back the
// root, niro.epi_nchw32). OW = 10 leaves a column remainder of 2.
func TestConvGeneralEpilogueFusedChannels(t *testing.T) {
	requireTools(t)
	c1 := convCase{x: []int64{1, 32, 7, 10}, w: []int64{64, 2, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 16, bias: true}
	c2 := convCase{x: []int64{1, 64, 7, 10}, w: []int64{48, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 16, bias: true}
	xt, w1t, w2t := dimsText(c1.x, "f32"), dimsText(c1.w, "f32"), dimsText(c2.w, "f32")
	mid, res := dimsText(c1.out(), "f32"), dimsText(c2.out(), "f32")
	src := fmt.Sprintf(`func @g(%[1]s, %[2]s, tensor<64xf32>, %[3]s, tensor<48xf32>) -> (%[5]s) {
^bb0(%%0: %[1]s, %%1: %[2]s, %%2: tensor<64xf32>, %%3: %[3]s, %%4: tensor<48xf32>):
  %%5 = conv %%0, %%1, %%2 {dilations = [1, 1], group = 16, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[1]s, %[2]s, tensor<64xf32>) -> %[4]s
  %%6 = const 0x00000000 : tensor<f32>
  %%7 = max %%5, %%6 : (%[4]s, tensor<f32>) -> %[4]s
  %%8 = conv %%7, %%3, %%4 {dilations = [1, 1], group = 16, pads = [1, 1, 1, 1], strides = [1, 1]} : (%[4]s, %[3]s, tensor<48xf32>) -> %[5]s
  return %%8 : %[5]s
}`, xt, w1t, w2t, mid, res)
	// (The second convolution's epilogue is its bias alone.)
	if _, loops := checkEpiFused(t, "g", src, []string{"nhwc32", "nchw32"}, []string{"arith.maximumf"}, []string{"arith.addf"}); loops < 2 {
		t.Errorf("%d tile loops with a fused epilogue, want 2 or more", loops)
	}
	if t.Failed() {
		return
	}
	x, w1, b1 := seq(numel(c1.x), 1.5), seq(numel(c1.w), 0.75), seq(64, 0.5)
	w2, b2 := seq(numel(c2.w), 0.6), seq(48, 0.25)
	y := convRef(c1, x, w1, b1)
	for i := range y {
		y[i] = max(y[i], 0)
	}
	want := convRef(c2, y, w2, b2)
	got := runNiro(t, src, tf32(c1.x, x), tf32(c1.w, w1), tf32([]int64{64}, b1), tf32(c2.w, w2), tf32([]int64{48}, b2))
	checkF32(t, got[0], want)
}

// TestConvGeneralEpilogueUnfused checks the schedule's fallback for the
// general forms: with the root's tag removed from the emitted text (as if
// the fusion had not taken it), the tagged 1-D, 3-D and grouped blocks
// are blocked and vectorized like untagged ones (@conv_epi_unfused), not
// left a loop nest or vectorized whole.
func TestConvGeneralEpilogueUnfused(t *testing.T) {
	requireTools(t)
	for _, c := range genEpiCases {
		if c.name != "c1d_bn_relu" && c.name != "c3d_bn_relu" && c.name != "g2d_bn_relu" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mlir := emitEpi(t, c.name, c.program(), c.form)
			src := strings.ReplaceAll(mlir, "niro.epi_"+c.form, "niro.not_a_root")
			if src == mlir {
				t.Fatalf("no epilogue root in\n%s", mlir)
			}
			ir := lowerThroughConv(t, src)
			if strings.Contains(ir, "niro.conv2d_e") {
				t.Errorf("a niro.conv2d_e generic is left after the schedule:\n%s", ir)
			}
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

// checkGenEpiBits runs src, c's program (f32, f64 or bf16; host and
// host-O0, under a deadline so that a schedule that does not terminate
// fails), and compares its result with the Go loop in the documented
// order (genEpiWant, bf16EpiWant); without a bias the loop adds none.
func checkGenEpiBits(t *testing.T, c genEpiCase, src string) {
	t.Helper()
	out := c.conv.out()
	ch := int(out[1])
	pd := append([]int64{out[1]}, make1s(len(out)-2)...)
	x, w, b := seq(numel(c.conv.x), 1.5), seq(numel(c.conv.w), 0.75), seq(ch, 0.5)
	if !c.conv.bias {
		b = make([]float32, ch)
	}
	p2, p3, r := seq(ch, 0.6), seq(ch, 1.25), seq(numel(out), 0.9)
	for i := range p3 {
		p3[i] += 2 // away from 0 for the division
	}
	const limit = 4 * time.Minute
	switch c.elem {
	case "f32":
		got := runNiroWithin(t, limit, src, tf32(c.conv.x, x), tf32(c.conv.w, w), tf32(out[1:2], b), tf32(pd, p2), tf32(pd, p3), tf32(out, r))
		checkF32(t, got[0], genEpiWant(c, x, w, b, p2, p3, r))
	case "f64":
		wide := func(v []float32, k float64) []float64 {
			o := make([]float64, len(v))
			for i, f := range v {
				o[i] = float64(f) * k // inexact in f32
			}
			return o
		}
		x64, w64, b64 := wide(x, 1.1), wide(w, 0.9), wide(b, 1.3)
		p264, p364, r64 := wide(p2, 1.1), wide(p3, 1.1), wide(r, 0.7)
		got := runNiroWithin(t, limit, src, tf64(c.conv.x, x64), tf64(c.conv.w, w64), tf64(out[1:2], b64), tf64(pd, p264), tf64(pd, p364), tf64(out, r64))[0].Data
		want := genEpiWant(c, x64, w64, b64, p264, p364, r64)
		if len(got) != 8*len(want) {
			t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
		}
		for i, v := range want {
			if g := binary.LittleEndian.Uint64(got[8*i:]); g != math.Float64bits(v) {
				t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
			}
		}
	case "bf16":
		half := func(dims []int64, v []float32) tensorio.Tensor {
			data := make([]byte, 2*len(v))
			for i, f := range v {
				h := tensorio.BF16FromFloat32(f)
				binary.LittleEndian.PutUint16(data[2*i:], h)
				v[i] = math.Float32frombits(uint32(h) << 16)
			}
			return tensorio.Tensor{Elem: niro.BF16, Dims: dims, Data: data}
		}
		got := runNiroWithin(t, limit, src, half(c.conv.x, x), half(c.conv.w, w), half(out[1:2], b), half(pd, p2), half(pd, p3), half(out, r))[0].Data
		want := bf16EpiWant(c, x, w, b, p2, p3, r)
		if len(got) != 2*len(want) {
			t.Fatalf("got %d bytes, want %d elements", len(got), len(want))
		}
		for i, v := range want {
			if g, h := binary.LittleEndian.Uint16(got[2*i:]), tensorio.BF16FromFloat32(v); g != h {
				t.Fatalf("element %d: got %#x, want %#x (%v)", i, g, h, v)
			}
		}
	}
}

// checkGenEpiCases runs each of cases as a subtest: its root's tag and
// the fused IR (checkEpiFused with the body's ops), then, if those hold,
// its bits against host-O0 and the Go loop nest (checkGenEpiBits).
func checkGenEpiCases(t *testing.T, cases []genEpiCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.program()
			if checkEpiFused(t, c.name, src, []string{c.form}, genEpiOps[c.body]); t.Failed() {
				return
			}
			checkGenEpiBits(t, c, src)
		})
	}
}
