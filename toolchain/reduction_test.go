package toolchain

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/niro-dev/niro/tensorio"
)

// reduceCase is one reduction over the last axis the reduction schedule
// must get exactly right.
type reduceCase struct {
	batch, m, n int    // [batch x] m rows of n elements; batch 0: rank 2
	elem        string // f32 or f64
	kind        string // add, mul, max, min, sumsq (x·x, then add) or masked (the sum of x where an i1 mask is set)
}

func (c reduceCase) String() string {
	s := fmt.Sprintf("%dx%d_%s_%s", c.m, c.n, c.elem, c.kind)
	if c.batch > 0 {
		s = fmt.Sprintf("b%d_%s", c.batch, s)
	}
	return s
}

// module returns func @name reducing the last axis, keeping it as 1, as
// emit writes a Reduce: a fill, then a generic with a reduction iterator.
func (c reduceCase) module(name string) string {
	pre, d, it := "", "d0, d1", `"parallel", "reduction"`
	out := "d0, 0"
	if c.batch > 0 {
		pre, d, it, out = fmt.Sprintf("%dx", c.batch), "d0, d1, d2", `"parallel", "parallel", "reduction"`, "d0, d1, 0"
	}
	in := fmt.Sprintf("tensor<%s%dx%dx%s>", pre, c.m, c.n, c.elem)
	res := fmt.Sprintf("tensor<%s%dx1x%s>", pre, c.m, c.elem)
	start := map[string]string{"add": "0.0", "sumsq": "0.0", "masked": "0.0", "mul": "1.0", "max": "0xFF800000", "min": "0x7F800000"}[c.kind]
	if c.elem == "f64" && (c.kind == "max" || c.kind == "min") {
		start = map[string]string{"max": "0xFFF0000000000000", "min": "0x7FF0000000000000"}[c.kind]
	}
	body := map[string]string{
		"add":    "%y = arith.addf %x, %acc : T",
		"mul":    "%y = arith.mulf %x, %acc : T",
		"max":    "%y = arith.maximumf %x, %acc : T",
		"min":    "%y = arith.minimumf %x, %acc : T",
		"sumsq":  "%sq = arith.mulf %x, %x : T\n    %y = arith.addf %sq, %acc : T",
		"masked": "%z = arith.constant 0.0 : T\n    %sel = arith.select %k, %x, %z : T\n    %y = arith.addf %sel, %acc : T",
	}[c.kind]
	body = strings.ReplaceAll(body, "T", c.elem)
	fill := strings.Count(d, "d")
	fmaps := "affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>"
	fit := `"parallel", "parallel"`
	if fill == 3 {
		fmaps = "affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
		fit = `"parallel", "parallel", "parallel"`
	}
	mod := fmt.Sprintf(`func.func @%[1]s(%%arg0: %[2]s) -> %[3]s {
  %%s = arith.constant %[4]s : %[5]s
  %%e = tensor.empty() : %[3]s
  %%f = linalg.generic {indexing_maps = [%[9]s], iterator_types = [%[10]s]}
      ins(%%s : %[5]s) outs(%%e : %[3]s) {
  ^bb0(%%v: %[5]s, %%o: %[5]s):
    linalg.yield %%v : %[5]s
  } -> %[3]s
  %%r = linalg.generic {indexing_maps = [affine_map<(%[6]s) -> (%[6]s)>, affine_map<(%[6]s) -> (%[7]s)>], iterator_types = [%[8]s]}
      ins(%%arg0 : %[2]s) outs(%%f : %[3]s) {
  ^bb0(%%x: %[5]s, %%acc: %[5]s):
    %[11]s
    linalg.yield %%y : %[5]s
  } -> %[3]s
  return %%r : %[3]s
}
`, name, in, res, start, c.elem, d, out, it, fmaps, fit, body)
	if c.kind == "masked" {
		mask := strings.Replace(in, c.elem+">", "i1>", 1)
		mod = strings.Replace(mod, "(%arg0: "+in+")", "(%mask: "+mask+", %arg0: "+in+")", 1)
		mod = strings.Replace(mod, "ins(%arg0 : "+in+")", "ins(%mask, %arg0 : "+mask+", "+in+")", 1)
		mod = strings.Replace(mod, "-> ("+d+")>, affine_map", "-> ("+d+")>, affine_map<("+d+") -> ("+d+")>, affine_map", 1)
		mod = strings.Replace(mod, "^bb0(%x: "+c.elem, "^bb0(%k: i1, %x: "+c.elem, 1)
	}
	return mod
}

