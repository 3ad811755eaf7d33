package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
)

// lowerThroughConv returns the IR of src (MLIR text) after the host
// pipeline's convolution schedule.
func lowerThroughConv(t *testing.T, src string) string {
	t.Helper()
	return lowerThrough(t, 0, src, "conv")
}

// emitCase writes c's program and returns its emitted MLIR, after checking
// its root tag when c.root is set (emitEpi).
func emitCase(t *testing.T, c epiCase) string {
	t.Helper()
	var roots []string
	if c.root != "" {
		roots = append(roots, c.root)
	}
	return emitEpi(t, c.name, c.program(), roots...)
}

// epiConvTag matches the tag of a convolution generic whose epilogue is
// fused into its block (niro.conv2d_e, niro.dwconv2d_e,
// niro.conv2d_rows_e, niro.mm_e).
var epiConvTag = regexp.MustCompile(`niro\.\w+_e\b`)

// epiRootTag matches a fused epilogue's root tag.
var epiRootTag = regexp.MustCompile(`niro\.epi_\w+`)

// emitEpi writes src (a Niro program) as name.niro and returns its emitted
// MLIR, after checking that each of roots (a root's tag after "niro.epi_":
// "nhwc32", "mmk", ...) tags exactly one generic and that as many
// convolution generics are tagged for a fused epilogue (epiConvTag).
func emitEpi(t *testing.T, name, src string, roots ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".niro")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := emitModel(path, ShapeFlags{}, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := false
	for _, r := range roots {
		if n := len(regexp.MustCompile(`niro\.epi_`+regexp.QuoteMeta(r)+`\b`).FindAllString(out.MLIR, -1)); n != 1 {
			t.Errorf("%d niro.epi_%s roots in the emitted text, want 1 (roots: %v)", n, r, epiRootTag.FindAllString(out.MLIR, -1))
			bad = true
		}
	}
	if tags := epiConvTag.FindAllString(out.MLIR, -1); len(roots) > 0 && len(tags) != len(roots) {
		t.Errorf("%d convolution generics tagged for a fused epilogue (%s), want %d", len(tags), strings.Join(tags, ", "), len(roots))
		bad = true
	}
	if bad {
		t.FailNow()
	}
	return out.MLIR
}

// epiProduct matches a block's product in the IR: a multiply of two
// values on vectors.
var epiProduct = regexp.MustCompile(`arith\.mulf %[\w#]+, %[\w#]+ : vector<`)

// checkEpiLoops checks ir (the host pipeline's IR after
// linalg-fuse-elementwise-ops) for fused epilogues, each computing one of
// epis (its arithmetic: "arith.subf", ...; a chain of convolutions has
// one per convolution): no generic outside a loop computes any of their
// ops, none is computed on scalars, and every block's product (a multiply
// on vectors, epiProduct, in a top-level loop) is followed by an epilogue,
// every op of one of epis on vectors: in the same loop, after the
// product; or, for a block whose loops canonicalization folded (one
// iteration each, such as a remainder block), in the next top-level loop,
// before any other product, or, where the folded block's product is a
// reduction loop carrying its accumulator as a vector, in the top-level
// statements after it. With cache (the cache block of a 1×1 product,
// niro.epi_mmk), the epilogue follows all the register blocks of the
// product that the contraction schedule made of the cache block (each a
// top-level loop where the cache block's loops were folded), not each
// one, in a loop of its own. Each of epis must be found so. It returns the number of places
// holding an epilogue and logs ir when it fails.
func checkEpiLoops(t *testing.T, ir string, cache bool, epis ...[]string) int {
	t.Helper()
	stmts := funcStatements(ir)
	if len(stmts) == 0 {
		t.Fatalf("no function body in\n%s", ir)
	}
	var all []string
	for _, ops := range epis {
		all = append(all, ops...)
	}
	names := fmt.Sprint(epis)
	found := make([]int, len(epis))
	fused, pending, acc := 0, false, false
	tail := map[string]bool{} // the ops on vectors after a vector accumulator
	for _, s := range stmts {
		head, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
		if strings.Contains(head, "= linalg.generic") {
			for _, op := range all {
				if strings.Contains(s, op) {
					t.Errorf("a generic outside the tile loop computes %s:\n%s", op, s)
				}
			}
		}
		// Where each op is last computed (on vectors).
		last := map[string]int{}
		at := 0
		for _, l := range strings.Split(s, "\n") {
			for _, op := range all {
				if !strings.Contains(l, op+" ") {
					continue
				}
				if !strings.Contains(l, "vector<") {
					t.Errorf("%s on scalars: %s", op, strings.TrimSpace(l))
				}
				last[op] = at
			}
			at += len(l) + 1
		}
		loop := strings.Contains(head, "scf.for")
		first := -1
		if loc := epiProduct.FindStringIndex(s); loc != nil && loop {
			first = loc[0]
		}
		if !loop && acc {
			for op := range last {
				tail[op] = true
			}
		}
		// (A cache block's epilogue loop multiplies on vectors too,
		// BatchNormalization's scale: its ops need not follow that.)
		after := first
		if cache {
			after = -1
		}
		epi := false
		for k, ops := range epis {
			in := true
			for _, op := range ops {
				i, ok := last[op]
				in = in && (ok && i > after && loop || !loop && acc && tail[op])
			}
			if in && (first >= 0 || pending) {
				found[k]++
				epi = true
			}
		}
		switch {
		case epi:
			fused++
			pending, acc = false, false
		case first >= 0:
			if pending && !cache {
				t.Errorf("a block's product is not followed by an epilogue %s on vectors", names)
			}
			pending = true
			acc = strings.Contains(head, "-> (vector<")
			tail = map[string]bool{}
		}
	}
	if pending {
		t.Errorf("the last block's product is not followed by an epilogue %s on vectors", names)
	}
	for k, n := range found {
		if n == 0 {
			t.Errorf("no tile loop computes the epilogue %v on vectors after a block's product", epis[k])
		}
	}
	if t.Failed() {
		t.Logf("IR:\n%s", ir)
	}
	return fused
}

