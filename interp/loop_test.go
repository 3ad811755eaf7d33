package interp

import (
	"slices"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// TestLoop runs a loop stopped by its condition (a static scan output whose
// rows past N stay zero, a dynamic one of N rows) and a scan reading its
// input reversed and writing its output reversed along axis 1.
func TestLoop(t *testing.T) {
	const src = `
func @f(tensor<i64>, tensor<f32>, tensor<3x2xf32>) -> (tensor<f32>, tensor<5xf32>, tensor<?xf32>, tensor<2xf32>, tensor<2x3xf32>) {
^bb0(%0: tensor<i64>, %1: tensor<f32>, %2: tensor<3x2xf32>):
  %3 = const 0x01 : tensor<i1>
  %4 = const 0x0000803F : tensor<f32>
  %5 = const 0x00004040 : tensor<f32>
  %6, %7, %8 = loop %0, %3, %1 {cond = true, scan_out_axes = [0, 0], scan_out_reverse = [false, false], trip = true} : (tensor<i64>, tensor<i1>, tensor<f32>) -> (tensor<f32>, tensor<5xf32>, tensor<?xf32>) {
  ^bb1(%9: tensor<i64>, %10: tensor<i1>, %11: tensor<f32>):
    %12 = add %11, %4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %13 = cmp_lt %12, %5 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    yield %13, %12, %12, %12 : tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>
  }
  %14 = const 0x0000000000000000 : tensor<2xf32>
  %15, %16 = loop %14, %2 {scan_in_axes = [0], scan_in_reverse = [true], scan_out_axes = [1], scan_out_reverse = [true]} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  ^bb2(%17: tensor<i64>, %18: tensor<2xf32>, %19: tensor<2xf32>):
    %20 = add %18, %19 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    yield %20, %20 : tensor<2xf32>, tensor<2xf32>
  }
  return %6, %7, %8, %15, %16 : tensor<f32>, tensor<5xf32>, tensor<?xf32>, tensor<2xf32>, tensor<2x3xf32>
}
`
	trip := newTensor(niro.I64, []int64{})
	trip.ints[0] = 10
	out, err := run(t, src, trip.encode(), f32s([]int64{}, 0), f32s([]int64{3, 2}, 1, 10, 2, 20, 3, 30))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []struct {
		dims []int64
		vals []float32
	}{
		{[]int64{}, []float32{3}},
		{[]int64{5}, []float32{1, 2, 3, 0, 0}},
		{[]int64{3}, []float32{1, 2, 3}},
		{[]int64{2}, []float32{6, 60}},
		// Slices 3, 5, 6 (then 30, 50, 60) written from the end of axis 1.
		{[]int64{2, 3}, []float32{6, 5, 3, 60, 50, 30}},
	} {
		if !slices.Equal(out[i].Dims, w.dims) || !slices.Equal(asF32(out[i]), w.vals) {
			t.Errorf("result %d: got %v %v, want %v %v", i, out[i].Dims, asF32(out[i]), w.dims, w.vals)
		}
	}
	// A trip count of 0 runs nothing: the dynamic scan output is empty.
	trip.ints[0] = 0
	if out, err = run(t, src, trip.encode(), f32s([]int64{}, 7), f32s([]int64{3, 2}, 1, 2, 3, 4, 5, 6)); err != nil {
		t.Fatal(err)
	}
	if got := asF32(out[0]); got[0] != 7 || !slices.Equal(out[2].Dims, []int64{0}) {
		t.Errorf("trip 0: got %v and shape %v, want 7 and [0]", got, out[2].Dims)
	}
}
