package interp

import (
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
)

// recurrent evaluates lstm, gru and rnn (docs/ops.md, "Recurrent
// networks") in the compiled code's operation order (emit/recurrent.go):
// per direction X·Wᵀ for all steps first (each element's products summed
// from +0 in ascending k), the summed biases Wb + Rb, then per step the
// product H·Rᵀ (the same order) and the cell, every product rounded before
// its add, with niro's exp, log and tanh.
func recurrent(op *niro.Recurrent, ins []*tensor, opts Options) ([]*tensor, error) {
	switch ins[0].elem {
	case niro.F32:
		return recurrentF[float32](op, ins, opts, func(t *tensor) []float32 { return t.f32 })
	case niro.F64:
		return recurrentF[float64](op, ins, opts, func(t *tensor) []float64 { return t.f64 })
	}
	return nil, fmt.Errorf("%w: %s on %s", ErrUnsupported, op.Name(), ins[0].elem)
}

func recurrentF[F float](op *niro.Recurrent, ins []*tensor, opts Options, data func(*tensor) []F) ([]*tensor, error) {
	x := ins[0]
	if len(x.dims) != 3 {
		return nil, fmt.Errorf("%s: X has shape %v, want rank 3", op.Name(), x.dims)
	}
	S, N, I := int(x.dims[0]), int(x.dims[1]), int(x.dims[2])
	H, G, D := int(op.HiddenSize), op.Kind.Gates(), op.Directions()
	GH := G * H
	A := op.Kind.Activations()
	gruSplit := op.Kind == niro.GRU && !op.LinearBeforeReset
	xs, ws, rs, bs, h0s := data(x), data(ins[1]), data(ins[2]), data(ins[3]), data(ins[5])
	lens := ins[4].ints
	if len(lens) != N || len(ws) != D*I*GH || len(rs) != D*H*GH || len(bs) != D*2*GH || len(h0s) != D*N*H {
		return nil, fmt.Errorf("%s: operand shapes do not match X %v, %d directions and hidden size %d", op.Name(), x.dims, D, H)
	}
	var c0s, ps []F
	if op.Kind == niro.LSTM {
		c0s, ps = data(ins[6]), data(ins[7])
		if len(c0s) != D*N*H || len(ps) != D*3*H {
			return nil, fmt.Errorf("%s: initial c or peepholes do not match %d directions and hidden size %d", op.Name(), D, H)
		}
	}
	e := x.elem
	Y := newTensor(e, []int64{int64(S), int64(D), int64(N), int64(H)})
	YH := newTensor(e, []int64{int64(D), int64(N), int64(H)})
	var YC *tensor
	if op.Kind == niro.LSTM {
		YC = newTensor(e, []int64{int64(D), int64(N), int64(H)})
	}
	ys, yhs := data(Y), data(YH)

	clip := func(v F) F {
		if !op.HasClip {
			return v
		}
		return minimum(maximum(v, F(-op.Clip)), F(op.Clip))
	}
	un := func(k niro.UnaryKind, v F) F {
		if f, ok := any(v).(float32); ok {
			return F(polyOrLibm(k, f, opts))
		}
		return F(math64(k, float64(v)))
	}
	act := func(kind string, alpha, beta float64, v F) F {
		al, be := F(alpha), F(beta)
		switch kind {
		case "Relu":
			return maximum(v, 0)
		case "Tanh":
			return un(niro.Tanh, v)
		case "Sigmoid":
			return 1 / F(1+un(niro.Exp, -v))
		case "Affine":
			return F(al*v) + be
		case "LeakyRelu":
			if v < 0 {
				return F(v * al)
			}
			return v
		case "ThresholdedRelu":
			if v > al {
				return v
			}
			return 0
		case "ScaledTanh":
			return F(al * un(niro.Tanh, F(be*v)))
		case "HardSigmoid":
			return maximum(minimum(F(al*v)+be, 1), 0)
		case "Elu":
			if v < 0 {
				return F(al * F(un(niro.Exp, v)-1))
			}
			return v
		case "Softsign":
			return v / F(1+F(math.Abs(float64(v))))
		case "Softplus":
			return un(niro.Log, F(un(niro.Exp, v)+1))
		}
		return v
	}
	// product returns lhs [M, K] times rhs (K rows of stride rstride from
	// column offset roff, cols columns), each element summed from +0 in
	// ascending k.
	product := func(out, lhs []F, M, K int, rhs []F, rstride, roff, cols int) {
		for m := range M {
			o := out[m*cols : (m+1)*cols]
			for j := range o {
				o[j] = 0
			}
			for k := range K {
				a := lhs[m*K+k]
				row := rhs[k*rstride+roff : k*rstride+roff+cols]
				for j, b := range row {
					o[j] = o[j] + F(a*b)
				}
			}
		}
	}
	for d := range D {
		reversed := op.Reversed(d)
		acts := op.Activations[d*A : (d+1)*A]
		alpha, beta := op.Alpha[d*A:(d+1)*A], op.Beta[d*A:(d+1)*A]
		a := func(k int, v F) F { return act(acts[k], alpha[k], beta[k], v) }
		xw := make([]F, S*N*GH)
		product(xw, xs, S*N, I, ws[d*I*GH:(d+1)*I*GH], GH, 0, GH)
		bw, br := bs[d*2*GH:d*2*GH+GH], bs[d*2*GH+GH:(d+1)*2*GH]
		bsum := make([]F, GH)
		for j := range bsum {
			bsum[j] = bw[j] + br[j]
		}
		rt := rs[d*H*GH : (d+1)*H*GH]
		h := append([]F(nil), h0s[d*N*H:(d+1)*N*H]...)
		var c, p []F
		if op.Kind == niro.LSTM {
			c = append([]F(nil), c0s[d*N*H:(d+1)*N*H]...)
			p = ps[d*3*H : (d+1)*3*H]
		}
		cols := GH
		if gruSplit {
			cols = 2 * H
		}
		hr := make([]F, N*cols)
		var z, rh, hrh []F
		if gruSplit {
			z, rh, hrh = make([]F, N*H), make([]F, N*H), make([]F, N*H)
		}
		for t := range S {
			tau := t
			if reversed {
				tau = S - 1 - t
			}
			product(hr, h, N, H, rt, GH, 0, cols)
			if gruSplit {
				for n := range N {
					if int64(tau) >= lens[n] {
						continue
					}
					xr, hrr := xw[(tau*N+n)*GH:], hr[n*cols:]
					for j := range H {
						z[n*H+j] = a(0, clip((xr[j]+hrr[j])+bsum[j]))
						r := a(0, clip((xr[H+j]+hrr[H+j])+bsum[H+j]))
						rh[n*H+j] = F(r * h[n*H+j])
					}
				}
				product(hrh, rh, N, H, rt, GH, 2*H, H)
			}
			for n := range N {
				if int64(tau) >= lens[n] {
					continue // the row keeps its state; Y stays 0
				}
				xr, hrr := xw[(tau*N+n)*GH:], hr[n*cols:]
				yr := ys[((tau*D+d)*N+n)*H:]
				for j := range H {
					gate := func(g int) F { return (xr[g*H+j] + hrr[g*H+j]) + bsum[g*H+j] }
					hp := h[n*H+j]
					var hn F
					switch op.Kind {
					case niro.RNN:
						hn = a(0, clip(gate(0)))
					case niro.LSTM:
						cp := c[n*H+j]
						i := a(0, clip(gate(0)+F(p[j]*cp)))
						var f F
						if op.InputForget {
							f = 1 - i
						} else {
							f = a(0, clip(gate(2)+F(p[2*H+j]*cp)))
						}
						cc := a(1, clip(gate(3)))
						cn := F(f*cp) + F(i*cc)
						o := a(0, clip(gate(1)+F(p[H+j]*cn)))
						hn = F(o * a(2, cn))
						c[n*H+j] = cn
					case niro.GRU:
						wbh, rbh := bw[2*H+j], br[2*H+j]
						var zz, hh F
						if op.LinearBeforeReset {
							zz = a(0, clip(gate(0)))
							r := a(0, clip(gate(1)))
							hh = a(1, clip((xr[2*H+j]+F(r*(hrr[2*H+j]+rbh)))+wbh))
						} else {
							zz = z[n*H+j]
							hh = a(1, clip(((xr[2*H+j]+hrh[n*H+j])+wbh)+rbh))
						}
						hn = F(F(1-zz)*hh) + F(zz*hp)
					}
					h[n*H+j] = hn
					yr[j] = hn
				}
			}
		}
		copy(yhs[d*N*H:(d+1)*N*H], h)
		if YC != nil {
			copy(data(YC)[d*N*H:(d+1)*N*H], c)
		}
	}
	out := []*tensor{Y, YH}
	if YC != nil {
		out = append(out, YC)
	}
	return out, nil
}
