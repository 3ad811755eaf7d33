package importer

import (
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// pseudo returns n deterministic values in [lo, hi].
func pseudo(n int, lo, hi int64, seed uint64) []float64 {
	out := make([]float64, n)
	for i := range out {
		seed = seed*6364136223846793005 + 1442695040888963407
		out[i] = float64(lo + int64(seed>>33)%(hi-lo+1))
	}
	return out
}

// matmulRef is the i32 product of (a − azp[row]) [m, k] and (b − bzp[col])
// [k, n].
func matmulRef(a, b, azp, bzp []float64, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s int32
			for l := 0; l < k; l++ {
				s += int32(a[i*k+l]-azp[i%len(azp)]) * int32(b[l*n+j]-bzp[j%len(bzp)])
			}
			out[i*n+j] = float64(s)
		}
	}
	return out
}

// requant is the reference's requantization of c by factor f32 to [lo, hi].
func requant(c []float64, factor float32, zp, lo, hi float64) []float64 {
	out := make([]float64, len(c))
	for i, v := range c {
		out[i] = math.Min(math.Max(math.RoundToEven(v*float64(factor)+zp), lo), hi)
	}
	return out
}

func TestMatMulInteger(t *testing.T) {
	// Per-row zero points for A (int8) and per-column ones for B (uint8).
	m := model(10, graph("g",
		[]*onnxpb.NodeProto{node("MatMulInteger", []string{"a", "b", "az", "bz"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("a", dtInt8, 3, 4), vi("b", dtUint8, 4, 2), vi("az", dtInt8, 3), vi("bz", dtUint8, 2)},
		[]*onnxpb.ValueInfoProto{vi("y", dtInt32, 3, 2)}))
	a, b := pseudo(12, -128, 127, 1), pseudo(8, 0, 255, 2)
	az, bz := []float64{-128, 0, 5}, []float64{255, 3}
	got := runValues(t, m, vals(niro.I8, []int64{3, 4}, a...), vals(niro.U8, []int64{4, 2}, b...),
		vals(niro.I8, []int64{3}, az...), vals(niro.U8, []int64{2}, bz...))
	checkClose(t, "y", got[0], matmulRef(a, b, az, bz, 3, 4, 2), 0)
}

func TestQLinearMatMul(t *testing.T) {
	// Batched uint8 operands, per-tensor scales; outputs saturate at 0 and
	// 255 and round half to even.
	m := model(21, graph("g",
		[]*onnxpb.NodeProto{node("QLinearMatMul", []string{"a", "as", "az", "b", "bs", "bz", "ys", "yz"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("a", dtUint8, 2, 2, 5), vi("as", dtFloat), vi("az", dtUint8), vi("b", dtUint8, 2, 5, 3),
			vi("bs", dtFloat, 1), vi("bz", dtUint8, 1), vi("ys", dtFloat), vi("yz", dtUint8)},
		[]*onnxpb.ValueInfoProto{vi("y", dtUint8, 2, 2, 3)}))
	a, b := pseudo(20, 0, 255, 3), pseudo(30, 0, 255, 4)
	const as, bs, ys = 0.0066, 0.00705, 0.0107
	got := runValues(t, m, vals(niro.U8, []int64{2, 2, 5}, a...), vals(niro.F32, nil, as), vals(niro.U8, nil, 113),
		vals(niro.U8, []int64{2, 5, 3}, b...), vals(niro.F32, []int64{1}, bs), vals(niro.U8, []int64{1}, 114),
		vals(niro.F32, nil, ys), vals(niro.U8, nil, 118))
	factor := float32(as) * float32(bs) / float32(ys)
	var want []float64
	for i := 0; i < 2; i++ {
		c := matmulRef(a[i*10:(i+1)*10], b[i*15:(i+1)*15], []float64{113}, []float64{114}, 2, 5, 3)
		want = append(want, requant(c, factor, 118, 0, 255)...)
	}
	checkClose(t, "y", got[0], want, 0)
}

// convRef is the i32 2-D conv of (x − xzp) [1, c, h, w] by (w − wzp[m])
// [m, c/g, kh, kw] with symmetric pads p and stride s, plus bias.
func convRef(x, w []float64, xzp float64, wzp, bias []float64, c, h, wd, m, g, kh, kw, p, s int) ([]float64, int, int) {
	oh, ow := (h+2*p-kh)/s+1, (wd+2*p-kw)/s+1
	cg := c / g
	out := make([]float64, m*oh*ow)
	for o := 0; o < m; o++ {
		grp := o / (m / g)
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				var sum int32
				for ci := 0; ci < cg; ci++ {
					for ki := 0; ki < kh; ki++ {
						for kj := 0; kj < kw; kj++ {
							y, xx := i*s-p+ki, j*s-p+kj
							if y < 0 || y >= h || xx < 0 || xx >= wd {
								continue
							}
							xv := int32(x[((grp*cg+ci)*h+y)*wd+xx] - xzp)
							wv := int32(w[((o*cg+ci)*kh+ki)*kw+kj] - wzp[o%len(wzp)])
							sum += xv * wv
						}
					}
				}
				if bias != nil {
					sum += int32(bias[o])
				}
				out[(o*oh+i)*ow+j] = float64(sum)
			}
		}
	}
	return out, oh, ow
}

func TestConvInteger(t *testing.T) {
	// Two groups, per-channel weight zero points, pads 1 and stride 2.
	m := model(10, graph("g",
		[]*onnxpb.NodeProto{node("ConvInteger", []string{"x", "w", "xz", "wz"}, []string{"y"},
			attrInts("pads", 1, 1, 1, 1), attrInts("strides", 2, 2), attrInt("group", 2))},
		[]*onnxpb.ValueInfoProto{vi("x", dtUint8, 1, 2, 5, 5), vi("w", dtInt8, 4, 1, 3, 3), vi("xz", dtUint8), vi("wz", dtInt8, 4)},
		[]*onnxpb.ValueInfoProto{vi("y", dtInt32, 1, 4, 3, 3)}))
	x, w := pseudo(50, 0, 255, 5), pseudo(36, -128, 127, 6)
	wz := []float64{-128, 0, 127, 9}
	got := runValues(t, m, vals(niro.U8, []int64{1, 2, 5, 5}, x...), vals(niro.I8, []int64{4, 1, 3, 3}, w...),
		vals(niro.U8, nil, 200), vals(niro.I8, []int64{4}, wz...))
	want, _, _ := convRef(x, w, 200, wz, nil, 2, 5, 5, 4, 2, 3, 3, 1, 2)
	checkClose(t, "y", got[0], want, 0)
}

func TestQLinearConv(t *testing.T) {
	// int8 with a bias and per-channel weight scales; the output saturates.
	m := model(10, graph("g",
		[]*onnxpb.NodeProto{node("QLinearConv", []string{"x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"}, []string{"y"},
			attrInts("pads", 1, 1, 1, 1))},
		[]*onnxpb.ValueInfoProto{vi("x", dtInt8, 1, 2, 4, 4), vi("xs", dtFloat), vi("xz", dtInt8), vi("w", dtInt8, 3, 2, 3, 3),
			vi("ws", dtFloat, 3), vi("wz", dtInt8, 3), vi("ys", dtFloat), vi("yz", dtInt8), vi("b", dtInt32, 3)},
		[]*onnxpb.ValueInfoProto{vi("y", dtInt8, 1, 3, 4, 4)}))
	x, w := pseudo(32, -128, 127, 7), pseudo(54, -128, 127, 8)
	ws, wz, bias := []float64{0.002, 0.0005, 0.01}, []float64{1, -3, 0}, []float64{1000, -70000, 5}
	const xs, ys = 0.05, 0.4
	got := runValues(t, m, vals(niro.I8, []int64{1, 2, 4, 4}, x...), vals(niro.F32, nil, xs), vals(niro.I8, nil, -4),
		vals(niro.I8, []int64{3, 2, 3, 3}, w...), vals(niro.F32, []int64{3}, ws...), vals(niro.I8, []int64{3}, wz...),
		vals(niro.F32, nil, ys), vals(niro.I8, nil, 6), vals(niro.I32, []int64{3}, bias...))
	c, oh, ow := convRef(x, w, -4, wz, bias, 2, 4, 4, 3, 1, 3, 3, 1, 1)
	var want []float64
	for o := 0; o < 3; o++ {
		factor := float32(xs) * float32(ws[o]) / float32(ys)
		want = append(want, requant(c[o*oh*ow:(o+1)*oh*ow], factor, 6, -128, 127)...)
	}
	checkClose(t, "y", got[0], want, 0)
}
