package main

import (
	"fmt"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// poolRef2D is Pool on an N×C×H×W f32 input in the documented order:
// window positions row-major, each sum rounded to f32; avg divides by the
// count of positions inside the input (or the padded input with
// includePad), lp2 takes sqrt of the sum of squares.
func poolRef2D(kind niro.PoolKind, x []float32, xd, od []int64, k, s, d, pads []int64, includePad bool, p int64) []float32 {
	H, W := xd[2], xd[3]
	out := make([]float32, 0, od[0]*od[1]*od[2]*od[3])
	for nc := int64(0); nc < xd[0]*xd[1]; nc++ {
		for oh := int64(0); oh < od[2]; oh++ {
			for ow := int64(0); ow < od[3]; ow++ {
				acc := float32(0)
				if kind == niro.PoolMax {
					acc = float32(math.Inf(-1))
				}
				count := float32(0)
				for kh := int64(0); kh < k[0]; kh++ {
					for kw := int64(0); kw < k[1]; kw++ {
						h, w := oh*s[0]+kh*d[0]-pads[0], ow*s[1]+kw*d[1]-pads[1]
						inPadded := h >= -pads[0] && h < H+pads[2] && w >= -pads[1] && w < W+pads[3]
						if h < 0 || h >= H || w < 0 || w >= W {
							if includePad && inPadded {
								count++
							}
							continue
						}
						count++
						v := x[(nc*H+h)*W+w]
						switch {
						case kind == niro.PoolMax:
							if v > acc || v != v {
								acc = v
							}
						case kind == niro.PoolLp && p == 2:
							acc = float32(acc + float32(v*v))
						case kind == niro.PoolLp:
							acc = float32(acc + float32(math.Abs(float64(v))))
						default:
							acc = float32(acc + v)
						}
					}
				}
				switch {
				case kind == niro.PoolAvg:
					acc = acc / count
				case kind == niro.PoolLp && p == 2:
					acc = float32(math.Sqrt(float64(acc)))
				}
				out = append(out, acc)
			}
		}
	}
	return out
}

// pcase is one pool of TestE2EPoolExact.
type pcase struct {
	kind          niro.PoolKind
	k, s, d, pads []int64
	ceil, incl    bool
	p             int64
}

// TestE2EPoolExact checks max_pool, avg_pool (ceil_mode, count_include_pad,
// dilations, asymmetric pads) and lp_pool (p = 1, 2) on f32 bit for bit:
// host against host-O0 and both against poolRef2D.
func TestE2EPoolExact(t *testing.T) {
	xd := []int64{2, 3, 11, 9}
	cases := []pcase{
		{kind: niro.PoolMax, k: []int64{3, 2}, s: []int64{2, 2}, d: []int64{1, 2}, pads: []int64{1, 0, 1, 1}},
		{kind: niro.PoolMax, k: []int64{2, 3}, s: []int64{3, 2}, d: []int64{1, 1}, pads: []int64{0, 1, 1, 0}, ceil: true},
		{kind: niro.PoolAvg, k: []int64{3, 3}, s: []int64{2, 2}, d: []int64{1, 1}, pads: []int64{1, 1, 1, 1}, ceil: true},
		{kind: niro.PoolAvg, k: []int64{3, 2}, s: []int64{2, 3}, d: []int64{2, 1}, pads: []int64{2, 0, 1, 1}, ceil: true, incl: true},
		{kind: niro.PoolAvg, k: []int64{2, 2}, s: []int64{1, 1}, d: []int64{1, 1}, pads: []int64{0, 0, 1, 1}, incl: true},
		{kind: niro.PoolLp, k: []int64{3, 2}, s: []int64{2, 1}, d: []int64{1, 2}, pads: []int64{1, 1, 0, 0}, p: 2},
		{kind: niro.PoolLp, k: []int64{2, 2}, s: []int64{2, 2}, d: []int64{1, 1}, pads: []int64{0, 0, 1, 1}, ceil: true, p: 1},
	}
	// The second shape has enough channels and columns for the convolution
	// schedule's 8 x 32 blocks (2-D pools run channels-last), with
	// remainders.
	for si, xd := range [][]int64{xd, {1, 37, 10, 19}} {
		x := seq(int(xd[0]*xd[1]*xd[2]*xd[3]), 2)
		for i, c := range cases {
			poolCase(t, fmt.Sprintf("%d_%s_%d", i, c.kind, si), xd, x, c)
		}
	}
}

// poolCase runs one case of TestE2EPoolExact.
func poolCase(t *testing.T, name string, xd []int64, x []float32, c pcase) {
	{
		t.Run(name, func(t *testing.T) {
			od := []int64{xd[0], xd[1],
				niro.PoolExtent(xd[2], c.k[0], c.s[0], c.d[0], c.pads[0], c.pads[2], c.ceil),
				niro.PoolExtent(xd[3], c.k[1], c.s[1], c.d[1], c.pads[1], c.pads[3], c.ceil)}
			attrs := fmt.Sprintf("dilations = %s, kernel = %s, pads = %s, strides = %s", intsText(c.d), intsText(c.k), intsText(c.pads), intsText(c.s))
			if c.ceil {
				attrs = "ceil_mode = true, " + attrs
			}
			if c.incl {
				attrs = "count_include_pad = true, " + attrs
			}
			if c.kind == niro.PoolLp {
				attrs += fmt.Sprintf(", p = %d", c.p)
			}
			xt, ot := dimsText(xd, "f32"), dimsText(od, "f32")
			src := fmt.Sprintf("func @pool(%s) -> (%s) {\n^bb0(%%0: %s):\n  %%1 = %s %%0 {%s} : (%s) -> %s\n  return %%1 : %s\n}", xt, ot, xt, c.kind, attrs, xt, ot, ot)
			out := runNiro(t, src, tf32(xd, x))
			checkF32(t, out[0], poolRef2D(c.kind, x, xd, od, c.k, c.s, c.d, c.pads, c.incl, c.p))
		})
	}
}
