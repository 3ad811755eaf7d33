// Command gen writes the control-flow example models, each with data sets
// that take every path (expected outputs from ONNX Runtime,
// scripts/ort-expected.mjs):
//
//   - examples/controlflow/if: h = x·W; If c1 (then: a nested If c2 whose
//     arms are h + x and h · x reshaped through shape arithmetic on
//     Shape(h), which folds; else: Concat(h, x) along axis 0). The arms
//     capture h, x and W from the outer graph, and they yield [2, 3] or
//     [4, 3], so the If's result has a dynamic first extent; ReduceSum
//     over it gives the output [1, 3].
//   - examples/controlflow/ifshape: an If on c whose arms yield x + 1
//     [2, 3] or Concat(x, x) [4, 3] as the model output [N, 3]: niro run
//     and niro test compile it for the condition given, so only the taken
//     arm is kept and the output's shape is static.
//   - examples/controlflow/loop: a Loop with a run-time trip count M and
//     condition (the body stops after iteration 4: cond = i < 4), carrying
//     acc = acc · w + i (w captured) and stacking every acc as a scan
//     output of dynamic extent, summed over it; and a Loop with the
//     constant trip count 3 and no condition whose scan output [3, 2] is a
//     model output.
//   - examples/controlflow/scan: a Scan (opset 11) with a state s and two
//     scan inputs, xs [3, 2] read forward along axis 0 and ys [2, 3] read
//     in reverse along axis 1; s = s + x·y; the scan outputs are s along
//     axis 0 forward and along axis 1 in reverse.
//   - examples/controlflow/scan8: two Scans of opset 8 (a batch axis 0 on
//     every input and output) over a batch of 3, with a state s [3, 2] and
//     scan inputs xs read forward and ys [3, 4, 2] read in reverse,
//     s = s + x·y, both s and x·y as scan outputs: one with sequence_lens
//     (rows shorter than the sequence: a reverse input starts at the
//     row's last step, and the outputs past its length are zero), one
//     without.
//   - examples/controlflow/loopcond: a Loop with a condition and no trip
//     count (acc = acc·w + 1 while the sum of acc stays below the limit,
//     an input) whose scan outputs, acc and the iteration number, have a
//     run-time extent; their sums are the outputs. The data sets run 0, 4
//     and 72 iterations (the last grows the scan buffers three times).
//
// Run from the repository root: go run ./examples/controlflow/gen
package main

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/proto"

	og "github.com/niro-dev/niro/internal/onnxgen"
	"github.com/niro-dev/niro/onnxpb"
)

const (
	f32 = onnxpb.TensorProto_FLOAT
	i64 = onnxpb.TensorProto_INT64
	b1  = onnxpb.TensorProto_BOOL
)

func boolT(name string, v bool) *onnxpb.TensorProto {
	x := byte(0)
	if v {
		x = 1
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(b1)), RawData: []byte{x}}
}

func int64T(name string, dims []int64, v ...int64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(i64)), RawData: raw}
}

func main() {
	ifModel()
	ifShapeModel()
	loopModel()
	scanModel()
	scan8Model()
	loopCondModel()
}

