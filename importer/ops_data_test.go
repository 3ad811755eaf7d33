package importer

import (
	"testing"

	"github.com/niro-dev/niro/onnxpb"
)

func TestSliceBounds(t *testing.T) {
	const big = int64(1) << 62
	for _, c := range []struct {
		d, start, end, step int64
		first, n            int64
	}{
		{10, 0, 3, 1, 0, 3},
		{10, 1, 1000, 1, 1, 9},     // end clamped
		{10, -3, -1, 1, 7, 2},      // from the end
		{10, 0, 10, 3, 0, 4},       // ceil
		{10, 1000, 1000, 1, 0, 0},  // start past the end
		{10, -1, -big, -1, 9, 10},  // reversed, to the front
		{10, 20, 0, -3, 9, 3},      // start clamped to d-1: 9, 6, 3
		{10, 5, 5, -1, 0, 0},       // empty
		{10, -big, big, 1, 0, 10},  // everything
		{4, 3, -5, -2, 3, 2},       // 3, 1
		{0, 0, 1, 1, 0, 0},         // empty axis
		{5, -100, 100, 2, 0, 3},    // 0, 2, 4
		{5, 2, -100, -1, 2, 3},     // 2, 1, 0
		{5, 4, 0, -1, 4, 4},        // 4..1
		{5, 1, 3, 5, 1, 1},         // one element
		{5, 0, -6, -1, 0, 1},       // end -1 after +d: reads 0
		{5, 0, -7, -1, 0, 1},       // end -2 clamps to -1: reads 0
		{5, 100, -100, -100, 4, 1}, // one element from the back
		{5, -6, 3, 1, 0, 3},        // start clamped to 0
		{5, 3, 2, 1, 0, 0},         // empty forwards
		{5, 2, 3, -1, 0, 0},        // empty backwards
		{5, big, -big, -big, 4, 1}, // huge steps
		{5, -big, big, big, 0, 1},  // huge steps forwards
		{1, 0, 1, 1, 0, 1},         // a whole unit axis
		{1, -1, -2, -1, 0, 1},      // reversed unit axis
		{3, 2, -4, -1, 2, 3},       // all reversed
		{3, 0, 3, 2, 0, 2},         // 0, 2
	} {
		first, n := sliceBounds(c.d, c.start, c.end, c.step)
		if first != c.first || n != c.n {
			t.Errorf("sliceBounds(%d, %d, %d, %d) = %d, %d; want %d, %d", c.d, c.start, c.end, c.step, first, n, c.first, c.n)
		}
	}
}

func ints(name string, vals ...int64) *onnxpb.NodeProto {
	return node("Constant", nil, []string{name}, attrInts("value_ints", vals...))
}

// TestDataOps imports every data-movement op and the Shape → Slice →
// Concat → Reshape chain of exporters, which folds to a static reshape.
func TestDataOps(t *testing.T) {
	m := model(18, graph("g",
		[]*onnxpb.NodeProto{
			node("Shape", []string{"x"}, []string{"s"}),
			ints("two", 2), ints("three", 3), ints("m1", -1), ints("zero", 0),
			node("Slice", []string{"s", "two", "three"}, []string{"s12"}),
			node("Concat", []string{"m1", "s12"}, []string{"shape"}, attrInt("axis", 0)),
			node("Reshape", []string{"x", "shape"}, []string{"r"}),
			ints("big", -1), ints("small", -1000), ints("ax", 2), ints("st", -2),
			node("Slice", []string{"x", "big", "small", "ax", "st"}, []string{"rev"}),
			ints("parts", 1, 2),
			node("Split", []string{"x", "parts"}, []string{"p0", "p1"}, attrInt("axis", 1)),
			node("Split", []string{"x"}, []string{"q0", "q1", "q2"}, attrInt("axis", 2), attrInt("num_outputs", 3)),
			ints("reps", 1, 2, 1),
			node("Tile", []string{"x", "reps"}, []string{"tiled"}),
			node("Concat", []string{"x", "x"}, []string{"cat"}, attrInt("axis", -1)),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3, 4)},
		[]*onnxpb.ValueInfoProto{vi("r", dtFloat, 6, 4), vi("rev", dtFloat, 2, 3, 2), vi("p1", dtFloat, 2, 2, 4), vi("q2", dtFloat, 2, 3, 0), vi("tiled", dtFloat, 2, 6, 4), vi("cat", dtFloat, 2, 3, 8)}))
	mod := mustImport(t, m, Options{})
	checkText(t, mod, `
func @g(tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2xf32>, tensor<2x2x4xf32>, tensor<2x3x0xf32>, tensor<2x6x4xf32>, tensor<2x3x8xf32>) inputs ["x"] outputs ["r", "rev", "p1", "q2", "tiled", "cat"] {
^bb0(%0: tensor<2x3x4xf32>):
  %8 = reshape %0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32> loc("node #7 (Reshape)")
  %13 = slice %0 {starts = [0, 0, 3], steps = [1, 1, -2]} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32> loc("node #12 (Slice)")
  %16 = slice %0 {starts = [0, 1, 0], steps = [1, 1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32> loc("node #14 (Split)")
  %19 = slice %0 {starts = [0, 0, 0], steps = [1, 1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x3x0xf32> loc("node #15 (Split)")
  %21 = reshape %0 : (tensor<2x3x4xf32>) -> tensor<1x2x1x3x1x4xf32> loc("node #17 (Tile)")
  %22 = broadcast %21 : (tensor<1x2x1x3x1x4xf32>) -> tensor<1x2x2x3x1x4xf32> loc("node #17 (Tile)")
  %23 = reshape %22 : (tensor<1x2x2x3x1x4xf32>) -> tensor<2x6x4xf32> loc("node #17 (Tile)")
  %24 = concat %0, %0 {axis = 2} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32> loc("node #18 (Concat)")
  return %8, %13, %16, %19, %23, %24 : tensor<6x4xf32>, tensor<2x3x2xf32>, tensor<2x2x4xf32>, tensor<2x3x0xf32>, tensor<2x6x4xf32>, tensor<2x3x8xf32>
}`)
}
