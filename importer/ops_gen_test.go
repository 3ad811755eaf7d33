package importer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// opsOf returns the ops of kind T in the entry block.
func opsOf[T niro.Op](mod *niro.Module) []T {
	var out []T
	for _, op := range entryOps(mod) {
		if o, ok := op.(T); ok {
			out = append(out, o)
		}
	}
	return out
}

func TestPadForms(t *testing.T) {
	ints := func(name string, v ...int64) *onnxpb.NodeProto {
		return node("Constant", nil, []string{name}, attrInts("value_ints", v...))
	}
	x, y := vi("x", dtFloat, 2, 3), viUnranked("y", dtFloat)
	for _, tc := range []struct {
		name      string
		opset     int64
		nodes     []*onnxpb.NodeProto
		mode      string
		low, high []int64
	}{
		{"opset2", 2, []*onnxpb.NodeProto{node("Pad", []string{"x"}, []string{"y"}, attrInts("pads", 1, 0, 0, 2), attrString("mode", "edge"))}, "edge", []int64{1, 0}, []int64{0, 2}},
		{"opset13", 13, []*onnxpb.NodeProto{ints("p", 0, 1, 1, -1), node("Pad", []string{"x", "p"}, []string{"y"}, attrString("mode", "reflect"))}, "reflect", []int64{0, 1}, []int64{1, -1}},
		{"opset18_axes", 18, []*onnxpb.NodeProto{ints("p", 2, 3), ints("a", -1), node("Pad", []string{"x", "p", "", "a"}, []string{"y"})}, "constant", []int64{0, 2}, []int64{0, 3}},
		{"opset19_wrap", 19, []*onnxpb.NodeProto{ints("p", 1, 1, 1, 1), node("Pad", []string{"x", "p"}, []string{"y"}, attrString("mode", "wrap"))}, "wrap", []int64{1, 1}, []int64{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := mustImport(t, model(tc.opset, graph("g", tc.nodes, []*onnxpb.ValueInfoProto{x}, []*onnxpb.ValueInfoProto{y})), Options{})
			pads := opsOf[*niro.Pad](mod)
			if len(pads) != 1 {
				t.Fatalf("got %d pad ops, want 1:\n%s", len(pads), niro.FunctionString(mod.Entry()))
			}
			p := pads[0]
			if p.Mode != tc.mode || !cmp.Equal(p.Low, tc.low) || !cmp.Equal(p.High, tc.high) {
				t.Errorf("pad %s low %v high %v, want %s %v %v", p.Mode, p.Low, p.High, tc.mode, tc.low, tc.high)
			}
		})
	}
}

func TestPadRunTimePads(t *testing.T) {
	m := model(13, graph("g", []*onnxpb.NodeProto{node("Pad", []string{"x", "p"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3), vi("p", dtInt64, 4)}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	mod := mustImport(t, m, Options{})
	u := opsOf[*niro.UnknownOp](mod)
	if len(u) != 1 || !strings.Contains(niro.FunctionString(mod.Entry()), "must be known at compile time") {
		t.Errorf("want an UnknownOp with a reason:\n%s", niro.FunctionString(mod.Entry()))
	}
}

func TestRangeFolds(t *testing.T) {
	c := func(name string, v float32) *onnxpb.NodeProto {
		return node("Constant", nil, []string{name}, attrTensor("value", floats("", []int64{}, v)))
	}
	m := model(11, graph("g", []*onnxpb.NodeProto{c("s", 1), c("l", 5), c("d", 1.5), node("Range", []string{"s", "l", "d"}, []string{"y"})},
		nil, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	mod := mustImport(t, m, Options{})
	want := "const 0x0000803F0000204000008040 : tensor<3xf32>" // 1, 2.5, 4
	if got := niro.FunctionString(mod.Entry()); !strings.Contains(got, want) {
		t.Errorf("want %s in:\n%s", want, got)
	}
}

func TestCumSumAxis(t *testing.T) {
	x := vi("x", dtFloat, 2, 3)
	known := model(14, graph("g", []*onnxpb.NodeProto{
		node("Constant", nil, []string{"a"}, attrInts("value_ints", -1)),
		node("CumSum", []string{"x", "a"}, []string{"y"}, attrInt("reverse", 1)),
	}, []*onnxpb.ValueInfoProto{x}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	cs := opsOf[*niro.CumSum](mustImport(t, known, Options{}))
	if len(cs) != 1 || cs[0].Axis != 1 || !cs[0].Reverse || cs[0].Exclusive {
		t.Errorf("known axis: got %+v, want one reverse cumsum on axis 1", cs)
	}
	runTime := model(14, graph("g", []*onnxpb.NodeProto{node("CumSum", []string{"x", "a"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{x, vi("a", dtInt64)}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	mod := mustImport(t, runTime, Options{})
	if cs := opsOf[*niro.CumSum](mod); len(cs) != 2 || len(opsOf[*niro.Select](mod)) != 1 {
		t.Errorf("run-time axis: want a cumsum per axis and one select:\n%s", niro.FunctionString(mod.Entry()))
	}
}

// TestRangeRunTimeLimit: a Range whose limit is computed from a graph
// input (the window functions' expanded form: Cast(size) as the limit)
// asks for the input's value at compile time, in the words the driver
// looks for to bind small integer inputs, and folds once it is bound.
func TestRangeRunTimeLimit(t *testing.T) {
	c := func(name string, v float32) *onnxpb.NodeProto {
		return node("Constant", nil, []string{name}, attrTensor("value", floats("", []int64{}, v)))
	}
	m := model(17, graph("g", []*onnxpb.NodeProto{c("s", 0), c("d", 1),
		node("Cast", []string{"n"}, []string{"l"}, attrInt("to", int64(dtFloat))),
		node("Range", []string{"s", "l", "d"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("n", dtInt32)}, []*onnxpb.ValueInfoProto{viUnranked("y", dtFloat)}))
	mod := mustImport(t, m, Options{})
	if u := opsOf[*niro.UnknownOp](mod); len(u) != 1 || !strings.Contains(niro.FunctionString(mod.Entry()), "must be known at compile time") {
		t.Errorf("unbound: want an UnknownOp asking for a value known at compile time:\n%s", niro.FunctionString(mod.Entry()))
	}
	mod = mustImport(t, m, Options{Values: map[string][]byte{"n": {3, 0, 0, 0}}})
	want := "const 0x000000000000803F00000040 : tensor<3xf32>" // 0, 1, 2
	if got := niro.FunctionString(mod.Entry()); len(opsOf[*niro.UnknownOp](mod)) != 0 || !strings.Contains(got, want) {
		t.Errorf("bound: want %s in:\n%s", want, got)
	}
}
