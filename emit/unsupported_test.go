package emit

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnsupported checks that the UnknownOps of a module, nested ones
// included, are reported once, grouped by type and reason, before anything
// else: the add of two unsupported results adds no error.
func TestUnsupported(t *testing.T) {
	m := parseModule(t, `func @f(f32, tensor<4xf32>, tensor<2xi64>) -> (f32, f32, tensor<2x2xf32>, f32) {
^bb0(%0: f32, %1: tensor<4xf32>, %2: tensor<2xi64>):
  %3 = "onnx.Sin"(%0) : (f32) -> f32 loc("sin")
  %4 = "onnx.Cos"(%0) : (f32) -> f32 loc("cos")
  %5 = "onnx.Cos"(%4) : (f32) -> f32 loc("cos2")
  %6 = add %3, %5 : (f32, f32) -> f32
  %7 = "onnx.Reshape"(%1, %2) {niro.not_compilable = "shape unknown"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32> loc("r")
  %8 = "onnx.Loop"(%0) ({
  ^bb1(%9: f32):
    %10 = "ai.custom.Tan"(%9) : (f32) -> f32 loc("loop/tan")
    yield %10 : f32
  }) : (f32) -> f32
  return %3, %6, %7, %8 : f32, f32, tensor<2x2xf32>, f32
}
`)
	_, err := Module(m, Options{})
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v is not an *UnsupportedError", err)
	}
	want := &UnsupportedError{
		NotYet: []UnsupportedOp{
			{Op: "Cos", Nodes: 2, First: "cos"},
			{Op: "Loop", Nodes: 1},
			{Op: "Sin", Nodes: 1, First: "sin"},
			{Op: "ai.custom.Tan", Nodes: 1, First: "loop/tan"},
		},
		NotCompilable: []UnsupportedOp{{Op: "Reshape", Nodes: 1, First: "r", Reason: "shape unknown"}},
	}
	if diff := cmp.Diff(want, ue); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	const msg = `4 ONNX op types are not supported yet: Cos (2 nodes, first "cos"), Loop (1 node), Sin (node "sin"), ai.custom.Tan (node "loop/tan"); not compilable in this instance: Reshape (node "r": shape unknown)`
	if err.Error() != msg {
		t.Errorf("message:\n%s\nwant:\n%s", err, msg)
	}
}

// TestUnsupportedType checks that an unknown op of an element type with no
// MLIR lowering is reported as not compilable, with the type as reason.
func TestUnsupportedType(t *testing.T) {
	m := parseModule(t, `func @f(tensor<4xf32>) -> (tensor<4xcomplex<f32>>) {
^bb0(%0: tensor<4xf32>):
  %1 = "onnx.Cast"(%0) {to = 14} : (tensor<4xf32>) -> tensor<4xcomplex<f32>> loc("c")
  return %1 : tensor<4xcomplex<f32>>
}
`)
	_, err := Module(m, Options{})
	const want = `not compilable in this instance: Cast (node "c": element type complex<f32> has no MLIR lowering)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
