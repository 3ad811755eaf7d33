package importer

import (
	"fmt"
	"math"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// Det, Compress and MelWeightMatrix.
//
//   - Det: Gaussian elimination with partial pivoting, unrolled over the
//     (static) matrix size, batched over the leading axes.
//   - Compress: a gather of the positions where the condition holds; the
//     condition fixes the output's shape, so it must be known at compile
//     time (`niro run` and `niro test` bind it from the data).
//   - MelWeightMatrix: every input fixes the output, so it is computed at
//     import, as the reference computes it, and becomes a constant.

func init() {
	register("Det", opSpec{Since: 11, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: detConv})
	register("Compress",
		opSpec{Since: 9, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: compressConv},
		opSpec{Since: 11, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"axis"}, Convert: compressConv})
	register("MelWeightMatrix", opSpec{Since: 17, In: [2]int{5, 5}, Out: [2]int{1, 1}, Attrs: []string{"output_datatype"}, Convert: melWeightConv})
}

// maxDetSize bounds the matrix size Det unrolls its elimination for.
const maxDetSize = 64

// detConv maps Det on [..., n, n]: per matrix, in the input's float type
// (f32 for f16 and bf16), n − 1 elimination steps. Step j picks the first
// row of largest magnitude in the current column (argmax), swaps it to the
// top (a gather_elements; the sign flips when it moves), multiplies the
// running determinant by the pivot, and replaces the trailing block by
// M[1:, 1:] − (M[1:, 0] / pivot) · M[0, 1:] (0 instead of the quotient for
// a zero pivot, whose determinant is 0). The result is the product of the
// pivots, in order, times the sign.
func detConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if nc.err != nil {
		return nc.err
	}
	if !ok {
		nc.notYet("Det needs a static input shape")
		return nil
	}
	r := len(dims)
	if r < 2 || dims[r-1] != dims[r-2] {
		return nc.errorf("input must be a batch of square matrices [..., n, n], is %s", x.Type)
	}
	n := dims[r-1]
	if n > maxDetSize {
		nc.notYet("Det unrolls its elimination for matrices of at most %d rows, has %d", maxDetSize, n)
		return nil
	}
	batch := int64(1)
	for _, d := range dims[:r-2] {
		batch *= d
	}
	e := elem(x)
	ct := computeType(e)
	m := nc.reshapeStatic(nc.cast(x, ct), []int64{batch, n, n})
	det := nc.scalar(ct, 1)
	sign := nc.scalar(ct, 1)
	zero := nc.scalar(ct, 0)
	sub := func(v niro.Value, from, size []int64) niro.Value {
		vd, _ := nc.staticDims(v)
		return nc.sliceRange(v, vd, from, []int64{1, 1, 1}, size)
	}
	for k := n; k > 0 && nc.err == nil; k-- {
		if k > 1 {
			col := nc.reshapeStatic(sub(m, []int64{0, 0, 0}, []int64{batch, k, 1}), []int64{batch, k})
			p := nc.op(&niro.ArgReduce{Kind: niro.ArgMax, Axis: 1, KeepDims: true, X: nc.un(niro.Abs, col)})
			rows := nc.iota(niro.I64, []int64{batch, k}, 1)
			i0 := nc.scalar(niro.I64, 0)
			// Row 0 reads row p and row p reads row 0.
			swapped := nc.sel(nc.cmp(niro.Eq, rows, p), i0, rows)
			idx := nc.sel(nc.cmp(niro.Eq, rows, i0), p, swapped)
			idx = nc.op(&niro.Broadcast{Shape: []int64{batch, k, k}, X: nc.reshapeStatic(idx, []int64{batch, k, 1})})
			m = nc.op(&niro.GatherElements{Axis: 1, X: m, Indices: idx})
			moved := nc.reshapeStatic(nc.cmp(niro.Ne, p, i0), []int64{batch})
			sign = nc.sel(moved, nc.un(niro.Neg, sign), sign)
		}
		pivot := sub(m, []int64{0, 0, 0}, []int64{batch, 1, 1})
		det = nc.bin(niro.Mul, det, nc.reshapeStatic(pivot, []int64{batch}))
		if k == 1 {
			break
		}
		l := sub(m, []int64{0, 1, 0}, []int64{batch, k - 1, 1})
		u := sub(m, []int64{0, 0, 1}, []int64{batch, 1, k - 1})
		f := nc.sel(nc.cmp(niro.Eq, pivot, zero), zero, nc.bin(niro.Div, l, pivot))
		m = nc.bin(niro.Sub, sub(m, []int64{0, 1, 1}, []int64{batch, k - 1, k - 1}), nc.bin(niro.Mul, f, u))
	}
	if n == 0 {
		det = nc.op(&niro.Broadcast{Shape: []int64{batch}, X: det})
	}
	y := nc.bin(niro.Mul, det, sign)
	nc.out(0, nc.cast(nc.reshapeStatic(y, append([]int64{}, dims[:r-2]...)), e))
	return nil
}

// broadcastTo broadcasts v to dims.
func (nc *nodeCtx) broadcastTo(v niro.Value, dims []int64) niro.Value {
	return nc.op(&niro.Broadcast{Shape: append([]int64{}, dims...), X: v})
}

