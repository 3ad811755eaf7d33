package main

import (
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
