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

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// irThroughWithin is fusedIRThrough (the host pipeline's IR after the
// step last) of the niro text src, with a deadline.
func irThroughWithin(t *testing.T, limit time.Duration, src, last string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.niro")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return irThrough(t, limit, path, last)
}

// TestE2EPoolOneChannelBlock checks 2-D pools whose channel count leaves
// the convolution schedule's depthwise block (32 channels for f32 and
// 16-bit floats accumulated in f32, 16 for f64) a remainder of one
// channel (33 and 65 channels; f64 17 and 33): emit/pool.go gives them a
// padding channel, never read back, without which mlir-opt does not
// finish. Max, average and Lp pools, f32 (also against poolRef2D), f64
// and f16, and i32 and i64 max pools (host against host-O0), each build
// within a time limit; those with a 32- or 64-bit accumulator (all but
// the f16 max) must have been vectorized by the convolution schedule.
func TestE2EPoolOneChannelBlock(t *testing.T) {
	type pc struct {
		xd   []int64
		elem string
		c    pcase
	}
	max3 := pcase{kind: niro.PoolMax, k: []int64{3, 3}, s: []int64{1, 1}, d: []int64{1, 1}, pads: []int64{0, 0, 0, 0}}
	avg := pcase{kind: niro.PoolAvg, k: []int64{3, 2}, s: []int64{2, 2}, d: []int64{1, 1}, pads: []int64{1, 0, 1, 1}, ceil: true}
	lp2 := pcase{kind: niro.PoolLp, k: []int64{2, 3}, s: []int64{1, 2}, d: []int64{1, 1}, pads: []int64{1, 1, 0, 1}, p: 2}
	cases := []pc{
		{[]int64{1, 33, 6, 12}, "f32", max3},
		{[]int64{1, 33, 6, 12}, "f32", avg},
		{[]int64{1, 33, 6, 12}, "f32", lp2},
		{[]int64{1, 65, 5, 9}, "f32", max3},
		{[]int64{2, 65, 5, 9}, "f32", avg},
		{[]int64{1, 17, 6, 12}, "f64", max3},
		{[]int64{1, 33, 6, 12}, "f64", avg},
		{[]int64{1, 17, 5, 9}, "f64", lp2},
		{[]int64{1, 33, 6, 12}, "f16", avg},
		{[]int64{1, 33, 6, 12}, "f16", lp2},
		{[]int64{1, 33, 6, 12}, "f16", max3},
		{[]int64{1, 33, 6, 12}, "i32", max3},
		{[]int64{1, 17, 6, 12}, "i64", max3},
	}
	for i, pc := range cases {
		c, xd := pc.c, pc.xd
		t.Run(fmt.Sprintf("%d_%s_%d_%s", i, c.kind, xd[1], pc.elem), func(t *testing.T) {
			od := []int64{xd[0], xd[1],
				niro.PoolExtent(xd[2], c.k[0], c.s[0], c.d[0], c.pads[0], c.pads[2], c.ceil),
				niro.PoolExtent(xd[3], c.k[1], c.s[1], c.d[1], c.pads[1], c.pads[3], c.ceil)}
			attrs := fmt.Sprintf("dilations = %s, kernel = %s, pads = %s, strides = %s", intsText(c.d), intsText(c.k), intsText(c.pads), intsText(c.s))
			if c.ceil {
				attrs = "ceil_mode = true, " + attrs
			}
			if c.kind == niro.PoolLp {
				attrs += fmt.Sprintf(", p = %d", c.p)
			}
			xt, ot := dimsText(xd, pc.elem), dimsText(od, pc.elem)
			src := fmt.Sprintf("func @pool(%s) -> (%s) {\n^bb0(%%0: %s):\n  %%1 = %s %%0 {%s} : (%s) -> %s\n  return %%1 : %s\n}", xt, ot, xt, c.kind, attrs, xt, ot, ot)
			if !(c.kind == niro.PoolMax && pc.elem == "f16") {
				ir := irThroughWithin(t, 3*time.Minute, src, "conv")
				if strings.Contains(ir, "niro.pool2d") {
					t.Errorf("a niro.pool2d generic is left after the convolution schedule")
				}
				if !regexp.MustCompile(`arith\.(maximumf|maxsi|addf) .* : vector<`).MatchString(ir) {
					t.Errorf("no vector maximum or add after the convolution schedule")
				}
			}
			x := seq(int(xd[0]*xd[1]*xd[2]*xd[3]), 2)
			var in tensorio.Tensor
			switch pc.elem {
			case "f32":
				in = tf32(xd, x)
			case "f64":
				v := make([]float64, len(x))
				for j, f := range x {
					v[j] = float64(f) * 1.1
				}
				in = tf64(xd, v)
			case "i32", "i64":
				elem, n := niro.I32, 4
				if pc.elem == "i64" {
					elem, n = niro.I64, 8
				}
				data := make([]byte, n*len(x))
				for j := range x {
					v := uint64(int64((j*7919)%1000 - 500))
					for b := 0; b < n; b++ {
						data[n*j+b] = byte(v >> (8 * b))
					}
				}
				in = tensorio.Tensor{Elem: elem, Dims: xd, Data: data}
			case "f16":
				data := make([]byte, 2*len(x))
				for j, f := range x {
					binary.LittleEndian.PutUint16(data[2*j:], tensorio.F16FromFloat32(f))
				}
				in = tensorio.Tensor{Elem: niro.F16, Dims: xd, Data: data}
			}
			out := runNiroWithin(t, 3*time.Minute, src, in)
			n := int(od[0] * od[1] * od[2] * od[3])
			if got, want := len(out[0].Data), n*in.Elem.Bits()/8; got != want {
				t.Fatalf("got %d bytes, want %d", got, want)
			}
			if pc.elem == "f32" {
				checkF32(t, out[0], poolRef2D(c.kind, x, xd, od, c.k, c.s, c.d, c.pads, c.incl, c.p))
			}
			if pc.elem == "f64" {
				for j := 0; j < n; j++ {
					if v := math.Float64frombits(binary.LittleEndian.Uint64(out[0].Data[8*j:])); math.IsNaN(v) {
						t.Fatalf("element %d is NaN", j)
					}
				}
			}
		})
	}
}
