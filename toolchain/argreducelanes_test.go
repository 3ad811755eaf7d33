package toolchain

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// argLaneCase is an ArgMax or ArgMin over the last axis in lanes
// (emit/argreducelanes.go: two lane passes, each a niro.lanevec generic
// and its tail; 4096 lanes past 4096, else 16), or over another axis (the
// in-order scan).
type argLaneCase struct {
	op   string // argmax or argmin
	last bool
	dims []int64
	axis int
	keep bool
	vec  bool // the axis is the last: the lane passes are niro.lanevec
}

func (c argLaneCase) String() string {
	return fmt.Sprintf("%s_last%v_%v_axis%d", c.op, c.last, c.dims, c.axis)
}

// module emits c over an f32 operand as emit lowers it, the function
// named @name.
func (c argLaneCase) module(t *testing.T, name string) string {
	t.Helper()
	var rd []int64
	for i, d := range c.dims {
		switch {
		case i != c.axis:
			rd = append(rd, d)
		case c.keep:
			rd = append(rd, 1)
		}
	}
	src := fmt.Sprintf("func @argl(%[1]s) -> (%[2]s) {\n^bb0(%%0: %[1]s):\n  %%1 = %[3]s %%0 {axis = %[4]d, keep_dims = %[5]v, select_last = %[6]v} : (%[1]s) -> %[2]s\n  return %%1 : %[2]s\n}\n",
		tensorText(c.dims, "f32"), tensorText(rd, "i64"), c.op, c.axis, c.keep, c.last)
	return emittedFunc(t, src, "argl", name)
}

// call writes an operand of c (argLaneInput's values) to path and returns
// the call of @fn on it.
func (c argLaneCase) call(t *testing.T, r *rand.Rand, fn, path string) ioCall {
	t.Helper()
	n, out := 1, 1
	for j, d := range c.dims {
		n *= int(d)
		if j != c.axis {
			out *= int(d)
		}
	}
	in := argLaneInput(r, n)
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	return ioCall{fn: fn, inputs: []string{path}, inBytes: []int64{int64(len(in))}, outBytes: []int64{int64(8 * out)}}
}

// argLaneInput returns n f32 values, little-endian: small integers (many
// ties) with some NaNs, ±0 and ±inf.
func argLaneInput(r *rand.Rand, n int) []byte {
	specials := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1))}
	out := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := float32(r.IntN(2001) - 1000)
		if r.IntN(3000) == 0 {
			v = specials[r.IntN(len(specials))]
		}
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

func argLaneCases() []argLaneCase {
	var cases []argLaneCase
	for _, op := range []string{"argmax", "argmin"} {
		for _, last := range []bool{false, true} {
			cases = append(cases,
				argLaneCase{op, last, []int64{3, 5000}, 1, false, true},   // a tail of 904 lanes
				argLaneCase{op, last, []int64{2, 3, 8193}, 2, true, true}, // two kept axes, a tail of 1
				argLaneCase{op, last, []int64{12288}, 0, false, true},     // rank 1, no tail
				argLaneCase{op, last, []int64{5, 1000}, 1, false, true},   // 16 lanes, a tail of 8
				argLaneCase{op, last, []int64{2, 2, 4096}, 2, true, true}, // 16 lanes, no tail
				argLaneCase{op, last, []int64{4500, 3}, 0, false, false})  // not the last axis: the in-order scan
		}
	}
	return cases
}

// TestArgReduceLanesVectorized lowers long ArgMax/ArgMin rows as emit
// writes them through host and host-O0 (the naive loop nest of the same
// IR) and compares the indices, and checks that after the reduction
// schedule both lane passes of an operand's last axis read it only with
// 16-lane vector transfers (no scalar tensor.extract of it is left, nor a
// niro.lanevec tag), while an axis that is not the last keeps the scan.
func TestArgReduceLanesVectorized(t *testing.T) {
	tc := needTools(t)
	cases := argLaneCases()
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	var module strings.Builder
	var calls []ioCall
	for i, c := range cases {
		fn := fmt.Sprintf("argl_%d", i)
		module.WriteString(c.module(t, fn))
		calls = append(calls, c.call(t, r, fn, filepath.Join(dir, fmt.Sprintf("x%d.bin", i))))
	}
	mod := "module {\n" + module.String() + "}\n"
	results := runHostAndO0(t, tc, mod, calls, dir)
	for i, c := range cases {
		if !bytes.Equal(results["host"][i], results["host-O0"][i]) {
			t.Errorf("%v: host's indices differ from the naive loop nest's", c)
		}
	}

	scheduled := lowerToReduction(t, tc, mod)
	for i, c := range cases {
		fn := scheduledFunc(scheduled, fmt.Sprintf("argl_%d", i))
		if fn == "" {
			t.Fatalf("no func.func @argl_%d after the reduction schedule:\n%s", i, scheduled)
		}
		reads := regexp.MustCompile(`vector\.transfer_read %arg0\[[^\]]*\], [^:]*: tensor<[^>]*>, vector<(1x)*16xf32>`).FindAllString(fn, -1)
		scalar := len(regexp.MustCompile(`tensor\.extract %arg0\[`).FindAllString(fn, -1))
		// Two passes (the extreme, the index), each its full steps and,
		// with a tail, the tail's vectors: at least two vector reads.
		if c.vec && (len(reads) < 2 || scalar > 0 || strings.Contains(fn, "niro.lanevec")) {
			t.Errorf("%v: the lane passes are not vectorized (%d 16-lane reads of the operand, %d scalar ones):\n%s", c, len(reads), scalar, fn)
		}
		if !c.vec && (scalar > 0 || strings.Contains(fn, "niro.lane")) {
			t.Errorf("%v: an axis that is not the last should keep the in-order scan:\n%s", c, fn)
		}
	}
}

// TestGPUArgReduceLanesOnHost runs the GPU kernels of long ArgMax/ArgMin
// rows (one thread per lane and row in each lane pass, as TileGPULoops
// maps them) on the CPU and checks they give the host pipeline's indices.
func TestGPUArgReduceLanesOnHost(t *testing.T) {
	tc := needTools(t)
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	for i, c := range argLaneCases() {
		t.Run(c.String(), func(t *testing.T) {
			fn := fmt.Sprintf("g_%d", i)
			src := c.module(t, fn)
			call := c.call(t, r, fn, filepath.Join(dir, fn+"_x.bin"))
			if want, got := runGPUOnHost(t, tc, src, call, dir); !bytes.Equal(got, want) {
				t.Errorf("the GPU kernels' indices differ from the host's")
			}
		})
	}
}
