package main

import (
	"encoding/binary"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

func ti64(vals ...int64) tensorio.Tensor {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	var dims []int64
	if len(vals) != 1 {
		dims = []int64{int64(len(vals))}
	}
	return tensorio.Tensor{Elem: niro.I64, Dims: dims, Data: b}
}

func tbool(v bool) tensorio.Tensor {
	b := byte(0)
	if v {
		b = 1
	}
	return tensorio.Tensor{Elem: niro.Bool, Data: []byte{b}}
}

// TestE2ELoopOp runs the loop op with a run-time trip count, a condition
// and a scan output of static extent: the loop stops at the first of the
// trip count, the condition and the extent, and rows not run are zero.
func TestE2ELoopOp(t *testing.T) {
	const src = `
func @w(tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
^bb0(%0: tensor<i64>, %1: tensor<i1>, %2: tensor<2xf32>):
  %3, %4 = loop %0, %1, %2 {cond = true, scan_out_axes = [0], scan_out_reverse = [false], trip = true} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb1(%5: tensor<i64>, %6: tensor<i1>, %7: tensor<2xf32>):
    %8 = add %7, %7 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %9 = const 0x0200000000000000 : tensor<i64>
    %10 = cmp_lt %5, %9 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    yield %10, %8, %7 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %3, %4 : tensor<2xf32>, tensor<4x2xf32>
}`
	x := []float32{1.5, -3}
	for _, c := range []struct {
		trip int64
		cond bool
		runs int
	}{{2, true, 2}, {9, true, 3}, {-1, true, 0}, {9, false, 0}} {
		out := runNiro(t, src, ti64(c.trip), tbool(c.cond), tf32([]int64{2}, x))
		acc := append([]float32(nil), x...)
		scan := make([]float32, 8)
		for i := 0; i < c.runs; i++ {
			copy(scan[2*i:], acc)
			acc[0], acc[1] = acc[0]+acc[0], acc[1]+acc[1]
		}
		checkF32(t, out[0], acc)
		checkF32(t, out[1], scan)
	}
}

// TestE2EDynSlice runs dyn_slice on bounds of every kind: in range,
// negative, past either end, and an empty window.
func TestE2EDynSlice(t *testing.T) {
	const src = `
func @w(tensor<5xf32>, tensor<1xi64>, tensor<1xi64>) -> (tensor<1xf32>, tensor<f32>) {
^bb0(%0: tensor<5xf32>, %1: tensor<1xi64>, %2: tensor<1xi64>):
  %3 = dyn_slice %0, %1, %2 {axes = [0]} : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  %4 = reduce_sum %3 {axes = [0], keep_dims = true} : (tensor<?xf32>) -> tensor<1xf32>
  %5 = reduce_sum %3 {axes = [0], keep_dims = false} : (tensor<?xf32>) -> tensor<f32>
  return %4, %5 : tensor<1xf32>, tensor<f32>
}`
	x := []float32{1, 2, 4, 8, 16}
	for _, c := range []struct{ s, e int64 }{{1, 3}, {-2, 100}, {-100, 2}, {3, 1}, {0, -1}, {5, 9}} {
		out := runNiro(t, src, tf32([]int64{5}, x), ti64s(c.s), ti64s(c.e))
		s, e := c.s, c.e
		if s < 0 {
			s += 5
		}
		if e < 0 {
			e += 5
		}
		s, e = min(max(s, 0), 5), min(max(e, 0), 5)
		var sum float32
		for i := s; i < e; i++ {
			sum += x[i]
		}
		checkF32(t, out[0], []float32{sum})
		checkF32(t, out[1], []float32{sum})
	}
}

// ti64s is a rank-1 i64 tensor.
func ti64s(vals ...int64) tensorio.Tensor {
	t := ti64(vals...)
	t.Dims = []int64{int64(len(vals))}
	return t
}

// TestE2ELoopNested runs a scan over the rows of x in reverse whose body
// holds a loop of 2 iterations and an if on a captured flag: nested
// structured ops, captures at two levels.
func TestE2ELoopNested(t *testing.T) {
	const src = `
func @n(tensor<3x2xf32>, tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<3x2xf32>) {
^bb0(%0: tensor<3x2xf32>, %1: tensor<2xf32>, %2: tensor<i1>):
  %3 = const 0x0200000000000000 : tensor<i64>
  %4 = tensor_extract %2[] : (tensor<i1>) -> i1
  %5, %6 = loop %1, %0 {scan_in_axes = [0], scan_in_reverse = [true], scan_out_axes = [0], scan_out_reverse = [false]} : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  ^bb1(%7: tensor<i64>, %8: tensor<2xf32>, %9: tensor<2xf32>):
    %10 = loop %3, %8 {trip = true} : (tensor<i64>, tensor<2xf32>) -> (tensor<2xf32>) {
    ^bb2(%11: tensor<i64>, %12: tensor<2xf32>):
      %13 = mul %12, %9 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %14 = add %13, %1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      yield %14 : tensor<2xf32>
    }
    %15 = if %4 : i1 -> (tensor<2xf32>) {
      %16 = sub %10, %9 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      yield %16 : tensor<2xf32>
    } else {
      yield %10 : tensor<2xf32>
    }
    yield %15, %10 : tensor<2xf32>, tensor<2xf32>
  }
  return %5, %6 : tensor<2xf32>, tensor<3x2xf32>
}`
	x := []float32{0.5, -1.25, 1.5, 0.75, -0.5, 2}
	init := []float32{1, -2}
	for _, flag := range []bool{true, false} {
		out := runNiro(t, src, tf32([]int64{3, 2}, x), tf32([]int64{2}, init), tbool(flag))
		s := append([]float32(nil), init...)
		var scan []float32
		for r := 2; r >= 0; r-- {
			row := x[2*r : 2*r+2]
			v := append([]float32(nil), s...)
			for k := 0; k < 2; k++ {
				for i := range v {
					p := v[i] * row[i]
					v[i] = p + init[i]
				}
			}
			scan = append(scan, v...)
			for i := range s {
				s[i] = v[i]
				if flag {
					s[i] = v[i] - row[i]
				}
			}
		}
		checkF32(t, out[0], s)
		checkF32(t, out[1], scan)
	}
}

// TestE2ELoopGrow runs loops with a condition and a scan output of
// dynamic extent, whose buffer grows as the loop runs (16 slices, then
// doubling): stopped by the condition (i < 40, past two doublings), by a
// run-time trip count, by both at once, and before the first iteration.
// The scan output, summed over its rows, holds exactly the slices run
// (the sum n·x + (1, 2)·n(n − 1)/2 tells n).
func TestE2ELoopGrow(t *testing.T) {
	const src = `
func @g(tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
^bb0(%0: tensor<i64>, %1: tensor<i1>, %2: tensor<2xf32>):
  %3, %4 = loop %0, %1, %2 {cond = true, scan_out_axes = [0], scan_out_reverse = [false], trip = true} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  ^bb1(%5: tensor<i64>, %6: tensor<i1>, %7: tensor<2xf32>):
    %8 = const 0x0000803f00000040 : tensor<2xf32>
    %9 = add %7, %8 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %10 = const 0x2700000000000000 : tensor<i64>
    %11 = cmp_lt %5, %10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    yield %11, %9, %7 : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  %12 = reduce_sum %4 {axes = [0], keep_dims = false} : (tensor<?x2xf32>) -> tensor<2xf32>
  return %3, %12 : tensor<2xf32>, tensor<2xf32>
}`
	x := []float32{0.5, -3}
	for _, c := range []struct {
		trip int64
		cond bool
		runs int
	}{{1 << 62, true, 40}, {23, true, 23}, {40, true, 40}, {16, true, 16}, {7, true, 7}, {1 << 62, false, 0}, {0, true, 0}} {
		out := runNiro(t, src, ti64(c.trip), tbool(c.cond), tf32([]int64{2}, x))
		acc := append([]float32(nil), x...)
		sum := make([]float32, 2)
		for i := 0; i < c.runs; i++ {
			sum[0], sum[1] = sum[0]+acc[0], sum[1]+acc[1]
			acc[0], acc[1] = acc[0]+1, acc[1]+2
		}
		checkF32(t, out[0], acc)
		checkF32(t, out[1], sum)
	}
}
