package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// ai.onnx.ml TreeEnsemble (opset 5) without control flow. The trees are
// known at import, so every root-to-leaf path is known: each leaf is
// reached when every node on its path takes the branch the path takes.
//
//  1. Node conditions, all nodes at once: X's columns at the nodes'
//     features (a gather, [B, N]) compared with the splits by each node's
//     mode (<=, <, >=, >, ==, !=, or membership in the node's set: an
//     equality with each member, any of them), or'ed with
//     "NaN and missing_value_tracks_true".
//  2. Path counts: with c the conditions as 0/1 in f32, S = c·(T − F) +
//     Σ F, where T[n, l] (F[n, l]) is 1 when path l needs node n true
//     (false); S counts the nodes on the path that go its way, exactly
//     (small integers), and leaf l is reached where S equals the path's
//     length.
//  3. Aggregation per target, in X's type, over the leaves in tree order:
//     sum (and average: each weight divided by the number of trees first,
//     as the reference) starting from 0, min from the type's largest and
//     max from its lowest value, of the reached leaves' weights (a select
//     and a reduce). Each tree reaches exactly one leaf, so the sum adds
//     the trees' weights in tree order, as the reference does.
//
// post_transform other than NONE stays an UnknownOp.

func init() {
	registerDomain(mlDomain, "TreeEnsemble", opSpec{Since: 5, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{
		"aggregate_function", "leaf_targetids", "leaf_weights", "membership_values", "n_targets",
		"nodes_falseleafs", "nodes_falsenodeids", "nodes_featureids", "nodes_hitrates",
		"nodes_missing_value_tracks_true", "nodes_modes", "nodes_splits", "nodes_trueleafs",
		"nodes_truenodeids", "post_transform", "tree_roots"}, Convert: treeEnsembleConv})
}

// maxTreePaths bounds the root-to-leaf paths TreeEnsemble decomposes.
const maxTreePaths = 1 << 14

// tensorAttr returns the values of tensor attribute name (float32, float64
// or integer elements).
func (nc *nodeCtx) tensorAttr(name string) (*known, bool) {
	a := nc.attr(name)
	if a == nil || a.Tensor == nil {
		return nil, false
	}
	tt, err := a.Tensor.NiroType()
	if err != nil || !(tt.Elem == niro.F32 || tt.Elem == niro.F64 || tt.Elem.IsInt()) {
		nc.fail("attribute %s must hold f32, f64 or integer elements", name)
		return nil, false
	}
	return knownOfTensor(tensorio.Tensor{Elem: tt.Elem, Dims: tt.Dims, Data: a.Tensor.Bytes()}), true
}

type treePath struct {
	leaf  int64
	nodes []int64 // the interior nodes on the path
	way   []bool  // the branch taken at each
}

func treeEnsembleConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	dims, ok := nc.staticDims(x)
	if nc.err != nil {
		return nc.err
	}
	if !ok || len(dims) != 2 {
		nc.notYet("TreeEnsemble needs a static 2-D input")
		return nil
	}
	if pt := nc.attrInt("post_transform", 0); pt != 0 {
		nc.notYet("post_transform %d is not supported yet", pt)
		return nil
	}
	agg := nc.attrInt("aggregate_function", 1)
	if agg < 0 || agg > 3 {
		return nc.errorf("aggregate_function %d is not AVERAGE, SUM, MIN or MAX", agg)
	}
	ints := func(name string) []int64 {
		v, ok := nc.attrInts(name)
		if !ok {
			nc.fail("attribute %s is required", name)
		}
		return v
	}
	feat, tIDs, fIDs := ints("nodes_featureids"), ints("nodes_truenodeids"), ints("nodes_falsenodeids")
	tLeaf, fLeaf := ints("nodes_trueleafs"), ints("nodes_falseleafs")
	targets, roots := ints("leaf_targetids"), ints("tree_roots")
	nTargets := nc.attrInt("n_targets", -1)
	splits, ok1 := nc.tensorAttr("nodes_splits")
	modes, ok2 := nc.tensorAttr("nodes_modes")
	weights, ok3 := nc.tensorAttr("leaf_weights")
	if nc.err != nil {
		return nc.err
	}
	if !ok1 || !ok2 || !ok3 || nTargets < 1 {
		return nc.errorf("attributes nodes_splits, nodes_modes, leaf_weights and n_targets are required")
	}
	nn, nl := len(feat), len(targets)
	if len(tIDs) != nn || len(fIDs) != nn || len(tLeaf) != nn || len(fLeaf) != nn || len(splits.floats) != nn || len(modes.ints) != nn || len(weights.floats) != nl {
		return nc.errorf("the nodes_* attributes must have one entry per node (%d) and leaf_weights one per leaf (%d)", nn, nl)
	}
	var mtt []int64
	if nc.attr("nodes_missing_value_tracks_true") != nil {
		if mtt = ints("nodes_missing_value_tracks_true"); len(mtt) != nn {
			return nc.errorf("nodes_missing_value_tracks_true must have one entry per node")
		}
	}
	for i := range nn {
		if feat[i] < 0 || feat[i] >= dims[1] {
			return nc.errorf("node %d reads feature %d, X has %d", i, feat[i], dims[1])
		}
		if modes.ints[i] < 0 || modes.ints[i] > 6 {
			return nc.errorf("node %d has mode %d, not one of 0..6", i, modes.ints[i])
		}
	}
	for _, t := range targets {
		if t < 0 || t >= nTargets {
			return nc.errorf("leaf target %d is out of range for n_targets %d", t, nTargets)
		}
	}
	// Set members of the membership nodes, in node order, NaN-delimited.
	sets := map[int64][]float64{}
	maxSet := 0
	if mv, ok := nc.tensorAttr("membership_values"); ok {
		var cur []float64
		next := 0
		for i := range nn {
			if modes.ints[i] != 6 {
				continue
			}
			cur = nil
			for next < len(mv.floats) && !math.IsNaN(mv.floats[next]) {
				cur = append(cur, mv.floats[next])
				next++
			}
			if next >= len(mv.floats) {
				return nc.errorf("membership_values has fewer NaN-delimited sets than membership nodes")
			}
			next++
			sets[int64(i)] = cur
			maxSet = max(maxSet, len(cur))
		}
	}
	// The paths, tree by tree, true branch first.
	var paths []treePath
	var walk func(n int64, isLeaf bool, nodes []int64, way []bool, depth int) bool
	walk = func(n int64, isLeaf bool, nodes []int64, way []bool, depth int) bool {
		if depth > nn {
			nc.fail("the tree of node %d has a cycle", n)
			return false
		}
		if len(paths) > maxTreePaths {
			return false
		}
		if isLeaf {
			if n < 0 || n >= int64(nl) {
				nc.fail("leaf index %d is out of range (%d leaves)", n, nl)
				return false
			}
			paths = append(paths, treePath{leaf: n, nodes: append([]int64{}, nodes...), way: append([]bool{}, way...)})
			return true
		}
		if n < 0 || n >= int64(nn) {
			nc.fail("node index %d is out of range (%d nodes)", n, nn)
			return false
		}
		if modes.ints[n] == 6 {
			if _, ok := sets[n]; !ok {
				nc.fail("membership node %d has no set in membership_values", n)
				return false
			}
		}
		return walk(tIDs[n], tLeaf[n] != 0, append(nodes, n), append(way, true), depth+1) &&
			walk(fIDs[n], fLeaf[n] != 0, append(nodes, n), append(way, false), depth+1)
	}
	for _, r := range roots {
		if r < 0 || r >= int64(nn) {
			return nc.errorf("tree root %d is out of range (%d nodes)", r, nn)
		}
		if tLeaf[r] != 0 && fLeaf[r] != 0 && tIDs[r] == fIDs[r] {
			paths = append(paths, treePath{leaf: tIDs[r]})
			continue
		}
		if !walk(r, false, nil, nil, 0) {
			if nc.err != nil {
				return nc.err
			}
			nc.notYet("the trees have more than %d paths", maxTreePaths)
			return nil
		}
	}
	if len(roots) == 0 {
		return nc.errorf("tree_roots is empty")
	}
	np := int64(len(paths))
	if int64(nn)*np > maxBasis || np*nTargets > maxBasis || int64(nn*maxSet) > maxBasis {
		nc.notYet("the ensemble of %d nodes, %d paths and %d targets is too large to decompose", nn, np, nTargets)
		return nil
	}
	b := dims[0]
	e := elem(x)
	ct := computeType(e)
	xc := nc.cast(x, ct)

	// 1. Node conditions [B, N].
	fidx := nc.constInts(niro.I64, []int64{int64(nn)}, feat)
	xn := nc.op(&niro.Gather{Axis: 1, X: xc, Indices: fidx})
	sp := nc.constKnown(&known{elem: ct, dims: []int64{int64(nn)}, floats: roundAll(ct, splits.floats)})
	preds := []niro.Predicate{niro.Le, niro.Lt, niro.Ge, niro.Gt, niro.Eq, niro.Ne}
	var cond niro.Value
	have := false
	for m := int64(0); m <= 6; m++ {
		mask := make([]int64, nn)
		any := false
		for i := range nn {
			if modes.ints[i] == m {
				mask[i], any = 1, true
			}
		}
		if !any {
			continue
		}
		var c niro.Value
		if m < 6 {
			c = nc.cmp(preds[m], xn, sp)
		} else {
			vals := make([]float64, nn*maxSet)
			for i := range vals {
				vals[i] = math.NaN()
			}
			for n, s := range sets {
				for j, v := range s {
					vals[int(n)*maxSet+j] = v
				}
			}
			members := nc.constKnown(&known{elem: ct, dims: []int64{int64(nn), int64(maxSet)}, floats: roundAll(ct, vals)})
			eq := nc.cmp(niro.Eq, nc.reshapeStatic(xn, []int64{b, int64(nn), 1}), members)
			hit := nc.reduce(niro.ReduceMax, nc.cast(eq, niro.U8), []int{2}, false)
			c = nc.cmp(niro.Ne, hit, nc.scalar(niro.U8, 0))
		}
		if !have {
			cond, have = c, true
			continue
		}
		cond = nc.sel(nc.constInts(niro.Bool, []int64{int64(nn)}, mask), c, cond)
	}
	if mtt != nil {
		var tracks bool
		for _, v := range mtt {
			tracks = tracks || v != 0
		}
		if tracks {
			nan := nc.op(&niro.Binary{Kind: niro.And, LHS: nc.cmp(niro.Ne, xn, xn), RHS: nc.constInts(niro.Bool, []int64{int64(nn)}, mtt)})
			cond = nc.bin(niro.Or, cond, nan)
		}
	}

	// 2. Reached leaves [B, P].
	tf := make([]float64, int64(nn)*np)
	fsum := make([]float64, np)
	plen := make([]float64, np)
	for p, path := range paths {
		plen[p] = float64(len(path.nodes))
		for i, n := range path.nodes {
			if path.way[i] {
				tf[n*np+int64(p)]++
			} else {
				tf[n*np+int64(p)]--
				fsum[p]++
			}
		}
	}
	cf := nc.cast(cond, niro.F32)
	s := nc.matmulOp(cf, nc.constKnown(&known{elem: niro.F32, dims: []int64{int64(nn), np}, floats: tf}))
	s = nc.bin(niro.Add, s, nc.constKnown(&known{elem: niro.F32, dims: []int64{np}, floats: fsum}))
	reached := nc.cmp(niro.Eq, s, nc.constKnown(&known{elem: niro.F32, dims: []int64{np}, floats: plen}))

	// 3. Aggregation [B, targets].
	w := make([]float64, np*nTargets)
	onTarget := make([]int64, np*nTargets)
	var init float64
	switch agg {
	case 2:
		init = maxFinite(ct)
	case 3:
		init = -maxFinite(ct)
	}
	for i := range w {
		w[i] = init
	}
	for p, path := range paths {
		v := weights.floats[path.leaf]
		if agg == 0 {
			v = roundTo(ct, roundTo(ct, v)/float64(len(roots)))
		}
		t := targets[path.leaf]
		w[int64(p)*nTargets+t] = roundTo(ct, v)
		onTarget[int64(p)*nTargets+t] = 1
	}
	hitT := nc.op(&niro.Binary{Kind: niro.And,
		LHS: nc.reshapeStatic(reached, []int64{b, np, 1}),
		RHS: nc.constInts(niro.Bool, []int64{np, nTargets}, onTarget)})
	vals := nc.sel(hitT, nc.constKnown(&known{elem: ct, dims: []int64{np, nTargets}, floats: w}), nc.scalar(ct, init))
	rk := niro.ReduceSum
	switch agg {
	case 2:
		rk = niro.ReduceMin
	case 3:
		rk = niro.ReduceMax
	}
	y := nc.reduce(rk, vals, []int{1}, false)
	nc.out(0, nc.cast(y, e))
	return nil
}

// roundAll rounds vs to element type e.
func roundAll(e niro.ScalarType, vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = roundTo(e, v)
	}
	return out
}

// maxFinite is the largest finite value of float type e (f32 or f64).
func maxFinite(e niro.ScalarType) float64 {
	if e == niro.F64 {
		return math.MaxFloat64
	}
	return math.MaxFloat32
}
