package importer

import (
	"fmt"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// Two trees over 2 features, 3 targets, with every comparison mode and a
// missing value that tracks true; each aggregation against a Go walk of
// the trees.
func TestTreeEnsemble(t *testing.T) {
	// Tree 0: node 0 (x0 <= 1) ? node 1 : leaf 2; node 1 (x1 in {2, 5}) ?
	// leaf 0 : leaf 1. Tree 1: node 2 (x1 > 0.5, NaN true) ? node 3 :
	// leaf 3; node 3 (x0 != 4) ? leaf 4 : node 4; node 4 (x0 >= 4) ?
	// leaf 5 : leaf 6 (never reached: x0 = 4 there). Node 5: a one-node
	// tree whose root is a leaf (7) on both branches.
	modes := []float64{0, 6, 3, 5, 2, 1}
	splits := []float64{1, math.NaN(), 0.5, 4, 4, 0}
	feat := []int64{0, 1, 1, 0, 0, 0}
	trueIDs := []int64{1, 0, 3, 4, 5, 7}
	falseIDs := []int64{2, 1, 3, 4, 6, 7}
	trueLeaf := []int64{0, 1, 0, 1, 1, 1}
	falseLeaf := []int64{1, 1, 1, 0, 1, 1}
	mtt := []int64{0, 0, 1, 0, 0, 0}
	targets := []int64{0, 1, 2, 0, 1, 2, 0, 2}
	weights := []float64{1.5, -2, 3.25, 10, 0.5, 7, 100, -1}
	members := []float64{2, 5, math.NaN()}
	roots := []int64{0, 2, 5}
	xs := [][2]float64{{0, 2}, {0, 3}, {2, 0}, {4, math.NaN()}, {3, 1}, {math.NaN(), 5}, {1, 0.5}}

	walk := func(x [2]float64, root int64) int64 {
		n := root
		if trueLeaf[n] != 0 && falseLeaf[n] != 0 && trueIDs[n] == falseIDs[n] {
			return trueIDs[n]
		}
		for {
			v := x[feat[n]]
			var c bool
			switch modes[n] {
			case 0:
				c = v <= splits[n]
			case 1:
				c = v < splits[n]
			case 2:
				c = v >= splits[n]
			case 3:
				c = v > splits[n]
			case 4:
				c = v == splits[n]
			case 5:
				c = v != splits[n]
			case 6:
				c = v == 2 || v == 5
			}
			c = c || mtt[n] != 0 && math.IsNaN(v)
			id, leaf := falseIDs[n], falseLeaf[n]
			if c {
				id, leaf = trueIDs[n], trueLeaf[n]
			}
			if leaf != 0 {
				return id
			}
			n = id
		}
	}
	for agg, name := range []string{"AVERAGE", "SUM", "MIN", "MAX"} {
		t.Run(name, func(t *testing.T) {
			attrs := []*onnxpb.AttributeProto{
				attrInt("aggregate_function", int64(agg)), attrInt("n_targets", 3),
				attrInts("nodes_featureids", feat...), attrInts("nodes_truenodeids", trueIDs...), attrInts("nodes_falsenodeids", falseIDs...),
				attrInts("nodes_trueleafs", trueLeaf...), attrInts("nodes_falseleafs", falseLeaf...),
				attrInts("nodes_missing_value_tracks_true", mtt...), attrInts("leaf_targetids", targets...), attrInts("tree_roots", roots...),
				attrTensor("nodes_modes", tensorProto("", vals(niro.U8, []int64{6}, modes...))),
				attrTensor("nodes_splits", tensorProto("", vals(niro.F32, []int64{6}, splits...))),
				attrTensor("leaf_weights", tensorProto("", vals(niro.F32, []int64{8}, weights...))),
				attrTensor("membership_values", tensorProto("", vals(niro.F32, []int64{3}, members...))),
			}
			m := modelOpsets(graph("g",
				[]*onnxpb.NodeProto{domainNode(mlDomain, "TreeEnsemble", []string{"x"}, []string{"y"}, attrs...)},
				[]*onnxpb.ValueInfoProto{vi("x", dtFloat, int64(len(xs)), 2)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, int64(len(xs)), 3)}),
				map[string]int64{mlDomain: 5})
			var in []float64
			for _, x := range xs {
				in = append(in, x[0], x[1])
			}
			got := runValues(t, m, vals(niro.F32, []int64{int64(len(xs)), 2}, in...))[0]
			var want []float64
			for _, x := range xs {
				res := [3]float32{}
				switch agg {
				case 2:
					res = [3]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}
				case 3:
					res = [3]float32{-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32}
				}
				for _, r := range roots {
					l := walk(x, r)
					w, tg := float32(weights[l]), targets[l]
					switch agg {
					case 0:
						res[tg] += w / float32(len(roots))
					case 1:
						res[tg] += w
					case 2:
						res[tg] = min(res[tg], w)
					case 3:
						res[tg] = max(res[tg], w)
					}
				}
				for _, v := range res {
					want = append(want, float64(v))
				}
			}
			checkClose(t, fmt.Sprint(name), got, want, 0)
		})
	}
}
