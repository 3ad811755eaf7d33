package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// convConstProgram returns a Niro function computing c on element type e
// (f32 or f64) with the filter w a constant: a global read by get_global
// (kind "global") or a const op (kind "const"). With extra, the filter is
// also returned as a second result, so it is read by more than the
// convolution.
func convConstProgram(c convCase, e, kind string, w []byte, extra bool) string {
	xt, wt, bt, ot := dimsText(c.x, e), dimsText(c.w, e), dimsText(c.w[:1], e), dimsText(c.out(), e)
	attrs := fmt.Sprintf("{dilations = %s, group = %d, pads = %s, strides = %s}", intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides))
	var sb strings.Builder
	lit := "0x" + strings.ToUpper(hex.EncodeToString(w))
	if kind == "global" {
		fmt.Fprintf(&sb, "global @w : %s = %s\n", wt, lit)
	}
	outs, rets := ot, "%3 : "+ot
	if extra {
		outs, rets = ot+", "+wt, "%3, %2 : "+ot+", "+wt
	}
	args, params := xt, "%0: "+xt
	if c.bias {
		args, params = xt+", "+bt, "%0: "+xt+", %1: "+bt
	}
	fmt.Fprintf(&sb, "func @conv(%s) -> (%s) {\n^bb0(%s):\n", args, outs, params)
	if kind == "global" {
		fmt.Fprintf(&sb, "  %%2 = get_global @w : %s\n", wt)
	} else {
		fmt.Fprintf(&sb, "  %%2 = const %s : %s\n", lit, wt)
	}
	if c.bias {
		fmt.Fprintf(&sb, "  %%3 = conv %%0, %%2, %%1 %s : (%s, %s, %s) -> %s\n", attrs, xt, wt, bt, ot)
	} else {
		fmt.Fprintf(&sb, "  %%3 = conv %%0, %%2 %s : (%s, %s) -> %s\n", attrs, xt, wt, ot)
	}
	fmt.Fprintf(&sb, "  return %s\n}\n", rets)
	return sb.String()
}

