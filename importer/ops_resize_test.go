package importer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestResizePlan checks source indices and coefficients of single axes
// against values worked out by hand from the reference's formulas.
func TestResizePlan(t *testing.T) {
	id := func(v float64) float64 { return v }
	cases := []struct {
		name    string
		at      resizeAttrs
		in, out int64
		scale   float64
		idx     [][]int64
		w       [][]float64
	}{
		{"linear half_pixel 4→2", resizeAttrs{mode: "linear", ctm: "half_pixel"}, 4, 2, 0.5,
			[][]int64{{0, 2}, {1, 3}}, [][]float64{{0.5, 0.5}, {0.5, 0.5}}},
		{"linear align_corners 2→3", resizeAttrs{mode: "linear", ctm: "align_corners"}, 2, 3, 1.5,
			[][]int64{{0, 0, 0}, {0, 1, 1}}, [][]float64{{0, 0.5, 0}, {1, 0.5, 1}}},
		{"nearest asymmetric floor 2→4", resizeAttrs{mode: "nearest", ctm: "asymmetric", nearest: "floor"}, 2, 4, 2,
			[][]int64{{0, 0, 0, 1}, {0, 1, 1, 1}}, [][]float64{{0, 1, 0, 1}, {1, 0, 1, 0}}},
		{"linear half_pixel 2→4 edge clamp", resizeAttrs{mode: "linear", ctm: "half_pixel"}, 2, 4, 2,
			[][]int64{{0, 0, 0, 1}, {0, 1, 1, 1}}, [][]float64{{0.25, 0.75, 0.25, 0.75}, {0.75, 0.25, 0.75, 0.25}}},
	}
	for _, c := range cases {
		p := planAxis(&c.at, 0, c.in, c.out, c.scale, false, nil, id)
		if !reflect.DeepEqual(p.idx, c.idx) || !reflect.DeepEqual(p.w, c.w) {
			t.Errorf("%s: got idx %v w %v, want idx %v w %v", c.name, p.idx, p.w, c.idx, c.w)
		}
	}
	// Cubic at an integer coordinate is the identity (coefficients 0 0 1 0).
	p := planAxis(&resizeAttrs{mode: "cubic", ctm: "half_pixel", a: -0.75}, 0, 3, 3, 1, false, nil, id)
	if !p.identity() {
		t.Errorf("cubic with scale 1 is not the identity: idx %v w %v", p.idx, p.w)
	}
}

// TestNeighbours checks the reference's _get_neighbor_idxes examples
// (shifted by the padding).
func TestNeighbours(t *testing.T) {
	for _, c := range []struct {
		x    float64
		n    int
		want []int64
	}{{4, 2, []int64{3, 4}}, {4.5, 4, []int64{3, 4, 5, 6}}, {4, 4, []int64{2, 3, 4, 5}}, {-0.25, 2, []int64{-1, 0}}} {
		if got := neighbours(c.x, c.n, 10); !reflect.DeepEqual(got, c.want) {
			t.Errorf("neighbours(%g, %d) = %v, want %v", c.x, c.n, got, c.want)
		}
	}
}

// TestResizeImport: known scales map to gathers and arithmetic; scales
// computed at run time ask for their value at compile time.
func TestResizeImport(t *testing.T) {
	x := vi("x", dtFloat, 1, 1, 2, 2)
	known := model(13, graph("g",
		[]*onnxpb.NodeProto{node("Resize", []string{"x", "", "s"}, []string{"y"}, attrString("mode", "linear"))},
		[]*onnxpb.ValueInfoProto{x}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 1, 1, 4, 4)},
		floats("s", []int64{4}, 1, 1, 2, 2)))
	mod := mustImport(t, known, Options{})
	if u := opsOf[*niro.UnknownOp](mod); len(u) != 0 {
		t.Errorf("known scales: unexpected UnknownOp:\n%s", mod)
	}
	if g := opsOf[*niro.Gather](mod); len(g) != 4 {
		t.Errorf("known scales: %d gathers, want 4 (two taps on two axes):\n%s", len(g), mod)
	}
	runTime := model(13, graph("g",
		[]*onnxpb.NodeProto{node("Resize", []string{"x", "", "s"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{x, vi("s", dtFloat, 4)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 1, 1, 4, 4)}))
	mod = mustImport(t, runTime, Options{})
	if !strings.Contains(niro.FunctionString(mod.Entry()), "must be known at compile time") {
		t.Errorf("run-time scales: want an UnknownOp asking for the scales:\n%s", niro.FunctionString(mod.Entry()))
	}
}

// TestResizeDynamicBatch: an axis of dynamic extent with scale 1 is
// skipped; one that is resized needs its extent.
func TestResizeDynamicBatch(t *testing.T) {
	for _, c := range []struct {
		scales []float32
		mapped bool
	}{{[]float32{1, 1, 2, 2}, true}, {[]float32{2, 1, 2, 2}, false}} {
		x := vi("x", dtFloat, 1, 1, 2, 2)
		x.Type.GetTensorType().Shape.Dim[0] = &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "N"}}
		m := model(13, graph("g",
			[]*onnxpb.NodeProto{node("Resize", []string{"x", "", "s"}, []string{"y"}, attrString("mode", "linear"))},
			[]*onnxpb.ValueInfoProto{x}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)},
			floats("s", []int64{4}, c.scales...)))
		mod := mustImport(t, m, Options{})
		if got := len(opsOf[*niro.UnknownOp](mod)) == 0; got != c.mapped {
			t.Errorf("scales %v: mapped %v, want %v:\n%s", c.scales, got, c.mapped, mod)
		}
	}
}
