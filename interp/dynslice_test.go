package interp

import (
	"slices"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

func i64s(dims []int64, vals ...int64) tensorio.Tensor {
	t := newTensor(niro.I64, dims)
	copy(t.ints, vals)
	return t.encode()
}

// TestDynSlice checks dyn_slice's run-time bounds: negative ones count from
// the end, both are clamped to [0, d], an empty window has extent 0.
func TestDynSlice(t *testing.T) {
	const src = `
func @f(tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x?xf32>) {
^bb0(%0: tensor<3x4xf32>, %1: tensor<2xi64>, %2: tensor<2xi64>):
  %3 = dyn_slice %0, %1, %2 {axes = [1, 0]} : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}
`
	x := f32s([]int64{3, 4}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	for _, c := range []struct {
		starts, ends []int64
		dims         []int64
		want         []float32
	}{
		{[]int64{1, 0}, []int64{3, 2}, []int64{2, 2}, []float32{1, 2, 5, 6}},
		{[]int64{-3, -1}, []int64{100, 100}, []int64{1, 3}, []float32{9, 10, 11}},
		{[]int64{-100, 0}, []int64{1, 9}, []int64{3, 1}, []float32{0, 4, 8}},
		{[]int64{3, 0}, []int64{1, 3}, []int64{3, 0}, nil},
	} {
		out, err := run(t, src, x, i64s([]int64{2}, c.starts...), i64s([]int64{2}, c.ends...))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out[0].Dims, c.dims) || !slices.Equal(asF32(out[0]), c.want) {
			t.Errorf("starts %v ends %v: got %v %v, want %v %v", c.starts, c.ends, out[0].Dims, asF32(out[0]), c.dims, c.want)
		}
	}
}
