package importer

import (
	"sort"

	"github.com/niro-dev/niro/niro"
)

// The Reduce* family. Each is a Niro Reduce (sum, prod, max or min) with an
// element-wise step before it (|x|, x², exp x) and after it (mean's
// division, sqrt, log) where ONNX defines one, matching the reference's
// order of operations.

type reduceRecipe struct {
	kind niro.ReduceKind
	pre  func(nc *nodeCtx, x niro.Value) niro.Value
	post func(nc *nodeCtx, y niro.Value, count int64) niro.Value
}

var reduceRecipes = map[string]reduceRecipe{
	"ReduceSum":  {kind: niro.ReduceSum},
	"ReduceProd": {kind: niro.ReduceProd},
	"ReduceMax":  {kind: niro.ReduceMax},
	"ReduceMin":  {kind: niro.ReduceMin},
	"ReduceMean": {kind: niro.ReduceSum, post: func(nc *nodeCtx, y niro.Value, n int64) niro.Value {
		return nc.bin(niro.Div, y, nc.like(y, float64(n)))
	}},
	"ReduceL1": {kind: niro.ReduceSum, pre: func(nc *nodeCtx, x niro.Value) niro.Value { return nc.un(niro.Abs, x) }},
	"ReduceL2": {kind: niro.ReduceSum,
		pre: func(nc *nodeCtx, x niro.Value) niro.Value { return nc.bin(niro.Mul, x, x) },
		post: func(nc *nodeCtx, y niro.Value, _ int64) niro.Value {
			if !elem(y).IsFloat() { // integer L2: sqrt in f64, truncated back
				return nc.cast(nc.un(niro.Sqrt, nc.cast(y, niro.F64)), elem(y))
			}
			return nc.un(niro.Sqrt, y)
		}},
	"ReduceSumSquare": {kind: niro.ReduceSum, pre: func(nc *nodeCtx, x niro.Value) niro.Value { return nc.bin(niro.Mul, x, x) }},
	"ReduceLogSum": {kind: niro.ReduceSum, post: func(nc *nodeCtx, y niro.Value, _ int64) niro.Value {
		return nc.un(niro.Log, y)
	}},
	"ReduceLogSumExp": {kind: niro.ReduceSum,
		pre:  func(nc *nodeCtx, x niro.Value) niro.Value { return nc.un(niro.Exp, x) },
		post: func(nc *nodeCtx, y niro.Value, _ int64) niro.Value { return nc.un(niro.Log, y) }},
}

// reduceConv maps one Reduce* op; axesInput says whether this version
// takes the axes as input 1 (else as an attribute).
func reduceConv(r reduceRecipe, axesInput bool) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		x := nc.in(0)
		rank := nc.rank(x)
		var axes []int64
		given := false
		if axesInput {
			if nc.has(1) {
				a, ok := nc.knownInts(1)
				if !ok {
					nc.notYet("the axes input must be known at compile time, but it is computed at run time")
					return nc.err
				}
				axes, given = a, true
			}
		} else {
			axes, given = nc.attrInts("axes")
		}
		if len(axes) == 0 && nc.attrInt("noop_with_empty_axes", 0) != 0 {
			y := x
			if r.pre != nil {
				y = r.pre(nc, y)
			}
			nc.out(0, y)
			return nil
		}
		_ = given
		norm := map[int]bool{}
		if len(axes) == 0 {
			for i := 0; i < rank; i++ {
				norm[i] = true
			}
		}
		for _, a := range axes {
			norm[nc.axis(a, rank)] = true
		}
		list := make([]int, 0, len(norm))
		for a := range norm {
			list = append(list, a)
		}
		sort.Ints(list)
		count := int64(1)
		xt := tensorOf(x)
		for _, a := range list {
			if !xt.Unranked && count >= 0 {
				if d := xt.Dims[a]; d < 0 {
					count = niro.Dynamic
				} else {
					count *= d
				}
			}
		}
		y := x
		if r.pre != nil {
			y = r.pre(nc, y)
		}
		y = nc.op(&niro.Reduce{Kind: r.kind, Axes: list, KeepDims: nc.attrInt("keepdims", 1) != 0, X: y})
		if r.post != nil {
			if count < 0 {
				nc.notYet("%s needs static extents along the reduced axes", nc.n.OpType)
				return nc.err
			}
			y = r.post(nc, y, count)
		}
		nc.out(0, y)
		return nil
	}
}

func init() {
	for name, r := range reduceRecipes {
		switchAt := int64(18)
		if name == "ReduceSum" {
			switchAt = 13
		}
		register(name,
			opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"axes", "keepdims"}, Convert: reduceConv(r, false)},
			opSpec{Since: switchAt, In: [2]int{1, 2}, Out: [2]int{1, 1}, Attrs: []string{"keepdims", "noop_with_empty_axes"}, Convert: reduceConv(r, true)})
	}
}