// TestE2EConvConstFilter checks the convolutions whose filter is a
// constant, laid out at compile time in the register block's order
// (emit/conv_filter.go): one-group 2-D, 1×1 and depthwise, filters small
// enough for the text and large enough for the weights blob, read by
// get_global and by const, and a filter that is also a result. Host and
// host-O0 agree bit for bit (runNiro) and with the Go loop in the order of
// docs/ops.md.
func TestE2EConvConstFilter(t *testing.T) {
	cases := []convCase{
		{x: []int64{1, 5, 9, 7}, w: []int64{7, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
		{x: []int64{1, 16, 6, 40}, w: []int64{40, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{1, 3, 11, 23}, w: []int64{19, 3, 3, 2}, strides: []int64{2, 3}, dilations: []int64{2, 1}, pads: []int64{0, 1, 2, 3}, groups: 1, bias: true},
		{x: []int64{1, 7, 10, 10}, w: []int64{33, 7, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		{x: []int64{2, 40, 5, 5}, w: []int64{48, 40, 1, 1}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 0, 0, 1}, groups: 1},
		{x: []int64{1, 37, 9, 11}, w: []int64{37, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 37, bias: true},
		{x: []int64{1, 144, 6, 6}, w: []int64{144, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 144},
		// Grouped, not folded: still the generic lowering.
		{x: []int64{2, 6, 13, 11}, w: []int64{4, 3, 3, 4}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 0, 2, 3}, groups: 2, bias: true},
		// 16k + 1 output channels: conv_nhwc.go's block (no padding
		// channel), its filter laid out; one: conv_general.go's block with
		// a padding channel, which reads the filter as it is (no laid-out
		// copy; the constant is emitted; at OW = 9, a width the row form
		// does not take).
		{x: []int64{1, 6, 7, 10}, w: []int64{17, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		{x: []int64{1, 8, 9, 9}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		// One output channel in the row form: its laid-out filter.
		{x: []int64{1, 8, 9, 16}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	}
	for i, c := range cases {
		for _, e := range []string{"f32", "f64"} {
			for _, kind := range []string{"global", "const"} {
				extra := i == 1 || i == 5
				t.Run(fmt.Sprintf("%d_%s_%s", i, e, kind), func(t *testing.T) {
					xn, wn, bn := numel(c.x), numel(c.w), int(c.w[0])
					x32, w32, b32 := seq(xn, 1.5), seq(wn, 0.75), seq(bn, 0.5)
					var in []tensorio.Tensor
					var wdata []byte
					var check func(got tensorio.Tensor)
					if e == "f32" {
						wdata = f32s(w32...)
						in = []tensorio.Tensor{tf32(c.x, x32)}
						if c.bias {
							in = append(in, tf32(c.w[:1], b32))
						}
						want := convRef(c, x32, w32, b32)
						check = func(got tensorio.Tensor) { checkF32(t, got, want) }
					} else {
						wide := func(v []float32, k float64) []float64 {
							out := make([]float64, len(v))
							for i, f := range v {
								out[i] = float64(f) * k
							}
							return out
						}
						x64, w64, b64 := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3)
						wdata = tf64(c.w, w64).Data
						in = []tensorio.Tensor{tf64(c.x, x64)}
						if c.bias {
							in = append(in, tf64(c.w[:1], b64))
						}
						want := convRef(c, x64, w64, b64)
						check = func(got tensorio.Tensor) {
							if len(got.Data) != 8*len(want) {
								t.Fatalf("got %d bytes, want %d elements", len(got.Data), len(want))
							}
							for i, v := range want {
								if g := binary.LittleEndian.Uint64(got.Data[8*i:]); g != math.Float64bits(v) {
									t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
								}
							}
						}
					}
					src := convConstProgram(c, e, kind, wdata, extra)
					out := runNiro(t, src, in...)
					check(out[0])
					if extra {
						if string(out[1].Data) != string(wdata) {
							t.Fatalf("the filter returned as a result changed")
						}
					}
				})
			}
		}
	}
}

// TestConvFilterFolded checks what the emitted MLIR holds for constant
// filters: a one-group 3×3 filter in the blob is laid out [C, KH, KW, M]
// and no transpose of it is left, the original bytes are gone from the
// blob when nothing else reads them, and a non-constant filter is still
// transposed in the function.
func TestConvFilterFolded(t *testing.T) {
	c := convCase{x: []int64{1, 16, 6, 40}, w: []int64{40, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1}
	w := seq(numel(c.w), 0.75)
	m, err := niro.Parse("f.niro", []byte(convConstProgram(c, "f32", "global", f32s(w...), false)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Module(m, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Blob == nil || len(out.Blob.Entries) != 1 {
		t.Fatalf("want one blob entry (the laid-out filter), got %+v", out.Blob)
	}
	en := out.Blob.Entries[0]
	if got := en.Type.String(); got != "tensor<16x3x3x40xf32>" {
		t.Fatalf("blob entry type %s, want tensor<16x3x3x40xf32>", got)
	}
	var sb strings.Builder
	if _, err := out.Blob.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	data := []byte(sb.String())[en.Offset:]
	// element [c, kh, kw, m] is W[m, c, kh, kw]
	for _, p := range [][4]int{{0, 0, 0, 0}, {3, 1, 2, 17}, {15, 2, 2, 39}, {7, 0, 1, 5}} {
		ci, kh, kw, mi := p[0], p[1], p[2], p[3]
		got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*(((ci*3+kh)*3+kw)*40+mi):]))
		if want := w[((mi*16+ci)*3+kh)*3+kw]; got != want {
			t.Fatalf("laid-out filter at %v: got %v, want %v", p, got, want)
		}
	}
	if strings.Contains(out.MLIR, "tensor<40x16x3x3xf32>") {
		t.Errorf("the filter in its ONNX layout is still in the MLIR:\n%s", out.MLIR)
	}
	m2, err := niro.Parse("g.niro", []byte(convProgram(c, "f32")))
	if err != nil {
		t.Fatal(err)
	}
	out2, err := emit.Module(m2, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out2.MLIR, "ins(%arg1 : tensor<40x16x3x3xf32>)") && !strings.Contains(out2.MLIR, ": tensor<40x16x3x3xf32>) outs(") {
		t.Errorf("a non-constant filter is not transposed in the function:\n%s", out2.MLIR)
	}
}

// convRowsCases are 2-D one-group convolutions that take the row form
// (emit/conv_rows.go: output width a multiple of 8, at least 16): block
// remainders along the channels (M not a multiple of 16) and along the row
// (8 left of 16), a channel block of 2, column strides (the per-kernel-column copy), dilations,
// asymmetric pads, two images, bias and none.
var convRowsCases = []convCase{
	{x: []int64{1, 3, 5, 56}, w: []int64{19, 3, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{2, 4, 6, 32}, w: []int64{16, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{1, 6, 7, 24}, w: []int64{20, 6, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{1, 5, 4, 18}, w: []int64{7, 5, 2, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 1, 0}, groups: 1},
	{x: []int64{1, 2, 9, 81}, w: []int64{34, 2, 3, 5}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{0, 2, 1, 1}, groups: 1, bias: true},
	{x: []int64{1, 3, 8, 43}, w: []int64{5, 3, 2, 3}, strides: []int64{1, 1}, dilations: []int64{2, 3}, pads: []int64{1, 2, 0, 1}, groups: 1},
}

// TestE2EConvRowsExact checks the row form bit for bit on f32, f64, f16
// and bf16: host against host-O0 (runNiro) and both against the Go loop in
// the summation order of docs/ops.md, with the filter an argument and (f32,
// f64) a constant laid out at compile time.
func TestE2EConvRowsExact(t *testing.T) {
	for i, c := range convRowsCases {
		if o := c.out(); !emit.UsesConvRows(o[3], c.w[0], c.w[1], c.w[2], c.w[3]) {
			t.Fatalf("case %d: output width %d does not take the row form", i, o[3])
		}
		for _, e := range []string{"f32", "f64", "f16", "bf16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				xn, wn, bn := numel(c.x), numel(c.w), int(c.w[0])
				x32, w32, b32 := seq(xn, 1.5), seq(wn, 0.75), seq(bn, 0.5)
				if e == "f16" || e == "bf16" {
					checkHalfConv(t, c, e, convProgram(c, e), x32, w32, b32)
					return
				}
				if e == "f32" {
					in := []tensorio.Tensor{tf32(c.x, x32), tf32(c.w, w32)}
					if c.bias {
						in = append(in, tf32(c.w[:1], b32))
					}
					want := convRef(c, x32, w32, b32)
					checkF32(t, runNiro(t, convProgram(c, e), in...)[0], want)
					in = append(in[:1], in[2:]...)
					checkF32(t, runNiro(t, convConstProgram(c, e, "global", f32s(w32...), false), in...)[0], want)
					return
				}
				wide := func(v []float32, k float64) []float64 {
					out := make([]float64, len(v))
					for i, f := range v {
						out[i] = float64(f) * k
					}
					return out
				}
				x64, w64, b64 := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3)
				in := []tensorio.Tensor{tf64(c.x, x64), tf64(c.w, w64)}
				if c.bias {
					in = append(in, tf64(c.w[:1], b64))
				}
				want := convRef(c, x64, w64, b64)
				check := func(got tensorio.Tensor) {
					t.Helper()
					if len(got.Data) != 8*len(want) {
						t.Fatalf("got %d bytes, want %d elements", len(got.Data), len(want))
					}
					for i, v := range want {
						if g := binary.LittleEndian.Uint64(got.Data[8*i:]); g != math.Float64bits(v) {
							t.Fatalf("element %d: got %v, want %v", i, math.Float64frombits(g), v)
						}
					}
				}
				check(runNiro(t, convProgram(c, e), in...)[0])
				wdata := in[1].Data
				in = append(in[:1], in[2:]...)
				check(runNiro(t, convConstProgram(c, e, "const", wdata, false), in...)[0])
			})
		}
	}
}

// TestConvRowsScheduled checks that the convolution schedule takes the row
// form's generics (f32 and f64): none is left, the blocks multiply and add
// as separate vector operations along the output row, and nothing fuses
// them.
func TestConvRowsScheduled(t *testing.T) {
	requireTools(t)
	for i, c := range convRowsCases {
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				ir := fusedIRThrough(t, path, "conv")
				if strings.Contains(ir, "niro.conv2d_rows") || strings.Contains(ir, "niro.rows_step") {
					t.Errorf("a row-form generic is left after the schedule:\n%s", ir)
				}
				if !regexp.MustCompile(`arith\.mulf .* : vector<[0-9]+x[0-9]+x`+e+`>`).MatchString(ir) ||
					!regexp.MustCompile(`arith\.addf .* : vector<[0-9]+x[0-9]+x`+e+`>`).MatchString(ir) {
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