// compressConv maps Compress: the slices of x along axis (of the
// flattened x without an axis) at the positions where the condition
// holds, in order; positions past the condition's end are dropped, as
// numpy does.
func compressConv(nc *nodeCtx) error {
	x, cond := nc.in(0), nc.in(1)
	if elem(cond) != niro.Bool {
		return nc.errorf("condition must hold bools, has %s", elem(cond))
	}
	if t := tensorOf(cond); !t.Unranked && t.Rank() != 1 {
		return nc.errorf("condition must be 1-D, is %s", t)
	}
	dims, ok := nc.staticDims(x)
	if !ok {
		nc.notYet("Compress needs a static input shape")
		return nil
	}
	k, ok := nc.knownOf(cond)
	if !ok {
		nc.needKnown(1, "condition")
		return nil
	}
	axis := 0
	if nc.attr("axis") != nil {
		axis = nc.axis(nc.attrInt("axis", 0), len(dims))
	} else {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		x = nc.reshapeStatic(x, []int64{n})
		dims = []int64{n}
	}
	if nc.err != nil {
		return nc.err
	}
	if int64(len(k.ints)) > dims[axis] {
		return nc.errorf("condition has %d elements, more than axis %d's extent %d", len(k.ints), axis, dims[axis])
	}
	var idx []int64
	for i, c := range k.ints {
		if c != 0 {
			idx = append(idx, int64(i))
		}
	}
	nc.out(0, nc.op(&niro.Gather{Axis: axis, X: x, Indices: nc.constInts(niro.I64, []int64{int64(len(idx))}, idx)}))
	return nil
}

// melWeightConv maps MelWeightMatrix: the [dft_length/2 + 1,
// num_mel_bins] matrix of triangular filters, computed at import in the
// reference's types (the edge frequencies' mel values in f32, the bin
// frequencies in f64, numpy's floor division) and converted to
// output_datatype (default f32).
func melWeightConv(nc *nodeCtx) error {
	names := []string{"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"}
	// Every input must be known; the reason names all that are not, so
	// that `niro run` and `niro test` bind them together.
	var missing []string
	for i, name := range names {
		if _, ok := nc.knownOf(nc.in(i)); !ok {
			missing = append(missing, fmt.Sprintf("%d (%s, %q)", i, name, nc.n.Inputs[i].Name))
		}
	}
	if len(missing) > 0 {
		nc.notYet("inputs %s must be known at compile time, but they are computed at run time", strings.Join(missing, ", "))
		return nil
	}
	var ints [3]int64
	for i, name := range names[:3] {
		v, ok := nc.knownScalarInt(i, name)
		if !ok {
			return nc.err
		}
		ints[i] = v
	}
	var edges [2]float64
	for i, name := range names[3:] {
		v, ok := nc.knownFloatsOf(3 + i)
		if !ok {
			return nc.errorf("%s must hold a float", name)
		}
		if len(v) != 1 {
			return nc.errorf("%s must hold one number, has %d", name, len(v))
		}
		edges[i] = v[0]
	}
	to, err := nc.dtypeAttr("output_datatype", niro.F32)
	if err != nil {
		return err
	}
	if !to.IsFloat() && !to.IsInt() {
		return nc.errorf("output_datatype must name a number type, names %s", to)
	}
	bins, dftLen, rate := ints[0], ints[1], ints[2]
	if bins < 1 || dftLen < 1 || rate < 1 || bins > 1<<16 || dftLen > 1<<24 || (dftLen/2+1)*bins > maxBasis {
		return nc.errorf("num_mel_bins %d, dft_length %d and sample_rate %d must be positive (and not huge)", bins, dftLen, rate)
	}
	w, err := melWeights(bins, dftLen, rate, edges[0], edges[1], elem(nc.in(3)) == niro.F64)
	if err != nil {
		return nc.errorf("%v", err)
	}
	k := &known{elem: to, dims: []int64{dftLen/2 + 1, bins}}
	if to.IsFloat() {
		k.floats = w
	} else {
		k.ints = make([]int64, len(w))
		for i, v := range w {
			k.ints[i] = int64(v)
		}
	}
	nc.out(0, nc.constKnown(k))
	return nil
}

// melWeights computes MelWeightMatrix's values in f64 as the reference:
// mel(f) = 2595·log10(1 + f/700) on the edge frequency's type (f32 unless
// f64), num_mel_bins + 2 points evenly mel_step apart from the lower
// edge, back to hertz and to bins as ⌊(dft_length + 1)·f // sample_rate⌋.
func melWeights(bins, dftLen, rate int64, lo, hi float64, f64 bool) ([]float64, error) {
	round := func(v float64) float64 {
		if f64 {
			return v
		}
		return float64(float32(v))
	}
	mel := func(f float64) float64 {
		q := round(round(1 + round(f/700)))
		return round(2595 * round(math.Log10(q)))
	}
	low, high := mel(lo), mel(hi)
	step := round(round(high-low) / float64(bins+2))
	spec := dftLen/2 + 1
	fb := make([]int64, bins+2)
	for i := range fb {
		f := float64(i)*step + low
		f = 700 * (math.Pow(10, f/2595) - 1)
		v := floorDiv(float64(dftLen+1)*f, float64(rate))
		if math.IsNaN(v) || v < 0 || v >= float64(spec) {
			return nil, errorString("the mel filter edges fall outside the spectrogram's bins")
		}
		fb[i] = int64(v)
	}
	out := make([]float64, spec*bins)
	for i := int64(0); i < bins; i++ {
		l, c, h := fb[i], fb[i+1], fb[i+2]
		if c == l {
			out[c*bins+i] = 1
		} else {
			for j := l; j <= c; j++ {
				out[j*bins+i] = float64(j-l) / float64(c-l)
			}
		}
		for j := c; j < h; j++ {
			out[j*bins+i] = float64(h-j) / float64(h-c)
		}
	}
	return out, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// floorDiv is numpy's floor_divide on floats (Python's float //).
func floorDiv(a, b float64) float64 {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl++
	}
	return fl
}