// diffBits returns the indices of the elements of two results (f32, or
// f64) whose bits differ, counting any two NaNs as equal: which NaN a sum
// of NaNs returns depends on the order of an add's operands, which LLVM
// commutes freely (it does not specify NaN payloads), in the naive loop
// nest as in the scheduled one.
func diffBits(got, want []byte, f64 bool) []int {
	var bad []int
	size := 4
	if f64 {
		size = 8
	}
	for j := 0; j+size <= len(want) && j+size <= len(got); j += size {
		g, w := got[j:j+size], want[j:j+size]
		if bytes.Equal(g, w) {
			continue
		}
		if f64 {
			a, b := math.Float64frombits(binary.LittleEndian.Uint64(g)), math.Float64frombits(binary.LittleEndian.Uint64(w))
			if math.IsNaN(a) && math.IsNaN(b) {
				continue
			}
		} else {
			a, b := math.Float32frombits(binary.LittleEndian.Uint32(g)), math.Float32frombits(binary.LittleEndian.Uint32(w))
			if a != a && b != b {
				continue
			}
		}
		bad = append(bad, j/size)
	}
	if len(got) != len(want) {
		bad = append(bad, -1)
	}
	return bad
}

// runReductions lowers one module holding @red_I for cases[I] through p,
// runs it on the inputs and returns each result's bytes.
func runReductions(t *testing.T, tc *Toolchain, p Pipeline, cases []reduceCase, inputs [][]float64, dir string) (string, [][]byte) {
	t.Helper()
	var module strings.Builder
	var calls []ioCall
	for i, c := range cases {
		size, encode := int64(4), encodeF32
		if c.elem == "f64" {
			size, encode = 8, encodeF64
		}
		pa := filepath.Join(dir, fmt.Sprintf("x%d.bin", i))
		pc := filepath.Join(dir, fmt.Sprintf("%s_y%d.bin", p.Name, i))
		if err := os.WriteFile(pa, encode(inputs[i]), 0o644); err != nil {
			t.Fatal(err)
		}
		module.WriteString(c.module(fmt.Sprintf("red_%d", i)))
		call := ioCall{fn: fmt.Sprintf("red_%d", i), inputs: []string{pa}, outputs: []string{pc},
			inBytes: []int64{int64(len(inputs[i])) * size}, outBytes: []int64{int64(max(c.batch, 1)*c.m) * size}}
		if c.kind == "masked" {
			// One byte per i1: set where the element is positive.
			mask := make([]byte, len(inputs[i]))
			for j, v := range inputs[i] {
				if v > 0 {
					mask[j] = 1
				}
			}
			pm := filepath.Join(dir, fmt.Sprintf("m%d.bin", i))
			if err := os.WriteFile(pm, mask, 0o644); err != nil {
				t.Fatal(err)
			}
			call.inputs = []string{pm, pa}
			call.inBytes = []int64{int64(len(mask)), call.inBytes[0]}
		}
		calls = append(calls, call)
	}
	ctx := context.Background()
	lowered, err := tc.Lower(ctx, module.String(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Run(ctx, joinModule(t, lowered, ioMain(lowered, calls, 0)), RunOptions{OptLevel: p.OptLevel}); err != nil {
		t.Fatal(err)
	}
	var outs [][]byte
	for _, call := range calls {
		b, err := os.ReadFile(call.outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	return lowered, outs
}

// TestReductionExact checks that the reduction schedule gives the bits of
// the naive loop nest (host-O0, which TestNaiveExact pins to the naive
// order): row counts and reduced extents that 16 does and does not
// divide, rank 2 and 3, f32 and f64, sums (whose order matters: the
// inputs vary in magnitude, so any reordering changes bits), products,
// max and min with NaN, ±0 and ±inf among the inputs (any two NaNs count
// as the same, see diffBits), and a body with a
// fused element-wise producer; and that the schedule fired.
func TestReductionExact(t *testing.T) {
	tc := needTools(t)
	var cases []reduceCase
	for _, k := range []string{"add", "mul", "max", "min", "sumsq"} {
		cases = append(cases,
			reduceCase{m: 37, n: 53, elem: "f32", kind: k},
			reduceCase{m: 64, n: 1024, elem: "f32", kind: k},
			reduceCase{m: 17, n: 33, elem: "f64", kind: k},
			reduceCase{batch: 3, m: 19, n: 21, elem: "f32", kind: k})
	}
	// An i1 operand: the schedule leaves it alone (LLVM would load a
	// vector of i1 as packed bits); the result must still be right.
	cases = append(cases, reduceCase{m: 37, n: 53, elem: "f32", kind: "masked"}, reduceCase{batch: 2, m: 16, n: 32, elem: "f32", kind: "masked"})
	for m := 1; m <= 17; m += 4 {
		for _, n := range []int{1, 15, 16, 17, 31} {
			cases = append(cases, reduceCase{m: m, n: n, elem: "f32", kind: "add"})
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1)}
	inputs := make([][]float64, len(cases))
	for i, c := range cases {
		v := randomValues(r, max(c.batch, 1)*c.m*c.n)
		if c.kind == "mul" {
			for j := range v {
				v[j] = 1 + v[j]/64 // products neither overflow nor vanish
			}
		}
		if c.kind == "max" || c.kind == "min" || c.kind == "add" {
			for j := range v {
				if r.IntN(50) == 0 {
					v[j] = specials[r.IntN(len(specials))]
				}
			}
		}
		inputs[i] = v
	}
	dir := t.TempDir()
	lowered, got := runReductions(t, tc, pipeline(t, "host"), cases, inputs, dir)
	_, want := runReductions(t, tc, pipeline(t, "host-O0"), cases, inputs, dir)
	for i, c := range cases {
		if bad := diffBits(got[i], want[i], c.elem == "f64"); len(bad) > 0 {
			t.Errorf("%v: %d elements' bits differ from the naive loop nest's, the first %d", c, len(bad), bad[0])
		}
		vec := fmt.Sprintf("vector<%dx%s>", min(c.m, 16), c.elem)
		if c.kind == "masked" {
			var sum []float32 // the in-order masked sum, in Go
			for row := 0; row < max(c.batch, 1)*c.m; row++ {
				acc := float32(0)
				for _, v := range inputs[i][row*c.n : (row+1)*c.n] {
					if v > 0 {
						acc = float32(v) + acc
					}
				}
				sum = append(sum, acc)
			}
			if bad := diffBits(got[i], encodeF32(f64s(sum)), false); len(bad) > 0 {
				t.Errorf("%v: %d rows differ from the masked sum, the first %d", c, len(bad), bad[0])
			}
			continue
		}
		// One row (m = 1): the row-fusion schedule's unit-dimension folding
		// makes it a rank-1 reduction, which the schedule leaves to the
		// in-order scalar loop (the same as the one-lane vector it was).
		if c.n >= 16 && (c.m > 1 || c.batch > 0) && !strings.Contains(loweredFunc(lowered, fmt.Sprintf("red_%d", i)), vec) {
			t.Errorf("%v: no %s in the lowered function: the schedule did not fire", c, vec)
		}
	}
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// laneCase is one reduction whose run is longer than the 4096 lanes, as
// emit writes it (emit/reducelanes.go): reduce_KIND of an ELEM tensor.
type laneCase struct {
	elem, kind string
	dims       []int64
	axes       []int
	keep       bool
	// vec: the run is the trailing axes, so the lane partials are tagged
	// niro.lanevec and must be vectorized.
	vec bool
}

func (c laneCase) String() string {
	return fmt.Sprintf("%s_%s_%v_%v", c.elem, c.kind, c.dims, c.axes)
}

// elemSize is the byte size of a niro element type of these tests.
func elemSize(elem string) int {
	switch elem {
	case "f64":
		return 8
	case "f16", "bf16":
		return 2
	}
	return 4
}

// laneInput returns n values of c's element type, little-endian: varied
// magnitudes of both signs (values near 1 for a product), and for f32 and
// f64 max and min some NaNs, ±0 and ±inf.
func laneInput(r *rand.Rand, c laneCase, n int) []byte {
	specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1)}
	size := elemSize(c.elem)
	out := make([]byte, n*size)
	for i := 0; i < n; i++ {
		v := r.NormFloat64() * math.Exp2(float64(r.IntN(7)-3))
		if c.kind == "prod" {
			v = 1 + v/64
		}
		if (c.kind == "max" || c.kind == "min") && (c.elem == "f32" || c.elem == "f64") && r.IntN(500) == 0 {
			v = specials[r.IntN(len(specials))]
		}
		b := out[i*size:]
		switch c.elem {
		case "f64":
			binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		case "f32":
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
		case "f16":
			binary.LittleEndian.PutUint16(b, tensorio.F16FromFloat32(float32(v)))
		case "bf16":
			binary.LittleEndian.PutUint16(b, tensorio.BF16FromFloat32(float32(v)))
		case "i32":
			iv := int32(r.IntN(201) - 100)
			if c.kind == "prod" {
				iv = int32([]int{1, 1, 1, -1, 2, 3}[r.IntN(6)])
			}
			binary.LittleEndian.PutUint32(b, uint32(iv))
		}
	}
	return out
}

// TestLaneReductionExact runs long reductions (runs past the 4096 lanes:
// the lane partials, docs/ops.md "Reduce") as emit writes them through
// host, whose reduction schedule vectorizes the lane partials of a run over
// the trailing axes (niro.lanevec), and through host-O0, the naive loop
// nest of the same IR, and compares the bits (two NaNs count as equal):
// sums, products, max and min in f32, f64, f16, bf16 and i32, ranks 1 to 4
// with up to two kept axes, runs that 4096 and 16 do and do not divide (a
// tail of 1 lane, of 8, of a multiple of 16, none), one or two reduced
// axes, and runs elsewhere than the trailing axes (niro.lanes: tiled,
// scalar). After the reduction schedule, every niro.lanevec case reads its
// operand only with vector transfers: no scalar tensor.extract is left.
func TestLaneReductionExact(t *testing.T) {
	tc := needTools(t)
	var cases []laneCase
	for _, k := range []string{"sum", "prod", "max", "min"} {
		cases = append(cases,
			laneCase{"f32", k, []int64{3, 5000}, []int{1}, false, true},          // tail of 904 lanes: 56 vectors and 8
			laneCase{"f32", k, []int64{4097}, []int{0}, false, true},             // to a scalar, a tail of 1
			laneCase{"f64", k, []int64{2, 3, 4100}, []int{2}, true, true},        // two kept axes, keep_dims
			laneCase{"f32", k, []int64{2, 2, 3, 3000}, []int{2, 3}, false, true}, // rank 4, two kept, two reduced
			laneCase{"f16", k, []int64{2, 9000}, []int{1}, false, true},
			laneCase{"bf16", k, []int64{2, 8192}, []int{1}, false, true}, // 4096 divides the run: no tail
			laneCase{"i32", k, []int64{3, 5000}, []int{1}, false, true},
			laneCase{"f32", k, []int64{3000, 2, 3}, []int{0, 2}, false, false}) // around a kept axis
	}
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	var module strings.Builder
	var calls []ioCall
	inputs := make([][]byte, len(cases))
	for i, c := range cases {
		src := laneModuleOf(t, c.elem, c.kind, c.dims, c.axes, c.keep)
		module.WriteString(strings.Replace(src, "@%s(", fmt.Sprintf("@lane_%d(", i), 1))
		n, out := 1, 1
		for j, d := range c.dims {
			n *= int(d)
			if !slices.Contains(c.axes, j) {
				out *= int(d)
			}
		}
		inputs[i] = laneInput(r, c, n)
		pa := filepath.Join(dir, fmt.Sprintf("x%d.bin", i))
		if err := os.WriteFile(pa, inputs[i], 0o644); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, ioCall{fn: fmt.Sprintf("lane_%d", i), inputs: []string{pa},
			inBytes: []int64{int64(len(inputs[i]))}, outBytes: []int64{int64(out * elemSize(c.elem))}})
	}
	mod := "module {\n" + module.String() + "}\n"
	results := runHostAndO0(t, tc, mod, calls, dir)
	for i, c := range cases {
		got, want := results["host"][i], results["host-O0"][i]
		var bad []int
		switch c.elem {
		case "f32", "f64":
			bad = diffBits(got, want, c.elem == "f64")
		default:
			if !bytes.Equal(got, want) {
				bad = []int{0}
			}
		}
		if len(bad) > 0 {
			t.Errorf("%v: %d elements' bits differ from the naive loop nest's, the first %d", c, len(bad), bad[0])
		}
	}

	// The host pipeline up to the reduction schedule: the niro.lanevec
	// partials are vector code reading the operand 16 lanes at a time.
	scheduled := lowerToReduction(t, tc, mod)
	for i, c := range cases {
		fn := scheduledFunc(scheduled, fmt.Sprintf("lane_%d", i))
		if fn == "" {
			t.Fatalf("no func.func @lane_%d after the reduction schedule:\n%s", i, scheduled)
		}
		reads := regexp.MustCompile(`vector\.transfer_read %(arg0|collapsed\w*)\[[^\]]*\], [^:]*: tensor<[^>]*>, vector<(1x)*16x`).FindAllString(fn, -1)
		scalar := len(regexp.MustCompile(`tensor\.extract %(arg0|collapsed\w*)\[`).FindAllString(fn, -1))
		if c.vec && (len(reads) == 0 || scalar > 0 || strings.Contains(fn, "niro.lanevec")) {
			t.Errorf("%v: the lane partials are not vectorized (%d 16-lane reads of the operand, %d scalar ones):\n%s", c, len(reads), scalar, fn)
		}
		if !c.vec && (len(reads) > 0 || scalar == 0) {
			t.Errorf("%v: a run around a kept axis should stay scalar (%d vector reads, %d scalar):\n%s", c, len(reads), scalar, fn)
		}
	}
}

// scheduledFunc returns the text of func.func @name in MLIR text, up to
// the next func.func.
func scheduledFunc(mlir, name string) string {
	i := strings.Index(mlir, "func.func @"+name+"(")
	if i < 0 {
		return ""
	}
	rest := mlir[i+1:]
	if j := strings.Index(rest, "func.func @"); j >= 0 {
		return mlir[i : i+1+j]
	}
	return mlir[i:]
}
