package main

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// Conformance tests whose outputs are random. The ONNX test generator drew
// their expected outputs from numpy's generator; niro draws from its own
// (docs/ops.md, "Random ops"), so the values cannot match element by
// element. For these tests TestConformanceHost replaces the element-wise
// comparison with a statistical check of the distribution the model
// defines: shape, element type, the range of values and the first moment.
// docs/conformance.md lists the tests and the reason.

// statisticalCheck checks the outputs got of one data set against the
// expected outputs want (their shapes and types) and the inputs ins.
type statisticalCheck func(ins []namedTensor, got, want []tensorio.Tensor) error

// statisticalTests maps test names (SUITE/TEST) to their check.
var statisticalTests = []struct {
	match *regexp.Regexp
	check statisticalCheck
}{
	// Bernoulli(p): P(1) = p.
	{regexp.MustCompile(`^node/test_bernoulli(_double|_seed)?$`), bernoulliCheck(false)},
	// The function body of Bernoulli that the _expanded tests inline is
	// Cast(Greater(RandomUniformLike(p), p)): P(1) = 1 − p.
	{regexp.MustCompile(`^node/test_bernoulli(_double|_seed)?_expanded$`), bernoulliCheck(true)},
}

// statisticalFor returns the check of the test in directory dir
// (…/SUITE/TEST), or nil when its outputs are compared element-wise.
func statisticalFor(dir string) statisticalCheck {
	name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
	for _, s := range statisticalTests {
		if s.match.MatchString(name) {
			return s.check
		}
	}
	return nil
}

// sameLayout checks that got has want's element type and shape.
func sameLayout(i int, got, want tensorio.Tensor) error {
	if got.Elem != want.Elem {
		return fmt.Errorf("output %d: element type %s differs from the expected %s", i, got.Elem, want.Elem)
	}
	if !slices.Equal(got.Dims, want.Dims) {
		return fmt.Errorf("output %d: shape %s differs from the expected %s", i, tensorio.FormatDims(got.Dims), tensorio.FormatDims(want.Dims))
	}
	return nil
}

// bernoulliCheck checks a Bernoulli draw of input 0's probabilities p
// (1 − p when complement): the output has the expected type and shape,
// every element is 0 or 1 (0 where the probability is 0, 1 where it is
// 1), and the number of ones is within 4 standard deviations (plus one
// for the granularity) of its expectation Σq, q the probabilities.
func bernoulliCheck(complement bool) statisticalCheck {
	return func(ins []namedTensor, got, want []tensorio.Tensor) error {
		if len(ins) != 1 || len(got) != 1 || len(want) != 1 {
			return fmt.Errorf("want 1 input and 1 output, have %d and %d", len(ins), len(got))
		}
		if err := sameLayout(0, got[0], want[0]); err != nil {
			return err
		}
		p, err := tensorio.Float64s(ins[0].t)
		if err != nil {
			return fmt.Errorf("input 0: %v", err)
		}
		y, err := tensorio.Float64s(got[0])
		if err != nil {
			return fmt.Errorf("output 0: %v", err)
		}
		if len(p) != len(y) {
			return fmt.Errorf("output 0 has %d elements, the probabilities %d", len(y), len(p))
		}
		var ones, mean, variance float64
		for i, v := range y {
			q := p[i]
			if complement {
				q = 1 - q
			}
			if v != 0 && v != 1 || q <= 0 && v != 0 || q >= 1 && v != 1 {
				return fmt.Errorf("output 0 element %d is %v, with probability %v of 1", i, v, q)
			}
			ones += v
			mean += q
			variance += q * (1 - q)
		}
		if d, bound := math.Abs(ones-mean), 4*math.Sqrt(variance)+1; d > bound {
			return fmt.Errorf("output 0 has %v ones of %d, expected %.3g ± %.3g", ones, len(y), mean, bound)
		}
		return nil
	}
}

// TestBernoulliCheck checks the statistical check itself: it accepts a
// draw near the expectation and rejects wrong values, types and counts.
func TestBernoulliCheck(t *testing.T) {
	f32 := func(vs ...float32) tensorio.Tensor {
		ts := tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(vs))}}
		for _, v := range vs {
			ts.Data = append(ts.Data, byte(math.Float32bits(v)), byte(math.Float32bits(v)>>8), byte(math.Float32bits(v)>>16), byte(math.Float32bits(v)>>24))
		}
		return ts
	}
	p := make([]float32, 100)
	for i := range p {
		p[i] = 0.5
	}
	ins := []namedTensor{{t: f32(p...)}}
	half := make([]float32, 100)
	for i := 0; i < 100; i += 2 {
		half[i] = 1
	}
	want := []tensorio.Tensor{f32(half...)}
	if err := bernoulliCheck(false)(ins, []tensorio.Tensor{f32(half...)}, want); err != nil {
		t.Errorf("50 ones of 100 at p = 0.5: %v", err)
	}
	allOnes := make([]float32, 100)
	for i := range allOnes {
		allOnes[i] = 1
	}
	if err := bernoulliCheck(false)(ins, []tensorio.Tensor{f32(allOnes...)}, want); err == nil {
		t.Error("100 ones of 100 at p = 0.5 passed")
	}
	bad := append([]float32{}, half...)
	bad[1] = 2
	if err := bernoulliCheck(false)(ins, []tensorio.Tensor{f32(bad...)}, want); err == nil {
		t.Error("a 2 passed")
	}
	sure := []namedTensor{{t: f32(1, 0)}}
	if err := bernoulliCheck(false)(sure, []tensorio.Tensor{f32(0, 0)}, []tensorio.Tensor{f32(1, 0)}); err == nil {
		t.Error("a 0 at p = 1 passed")
	}
	if err := bernoulliCheck(true)(sure, []tensorio.Tensor{f32(0, 1)}, []tensorio.Tensor{f32(0, 1)}); err != nil {
		t.Errorf("complement of p = (1, 0): %v", err)
	}
	wrongType := tensorio.Tensor{Elem: niro.F64, Dims: []int64{100}, Data: make([]byte, 800)}
	if err := bernoulliCheck(false)(ins, []tensorio.Tensor{wrongType}, want); err == nil {
		t.Error("an f64 output passed for an f32 one")
	}
	if statisticalFor("/x/node/test_bernoulli_seed") == nil || statisticalFor("/x/node/test_bernoulli_seed_expanded") == nil || statisticalFor("/x/node/test_abs") != nil {
		t.Error("statisticalFor matches the wrong tests")
	}
}
