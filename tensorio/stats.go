package tensorio

import (
	"fmt"
	"math"
	"slices"
)

// Statistical checks, for outputs that are random draws: another
// generator's expected values cannot match element by element, so the
// check tests what the distribution fixes (type, shape, the values'
// range and the first moment) instead.

// CheckBernoulli checks that got is a draw of independent Bernoulli
// variables with the probabilities p (1 − p when complement): it has
// want's element type and shape and p's element count, every element is
// 0 or 1 (0 where the probability is 0, 1 where it is 1), and the number
// of ones is within 4 standard deviations, plus 1 for the granularity, of
// its expectation Σq (q the probabilities; the variance is Σq(1 − q)).
func CheckBernoulli(p, got, want Tensor, complement bool) error {
	if got.Elem != want.Elem {
		return fmt.Errorf("element type %s differs from the expected %s", got.Elem, want.Elem)
	}
	if !slices.Equal(got.Dims, want.Dims) {
		return fmt.Errorf("shape %s differs from the expected %s", FormatDims(got.Dims), FormatDims(want.Dims))
	}
	probs, err := Float64s(p)
	if err != nil {
		return fmt.Errorf("probabilities: %w", err)
	}
	ys, err := Float64s(got)
	if err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if len(probs) != len(ys) {
		return fmt.Errorf("result has %d elements, the probabilities %d", len(ys), len(probs))
	}
	var ones, mean, variance float64
	for i, y := range ys {
		q := probs[i]
		if complement {
			q = 1 - q
		}
		if y != 0 && y != 1 || q <= 0 && y != 0 || q >= 1 && y != 1 {
			return fmt.Errorf("element %d is %v, with probability %v of 1", i, y, q)
		}
		ones += y
		mean += q
		variance += q * (1 - q)
	}
	if bound := 4*math.Sqrt(variance) + 1; math.Abs(ones-mean) > bound {
		return fmt.Errorf("%v of %d elements are 1, expected %.3g ± %.3g", ones, len(ys), mean, bound)
	}
	return nil
}

// CheckDropout checks that y (and the mask, when not nil) is a training
// Dropout of x with the given ratio: y and the mask have the expected
// types and shapes (wantY, wantMask), each element of y is either x·scale
// (scale = 1/(1 − ratio), relative error at most 1e-6, or NaN where that
// is NaN) where it is kept or 0 where it is dropped, the mask says which
// (when given), and the number of kept elements is within 4 standard
// deviations, plus 1, of its expectation n·(1 − ratio). Without a mask,
// elements whose kept and dropped values are equal (x = 0) are not
// counted.
func CheckDropout(x Tensor, ratio float64, y, wantY Tensor, mask, wantMask *Tensor) error {
	if y.Elem != wantY.Elem || !slices.Equal(y.Dims, wantY.Dims) {
		return fmt.Errorf("output 0 has type %s, want %s", y.Type(), wantY.Type())
	}
	xs, err := Float64s(x)
	if err != nil {
		return fmt.Errorf("input 0: %w", err)
	}
	ys, err := Float64s(y)
	if err != nil {
		return fmt.Errorf("output 0: %w", err)
	}
	if len(xs) != len(ys) {
		return fmt.Errorf("output 0 has %d elements, the input %d", len(ys), len(xs))
	}
	var ms []float64
	if mask != nil {
		if wantMask == nil || mask.Elem != wantMask.Elem || !slices.Equal(mask.Dims, wantMask.Dims) {
			return fmt.Errorf("the mask has type %s, want that of the expected mask", mask.Type())
		}
		if ms, err = Float64s(*mask); err != nil {
			return fmt.Errorf("mask: %w", err)
		}
	}
	scale := 1 / (1 - ratio)
	var kept, counted float64
	for i, v := range ys {
		w := xs[i] * scale
		isKept := v == w || math.IsNaN(v) && math.IsNaN(w) || math.Abs(v-w) <= 1e-6*math.Abs(w)
		isDropped := v == 0 || math.IsNaN(v) && math.IsInf(xs[i], 0)
		switch {
		case ms != nil && ms[i] == 1 && !isKept:
			return fmt.Errorf("element %d is kept but is %v, want %v", i, v, w)
		case ms != nil && ms[i] == 0 && !isDropped:
			return fmt.Errorf("element %d is dropped but is %v", i, v)
		case ms != nil:
			kept += ms[i]
			counted++
		case !isKept && !isDropped:
			return fmt.Errorf("element %d is %v, neither 0 nor %v", i, v, w)
		case isKept != isDropped:
			if isKept {
				kept++
			}
			counted++
		}
	}
	q := 1 - ratio
	if bound := 4*math.Sqrt(counted*q*(1-q)) + 1; math.Abs(kept-counted*q) > bound {
		return fmt.Errorf("%v of %v elements are kept, expected %.3g ± %.3g", kept, counted, counted*q, bound)
	}
	return nil
}
