package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// topk lowers TopK in two generics, both exact and free of data-dependent
// control flow. The first counts, for each element i along the axis, the
// elements j that come before it in the result order (better, or equal
// with j < i; a NaN is larger than every number and equal to a NaN): its
// rank, a permutation of 0..n-1 along the axis. The second scans the axis
// for each output position p < K and keeps the element, and its index,
// whose rank is p. The work is O(n²) per row for the ranks and O(K·n) for
// the selection. 16-bit floats compare in f32.
func (fe *funcEmitter) topk(op *niro.TopK) {
	vals, idxs, x := op.Values, op.Indices, op.X
	vt, ok := rankedTensor(vals)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || op.Axis < 0 || op.Axis >= xt.Rank() || xt.Dims[op.Axis] < 0 {
		fe.opErrorf(op, "topk %s: needs ranked tensors and a static axis in range, got %s", name(vals), typeName(x.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	cmpElem, cmpType := xt.Elem, elem
	if isHalf(xt.Elem) {
		cmpElem, cmpType = niro.F32, "f32"
	}
	R := xt.Rank()
	dyn := func(j int) string { return fe.dim(x, xt, j) }
	along := dimNames(R) // the point of x, with the scanned axis as dR
	along[op.Axis] = "d" + strconv.Itoa(R)
	iters := append(parallel(R), "reduction")

	// Ranks.
	rankType := tensorTypeOf(xt.Dims, "i64")
	zero := fe.fill(fe.empty(xt.Dims, "i64", dyn), rankType, "i64", fe.intConst(niro.I64, 0), R)
	ranks := fe.tmp()
	fe.generic(ranks, iters,
		[]genericOperand{
			{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R+1, dimNames(R))},
			{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R+1, along)},
		},
		genericOperand{name: zero, typ: rankType, elem: "i64", amap: affineMap(R+1, dimNames(R))},
		"", func(args []string) string {
			a, b, acc := fe.widen(xt.Elem, args[0]), fe.widen(xt.Elem, args[1]), args[2]
			strict, equal := fe.tmp(), fe.tmp()
			switch {
			case cmpElem.IsFloat():
				num, aNaN, bNaN, ord, nanWins, numEq, bothNaN := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
				pred := "olt"
				if op.Largest {
					pred = "ogt"
				}
				fe.line("%s = arith.cmpf %s, %s, %s : %s", num, pred, b, a, cmpType)
				fe.line("%s = arith.cmpf uno, %s, %s : %s", aNaN, a, a, cmpType)
				fe.line("%s = arith.cmpf uno, %s, %s : %s", bNaN, b, b, cmpType)
				if op.Largest {
					// b beats a when b is NaN and a is a number.
					fe.line("%s = arith.cmpf ord, %s, %s : %s", ord, a, a, cmpType)
					fe.line("%s = arith.andi %s, %s : i1", nanWins, bNaN, ord)
				} else {
					// b beats a when a is NaN and b is a number.
					fe.line("%s = arith.cmpf ord, %s, %s : %s", ord, b, b, cmpType)
					fe.line("%s = arith.andi %s, %s : i1", nanWins, aNaN, ord)
				}
				fe.line("%s = arith.ori %s, %s : i1", strict, num, nanWins)
				fe.line("%s = arith.cmpf oeq, %s, %s : %s", numEq, b, a, cmpType)
				fe.line("%s = arith.andi %s, %s : i1", bothNaN, aNaN, bNaN)
				fe.line("%s = arith.ori %s, %s : i1", equal, numEq, bothNaN)
			default:
				sign, pred := "s", "lt"
				if !cmpElem.IsSigned() {
					sign = "u"
				}
				if op.Largest {
					pred = "gt"
				}
				fe.line("%s = arith.cmpi %s%s, %s, %s : %s", strict, sign, pred, b, a, cmpType)
				fe.line("%s = arith.cmpi eq, %s, %s : %s", equal, b, a, cmpType)
			}
			i, j, before, tie, beats, inc, sum := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = linalg.index %d : index", i, op.Axis)
			fe.line("%s = linalg.index %d : index", j, R)
			fe.line("%s = arith.cmpi ult, %s, %s : index", before, j, i)
			fe.line("%s = arith.andi %s, %s : i1", tie, equal, before)
			fe.line("%s = arith.ori %s, %s : i1", beats, strict, tie)
			fe.line("%s = arith.extui %s : i1 to i64", inc, beats)
			fe.line("%s = arith.addi %s, %s : i64", sum, acc, inc)
			return sum
		})

	// Selection.
	outMap := affineMap(R+1, dimNames(R))
	v0 := fe.fill(fe.empty(vt.Dims, elem, dyn), fe.typ(vals), elem, fe.scalarConst(xt.Elem, 0), R)
	i0 := fe.fill(fe.empty(vt.Dims, "i64", dyn), fe.typ(idxs), "i64", fe.intConst(niro.I64, 0), R)
	both := fe.tmp()
	fe.genericMulti(both, iters,
		[]genericOperand{
			{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R+1, along)},
			{name: ranks, typ: rankType, elem: "i64", amap: affineMap(R+1, along)},
		},
		[]genericOperand{
			{name: v0, typ: fe.typ(vals), elem: elem, amap: outMap},
			{name: i0, typ: fe.typ(idxs), elem: "i64", amap: outMap},
		}, func(args []string) []string {
			v, rank, accV, accI := args[0], args[1], args[2], args[3]
			p, pi, hit, i, ii, nv, ni := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = linalg.index %d : index", p, op.Axis)
			fe.line("%s = arith.index_cast %s : index to i64", pi, p)
			fe.line("%s = arith.cmpi eq, %s, %s : i64", hit, rank, pi)
			fe.line("%s = linalg.index %d : index", i, R)
			fe.line("%s = arith.index_cast %s : index to i64", ii, i)
			fe.line("%s = arith.select %s, %s, %s : %s", nv, hit, v, accV, elem)
			fe.line("%s = arith.select %s, %s, %s : i64", ni, hit, ii, accI)
			return []string{nv, ni}
		})
	fe.rename2(both+"#0", name(vals), fe.typ(vals))
	fe.rename2(both+"#1", name(idxs), fe.typ(idxs))
}
