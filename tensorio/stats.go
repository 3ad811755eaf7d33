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