func ifModel() {
	const dir = "examples/controlflow/if"
	b := og.New(11, 12)
	h := b.Node("MatMul", []string{"x", b.Init("W", []int64{3, 3}, 0, 0.5)}, "h")

	// then of the inner If: h + x.
	t2 := b.Sub()
	t2.Node("Add", []string{h, "x"}, "sum")
	thenInner := t2.Graph("then_inner", nil, []*onnxpb.ValueInfoProto{og.Info("sum", f32, []int64{2, 3})})
	// else of the inner If: (h · x) reshaped to Shape(h)[0] × -1, through
	// Shape → Slice → Concat arithmetic that folds at compile time.
	e2 := b.Sub()
	e2.Node("Mul", []string{h, "x"}, "prod")
	e2.Node("Shape", []string{h}, "shp")
	e2.Add(int64T("s0", []int64{1}, 0))
	e2.Add(int64T("s1", []int64{1}, 1))
	e2.Add(int64T("m1", []int64{1}, -1))
	e2.Node("Slice", []string{"shp", "s0", "s1"}, "rows")
	e2.Node("Concat", []string{"rows", "m1"}, "newshape", og.Int("axis", 0))
	e2.Node("Reshape", []string{"prod", "newshape"}, "prod2")
	elseInner := e2.Graph("else_inner", nil, []*onnxpb.ValueInfoProto{og.Info("prod2", f32, []int64{2, 3})})

	// then of the outer If: the nested If on c2.
	t1 := b.Sub()
	t1.Node("If", []string{"c2"}, "inner", og.GraphAttr("then_branch", thenInner), og.GraphAttr("else_branch", elseInner))
	thenOuter := t1.Graph("then_outer", nil, []*onnxpb.ValueInfoProto{og.Info("inner", f32, []int64{2, 3})})
	// else of the outer If: Concat(h, x) along axis 0, [4, 3].
	e1 := b.Sub()
	e1.Node("Concat", []string{h, "x"}, "cat", og.Int("axis", 0))
	elseOuter := e1.Graph("else_outer", nil, []*onnxpb.ValueInfoProto{og.Info("cat", f32, []int64{4, 3})})

	b.Node("If", []string{"c1"}, "y", og.GraphAttr("then_branch", thenOuter), og.GraphAttr("else_branch", elseOuter))
	b.Node("ReduceSum", []string{"y", b.Add(int64T("axes", []int64{1}, 0))}, "out", og.Int("keepdims", 1))
	g := b.Graph("if_captures",
		[]*onnxpb.ValueInfoProto{og.Info("c1", b1, nil), og.Info("c2", b1, nil), og.Info("x", f32, []int64{2, 3})},
		[]*onnxpb.ValueInfoProto{og.Info("out", f32, []int64{1, 3})})
	og.WriteGraph(dir, g, 17)
	for set, c := range [][2]bool{{true, true}, {true, false}, {false, true}} {
		og.WriteInput(dir, set, 0, boolT("c1", c[0]))
		og.WriteInput(dir, set, 1, boolT("c2", c[1]))
		og.WriteInput(dir, set, 2, og.Tensor("x", []int64{2, 3}, b.Floats(6, 0, 1)))
	}
}

func ifShapeModel() {
	const dir = "examples/controlflow/ifshape"
	b := og.New(17, 18)
	t := b.Sub()
	t.Node("Add", []string{"x", b.Scalar("one", 1)}, "inc")
	e := b.Sub()
	e.Node("Concat", []string{"x", "x"}, "twice", og.Int("axis", 0))
	b.Node("If", []string{"c"}, "y",
		og.GraphAttr("then_branch", t.Graph("then", nil, []*onnxpb.ValueInfoProto{og.Info("inc", f32, []int64{2, 3})})),
		og.GraphAttr("else_branch", e.Graph("else", nil, []*onnxpb.ValueInfoProto{og.Info("twice", f32, []int64{4, 3})})))
	out := og.Info("y", f32, []int64{0, 3})
	out.Type.GetTensorType().Shape.Dim[0].Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: "N"}
	g := b.Graph("if_shapes", []*onnxpb.ValueInfoProto{og.Info("c", b1, nil), og.Info("x", f32, []int64{2, 3})}, []*onnxpb.ValueInfoProto{out})
	og.WriteGraph(dir, g, 17)
	for set, c := range []bool{true, false} {
		og.WriteInput(dir, set, 0, boolT("c", c))
		og.WriteInput(dir, set, 1, og.Tensor("x", []int64{2, 3}, b.Floats(6, 0, 1)))
	}
}

