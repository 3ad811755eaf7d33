package emit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// argReduceLanes lowers an ArgReduce over the last axis, of static extent
// n, of an operand of rank at most 3 (argReduce picks it for n >=
// argLanesMin) in two passes over lanes: position p = j·lanes + l of the
// axis is in lane l (lanes is niro.ReduceLanes past it, as a long Reduce's
// lanes, so that a GPU runs 4096 threads per row; argShortLanes below it).
// Each pass is a lane-partials generic over the full steps and, when lanes
// does not divide n, a second one step over the first n mod lanes lanes,
// both tagged niro.lanevec, which the host's reduction schedule vectorizes
// 16 lanes at a time (docs/toolchain.md, "The reduction schedule"), then a
// fold of the lanes:
//
//  1. the extreme m of each row: partials of maximumf/minimumf (maxsi,
//     minui, ... for integers) from the reduction seed, then their fold. m
//     is NaN when the row holds a NaN, otherwise its largest (smallest)
//     value, ±0 aside (maximumf(−0, +0) = +0);
//  2. the index: partials of minsi (maxsi with SelectLast) over
//     select(match(x[p], m), p, sentinel) from the sentinel n (−1), in
//     i32 when n < 2³¹ (half the partials' bytes; widened at the end),
//     then their fold, where match is x[p] == m (cmpf oeq: −0 matches +0) or
//     both NaN. With SelectLast on floats a NaN row still gives its first
//     NaN: a NaN position's key is ^p (below every position, above the
//     sentinel MinInt64), decoded after the fold.
//
// Both folds only pick a maximum or minimum, which does not depend on
// the order, so the index is the in-order scan's (argReduce): the first
// NaN when the row holds one, else the first (last) position whose value
// compares equal to the row's extreme. Every value is copied or compared,
// never computed (16-bit floats widen to f32 exactly).
func (fe *funcEmitter) argReduceLanes(op *niro.ArgReduce, xt, rt niro.TensorType, acc string, accElem niro.ScalarType, start string, n, lanes int64) {
	res, x := op.Result, op.X
	var kept []int
	for i := range xt.Dims {
		if i != op.Axis {
			kept = append(kept, i)
		}
	}
	K := len(kept)
	tag := "niro.lanes"
	if op.Axis == xt.Rank()-1 {
		tag = "niro.lanevec"
	}
	keptDims := make([]int64, K)
	for j, a := range kept {
		keptDims[j] = xt.Dims[a]
	}
	keptDim := func(j int) string { return fe.dim(x, xt, kept[j]) }
	partDims := append(append([]int64(nil), keptDims...), lanes)
	keptExprs := make([]string, K)
	partExprs := make([]string, K+1)
	for i := range partExprs {
		partExprs[i] = "d" + strconv.Itoa(i)
		if i < K {
			keptExprs[i] = partExprs[i]
		}
	}
	iters := append(parallel(K+1), "reduction")
	// lanePass folds positions j·lanes + l of every lane l into the partials
	// (element type pelem, seeded with seed) by step(element, p as an index,
	// extra ins' args, partial), over the full steps and then, when lanes
	// does not divide n, one more step over the first n mod lanes lanes.
	lanePass := func(pelem, seed string, extra []genericOperand, step func(e, p string, args []string) string) string {
		partType := tensorTypeOf(partDims, pelem)
		partials := fe.fill(fe.empty(partDims, pelem, keptDim), partType, pelem, seed, K+1)
		steps := func(out, outType string, j0, count int64) string {
			stepType := tensorTypeOf([]int64{count}, "i8")
			stepsT := fe.tmp()
			fe.line("%s = tensor.empty() : %s", stepsT, stepType)
			ins := append([]genericOperand{{name: stepsT, typ: stepType, elem: "i8", amap: affineMap(K+2, []string{"d" + strconv.Itoa(K+1)})}}, extra...)
			r := fe.tmp()
			fe.generic(r, iters, ins,
				genericOperand{name: out, typ: outType, elem: pelem, amap: affineMap(K+2, partExprs)},
				fmt.Sprintf("%s = %d : i64", tag, K+2), func(args []string) string {
					keptIx, p := fe.lanePosition(K, lanes, j0)
					coords := make([]string, xt.Rank())
					for j, a := range kept {
						coords[a] = keptIx[j]
					}
					coords[op.Axis] = p
					e := fe.tmp()
					fe.line("%s = tensor.extract %s[%s] : %s", e, name(x), strings.Join(coords, ", "), fe.typ(x))
					return step(fe.widen(xt.Elem, e), p, args[1:])
				})
			return r
		}
		return fe.laneSteps(partials, partDims, pelem, n, lanes, keptDim, steps)
	}
	// fold reduces the partials over the lanes into out (of type outType,
	// map outExprs over the kept axes) with combine.
	fold := func(dst, partials, pelem, out, outType string, outExprs []string, combine func(a, b string) string) {
		fe.generic(dst, append(parallel(K), "reduction"),
			[]genericOperand{{name: partials, typ: tensorTypeOf(partDims, pelem), elem: pelem, amap: identityMap(K + 1)}},
			genericOperand{name: out, typ: outType, elem: pelem, amap: affineMap(K+1, outExprs)},
			"", func(args []string) string { return combine(args[0], args[1]) })
	}

	// Pass 1: the extreme of each row.
	bk := niro.Max
	if op.Kind == niro.ArgMin {
		bk = niro.Min
	}
	combine := func(a, b string) string {
		y, err := fe.binaryScalar(bk, accElem, a, b)
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return b
		}
		return y
	}
	mParts := lanePass(acc, start, nil, func(e, _ string, args []string) string { return combine(e, args[0]) })
	mType := tensorTypeOf(keptDims, acc)
	mInit := fe.fill(fe.empty(keptDims, acc, keptDim), mType, acc, start, K)
	m := fe.tmp()
	fold(m, mParts, acc, mInit, mType, keptExprs, combine)

	// Pass 2: the first (last) position matching it, as an i32 when n
	// fits (half the partials' bytes; widened to i64 at the end).
	// With SelectLast the largest matching position wins, but a NaN row's
	// first NaN: nanFirst gives NaN positions keys below every other
	// (^p), the sentinel below those, and a last step decodes the key.
	ie, iet, low := niro.I64, "i64", int64(math.MinInt64)
	if n < math.MaxInt32 {
		ie, iet, low = niro.I32, "i32", math.MinInt32
	}
	nanFirst := op.SelectLast && accElem.IsFloat()
	pick, sentinel := "arith.minsi", fe.intConst(ie, n)
	switch {
	case nanFirst:
		pick, sentinel = "arith.maxsi", fe.intConst(ie, low)
	case op.SelectLast:
		pick, sentinel = "arith.maxsi", fe.intConst(ie, -1)
	}
	pickI := func(a, b string) string {
		r := fe.tmp()
		fe.line("%s = %s %s, %s : %s", r, pick, a, b, iet)
		return r
	}
	mIn := genericOperand{name: m, typ: mType, elem: acc, amap: affineMap(K+2, keptExprs)}
	iParts := lanePass(iet, sentinel, []genericOperand{mIn}, func(e, p string, args []string) string {
		mv, best := args[0], args[1]
		match := fe.tmp()
		if accElem.IsFloat() {
			eq, en, mn, both := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = arith.cmpf oeq, %s, %s : %s", eq, e, mv, acc)
			fe.line("%s = arith.cmpf uno, %s, %s : %s", en, e, e, acc)
			fe.line("%s = arith.cmpf uno, %s, %s : %s", mn, mv, mv, acc)
			fe.line("%s = arith.andi %s, %s : i1", both, en, mn)
			fe.line("%s = arith.ori %s, %s : i1", match, eq, both)
		} else {
			fe.line("%s = arith.cmpi eq, %s, %s : %s", match, e, mv, acc)
		}
		pi, sel := fe.tmp(), fe.tmp()
		fe.line("%s = arith.index_cast %s : index to %s", pi, p, iet)
		if nanFirst {
			// A NaN row's key is ^p < 0, so that the largest key is the
			// first NaN's.
			np, mn, key := fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = arith.xori %s, %s : %s", np, pi, fe.intConst(ie, -1), iet)
			fe.line("%s = arith.cmpf uno, %s, %s : %s", mn, mv, mv, acc)
			fe.line("%s = arith.select %s, %s, %s : %s", key, mn, np, pi, iet)
			pi = key
		}
		fe.line("%s = arith.select %s, %s, %s : %s", sel, match, pi, sentinel, iet)
		return pickI(sel, best)
	})
	var outExprs []string
	var dynSrc []int
	k := 0
	for i := range xt.Dims {
		switch {
		case i != op.Axis:
			outExprs = append(outExprs, "d"+strconv.Itoa(k))
			dynSrc = append(dynSrc, i)
			k++
		case op.KeepDims:
			outExprs = append(outExprs, "0")
			dynSrc = append(dynSrc, -1)
		}
	}
	dyn := func(j int) string { return fe.dim(x, xt, dynSrc[j]) }
	keysType := tensorTypeOf(rt.Dims, iet)
	out := fe.fill(fe.empty(rt.Dims, iet, dyn), keysType, iet, sentinel, rt.Rank())
	if !nanFirst && ie == niro.I64 {
		fold(name(res), iParts, iet, out, fe.typ(res), outExprs, pickI)
		return
	}
	keys := fe.tmp()
	fold(keys, iParts, iet, out, keysType, outExprs, pickI)
	// The index: a key k >= 0 is the position, a negative one ^k; as i64.
	fe.generic(name(res), parallel(rt.Rank()),
		[]genericOperand{{name: keys, typ: keysType, elem: iet, amap: identityMap(rt.Rank())}},
		genericOperand{name: fe.empty(rt.Dims, "i64", dyn), typ: fe.typ(res), elem: "i64", amap: identityMap(rt.Rank())},
		"", func(args []string) string {
			k := args[0]
			if nanFirst {
				neg, inv, r := fe.tmp(), fe.tmp(), fe.tmp()
				fe.line("%s = arith.cmpi slt, %s, %s : %s", neg, k, fe.intConst(ie, 0), iet)
				fe.line("%s = arith.xori %s, %s : %s", inv, k, fe.intConst(ie, -1), iet)
				fe.line("%s = arith.select %s, %s, %s : %s", r, neg, inv, k, iet)
				k = r
			}
			if ie == niro.I32 {
				w := fe.tmp()
				fe.line("%s = arith.extsi %s : i32 to i64", w, k)
				k = w
			}
			return k
		})
}

// argLanesMin is the shortest axis ArgReduce lowers in lanes (shorter ones
// keep the in-order scan) and argShortLanes the lane count of an axis of
// at most niro.ReduceLanes.
const (
	argLanesMin   = 32
	argShortLanes = 16
)
