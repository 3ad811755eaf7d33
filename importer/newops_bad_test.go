package importer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestNewOpsBadInput imports malformed instances of the ops of
// ops_training.go, ops_ml.go, ops_tree.go, ops_qlinear.go, ops_dft.go,
// ops_linalg.go and ops_bitcast.go: each must give an error naming the
// node or keep it an UnknownOp with a reason, never panic or convert.
func TestNewOpsBadInput(t *testing.T) {
	f := func(name string, dims ...int64) *onnxpb.ValueInfoProto { return vi(name, dtFloat, dims...) }
	i64 := func(name string, v int64) *onnxpb.TensorProto {
		return tensorProto(name, vals(niro.I64, nil, float64(v)))
	}
	type tc struct {
		name   string
		opsets map[string]int64
		n      *onnxpb.NodeProto
		ins    []*onnxpb.ValueInfoProto
		outs   []*onnxpb.ValueInfoProto
		inits  []*onnxpb.TensorProto
	}
	ai := func(v int64) map[string]int64 { return map[string]int64{"": v} }
	ml := map[string]int64{mlDomain: 5}
	tr := map[string]int64{trainingDomain: 1}
	tree := func(attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
		return domainNode(mlDomain, "TreeEnsemble", []string{"x"}, []string{"y"}, attrs...)
	}
	treeAttrs := func(trueIDs, falseIDs []int64, roots ...int64) []*onnxpb.AttributeProto {
		return []*onnxpb.AttributeProto{attrInt("n_targets", 1), attrInts("nodes_featureids", 0), attrInts("nodes_truenodeids", trueIDs...),
			attrInts("nodes_falsenodeids", falseIDs...), attrInts("nodes_trueleafs", 0), attrInts("nodes_falseleafs", 1),
			attrInts("leaf_targetids", 0), attrInts("tree_roots", roots...),
			attrTensor("nodes_modes", tensorProto("", vals(niro.U8, []int64{1}, 0))),
			attrTensor("nodes_splits", tensorProto("", vals(niro.F32, []int64{1}, 0))),
			attrTensor("leaf_weights", tensorProto("", vals(niro.F32, []int64{1}, 1)))}
	}
	cases := []tc{
		{"dft rank 1", ai(20), node("DFT", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 4)}, []*onnxpb.ValueInfoProto{f("y", 4)}, nil},
		{"dft complex axis", ai(17), node("DFT", []string{"x"}, []string{"y"}, attrInt("axis", 2)), []*onnxpb.ValueInfoProto{f("x", 1, 4, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, 4, 2)}, nil},
		{"dft length 0", ai(17), node("DFT", []string{"x", "n"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 4, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, 4, 2)}, []*onnxpb.TensorProto{i64("n", 0)}},
		{"dft length huge", ai(17), node("DFT", []string{"x", "n"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 4, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, dyn, 2)}, []*onnxpb.TensorProto{i64("n", 1<<40)}},
		{"dft 3 parts", ai(17), node("DFT", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 4, 3)}, []*onnxpb.ValueInfoProto{f("y", 1, 4, 2)}, nil},
		{"dft dynamic", ai(17), node("DFT", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, dyn, 2)}, []*onnxpb.ValueInfoProto{f("y", 1, dyn, 2)}, nil},
		{"stft step 0", ai(17), node("STFT", []string{"x", "s"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 8, 1)}, []*onnxpb.ValueInfoProto{f("y", 1, dyn, 5, 2)}, []*onnxpb.TensorProto{i64("s", 0)}},
		{"stft long frame", ai(17), node("STFT", []string{"x", "s", "", "l"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 8, 1)}, []*onnxpb.ValueInfoProto{f("y", 1, dyn, dyn, 2)}, []*onnxpb.TensorProto{i64("s", 1), i64("l", 9)}},
		{"stft window length", ai(17), node("STFT", []string{"x", "s", "w", "l"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 1, 8, 1), f("w", 3)}, []*onnxpb.ValueInfoProto{f("y", 1, dyn, dyn, 2)}, []*onnxpb.TensorProto{i64("s", 1), i64("l", 4)}},
		{"stft rank 2", ai(17), node("STFT", []string{"x", "s"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 8, 1)}, []*onnxpb.ValueInfoProto{f("y", dyn, dyn, 2)}, []*onnxpb.TensorProto{i64("s", 1)}},
		{"det not square", ai(22), node("Det", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 2, 3)}, []*onnxpb.ValueInfoProto{f("y")}, nil},
		{"det rank 1", ai(22), node("Det", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 2)}, []*onnxpb.ValueInfoProto{f("y")}, nil},
		{"det dynamic", ai(22), node("Det", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", dyn, dyn)}, []*onnxpb.ValueInfoProto{f("y")}, nil},
		{"compress long condition", ai(11), node("Compress", []string{"x", "c"}, []string{"y"}, attrInt("axis", 0)), []*onnxpb.ValueInfoProto{f("x", 2)}, []*onnxpb.ValueInfoProto{f("y", dyn)},
			[]*onnxpb.TensorProto{tensorProto("c", vals(niro.Bool, []int64{3}, 1, 0, 1))}},
		{"compress float condition", ai(11), node("Compress", []string{"x", "c"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 2), f("c", 2)}, []*onnxpb.ValueInfoProto{f("y", dyn)}, nil},
		{"compress bad axis", ai(11), node("Compress", []string{"x", "c"}, []string{"y"}, attrInt("axis", 3)), []*onnxpb.ValueInfoProto{f("x", 2)}, []*onnxpb.ValueInfoProto{f("y", dyn)},
			[]*onnxpb.TensorProto{tensorProto("c", vals(niro.Bool, []int64{1}, 1))}},
		{"mel zero bins", ai(17), node("MelWeightMatrix", []string{"b", "l", "r", "lo", "hi"}, []string{"y"}), nil, []*onnxpb.ValueInfoProto{f("y", dyn, dyn)},
			[]*onnxpb.TensorProto{i64("b", 0), i64("l", 16), i64("r", 8000), tensorProto("lo", vals(niro.F32, nil, 0)), tensorProto("hi", vals(niro.F32, nil, 4000))}},
		{"mel huge", ai(17), node("MelWeightMatrix", []string{"b", "l", "r", "lo", "hi"}, []string{"y"}), nil, []*onnxpb.ValueInfoProto{f("y", dyn, dyn)},
			[]*onnxpb.TensorProto{i64("b", 1<<16), i64("l", 1<<24), i64("r", 8000), tensorProto("lo", vals(niro.F32, nil, 0)), tensorProto("hi", vals(niro.F32, nil, 4000))}},
		{"mel edges past nyquist", ai(17), node("MelWeightMatrix", []string{"b", "l", "r", "lo", "hi"}, []string{"y"}), nil, []*onnxpb.ValueInfoProto{f("y", dyn, dyn)},
			[]*onnxpb.TensorProto{i64("b", 4), i64("l", 16), i64("r", 8000), tensorProto("lo", vals(niro.F32, nil, 0)), tensorProto("hi", vals(niro.F32, nil, 1e9))}},
		{"tree no attributes", ml, tree(), []*onnxpb.ValueInfoProto{f("x", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 1)}, nil},
		{"tree cycle", ml, tree(treeAttrs([]int64{0}, []int64{0}, 0)...), []*onnxpb.ValueInfoProto{f("x", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 1)}, nil},
		{"tree bad node", ml, tree(treeAttrs([]int64{5}, []int64{0}, 0)...), []*onnxpb.ValueInfoProto{f("x", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 1)}, nil},
		{"tree bad root", ml, tree(treeAttrs([]int64{0}, []int64{0}, 3)...), []*onnxpb.ValueInfoProto{f("x", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 1)}, nil},
		{"tree softmax", ml, tree(append(treeAttrs([]int64{0}, []int64{0}, 0), attrInt("post_transform", 1))...), []*onnxpb.ValueInfoProto{f("x", 2, 1)}, []*onnxpb.ValueInfoProto{f("y", 2, 1)}, nil},
		{"momentum groups", tr, domainNode(trainingDomain, "Momentum", []string{"r", "t", "x", "g", "v", "x2"}, []string{"a", "b"},
			attrFloat("alpha", 1), attrFloat("beta", 1), attrFloat("norm_coefficient", 0), attrString("mode", "standard")),
			[]*onnxpb.ValueInfoProto{f("r"), vi("t", dtInt64), f("x", 2), f("g", 2), f("v", 2), f("x2", 2)}, []*onnxpb.ValueInfoProto{f("a", 2), f("b", 2)}, nil},
		{"momentum mode", tr, domainNode(trainingDomain, "Momentum", []string{"r", "t", "x", "g", "v"}, []string{"a", "b"},
			attrFloat("alpha", 1), attrFloat("beta", 1), attrFloat("norm_coefficient", 0), attrString("mode", "heavy")),
			[]*onnxpb.ValueInfoProto{f("r"), vi("t", dtInt64), f("x", 2), f("g", 2), f("v", 2)}, []*onnxpb.ValueInfoProto{f("a", 2), f("b", 2)}, nil},
		{"adam int T", tr, domainNode(trainingDomain, "Adam", []string{"r", "t", "x", "g", "v", "h"}, []string{"a", "b", "c"}),
			[]*onnxpb.ValueInfoProto{f("r"), f("t"), f("x", 2), f("g", 2), f("v", 2), f("h", 2)}, []*onnxpb.ValueInfoProto{f("a", 2), f("b", 2), f("c", 2)}, nil},
		{"qlinearmatmul float", ai(21), node("QLinearMatMul", []string{"a", "s", "z", "b", "s", "z", "s", "z"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{f("a", 2, 2), f("s"), vi("z", dtUint8), f("b", 2, 2)}, []*onnxpb.ValueInfoProto{vi("y", dtUint8, 2, 2)}, nil},
		{"matmulinteger zp type", ai(10), node("MatMulInteger", []string{"a", "b", "z"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{vi("a", dtUint8, 2, 2), vi("b", dtUint8, 2, 2), vi("z", dtInt8)}, []*onnxpb.ValueInfoProto{vi("y", dtInt32, 2, 2)}, nil},
		{"qlinearconv vector x_scale", ai(10), node("QLinearConv", []string{"x", "s", "z", "w", "s", "z", "s", "z"}, []string{"y"}),
			[]*onnxpb.ValueInfoProto{vi("x", dtUint8, 1, 1, 3, 3), f("s", 2), vi("z", dtUint8), vi("w", dtUint8, 1, 1, 1, 1)}, []*onnxpb.ValueInfoProto{vi("y", dtUint8, 1, 1, 3, 3)}, nil},
		{"bitcast width", ai(26), node("BitCast", []string{"x"}, []string{"y"}, attrInt("to", int64(dtInt8))), []*onnxpb.ValueInfoProto{f("x", 2)}, []*onnxpb.ValueInfoProto{vi("y", dtInt8, 2)}, nil},
		{"bitcast no to", ai(26), node("BitCast", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x", 2)}, []*onnxpb.ValueInfoProto{vi("y", dtInt32, 2)}, nil},
		{"binarizer bool", map[string]int64{mlDomain: 1}, domainNode(mlDomain, "Binarizer", []string{"x"}, []string{"y"}), []*onnxpb.ValueInfoProto{vi("x", dtBool, 2)}, []*onnxpb.ValueInfoProto{vi("y", dtBool, 2)}, nil},
		{"array feature scalar", map[string]int64{mlDomain: 1}, domainNode(mlDomain, "ArrayFeatureExtractor", []string{"x", "i"}, []string{"y"}), []*onnxpb.ValueInfoProto{f("x"), vi("i", dtInt64, 1)}, []*onnxpb.ValueInfoProto{f("y", 1, 1)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			named(c.n, "bad")
			m := modelOpsets(graph("g", []*onnxpb.NodeProto{c.n}, c.ins, c.outs, c.inits...), c.opsets)
			mod, err := importModel(t, m, Options{})
			if err != nil {
				if want := `"bad"`; !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name the node", err)
				}
				return
			}
			for _, op := range entryOps(mod) {
				if u, ok := op.(*niro.UnknownOp); ok {
					if r, _ := u.Attrs[ReasonAttr].(niro.StringAttr); r == "" {
						t.Errorf("UnknownOp %s has no reason", u.Name())
					}
					return
				}
			}
			t.Errorf("converted without an error:\n%s", fmt.Sprint(entryOps(mod)))
		})
	}
}
