package tensorio

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// Float64s returns the elements of a real tensor (float, integer or bool)
// as float64, in row-major order: exactly for floats and for integers
// below 2⁵³ in magnitude (U64 elements are read as unsigned). It fails on
// complex elements and malformed data.
func Float64s(t Tensor) ([]float64, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if t.Elem.IsComplex() {
		return nil, fmt.Errorf("tensor of %s is complex", t.Elem)
	}
	n := t.NumElements()
	out := make([]float64, n)
	for i := range n {
		switch {
		case t.Elem.IsFloat():
			out[i] = floatAt(t.Elem, t.Data, i)
		case t.Elem == niro.U64:
			out[i] = float64(uint64(intAt(t.Elem, t.Data, i)))
		default:
			out[i] = float64(intAt(t.Elem, t.Data, i))
		}
	}
	return out, nil
}