// checkEpiFused emits src (emitEpi: each of roots tagged once), lowers it
// through linalg-fuse-elementwise-ops within 3 minutes (a schedule that
// does not finish fails the test) and checks that its epilogues, epis (one
// for each convolution), are fused into the tile loops (checkEpiLoops; a
// cache block's, niro.epi_mmk or niro.epi_mmkl, after its register
// blocks). It returns the IR and the number of tile loops holding an
// epilogue.
func checkEpiFused(t *testing.T, name, src string, roots []string, epis ...[]string) (string, int) {
	t.Helper()
	ir := lowerThrough(t, 3*time.Minute, emitEpi(t, name, src, roots...), "linalg-fuse-elementwise-ops")
	cache := false
	for _, r := range roots {
		cache = cache || strings.HasPrefix(r, "mmk")
	}
	return ir, checkEpiLoops(t, ir, cache, epis...)
}

// checkEpiBits runs c's program (host and host-O0, runNiroWithin, under
// a deadline so that a schedule that does not terminate fails) and compares
// its result with a Go loop in the documented order.
func checkEpiBits(t *testing.T, c epiCase) {
	t.Helper()
	checkEpiBitsOn(t, c, hostPipelines)
}

// checkEpiBitsOn is checkEpiBits under the pipelines pipes (runNiroOn):
// the Go loop is exact, so host alone ([]string{"host"}) checks the
// fused form's bits; host-O0 as well checks the naive loop nests too.
func checkEpiBitsOn(t *testing.T, c epiCase, pipes []string) {
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
	got := runNiroOn(t, 3*time.Minute, pipes, c.program(), tf32(c.conv.x, x), tf32(c.conv.w, w), tf32([]int64{int64(ch)}, b),
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

// checkVectorOps checks that each of ops is computed on vectors in ir
// (after the convolution schedule) and returns the vector arithmetic ops
// of ir (vectorOp's matches).
func checkVectorOps(t *testing.T, ir string, ops []string) [][]string {
	t.Helper()
	var all [][]string
	seen := map[string]bool{}
	for _, l := range strings.Split(ir, "\n") {
		if m := vectorOp(l); m != nil {
			seen[m[1]] = true
			all = append(all, m)
		}
	}
	for _, op := range ops {
		if !seen[op] {
			t.Errorf("no %s on vectors after the convolution schedule:\n%s", op, ir)
		}
	}
	return all
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
			for _, m := range checkVectorOps(t, ir, c.ops) {
				for _, d := range strings.Split(m[2], "x") {
					if d == "1" {
						t.Errorf("%s on vector<%s> (a unit dimension):\n%s", m[1], m[2], strings.TrimSpace(m[0]))
						break
					}
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
	checkVectorOps(t, ir, c.ops)
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
