// Command mathfit fits the polynomial coefficients of niro's f32 math
// functions (emit/mathpoly.go) and prints them:
//
//	go run ./scripts/mathfit
//
// Each fit is a weighted minimax polynomial approximation found with
// Lawson's algorithm (iteratively reweighted least squares, solved by
// Householder QR in float64) on Chebyshev-distributed points; the weight
// turns the polynomial's error into the relative error of the function
// (or, for erf's tail, the absolute error of erf). The printed maximum is
// the float64 error of the f32-rounded coefficients; the f32 evaluation's
// error in ulps is measured by emit's TestMathPolyULP.
package main

import (
	"fmt"
	"math"
)

type fit struct {
	name   string
	lo, hi float64
	deg    int
	// at returns the polynomial's variable v, the target g and the weight
	// w at the point x of [lo, hi].
	at func(x float64) (v, g, w float64)
}

func main() {
	fits := []fit{
		{"exp: e^r = 1 + r + r^2 P(r)", -0.3466, 0.3466, 5, func(r float64) (float64, float64, float64) {
			return r, (math.Expm1(r) - r) / (r * r), r * r / math.Exp(r)
		}},
		{"log: log1p(f) = f - f^2/2 + f^3 P(f)", math.Sqrt(0.5) - 1, math.Sqrt2 - 1, 8, func(f float64) (float64, float64, float64) {
			return f, (math.Log1p(f) - f + f*f/2) / (f * f * f), f * f * f / math.Log1p(f)
		}},
		{"tanh: tanh(a) = a + a^3 P(a^2), a < 0.625", 0, 0.625, 4, func(a float64) (float64, float64, float64) {
			return a * a, (math.Tanh(a) - a) / (a * a * a), a * a * a / math.Tanh(a)
		}},
		{"erf: erf(a) = a + a R(a^2), a < 0.875", 0, 0.875, 6, func(a float64) (float64, float64, float64) {
			return a * a, (math.Erf(a) - a) / a, a / math.Erf(a)
		}},
		{"erf: erf(a) = 1 - exp(-a^2 + U(a - 2.4375)), 0.875 <= a <= 4", 0.875, 4, 9, func(a float64) (float64, float64, float64) {
			return a - 2.4375, math.Log(math.Erfc(a)) + a*a, math.Erfc(a)
		}},
	}
	for _, f := range fits {
		c, e := lawson(f, 3000, 400)
		fmt.Printf("%s\n  max weighted error %.3g (%.2f ulp of 2^-24)\n", f.name, e, e/0x1p-24)
		for i := len(c) - 1; i >= 0; i-- {
			fmt.Printf("  c%d = %.9g  // 0x%08X\n", i, float32(c[i]), math.Float32bits(float32(c[i])))
		}
	}
}

// lawson returns the coefficients (constant first) of the weighted minimax
// polynomial and its maximum weighted error with the coefficients rounded
// to f32.
func lawson(f fit, n, iters int) ([]float64, float64) {
	xs := make([]float64, n)
	for i := range xs {
		t := math.Cos(math.Pi * (float64(i) + 0.5) / float64(n))
		xs[i] = (f.lo+f.hi)/2 + (f.hi-f.lo)/2*t
	}
	vs, gs, ws := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, x := range xs {
		vs[i], gs[i], ws[i] = f.at(x)
	}
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	m := f.deg + 1
	var c []float64
	for it := 0; it < iters; it++ {
		A := make([][]float64, n)
		b := make([]float64, n)
		for i := range xs {
			s := math.Sqrt(u[i]) * ws[i]
			row := make([]float64, m)
			p := 1.0
			for j := range row {
				row[j] = s * p
				p *= vs[i]
			}
			A[i] = row
			b[i] = s * gs[i]
		}
		c = lstsq(A, b, m)
		sum := 0.0
		for i := range xs {
			e := math.Abs(ws[i] * (horner(c, vs[i]) - gs[i]))
			u[i] *= e
			sum += u[i]
		}
		for i := range u {
			u[i] /= sum
		}
	}
	r := make([]float64, m)
	for j := range c {
		r[j] = float64(float32(c[j]))
	}
	worst := 0.0
	for k := 0; k <= 100000; k++ {
		x := f.lo + (f.hi-f.lo)*float64(k)/100000
		if x == 0 {
			continue
		}
		v, g, w := f.at(x)
		worst = math.Max(worst, math.Abs(w*(horner(r, v)-g)))
	}
	return c, worst
}

func horner(c []float64, v float64) float64 {
	p := 0.0
	for j := len(c) - 1; j >= 0; j-- {
		p = p*v + c[j]
	}
	return p
}

// lstsq solves min |A c - b| for the m unknowns by Householder QR.
func lstsq(A [][]float64, b []float64, m int) []float64 {
	n := len(A)
	for k := 0; k < m; k++ {
		norm := 0.0
		for i := k; i < n; i++ {
			norm += A[i][k] * A[i][k]
		}
		norm = math.Sqrt(norm)
		if A[k][k] > 0 {
			norm = -norm
		}
		v := make([]float64, n)
		for i := k; i < n; i++ {
			v[i] = A[i][k]
		}
		v[k] -= norm
		vv := 0.0
		for i := k; i < n; i++ {
			vv += v[i] * v[i]
		}
		if vv == 0 {
			continue
		}
		for j := k; j < m; j++ {
			d := 0.0
			for i := k; i < n; i++ {
				d += v[i] * A[i][j]
			}
			d = 2 * d / vv
			for i := k; i < n; i++ {
				A[i][j] -= d * v[i]
			}
		}
		d := 0.0
		for i := k; i < n; i++ {
			d += v[i] * b[i]
		}
		d = 2 * d / vv
		for i := k; i < n; i++ {
			b[i] -= d * v[i]
		}
	}
	c := make([]float64, m)
	for k := m - 1; k >= 0; k-- {
		s := b[k]
		for j := k + 1; j < m; j++ {
			s -= A[k][j] * c[j]
		}
		c[k] = s / A[k][k]
	}
	return c
}
