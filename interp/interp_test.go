package interp

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// TestEveryOpKind checks that every op kind of niro.OpKinds but UnknownOp
// is evaluated.
func TestEveryOpKind(t *testing.T) {
	for _, op := range niro.OpKinds() {
		_, unknown := op.(*niro.UnknownOp)
		if handled(op) == unknown {
			t.Errorf("%T: handled = %v", op, handled(op))
		}
	}
}

func run(t *testing.T, src string, ins ...tensorio.Tensor) ([]tensorio.Tensor, error) {
	t.Helper()
	m, err := niro.Parse("t.niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := niro.Verify(m); err != nil {
		t.Fatal(err)
	}
	return Run(m, ins, Options{})
}

func f32s(dims []int64, vals ...float32) tensorio.Tensor {
	t := newTensor(niro.F32, dims)
	copy(t.f32, vals)
	return t.encode()
}

func asF32(t tensorio.Tensor) []float32 {
	d, err := decode(t.Elem, t.Dims, t.Data)
	if err != nil {
		panic(err)
	}
	return d.f32
}

// TestControlFlow runs a CFG loop (sum of 0..n−1 by branches), an if and
// a call.
func TestControlFlow(t *testing.T) {
	const src = `
func @f(i64) -> (i64, tensor<2xf32>) {
^bb0(%0: i64):
  %1 = const 0 : i64
  br ^bb1(%1, %1 : i64, i64)
^bb1(%2: i64, %3: i64):
  %4 = cmp_lt %2, %0 : (i64, i64) -> i1
  cond_br %4 : i1, ^bb2, ^bb3
^bb2:
  %5 = add %3, %2 : (i64, i64) -> i64
  %6 = const 1 : i64
  %7 = add %2, %6 : (i64, i64) -> i64
  br ^bb1(%7, %5 : i64, i64)
^bb3:
  %8 = cmp_gt %3, %1 : (i64, i64) -> i1
  %9 = if %8 : i1 -> (tensor<2xf32>) {
    %10 = const 0x0000803F00000040 : tensor<2xf32>
    %11 = call @neg(%10) : (tensor<2xf32>) -> (tensor<2xf32>)
    yield %11 : tensor<2xf32>
  } else {
    %12 = const 0x0000000000000000 : tensor<2xf32>
    yield %12 : tensor<2xf32>
  }
  return %3, %9 : i64, tensor<2xf32>
}

func @neg(tensor<2xf32>) -> (tensor<2xf32>) {
^bb0(%0: tensor<2xf32>):
  %1 = neg %0 : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}`
	n := tensorio.Tensor{Elem: niro.I64, Dims: []int64{}, Data: []byte{5, 0, 0, 0, 0, 0, 0, 0}}
	outs, err := run(t, src, n)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Data[0] != 10 {
		t.Errorf("sum of 0..4 = %d, want 10", outs[0].Data[0])
	}
	if got := asF32(outs[1]); got[0] != -1 || got[1] != -2 {
		t.Errorf("if/call: got %v, want [-1 -2]", got)
	}
}

// TestSemantics pins the documented element-wise rules.
func TestSemantics(t *testing.T) {
	const src = `
func @f(tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf16>, tensor<f32>) {
^bb0(%0: tensor<4xi32>, %1: tensor<4xi32>, %2: tensor<4xf32>):
  %3 = div %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = rem %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = mod %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = max %2, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = cast %2 : (tensor<4xf32>) -> tensor<4xf16>
  %8 = reduce_sum %2 {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %3, %4, %5, %6, %7, %8 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf16>, tensor<f32>
}`
	i32s := func(vs ...int32) tensorio.Tensor {
		t := newTensor(niro.I32, []int64{4})
		for i, v := range vs {
			t.ints[i] = int64(v)
		}
		return t.encode()
	}
	nan := float32(math.NaN())
	halfway := float32(1 + math.Ldexp(1, -11))
	outs, err := run(t, src, i32s(-7, 7, -7, 7), i32s(2, -2, -2, 2), f32s([]int64{4}, nan, 1e8, halfway, -0.0))
	if err != nil {
		t.Fatal(err)
	}
	ints := func(o tensorio.Tensor) []int64 {
		d, _ := decode(o.Elem, o.Dims, o.Data)
		return d.ints
	}
	for i, want := range [][]int64{{-3, -3, 3, 3}, {-1, 1, -1, 1}, {1, -1, -1, 1}} {
		got := ints(outs[i])
		for j := range want {
			if got[j] != want[j] {
				t.Errorf("output %d: got %v, want %v", i, got, want)
				break
			}
		}
	}
	if mx := asF32(outs[3]); mx[0] == mx[0] {
		t.Errorf("max(NaN, NaN) = %v", mx[0])
	}
	if h := asF32(outs[4]); h[2] != 1 || h[1] != float32(math.Inf(1)) {
		t.Errorf("f16 rounding: got %v, want halfway→1 and 1e8→inf", h)
	}
	if s := asF32(outs[5]); s[0] == s[0] {
		t.Errorf("sum with a NaN = %v", s[0])
	}
}

// TestRefusals: an UnknownOp is refused by name before anything runs; a
// division by zero is an error naming the node.
func TestRefusals(t *testing.T) {
	_, err := run(t, `
func @f(tensor<2xf32>) -> (tensor<2xf32>) {
^bb0(%0: tensor<2xf32>):
  %1 = "onnx.Foo"(%0) : (tensor<2xf32>) -> tensor<2xf32> loc("foo")
  return %1 : tensor<2xf32>
}`, f32s([]int64{2}, 1, 2))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `onnx.Foo (node "foo")`) {
		t.Errorf("unknown op: %v", err)
	}
	_, err = run(t, `
func @f(tensor<2xi32>) -> (tensor<2xi32>) {
^bb0(%0: tensor<2xi32>):
  %1 = const 0x0100000000000000 : tensor<2xi32>
  %2 = div %0, %1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32> loc("d")
  return %2 : tensor<2xi32>
}`, tensorio.Tensor{Elem: niro.I32, Dims: []int64{2}, Data: make([]byte, 8)})
	if err == nil || !strings.Contains(err.Error(), `div (node "d"): integer division by zero`) {
		t.Errorf("division by zero: %v", err)
	}
}
