package importer

import (
	"fmt"
	"math"
	"math/cmplx"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// dftRef is the naive DFT of length n of x (truncated or zero-padded),
// forward (e^−iθ) or inverse (e^+iθ / n), in complex128.
func dftRef(x []complex128, n int, inverse bool) []complex128 {
	out := make([]complex128, n)
	sign, scale := -1.0, 1.0
	if inverse {
		sign, scale = 1, 1/float64(n)
	}
	for k := 0; k < n; k++ {
		var s complex128
		for j := 0; j < n && j < len(x); j++ {
			s += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k)/float64(n)))
		}
		out[k] = s * complex(scale, 0)
	}
	return out
}

// irfftRef is numpy's irfft of length n: the Hermitian extension of the
// first n/2 + 1 entries of x (imaginary parts of bins 0 and n/2 ignored).
func irfftRef(x []complex128, n int) []float64 {
	full := make([]complex128, n)
	for k := 0; k <= n/2 && k < len(x); k++ {
		v := x[k]
		if k == 0 || 2*k == n {
			v = complex(real(v), 0)
		}
		full[k] = v
		if k > 0 && n-k != k {
			full[n-k] = cmplx.Conj(v)
		}
	}
	y := dftRef(full, n, true)
	out := make([]float64, n)
	for i, v := range y {
		out[i] = real(v)
	}
	return out
}

func TestDFT(t *testing.T) {
	// x is [2, L, 3, c]: the transform runs along axis 1 (moved next to
	// the complex axis and back), the other axes are batch.
	const l = 6
	cases := []struct {
		c                 int
		n                 int // dft_length, 0 for the default
		inverse, onesided bool
	}{
		{1, 0, false, false}, {2, 0, false, false}, {1, 0, false, true}, {2, 4, false, false}, {1, 9, false, true},
		{2, 0, true, false}, {2, 5, true, false}, {2, 0, true, true}, {2, 7, true, true}, {1, 0, true, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("c%d_n%d_inv%v_one%v", c.c, c.n, c.inverse, c.onesided), func(t *testing.T) {
			n := l
			if c.inverse && c.onesided {
				n = 2 * (l - 1)
			}
			if c.n > 0 {
				n = c.n
			}
			k, d := n, 2
			switch {
			case c.inverse && c.onesided:
				d = 1
			case c.onesided:
				k = n/2 + 1
			}
			x := pseudo(2*l*3*c.c, -50, 50, uint64(3+c.n))
			for i := range x {
				x[i] /= 8
			}
			ins := []string{"x", "", "axis"}
			inits := []*onnxpb.TensorProto{tensorProto("axis", vals(niro.I64, nil, 1))}
			if c.n > 0 {
				ins[1] = "len"
				inits = append(inits, tensorProto("len", vals(niro.I64, nil, float64(c.n))))
			}
			m := model(20, graph("g",
				[]*onnxpb.NodeProto{node("DFT", ins, []string{"y"}, attrInt("inverse", b2i(c.inverse)), attrInt("onesided", b2i(c.onesided)))},
				[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, l, 3, int64(c.c))},
				[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, int64(k), 3, int64(d))}, inits...))
			got := runValues(t, m, vals(niro.F32, []int64{2, l, 3, int64(c.c)}, x...))[0]
			want := make([]float64, 2*k*3*d)
			for b := 0; b < 2; b++ {
				for j := 0; j < 3; j++ {
					sig := make([]complex128, l)
					for i := range sig {
						base := ((b*l+i)*3 + j) * c.c
						sig[i] = complex(x[base], 0)
						if c.c == 2 {
							sig[i] = complex(x[base], x[base+1])
						}
					}
					if c.inverse && c.onesided {
						for i, v := range irfftRef(sig, n) {
							want[(b*k+i)*3+j] = v
						}
						continue
					}
					y := dftRef(sig, n, c.inverse)
					for i := 0; i < k; i++ {
						at := ((b*k+i)*3 + j) * 2
						want[at], want[at+1] = real(y[i]), imag(y[i])
					}
				}
			}
			checkClose(t, "y", got, want, 1e-6)
		})
	}
}

func TestSTFT(t *testing.T) {
	// A complex signal of 20 samples, frames of 8 samples 5 apart (3
	// frames) with a window, two-sided.
	const sl, fl, step = 20, 8, 5
	m := model(17, graph("g",
		[]*onnxpb.NodeProto{node("STFT", []string{"x", "step", "w", "len"}, []string{"y"}, attrInt("onesided", 0))},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, sl, 2), vi("w", dtFloat, fl)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 1, 3, fl, 2)},
		tensorProto("step", vals(niro.I64, nil, step)), tensorProto("len", vals(niro.I64, nil, fl))))
	x, w := pseudo(2*sl, -20, 20, 9), pseudo(fl, 0, 10, 10)
	for i := range w {
		w[i] /= 10
	}
	got := runValues(t, m, vals(niro.F32, []int64{1, sl, 2}, x...), vals(niro.F32, []int64{fl}, w...))[0]
	var want []float64
	for f := 0; f < 3; f++ {
		frame := make([]complex128, fl)
		for j := range frame {
			at := 2 * (f*step + j)
			frame[j] = complex(float64(float32(x[at]*w[j])), float64(float32(x[at+1]*w[j])))
		}
		for _, v := range dftRef(frame, fl, false) {
			want = append(want, real(v), imag(v))
		}
	}
	checkClose(t, "y", got, want, 1e-6)

	// A frame step computed at run time keeps the node an UnknownOp whose
	// reason asks for its value.
	dyn := model(17, graph("g",
		[]*onnxpb.NodeProto{node("STFT", []string{"x", "step"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, sl, 1), vi("step", dtInt64)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 1, 1, sl/2+1, 2)}))
	if r := unknownReason(t, dyn); r != `input 1 (frame_step, "step") must be known at compile time, but it is computed at run time` {
		t.Errorf("reason = %q", r)
	}
}