func loopModel() {
	const dir = "examples/controlflow/loop"
	b := og.New(13, 14)
	w := b.Init("w", []int64{2}, 0.8, 0.3)

	// Body of the first loop: (i, cond, acc) -> (i < 4, acc·w + i, acc·w + i).
	lb := b.Sub()
	lb.Add(int64T("four", nil, 4))
	lb.Node("Less", []string{"i", "four"}, "cond_out")
	lb.Node("Cast", []string{"i"}, "fi", og.Int("to", int64(f32)))
	lb.Node("Mul", []string{"acc", w}, "scaled")
	lb.Node("Add", []string{"scaled", "fi"}, "acc_out")
	lb.Node("Identity", []string{"acc_out"}, "scan_out")
	body := lb.Graph("body",
		[]*onnxpb.ValueInfoProto{og.Info("i", i64, nil), og.Info("cond_in", b1, nil), og.Info("acc", f32, []int64{2})},
		[]*onnxpb.ValueInfoProto{og.Info("cond_out", b1, nil), og.Info("acc_out", f32, []int64{2}), og.Info("scan_out", f32, []int64{2})})
	b.NodeOuts("Loop", []string{"M", "cond", "x"}, []string{"acc_final", "accs"}, og.GraphAttr("body", body))
	b.Node("ReduceSum", []string{"accs", b.Add(int64T("axes", []int64{1}, 0))}, "accs_sum", og.Int("keepdims", 0))

	// Body of the second loop: (i, cond, v) -> (cond, v + w, v·v).
	lb2 := b.Sub()
	lb2.Node("Add", []string{"v", w}, "v_out")
	lb2.Node("Mul", []string{"v", "v"}, "sq")
	body2 := lb2.Graph("body2",
		[]*onnxpb.ValueInfoProto{og.Info("j", i64, nil), og.Info("c_in", b1, nil), og.Info("v", f32, []int64{2})},
		[]*onnxpb.ValueInfoProto{og.Info("c_in", b1, nil), og.Info("v_out", f32, []int64{2}), og.Info("sq", f32, []int64{2})})
	b.Add(int64T("three", nil, 3))
	b.NodeOuts("Loop", []string{"three", "", "x"}, []string{"v_final", "squares"}, og.GraphAttr("body", body2))

	g := b.Graph("loop_scan_outputs",
		[]*onnxpb.ValueInfoProto{og.Info("M", i64, nil), og.Info("cond", b1, nil), og.Info("x", f32, []int64{2})},
		[]*onnxpb.ValueInfoProto{og.Info("acc_final", f32, []int64{2}), og.Info("accs_sum", f32, []int64{2}), og.Info("v_final", f32, []int64{2}), og.Info("squares", f32, []int64{3, 2})})
	og.WriteGraph(dir, g, 17)
	for set, c := range []struct {
		m    int64
		cond bool
	}{{3, true}, {10, true}, {0, true}, {7, false}} {
		og.WriteInput(dir, set, 0, int64T("M", nil, c.m))
		og.WriteInput(dir, set, 1, boolT("cond", c.cond))
		og.WriteInput(dir, set, 2, og.Tensor("x", []int64{2}, b.Floats(2, 0, 1)))
	}
}

func scanModel() {
	const dir = "examples/controlflow/scan"
	b := og.New(15, 16)
	sb := b.Sub()
	sb.Node("Mul", []string{"xt", "yt"}, "p")
	sb.Node("Add", []string{"s", "p"}, "s_out")
	sb.Node("Identity", []string{"s_out"}, "o0")
	sb.Node("Identity", []string{"s_out"}, "o1")
	body := sb.Graph("body",
		[]*onnxpb.ValueInfoProto{og.Info("s", f32, []int64{2}), og.Info("xt", f32, []int64{2}), og.Info("yt", f32, []int64{2})},
		[]*onnxpb.ValueInfoProto{og.Info("s_out", f32, []int64{2}), og.Info("o0", f32, []int64{2}), og.Info("o1", f32, []int64{2})})
	b.NodeOuts("Scan", []string{"s0", "xs", "ys"}, []string{"s_final", "fwd", "rev"}, og.GraphAttr("body", body),
		og.Int("num_scan_inputs", 2), og.Ints("scan_input_axes", 0, 1), og.Ints("scan_input_directions", 0, 1),
		og.Ints("scan_output_axes", 0, -1), og.Ints("scan_output_directions", 0, 1))
	g := b.Graph("scan_directions",
		[]*onnxpb.ValueInfoProto{og.Info("s0", f32, []int64{2}), og.Info("xs", f32, []int64{3, 2}), og.Info("ys", f32, []int64{2, 3})},
		[]*onnxpb.ValueInfoProto{og.Info("s_final", f32, []int64{2}), og.Info("fwd", f32, []int64{3, 2}), og.Info("rev", f32, []int64{2, 3})})
	og.WriteGraph(dir, g, 11)
	og.WriteInput(dir, 0, 0, og.Tensor("s0", []int64{2}, b.Floats(2, 0, 1)))
	og.WriteInput(dir, 0, 1, og.Tensor("xs", []int64{3, 2}, b.Floats(6, 0, 1)))
	og.WriteInput(dir, 0, 2, og.Tensor("ys", []int64{2, 3}, b.Floats(6, 0, 1)))
}

