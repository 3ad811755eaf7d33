package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/toolchain"
)

// lowerThroughConv returns the IR of src (MLIR text) after the host
// pipeline's convolution schedule.
func lowerThroughConv(t *testing.T, src string) string {
	t.Helper()
	p, err := lookupPipeline("host")
	if err != nil {
		t.Fatal(err)
	}
	cut := -1
	for i, s := range p.Steps {
		if s.Schedule == "conv" {
			cut = i
		}
	}
	if cut < 0 {
		t.Fatal("the host pipeline has no conv schedule")
	}
	p.Steps = append([]toolchain.Step(nil), p.Steps[:cut+1]...)
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tc.Progress = nil
	ir, err := tc.Lower(context.Background(), src, p)
	if err != nil {
		t.Fatal(err)
	}
	return ir
}

// emitCase writes c's program and returns its emitted MLIR.
func emitCase(t *testing.T, c epiCase) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), c.name+".niro")
	if err := os.WriteFile(path, []byte(c.program()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out.MLIR
}

// checkEpiBits runs c's program (host and host-O0, runNiroWithin, under
// a deadline so that a schedule that does not terminate fails) and compares
// its result with a Go loop in the documented order.
func checkEpiBits(t *testing.T, c epiCase) {
	t.Helper()
	out := c.conv.out()
	ch := int(out[1])
	x, w, b := seq(numel(c.conv.x), 1.5), seq(numel(c.conv.w), 0.75), seq(ch, 0.5)
	p2, p3, r := seq(ch, 0.6), seq(ch, 1.25), seq(numel(out), 0.9)
	for i := range p3 {
		p3[i] += 2 // away from 0 for the division
	}
	want := convRef(c.conv, x, w, b)
	hw := numel(out[2:])
	for i := range want {
		m := i / hw % ch
		want[i] = c.ref(want[i], p2[m], p3[m], r[i])
	}
	pd := []int64{int64(ch), 1, 1}
	got := runNiroWithin(t, 3*time.Minute, c.program(), tf32(c.conv.x, x), tf32(c.conv.w, w), tf32([]int64{int64(ch)}, b),
		tf32(pd, p2), tf32(pd, p3), tf32(out, r))
	checkF32(t, got[0], want)
}

// vectorOps matches a vector-typed arithmetic op of the scheduled IR and
// its result type's dimensions (arith.constant aside: the fill's zero,
// written by a transfer of the block's tile shape).
var vectorOps = regexp.MustCompile(`= (arith\.\w+) [^\n]*: vector<([\dx]+)x(?:f32|f64|i1)>\s*$`)

func vectorOp(l string) []string {
	m := vectorOps.FindStringSubmatch(l)
	if m == nil || m[1] == "arith.constant" {
		return nil
	}
	return m
}

// TestConvEpilogueRowsVectors checks that the row form's fused epilogue
// computes on 2-D vectors (16 × 16 for a whole block, the channel or
// column remainder's otherwise) with no unit dimension inside: every
// vector arithmetic op after the convolution schedule, the epilogue's
// (subf, divf, maximumf, ...) as the block's (mulf, addf), has no
// dimension 1. The bits are checked by TestConvEpilogueFused.
func TestConvEpilogueRowsVectors(t *testing.T) {
	requireTools(t)
	n := 0
	for _, c := range epiCases {
		if !c.rows {
			continue
		}
		n++
		t.Run(c.name, func(t *testing.T) {
			out := c.conv.out()
			if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); !got {
				t.Fatal("not the row form")
			}
			ir := lowerThroughConv(t, emitCase(t, c))
			seen := map[string]bool{}
			for _, l := range strings.Split(ir, "\n") {
				m := vectorOp(l)
				if m == nil {
					continue
				}
				seen[m[1]] = true
				for _, d := range strings.Split(m[2], "x") {
					if d == "1" {
						t.Errorf("%s on vector<%s> (a unit dimension):\n%s", m[1], m[2], strings.TrimSpace(l))
						break
					}
				}
			}
			for _, op := range c.ops {
				if !seen[op] {
					t.Errorf("no %s on vectors after the convolution schedule:\n%s", op, ir)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no row-form case")
	}
}

// TestConvEpilogueRowsOneBlock checks a row-form result of one block
// (1 × 16 × 1 × 16): canonicalization removes its tile loops, so there is
// no loop to mark for the 2-D vectors (@conv_epi_rows_mark_one fails
// silently); the epilogue is still computed on vectors, with the bits of
// host-O0 and of a Go loop.
func TestConvEpilogueRowsOneBlock(t *testing.T) {
	requireTools(t)
	c := epiCase{name: "rows_one_block_bn_relu", conv: convCase{x: []int64{1, 4, 3, 18}, w: []int64{16, 4, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{0, 0, 0, 0}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true}
	out := c.conv.out()
	if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); !got {
		t.Fatal("not the row form")
	}
	ir := lowerThroughConv(t, emitCase(t, c))
	seen := map[string]bool{}
	for _, l := range strings.Split(ir, "\n") {
		if m := vectorOp(l); m != nil {
			seen[m[1]] = true
		}
	}
	for _, op := range c.ops {
		if !seen[op] {
			t.Errorf("no %s on vectors after the convolution schedule:\n%s", op, ir)
		}
	}
	checkEpiBits(t, c)
}

// epiWideCases are convolutions whose whole result is small enough to
// pass a block's per-dimension bounds (1 × 32 × 8 × 32) but holds more
// than one block (256 elements): unfused, each epilogue generic would be
// vectorized whole, as one vector of 1024 or 2048 elements.
var epiWideCases = []epiCase{
	// The channels-last form (OW = 8) with an NCHW result: 1 × 32 × 8 × 8.
	{name: "nchw_small_bn_relu", conv: convCase{x: []int64{1, 16, 8, 8}, w: []int64{32, 16, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}},
	// The row form: 1 × 16 × 4 × 16.
	{name: "rows_small_bn_relu", conv: convCase{x: []int64{1, 8, 4, 16}, w: []int64{16, 8, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 1, bias: true},
		body: epiBN, ref: epiBNRef, ops: []string{"arith.subf", "arith.divf", "arith.maximumf"}, rows: true},
	// Depthwise (OW = 8), 1 × 32 × 8 × 8.
	{name: "depthwise_small_relu6", conv: convCase{x: []int64{1, 32, 8, 8}, w: []int64{32, 1, 3, 3}, strides: []int64{1, 1}, dilations: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, groups: 32, bias: true},
		body: epiRelu6, ref: epiRelu6Ref, ops: []string{"arith.minimumf", "arith.maximumf"}},
}

// TestConvEpilogueUnfusedWide checks the safety net of the convolution
// schedule (@conv_epi_blocks) on small convolutions whose epilogue root is
// not tiled (its tag removed from the emitted text, as if the fusion had
// not taken it): no vector op wider than one register block (256
// elements) comes out of the schedule. Fused, the same programs keep the
// bits of host-O0 and of a Go loop in the documented order.
func TestConvEpilogueUnfusedWide(t *testing.T) {
	requireTools(t)
	for _, c := range epiWideCases {
		t.Run(c.name, func(t *testing.T) {
			out := c.conv.out()
			if got := emit.UsesConvRows(out[3], c.conv.w[0], c.conv.w[1], c.conv.w[2], c.conv.w[3]); got != c.rows {
				t.Fatalf("row form %v, want %v", got, c.rows)
			}
			mlir := emitCase(t, c)
			src := regexp.MustCompile(`niro\.epi_(nhwc|nchw|rows|dwrowsh|dwrows|mm)(32|16)`).ReplaceAllString(mlir, "niro.not_a_root")
			if src == mlir {
				t.Fatalf("no epilogue root in\n%s", mlir)
			}
			ir := lowerThroughConv(t, src)
			n := 0
			for _, l := range strings.Split(ir, "\n") {
				m := vectorOp(l)
				if m == nil {
					continue
				}
				n++
				if e := tensorElems(m[2]); e > 256 {
					t.Errorf("%s on %d elements (vector<%s>) after the schedule", m[1], e, m[2])
				}
			}
			if n == 0 {
				t.Errorf("no vector op after the schedule:\n%s", ir)
			}
			if t.Failed() {
				return
			}

			// Fused (the emitted text as it is): the bits.
			checkEpiBits(t, c)
		})
	}
}
