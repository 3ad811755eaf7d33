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
	"time"

	"github.com/niro-dev/niro/emit"
)

// dwMiscEpiCase is an epiCase with the schedule's root tag it must emit
// (a regular expression over the emitted MLIR) and the convolution
// generic's fused tag.
type dwMiscEpiCase struct {
	epiCase
	root, convTag string
}

// dwMiscEpiCases are the depthwise-multiplier and one-input-channel forms
// whose epilogue is fused into the depthwise row form (conv_dwmult.go,
// forms dwrows and dwrowsh): a single input channel (groups 1, C = 1,
// M = k channels, X read without its channel axis), odd output widths,
// strides, dilations, two images, a 1×1 kernel.
var dwMiscEpiCases = []dwMiscEpiCase{
	// One input channel, 16 channels: OW = 28 (the half-width block, a
	// remainder of 12 columns).
	{epiCase: epiCase{name: "c1_m16_bn_relu", conv: convCase{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}},
		root: `niro\.epi_dwrowsh?32`, convTag: "niro.dwconv2d_e"},
	// 17 channels (no block remainder: one channel per tile), OW = 13,
	// stride 2, dilation 2, uneven pads.
	{epiCase: epiCase{name: "c1_m17_strided_relu6", conv: convCase{x: []int64{1, 1, 15, 27}, w: []int64{17, 1, 3, 3}, strides: []int64{2, 2}, dilations: []int64{2, 2}, pads: []int64{2, 1, 1, 0}, groups: 1, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}},
		root: `niro\.epi_dwrowsh?32`, convTag: "niro.dwconv2d_e"},
	// Two images, a 5×5 kernel, OW = 35, a residual Add.
	{epiCase: epiCase{name: "c1_m8_batch2_residual", conv: convCase{x: []int64{2, 1, 7, 35}, w: []int64{8, 1, 5, 5}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{2, 2, 2, 2}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}},
		root: `niro\.epi_dwrowsh?32`, convTag: "niro.dwconv2d_e"},
	// X read in place (no padding), HardSwish.
	{epiCase: epiCase{name: "c1_m4_nopad_hardswish", conv: convCase{x: []int64{1, 1, 10, 42}, w: []int64{4, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}},
		root: `niro\.epi_dwrowsh?32`, convTag: "niro.dwconv2d_e"},
	// A multiplier k = 3 with OW = 19 (an odd width).
	{epiCase: epiCase{name: "dwmult3_odd_bn_relu", conv: convCase{x: []int64{1, 3, 8, 19}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}},
		root: `niro\.epi_dwrowsh?32`, convTag: "niro.dwconv2d_e"},
	// One output channel in the row form (conv_rows.go) at widths that
	// are no multiple of 8: OW = 28 (a remainder of 12 columns), 14 (one
	// block narrower than 16), 3, stride 2 (OW = 10), dilation 2 with
	// uneven pads (OW = 19), two images (OW = 22), a residual Add.
	{epiCase: epiCase{name: "rows_m1_w28_bn_relu", conv: convCase{x: []int64{1, 8, 6, 28}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_w14_hardswish", conv: convCase{x: []int64{1, 16, 5, 14}, w: []int64{1, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiHardSwish, ref: epiHardSwishRef, ops: []string{"arith.minimumf", "arith.maximumf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_w3_bias", conv: convCase{x: []int64{1, 4, 4, 5}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		ref: epiBiasRef, ops: []string{"arith.addf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_strided_relu6", conv: convCase{x: []int64{1, 6, 11, 20}, w: []int64{1, 6, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_dilated_leakyrelu", conv: convCase{x: []int64{1, 3, 9, 21}, w: []int64{1, 3, 3, 2}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 1, 0, 0}, groups: 1, bias: true},
		body: epiLeakyRelu, ref: epiLeakyReluRef, ops: []string{"arith.cmpf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
	{epiCase: epiCase{name: "rows_m1_batch2_residual", conv: convCase{x: []int64{2, 5, 4, 22}, w: []int64{1, 5, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiResidual, ref: epiResidualRef, ops: []string{"arith.maximumf"}, rows: true},
		root: `niro\.epi_rows32`, convTag: "niro.conv2d_rows_e"},
}

// writeCase writes src to a temporary .niro file and returns its path.
func writeNiroFile(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".niro")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkEpiInTileLoop checks, on the IR of path after
// linalg-fuse-elementwise-ops, that each of ops is computed on vectors in
// the convolution's tile loop (an scf.for holding the block's vector
// multiply), after the block's sum, and in no generic outside a loop.
func checkEpiInTileLoop(t *testing.T, path string, ops []string) {
	t.Helper()
	ir := irThrough(t, 3*time.Minute, path, "linalg-fuse-elementwise-ops")
	stmts := funcStatements(ir)
	if len(stmts) == 0 {
		t.Fatalf("no function body in\n%s", ir)
	}
	loops := 0
	for _, s := range stmts {
		head := strings.TrimSpace(s)
		if strings.Contains(head, "= linalg.generic") {
			for _, op := range ops {
				if strings.Contains(s, op) {
					t.Errorf("a generic outside the tile loop computes %s:\n%s", op, s)
				}
			}
		}
		if !strings.Contains(head, "scf.for") || !strings.Contains(s, "arith.mulf") || !strings.Contains(s, "vector<") {
			continue
		}
		loops++
		for _, op := range ops {
			if !strings.Contains(s, op) || !strings.Contains(s[strings.Index(s, op):], "vector<") {
				t.Errorf("the tile loop does not compute %s on vectors:\n%s", op, s)
			}
		}
		if e := strings.Index(s, ops[len(ops)-1]); e < strings.Index(s, "arith.mulf") {
			t.Errorf("the epilogue does not follow the block's sum in the tile loop:\n%s", s)
		}
	}
	if loops == 0 {
		t.Fatalf("no convolution tile loop in\n%s", ir)
	}
	if t.Failed() {
		t.Logf("IR:\n%s", ir)
	}
}

// checkRootTag checks that mlir tags the epilogue's root with root and
// the convolution's generic with convTag.
func checkRootTag(t *testing.T, mlir, root, convTag string) {
	t.Helper()
	if !regexp.MustCompile(root).MatchString(mlir) {
		t.Errorf("no root tag %s in\n%s", root, mlir)
	}
	if !strings.Contains(mlir, convTag+"}") {
		t.Errorf("no %s generic in\n%s", convTag, mlir)
	}
}

// TestConvDWMiscEpilogueFused checks the cases of dwMiscEpiCases (f32):
// the root tag, the epilogue's ops on vectors in the convolution's tile
// loop and in no generic outside it, and the bits of host-O0 and of a Go
// loop in the documented order.
func TestConvDWMiscEpilogueFused(t *testing.T) {
	requireTools(t)
	for _, c := range dwMiscEpiCases {
		t.Run(c.name, func(t *testing.T) {
			out := c.conv.out()
			if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); got != c.rows {
				t.Fatalf("row form %v, want %v", got, c.rows)
			}
			checkRootTag(t, emitCase(t, c.epiCase), c.root, c.convTag)
			checkEpiInTileLoop(t, writeNiroFile(t, c.name, c.program()), c.ops)
			if t.Failed() {
				return
			}
			checkEpiBits(t, c.epiCase)
		})
	}
}

// dwMiscF64Cases are f64 cases of the same forms (the 64-bit blocks:
// 8 × 16 and 8 × 8 depthwise rows, 16 × 8 rows): one input channel, a
// multiplier of 3, one output channel at widths of no multiple of 8
// (OW = 12: a remainder of 4 columns; 6; 13 at stride 2).
var dwMiscF64Cases = []struct {
	c          convCase
	root, conv string
}{
	{convCase{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, `niro\.epi_dwrowsh?16`, "niro.dwconv2d_e"},
	{convCase{x: []int64{2, 1, 8, 21}, w: []int64{5, 1, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 2, 0, 2}, groups: 1, bias: true}, `niro\.epi_dwrowsh?16`, "niro.dwconv2d_e"},
	{convCase{x: []int64{1, 3, 8, 19}, w: []int64{9, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 3, bias: true}, `niro\.epi_dwrowsh?16`, "niro.dwconv2d_e"},
	{convCase{x: []int64{1, 8, 6, 12}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, `niro\.epi_rows16`, "niro.conv2d_rows_e"},
	{convCase{x: []int64{2, 4, 5, 6}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, `niro\.epi_rows16`, "niro.conv2d_rows_e"},
	{convCase{x: []int64{1, 5, 9, 26}, w: []int64{1, 5, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true}, `niro\.epi_rows16`, "niro.conv2d_rows_e"},
}

// TestConvDWMiscEpilogueF64 checks dwMiscF64Cases with their bias and
// Relu6: the 64-bit root tag, Relu6 on vectors in the tile loop and in no
// generic outside it, and the bits of host-O0 and of the Go loop.
func TestConvDWMiscEpilogueF64(t *testing.T) {
	requireTools(t)
	for _, k := range dwMiscF64Cases {
		c, o := k.c, k.c.out()
		t.Run(fmt.Sprint(c.x, c.w, o), func(t *testing.T) {
			res := dimsText(o, "f64")
			xt, wt := dimsText(c.x, "f64"), dimsText(c.w, "f64")
			src := fmt.Sprintf(`func @epi(%s, %s, tensor<%dxf64>) -> (%s) {
^bb0(%%0: %s, %%1: %s, %%2: tensor<%dxf64>):
  %%3 = conv %%0, %%1, %%2 {dilations = %s, group = %d, pads = %s, strides = %s} : (%s, %s, tensor<%dxf64>) -> %s
  %%4 = const 0x0000000000000000 : tensor<f64>
  %%5 = max %%3, %%4 : (%s, tensor<f64>) -> %s
  %%6 = const 0x0000000000001840 : tensor<f64>
  %%7 = min %%5, %%6 : (%s, tensor<f64>) -> %s
  return %%7 : %s
}`, xt, wt, o[1], res, xt, wt, o[1],
				intsText(c.dilations), c.groups, intsText(c.pads), intsText(c.strides), xt, wt, o[1], res,
				res, res, res, res, res)
			path := writeNiroFile(t, "epi", src)
			out, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkRootTag(t, out.MLIR, k.root, k.conv)
			checkEpiInTileLoop(t, path, []string{"arith.maximumf", "arith.minimumf"})
			if t.Failed() {
				return
			}
			x32, w32, b32 := seq(numel(c.x), 1.5), seq(numel(c.w), 0.75), seq(int(o[1]), 0.5)
			wide := func(v []float32, k float64) []float64 {
				r := make([]float64, len(v))
				for i, f := range v {
					r[i] = float64(f) * k
				}
				return r
			}
			x, w, b := wide(x32, 1.1), wide(w32, 0.9), wide(b32, 1.3)
			want := convRef(c, x, w, b)
			for i, v := range want {
				want[i] = min(max(v, 0), 6)
			}
			got := runNiroWithin(t, 3*time.Minute, src, tf64(c.x, x), tf64(c.w, w), tf64(o[1:2], b))[0].Data
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

// dwMiscExactCases are the same forms without an epilogue to fuse (no
// bias, or the bias alone): one input channel (NCHW, the depthwise row
// form over the result), one output channel in the row form at odd
// widths, strides and dilations.
var dwMiscExactCases = []convCase{
	{x: []int64{1, 1, 9, 28}, w: []int64{16, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{2, 1, 8, 21}, w: []int64{5, 1, 3, 3}, strides: []int64{2, 1}, dilations: []int64{1, 2}, pads: []int64{1, 2, 0, 2}, groups: 1, bias: true},
	{x: []int64{1, 1, 6, 10}, w: []int64{3, 1, 1, 1}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
	{x: []int64{1, 8, 6, 28}, w: []int64{1, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1},
	{x: []int64{1, 6, 11, 20}, w: []int64{1, 6, 3, 3}, strides: []int64{2, 2}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
	{x: []int64{2, 3, 9, 21}, w: []int64{1, 3, 3, 2}, strides: []int64{1, 1}, dilations: []int64{2, 2}, pads: []int64{2, 1, 0, 0}, groups: 1},
	{x: []int64{1, 4, 4, 5}, w: []int64{1, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
}

// TestE2EConvDWMiscExact checks dwMiscExactCases bit for bit on f32, f64,
// f16 and bf16 (the 16-bit ones accumulated in f32, rounded once): host
// against host-O0 and both against the Go loop nest.
func TestE2EConvDWMiscExact(t *testing.T) {
	requireTools(t)
	for i, c := range dwMiscExactCases {
		for _, e := range []string{"f32", "f64", "f16", "bf16"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				checkConvExact(t, c, e)
			})
		}
	}
}
