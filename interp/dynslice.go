package interp

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// dynSliceBounds resolves dyn_slice's run-time bounds as docs/ops.md
// ("Slice") specifies: a negative bound plus the extent, both clamped to
// [0, d]; the window holds max(end − start, 0) elements. It returns the
// start of every axis (0 on an axis not sliced) and the result's shape.
func dynSliceBounds(op *niro.DynSlice, x, starts, ends *tensor) ([]int64, []int64, error) {
	if len(starts.ints) != len(op.Axes) || len(ends.ints) != len(op.Axes) {
		return nil, nil, fmt.Errorf("dyn_slice: %d starts and %d ends for %d axes", len(starts.ints), len(ends.ints), len(op.Axes))
	}
	begin := make([]int64, len(x.dims))
	dims := append([]int64(nil), x.dims...)
	for k, a := range op.Axes {
		d := x.dims[a]
		resolve := func(b int64) int64 {
			if b < 0 {
				b += d
			}
			return min(max(b, 0), d)
		}
		s, e := resolve(starts.ints[k]), resolve(ends.ints[k])
		begin[a] = s
		dims[a] = max(e-s, 0)
	}
	return begin, dims, nil
}

// dynSlice reads the window of x that starts at begin with shape rd.
func dynSlice(x *tensor, begin, rd []int64) *tensor {
	steps := make([]int64, len(rd))
	for i := range steps {
		steps[i] = 1
	}
	return slice(x, begin, steps, rd)
}

// dynSliceOp evaluates op; a static result type must agree with the
// extents the bounds give.
func dynSliceOp(op *niro.DynSlice, x, starts, ends *tensor) (*tensor, error) {
	begin, dims, err := dynSliceBounds(op, x, starts, ends)
	if err != nil {
		return nil, err
	}
	if t, ok := op.Result.Type.(niro.TensorType); ok {
		for i, d := range t.Dims {
			if d != niro.Dynamic && d != dims[i] {
				return nil, fmt.Errorf("dyn_slice: the bounds give shape %v, the result type %s", dims, t)
			}
		}
	}
	return dynSlice(x, begin, dims), nil
}
