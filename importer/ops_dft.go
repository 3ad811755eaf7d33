package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// DFT (opsets 17 and 20) and STFT (17) as one matmul with a constant
// basis: the transformed axis is moved next to the last (complex) axis,
// the two are flattened into one of length L·c (c = 1 for a real signal,
// 2 for interleaved real and imaginary parts), and the product with the
// [L·c, K·d] matrix of the transform's cos and sin terms gives the K
// outputs of d parts (2, or 1 for the real output of an inverse onesided
// transform). The sums are direct sums in ascending input order, in f64
// (inputs of every float type are widened, the basis entries are cos and
// sin of 2π·(k·n mod N)/N computed in f64, exact at the multiples of a
// quarter turn), and each output is rounded once to the input's type.
// numpy's FFT, which the reference uses, computes in another order; in
// f64 both are far more accurate than the f32 result, so the outputs agree
// to about an f32 ulp.

// maxBasis bounds the entries of a DFT basis (8 bytes each).
const maxBasis = 1 << 24

func init() {
	register("DFT",
		opSpec{Since: 17, In: [2]int{1, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis", "inverse", "onesided"}, Convert: dftConv},
		opSpec{Since: 20, In: [2]int{1, 3}, Out: [2]int{1, 1}, Attrs: []string{"inverse", "onesided"}, Convert: dftConv})
	register("STFT", opSpec{Since: 17, In: [2]int{2, 4}, Out: [2]int{1, 1}, Attrs: []string{"onesided"}, Convert: stftConv})
}

// knownScalarInt returns the one integer of input i, which must be known
// at compile time (what names it in the reason).
func (nc *nodeCtx) knownScalarInt(i int, what string) (int64, bool) {
	v, ok := nc.knownInts(i)
	if !ok {
		nc.needKnown(i, what)
		return 0, false
	}
	if len(v) != 1 {
		nc.fail("%s must hold one integer, has %d", what, len(v))
		return 0, false
	}
	return v[0], true
}

func dftConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	r := nc.rank(x)
	if nc.err != nil {
		return nc.err
	}
	axis := nc.attrInt("axis", 1)
	if nc.opset >= 20 {
		axis = -2
		if nc.has(2) {
			a, ok := nc.knownScalarInt(2, "axis")
			if !ok {
				return nc.err
			}
			axis = a
		}
	}
	if r < 2 {
		return nc.errorf("input must have rank at least 2 (the signal axes and the complex axis), is %s", x.Type)
	}
	if axis < -int64(r) || axis >= int64(r) {
		return nc.errorf("axis %d is out of range for rank %d", axis, r)
	}
	ax := int((axis + int64(r)) % int64(r))
	if ax == r-1 {
		return nc.errorf("axis %d names the complex axis", axis)
	}
	inverse, onesided := nc.attrInt("inverse", 0) != 0, nc.attrInt("onesided", 0) != 0
	dims, ok := nc.staticDims(x)
	if !ok {
		nc.notYet("DFT needs a static input shape")
		return nil
	}
	n := dims[ax]
	if inverse && onesided {
		n = 2 * (dims[ax] - 1)
	}
	if nc.has(1) {
		l, ok := nc.knownScalarInt(1, "dft_length")
		if !ok {
			return nc.err
		}
		n = l
	}
	if n < 1 || n > maxBasis {
		return nc.errorf("dft_length must be between 1 and %d, is %d", maxBasis, n)
	}
	nc.out(0, nc.dft(x, ax, n, inverse, onesided))
	return nil
}

// dft transforms x (static shape [..., L, ..., c], c = 1 or 2) along axis
// ax with length n: forward (onesided: the first n/2 + 1 frequencies),
// inverse (complex output, divided by n), or inverse onesided (the real
// signal of n samples whose Hermitian spectrum starts with x's first
// n/2 + 1 entries, as numpy's irfft: the imaginary parts of the zero and,
// for an even n, the n/2 frequency are ignored).
func (nc *nodeCtx) dft(x niro.Value, ax int, n int64, inverse, onesided bool) niro.Value {
	dims, _ := nc.staticDims(x)
	r := len(dims)
	c := dims[r-1]
	if c != 1 && c != 2 {
		nc.fail("the last axis must have extent 1 (real) or 2 (complex), has %d", c)
		return x
	}
	e := elem(x)
	// Move the transformed axis next to the complex one.
	perm := make([]int, 0, r)
	for i := 0; i < r-1; i++ {
		if i != ax {
			perm = append(perm, i)
		}
	}
	perm = append(perm, ax, r-1)
	x = nc.transposeOp(x, perm)
	tdims := make([]int64, r)
	for i, p := range perm {
		tdims[i] = dims[p]
	}
	// The inputs the transform reads: numpy truncates the signal (or the
	// spectrum) to n entries (n/2 + 1 for irfft) and pads it with zeros.
	used := n
	if inverse && onesided {
		used = n/2 + 1
	}
	l := min(tdims[r-2], used)
	if l < tdims[r-2] {
		starts, steps, sizes := make([]int64, r), make([]int64, r), append([]int64{}, tdims...)
		for i := range steps {
			steps[i] = 1
		}
		sizes[r-2] = l
		x = nc.sliceRange(x, tdims, starts, steps, sizes)
		tdims[r-2] = l
	}
	k, d := n, int64(2)
	switch {
	case inverse && onesided:
		d = 1
	case onesided:
		k = n/2 + 1
	}
	if l*c*k*d > maxBasis {
		nc.notYet("the DFT basis of %d×%d entries is larger than %d", l*c, k*d, maxBasis)
		return x
	}
	flat := append(append([]int64{}, tdims[:r-2]...), l*c)
	xf := nc.reshapeStatic(nc.cast(x, niro.F64), flat)
	basis := dftBasis(l, c, n, k, d, inverse, onesided)
	w := nc.constKnown(&known{elem: niro.F64, dims: []int64{l * c, k * d}, floats: basis})
	y := nc.matmulONNX(xf, w)
	out := append(append([]int64{}, tdims[:r-2]...), k, d)
	y = nc.cast(nc.reshapeStatic(y, out), e)
	inv := make([]int, r)
	for i, p := range perm {
		inv[p] = i
	}
	return nc.transposeOp(y, inv)
}

// cosSin returns cos and sin of 2π·m/n, exact at the multiples of a
// quarter turn.
func cosSin(m, n int64) (float64, float64) {
	switch {
	case m == 0:
		return 1, 0
	case 2*m == n:
		return -1, 0
	case 4*m == n:
		return 0, 1
	case 4*m == 3*n:
		return 0, -1
	}
	s, co := math.Sincos(2 * math.Pi * float64(m) / float64(n))
	return co, s
}

// dftBasis returns the [l·c, k·d] row-major matrix W with y = x·W, x the
// l input entries of c parts and y the k outputs of d parts (see dft).
func dftBasis(l, c, n, k, d int64, inverse, onesided bool) []float64 {
	w := make([]float64, l*c*k*d)
	at := func(i, ci, j, dj int64) *float64 { return &w[(i*c+ci)*k*d+j*d+dj] }
	for i := int64(0); i < l; i++ {
		for j := int64(0); j < k; j++ {
			co, s := cosSin(i*j%n, n)
			switch {
			case !inverse: // e^(−iθ): re = a·cos + b·sin, im = b·cos − a·sin
				*at(i, 0, j, 0), *at(i, 0, j, 1) = co, -s
				if c == 2 {
					*at(i, 1, j, 0), *at(i, 1, j, 1) = s, co
				}
			case !onesided: // e^(+iθ)/n: re = a·cos − b·sin, im = a·sin + b·cos
				fn := float64(n)
				*at(i, 0, j, 0), *at(i, 0, j, 1) = co/fn, s/fn
				if c == 2 {
					*at(i, 1, j, 0), *at(i, 1, j, 1) = -s/fn, co/fn
				}
			default: // irfft: frequency i counts twice but 0 and n/2
				edge := i == 0 || 2*i == n
				wt := 2.0
				if edge {
					wt = 1
				}
				fn := float64(n)
				*at(i, 0, j, 0) = wt * co / fn
				if c == 2 && !edge {
					*at(i, 1, j, 0) = -wt * s / fn
				}
			}
		}
	}
	return w
}

// stftConv maps STFT: frames of frame_length samples, frame_step apart
// (1 + (L − frame_length) / frame_step of them), gathered from the signal
// [batch, L, c], times the window (in the signal's type, as the
// reference), and the forward DFT of each frame (onesided by default).
func stftConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if nc.err != nil {
		return nc.err
	}
	if !ok {
		nc.notYet("STFT needs a static signal shape")
		return nil
	}
	if len(dims) != 3 {
		return nc.errorf("signal must have shape [batch, length, 1 or 2], is %s", x.Type)
	}
	step, ok := nc.knownScalarInt(1, "frame_step")
	if !ok {
		return nc.err
	}
	var win *niro.Value
	fl := int64(-1)
	if nc.has(2) {
		w := nc.in(2)
		wd, ok := nc.staticDims(w)
		if !ok || len(wd) != 1 {
			return nc.errorf("window must be a 1-D tensor of static extent, is %s", w.Type)
		}
		if elem(w) != elem(x) {
			return nc.errorf("window has element type %s, signal %s", elem(w), elem(x))
		}
		win, fl = &w, wd[0]
	}
	if nc.has(3) {
		v, ok := nc.knownScalarInt(3, "frame_length")
		if !ok {
			return nc.err
		}
		if fl >= 0 && v != fl {
			return nc.errorf("frame_length %d differs from the window's length %d", v, fl)
		}
		fl = v
	}
	if fl < 0 {
		fl = dims[1]
	}
	if step < 1 || fl < 1 || fl > dims[1] {
		return nc.errorf("frame_step %d and frame_length %d do not fit a signal of length %d", step, fl, dims[1])
	}
	frames := 1 + (dims[1]-fl)/step
	if frames*fl > maxBasis {
		nc.notYet("STFT of %d frames of %d samples has more than %d samples", frames, fl, maxBasis)
		return nil
	}
	idx := make([]int64, 0, frames*fl)
	for f := int64(0); f < frames; f++ {
		for j := int64(0); j < fl; j++ {
			idx = append(idx, f*step+j)
		}
	}
	g := nc.op(&niro.Gather{Axis: 1, X: x, Indices: nc.constInts(niro.I64, []int64{frames, fl}, idx)})
	if win != nil {
		g = nc.bin(niro.Mul, g, nc.reshapeStatic(*win, []int64{fl, 1}))
	}
	nc.out(0, nc.dft(g, 2, fl, false, nc.attrInt("onesided", 1) != 0))
	return nil
}
