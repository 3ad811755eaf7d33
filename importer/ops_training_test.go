package importer

import (
	"fmt"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// The optimizer steps against the reference's formulas in float64, at the
// first step (T = 0) and a later one (T = 3), for two tensors at once.
func TestOptimizers(t *testing.T) {
	const r = 0.1
	xs := [][]float64{{1.2, -2.8}, {0.5}}
	gs := [][]float64{{-0.94, 2.5}, {3}}
	vs := [][]float64{{1.7, 3.6}, {-0.2}}
	hs := [][]float64{{0.1, 0.4}, {2}}
	const nc, alpha, beta, eps, decay, post = 0.001, 0.95, 0.1, 1e-3, 0.1, 0.25
	f := func(v float64) float64 { return float64(float32(v)) }
	type step func(ti int, x, g, v, h float64) []float64
	cases := []struct {
		op     string
		groups int
		attrs  []*onnxpb.AttributeProto
		want   step
	}{
		{"Momentum", 3, []*onnxpb.AttributeProto{attrFloat("alpha", alpha), attrFloat("beta", beta), attrFloat("norm_coefficient", nc), attrString("mode", "standard")},
			func(ti int, x, g, v, _ float64) []float64 {
				gr := f(nc)*x + g
				b := 1.0
				if ti > 0 {
					b = f(beta)
				}
				vn := f(alpha)*v + b*gr
				return []float64{x - r*vn, vn}
			}},
		{"Momentum", 3, []*onnxpb.AttributeProto{attrFloat("alpha", alpha), attrFloat("beta", beta), attrFloat("norm_coefficient", nc), attrString("mode", "nesterov")},
			func(ti int, x, g, v, _ float64) []float64 {
				gr := f(nc)*x + g
				b := 1.0
				if ti > 0 {
					b = f(beta)
				}
				vn := f(alpha)*v + b*gr
				return []float64{x - r*(gr+f(alpha)*vn), vn}
			}},
		{"Adagrad", 3, []*onnxpb.AttributeProto{attrFloat("decay_factor", decay), attrFloat("epsilon", eps), attrFloat("norm_coefficient", nc)},
			func(ti int, x, g, h, _ float64) []float64 {
				rr := r / (1 + float64(ti)*f(decay))
				gr := f(nc)*x + g
				hn := h + gr*gr
				return []float64{x - rr*gr/(math.Sqrt(hn)+f(eps)), hn}
			}},
		{"Adam", 4, []*onnxpb.AttributeProto{attrFloat("alpha", alpha), attrFloat("beta", beta), attrFloat("epsilon", eps), attrFloat("norm_coefficient", nc), attrFloat("norm_coefficient_post", post)},
			func(ti int, x, g, v, h float64) []float64 {
				gr := f(nc)*x + g
				vn := f(alpha)*v + (1-f(alpha))*gr
				hn := f(beta)*h + (1-f(beta))*gr*gr
				rr := r
				if ti > 0 {
					rr = r * math.Sqrt(1-math.Pow(f(beta), float64(ti))) / (1 - math.Pow(f(alpha), float64(ti)))
				}
				xn := (1 - f(post)) * (x - rr*(vn/(math.Sqrt(hn)+f(eps))))
				return []float64{xn, vn, hn}
			}},
	}
	for _, c := range cases {
		for _, ti := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/%s/T=%d", c.op, c.attrs[len(c.attrs)-1].GetName(), ti), func(t *testing.T) {
				ins := []string{"R", "T"}
				vis := []*onnxpb.ValueInfoProto{vi("R", dtFloat), vi("T", dtInt64)}
				var outs []string
				var ovis []*onnxpb.ValueInfoProto
				groups := [][][]float64{xs, gs, vs, hs}[:c.groups]
				for gi := range groups {
					for i := range xs {
						name := fmt.Sprintf("in%d_%d", gi, i)
						ins = append(ins, name)
						vis = append(vis, vi(name, dtFloat, int64(len(xs[i]))))
						if gi != 1 {
							out := fmt.Sprintf("out%d_%d", gi, i)
							outs = append(outs, out)
							ovis = append(ovis, vi(out, dtFloat, int64(len(xs[i]))))
						}
					}
				}
				m := modelOpsets(graph("g", []*onnxpb.NodeProto{domainNode(trainingDomain, c.op, ins, outs, c.attrs...)}, vis, ovis),
					map[string]int64{trainingDomain: 1})
				in := []tensorio.Tensor{vals(niro.F32, nil, r), vals(niro.I64, nil, float64(ti))}
				for _, grp := range groups {
					for _, v := range grp {
						in = append(in, vals(niro.F32, []int64{int64(len(v))}, v...))
					}
				}
				got := runValues(t, m, in...)
				for i := range xs {
					for j := range xs[i] {
						var h float64
						if c.groups == 4 {
							h = hs[i][j]
						}
						want := c.want(ti, f(xs[i][j]), f(gs[i][j]), f(vs[i][j]), f(h))
						if c.op == "Adagrad" {
							want = c.want(ti, f(xs[i][j]), f(gs[i][j]), f(vs[i][j]), 0)
						}
						for o, w := range want {
							checkClose(t, fmt.Sprintf("output %d of tensor %d [%d]", o, i, j), got[o*len(xs)+i][j:j+1], []float64{w}, 2e-6)
						}
					}
				}
			})
		}
	}
}