func scan8Model() {
	const dir = "examples/controlflow/scan8"
	b := og.New(17, 19)
	body := func(name string) *onnxpb.GraphProto {
		sb := b.Sub()
		sb.Node("Mul", []string{"xt", "yt"}, "p")
		sb.Node("Add", []string{"s", "p"}, "s_out")
		sb.Node("Identity", []string{"s_out"}, "o0")
		return sb.Graph(name,
			[]*onnxpb.ValueInfoProto{og.Info("s", f32, []int64{2}), og.Info("xt", f32, []int64{2}), og.Info("yt", f32, []int64{2})},
			[]*onnxpb.ValueInfoProto{og.Info("s_out", f32, []int64{2}), og.Info("o0", f32, []int64{2}), og.Info("p", f32, []int64{2})})
	}
	b.NodeOuts("Scan", []string{"lens", "s0", "xs", "ys"}, []string{"s_final", "sums", "prods"}, og.GraphAttr("body", body("body")),
		og.Int("num_scan_inputs", 2), og.Ints("directions", 0, 1))
	b.NodeOuts("Scan", []string{"", "s0", "xs", "ys"}, []string{"s_full", "sums_full", "prods_full"}, og.GraphAttr("body", body("body_full")),
		og.Int("num_scan_inputs", 2), og.Ints("directions", 0, 1))
	g := b.Graph("scan8_batch",
		[]*onnxpb.ValueInfoProto{og.Info("lens", i64, []int64{3}), og.Info("s0", f32, []int64{3, 2}),
			og.Info("xs", f32, []int64{3, 4, 2}), og.Info("ys", f32, []int64{3, 4, 2})},
		[]*onnxpb.ValueInfoProto{og.Info("s_final", f32, []int64{3, 2}), og.Info("sums", f32, []int64{3, 4, 2}), og.Info("prods", f32, []int64{3, 4, 2}),
			og.Info("s_full", f32, []int64{3, 2}), og.Info("sums_full", f32, []int64{3, 4, 2}), og.Info("prods_full", f32, []int64{3, 4, 2})})
	og.WriteGraph(dir, g, 8)
	for set, lens := range [][]int64{{4, 2, 3}, {1, 4, 1}} {
		og.WriteInput(dir, set, 0, int64T("lens", []int64{3}, lens...))
		og.WriteInput(dir, set, 1, og.Tensor("s0", []int64{3, 2}, b.Floats(6, 0, 1)))
		og.WriteInput(dir, set, 2, og.Tensor("xs", []int64{3, 4, 2}, b.Floats(24, 0, 1)))
		og.WriteInput(dir, set, 3, og.Tensor("ys", []int64{3, 4, 2}, b.Floats(24, 0, 1)))
	}
}

func loopCondModel() {
	const dir = "examples/controlflow/loopcond"
	b := og.New(21, 23)
	w := b.Values("w", []int64{2}, 1.1, 1.05)
	lb := b.Sub()
	lb.Node("Mul", []string{"acc", w}, "scaled")
	lb.Node("Add", []string{"scaled", b.Scalar("one", 1)}, "acc_out")
	lb.Node("ReduceSum", []string{"acc_out"}, "total", og.Int("keepdims", 0))
	lb.Node("Less", []string{"total", "limit"}, "cond_out")
	lb.Node("Cast", []string{"i"}, "fi", og.Int("to", int64(f32)))
	lb.Node("Identity", []string{"acc_out"}, "acc_scan")
	body := lb.Graph("body",
		[]*onnxpb.ValueInfoProto{og.Info("i", i64, nil), og.Info("cond_in", b1, nil), og.Info("acc", f32, []int64{2})},
		[]*onnxpb.ValueInfoProto{og.Info("cond_out", b1, nil), og.Info("acc_out", f32, []int64{2}), og.Info("acc_scan", f32, []int64{2}), og.Info("fi", f32, nil)})
	b.NodeOuts("Loop", []string{"", "cond", "x"}, []string{"acc_final", "accs", "iters"}, og.GraphAttr("body", body))
	b.Node("ReduceSum", []string{"accs", b.Add(int64T("axes", []int64{1}, 0))}, "accs_sum", og.Int("keepdims", 0))
	b.Node("ReduceSum", []string{"iters", "axes"}, "iters_sum", og.Int("keepdims", 0))
	g := b.Graph("loop_condition_only",
		[]*onnxpb.ValueInfoProto{og.Info("cond", b1, nil), og.Info("x", f32, []int64{2}), og.Info("limit", f32, nil)},
		[]*onnxpb.ValueInfoProto{og.Info("acc_final", f32, []int64{2}), og.Info("accs_sum", f32, []int64{2}),
			og.Info("iters_sum", f32, nil)})
	og.WriteGraph(dir, g, 17)
	for set, c := range []struct {
		cond  bool
		limit float32
	}{{false, 10}, {true, 10}, {true, 1e4}} {
		og.WriteInput(dir, set, 0, boolT("cond", c.cond))
		og.WriteInput(dir, set, 1, og.Tensor("x", []int64{2}, b.Floats(2, 0.5, 0.2)))
		og.WriteInput(dir, set, 2, og.Tensor("limit", nil, binary.LittleEndian.AppendUint32(nil, math.Float32bits(c.limit))))
	}
}
