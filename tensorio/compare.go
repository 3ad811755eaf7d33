package tensorio

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// Result is the outcome of [Compare].
type Result struct {
	// OK reports that every element is within tolerance.
	OK bool
	// Elements is the number of elements compared.
	Elements int64
	// Mismatches is the number of elements outside the tolerance.
	Mismatches int64
	// MaxAbs is the largest |got - want| over all elements; MaxRel the
	// largest |got - want| / |want| (+Inf where want is 0 and got is not).
	// Elements that are NaN in both tensors, or the same infinity, count
	// as 0; a NaN or infinity on one side only counts as +Inf.
	MaxAbs, MaxRel float64
	// First is the flat row-major index of the first mismatch, -1 if none;
	// FirstGot and FirstWant are the two values there, formatted.
	First               int64
	FirstGot, FirstWant string
}

// String summarises r in one line.
func (r Result) String() string {
	s := fmt.Sprintf("max abs error %s, max rel error %s", fmtErr(r.MaxAbs), fmtErr(r.MaxRel))
	if r.OK {
		return s + ", ok"
	}
	return fmt.Sprintf("%s, %d of %d elements differ; first at index %d: got %s, want %s",
		s, r.Mismatches, r.Elements, r.First, r.FirstGot, r.FirstWant)
}

func fmtErr(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// Compare compares got against want elementwise with the rule of numpy's
// assert_allclose, as the ONNX backend test runner uses it:
// |got - want| <= atol + rtol*|want|, where NaN equals NaN and an infinity
// equals only the same infinity. Complex elements use the modulus of the
// difference. Integer and bool elements must be equal exactly (rtol and
// atol do not apply). The tensors must have the same element type and
// shape; otherwise, or when a tensor is malformed, Compare returns an error.
func Compare(got, want Tensor, rtol, atol float64) (Result, error) {
	if got.Elem != want.Elem {
		return Result{}, fmt.Errorf("element type %s differs from the expected %s", got.Elem, want.Elem)
	}
	if !slices.Equal(got.Dims, want.Dims) {
		return Result{}, fmt.Errorf("shape %s differs from the expected %s", FormatDims(got.Dims), FormatDims(want.Dims))
	}
	if err := got.Check(); err != nil {
		return Result{}, fmt.Errorf("result: %w", err)
	}
	if err := want.Check(); err != nil {
		return Result{}, fmt.Errorf("expected value: %w", err)
	}
	n := want.NumElements()
	r := Result{Elements: n, First: -1}
	elem := want.Elem
	for i := range n {
		var ok bool
		var abs, rel float64
		switch {
		case elem.IsComplex():
			ok, abs, rel = closeComplex(complexAt(elem, got.Data, i), complexAt(elem, want.Data, i), rtol, atol)
		case elem.IsFloat():
			ok, abs, rel = closeFloat(floatAt(elem, got.Data, i), floatAt(elem, want.Data, i), rtol, atol)
		default:
			ok, abs, rel = equalInt(elem, intAt(elem, got.Data, i), intAt(elem, want.Data, i))
		}
		r.MaxAbs = max(r.MaxAbs, abs)
		r.MaxRel = max(r.MaxRel, rel)
		if !ok {
			if r.Mismatches == 0 {
				r.First = i
				r.FirstGot, r.FirstWant = FormatElem(got, i), FormatElem(want, i)
			}
			r.Mismatches++
		}
	}
	r.OK = r.Mismatches == 0
	return r, nil
}

func closeFloat(g, w, rtol, atol float64) (ok bool, abs, rel float64) {
	gNaN, wNaN := math.IsNaN(g), math.IsNaN(w)
	switch {
	case gNaN || wNaN:
		if gNaN && wNaN {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	case math.IsInf(g, 0) || math.IsInf(w, 0):
		if g == w {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	}
	d := math.Abs(g - w)
	return d <= atol+rtol*math.Abs(w), d, relErr(d, math.Abs(w))
}

func closeComplex(g, w complex128, rtol, atol float64) (ok bool, abs, rel float64) {
	gNaN, wNaN := cmplx.IsNaN(g), cmplx.IsNaN(w)
	switch {
	case gNaN || wNaN:
		if gNaN && wNaN {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	case cmplx.IsInf(g) || cmplx.IsInf(w):
		if g == w {
			return true, 0, 0
		}
		return false, math.Inf(1), math.Inf(1)
	}
	d := cmplx.Abs(g - w)
	return d <= atol+rtol*cmplx.Abs(w), d, relErr(d, cmplx.Abs(w))
}

func equalInt(elem niro.ScalarType, g, w int64) (ok bool, abs, rel float64) {
	if g == w {
		return true, 0, 0
	}
	var gf, wf float64
	if elem == niro.U64 {
		gf, wf = float64(uint64(g)), float64(uint64(w))
	} else {
		gf, wf = float64(g), float64(w)
	}
	d := math.Abs(gf - wf)
	return false, d, relErr(d, math.Abs(wf))
}

func relErr(d, w float64) float64 {
	switch {
	case d == 0:
		return 0
	case w == 0:
		return math.Inf(1)
	}
	return d / w
}

// FormatElem formats element i (flat row-major index) of t: the shortest
// decimal that reads back to the same value, "true"/"false" for bools.
func FormatElem(t Tensor, i int64) string {
	elem := t.Elem
	switch {
	case elem == niro.Bool:
		return strconv.FormatBool(t.Data[i] != 0)
	case elem.IsComplex():
		bits := 128
		if elem == niro.C64 {
			bits = 64
		}
		return strconv.FormatComplex(complexAt(elem, t.Data, i), 'g', -1, bits)
	case elem == niro.F32:
		return strconv.FormatFloat(floatAt(elem, t.Data, i), 'g', -1, 32)
	case elem.IsFloat():
		return strconv.FormatFloat(floatAt(elem, t.Data, i), 'g', -1, 64)
	case elem == niro.U64:
		return strconv.FormatUint(uint64(intAt(elem, t.Data, i)), 10)
	}
	return strconv.FormatInt(intAt(elem, t.Data, i), 10)
}

// Unflatten converts a flat row-major index into per-dimension indices.
func Unflatten(dims []int64, flat int64) []int64 {
	idx := make([]int64, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		if dims[k] > 0 {
			idx[k] = flat % dims[k]
			flat /= dims[k]
		}
	}
	return idx
}
