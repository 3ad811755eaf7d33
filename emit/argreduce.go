package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// genericMulti writes dst:N = linalg.generic over ins into the N outs.
// body returns one value to yield per output. The results are dst#0, ...
func (fe *funcEmitter) genericMulti(dst string, iters []string, ins, outs []genericOperand, body func(args []string) []string) {
	var maps, quoted []string
	for _, o := range append(append([]genericOperand(nil), ins...), outs...) {
		maps = append(maps, o.amap)
	}
	for _, it := range iters {
		quoted = append(quoted, strconv.Quote(it))
	}
	list := func(os []genericOperand) (string, string) {
		ns, ts := make([]string, len(os)), make([]string, len(os))
		for i, o := range os {
			ns[i], ts[i] = o.name, o.typ
		}
		return strings.Join(ns, ", "), strings.Join(ts, ", ")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}",
		dst, len(outs), strings.Join(maps, ", "), strings.Join(quoted, ", "))
	if len(ins) > 0 {
		n, t := list(ins)
		fmt.Fprintf(&sb, " ins(%s : %s)", n, t)
	}
	on, ot := list(outs)
	fmt.Fprintf(&sb, " outs(%s : %s) {", on, ot)
	fe.line("%s", sb.String())
	var args, decls, elems []string
	for _, o := range append(append([]genericOperand(nil), ins...), outs...) {
		a := fe.tmp()
		args = append(args, a)
		decls = append(decls, a+": "+o.elem)
	}
	for _, o := range outs {
		elems = append(elems, o.elem)
	}
	fe.line("^bb0(%s):", strings.Join(decls, ", "))
	fe.indent++
	ys := body(args)
	fe.line("linalg.yield %s : %s", strings.Join(ys, ", "), strings.Join(elems, ", "))
	fe.indent--
	fe.line("} -> (%s)", ot)
}

// argReduce lowers ArgMax and ArgMin to a generic with two accumulators,
// the extreme value so far (the kind's reduction start: -inf or the
// lowest value for max) and its index (0), whose axis is a reduction
// iterator. An element replaces the accumulators when it is strictly
// better (or as good, with SelectLast), or when it is the first NaN.
// 16-bit floats compare in f32. A static last axis of at least
// argLanesMin elements (rank at most 3) takes the two lane passes of
// argReduceLanes instead, which give the same index and vectorize.
func (fe *funcEmitter) argReduce(op *niro.ArgReduce) {
	res, x := op.Result, op.X
	rt, xt, elem, ok := fe.rankedUnary(op, res, x)
	if !ok {
		return
	}
	acc, accElem := accumulator(xt.Elem, elem)
	R := xt.Rank()
	iters := parallel(R)
	iters[op.Axis] = "reduction"
	var outExprs []string
	var dynSrc []int
	for i := range xt.Dims {
		switch {
		case i != op.Axis:
			outExprs = append(outExprs, "d"+strconv.Itoa(i))
			dynSrc = append(dynSrc, i)
		case op.KeepDims:
			outExprs = append(outExprs, "0")
			dynSrc = append(dynSrc, -1)
		}
	}
	dyn := func(j int) string { return fe.dim(x, xt, dynSrc[j]) }
	rk := niro.ReduceMax
	if op.Kind == niro.ArgMin {
		rk = niro.ReduceMin
	}
	start, err := fe.reduceInit(rk, accElem)
	if err != nil {
		fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
		return
	}
	if n := xt.Dims[op.Axis]; n >= argLanesMin && op.Axis == R-1 && R <= 3 {
		// A row of the last axis: two vectorized passes over the lanes.
		lanes := int64(niro.ReduceLanes)
		if n <= lanes {
			lanes = argShortLanes
		}
		fe.argReduceLanes(op, xt, rt, acc, accElem, start, n, lanes)
		return
	}
	accType := tensorTypeOf(rt.Dims, acc)
	vals := fe.fill(fe.empty(rt.Dims, acc, dyn), accType, acc, start, rt.Rank())
	idxs := fe.fill(fe.empty(rt.Dims, "i64", dyn), fe.typ(res), "i64", fe.intConst(niro.I64, 0), rt.Rank())
	outMap := affineMap(R, outExprs)
	pred := map[[2]bool]string{
		{false, false}: "gt", {false, true}: "ge", // argmax
		{true, false}: "lt", {true, true}: "le", // argmin
	}[[2]bool{op.Kind == niro.ArgMin, op.SelectLast}]
	both := fe.tmp()
	fe.genericMulti(both, iters,
		[]genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: identityMap(R)}},
		[]genericOperand{
			{name: vals, typ: accType, elem: acc, amap: outMap},
			{name: idxs, typ: fe.typ(res), elem: "i64", amap: outMap},
		}, func(args []string) []string {
			v, best, bestIdx := fe.widen(xt.Elem, args[0]), args[1], args[2]
			take := fe.tmp()
			switch {
			case accElem.IsFloat():
				better, isNaN, accOrd, nanWins := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
				fe.line("%s = arith.cmpf o%s, %s, %s : %s", better, pred, v, best, acc)
				fe.line("%s = arith.cmpf uno, %s, %s : %s", isNaN, v, v, acc)
				fe.line("%s = arith.cmpf ord, %s, %s : %s", accOrd, best, best, acc)
				fe.line("%s = arith.andi %s, %s : i1", nanWins, isNaN, accOrd)
				fe.line("%s = arith.ori %s, %s : i1", take, better, nanWins)
			default:
				sign := "s"
				if !accElem.IsSigned() {
					sign = "u"
				}
				fe.line("%s = arith.cmpi %s%s, %s, %s : %s", take, sign, pred, v, best, acc)
			}
			i, ii, nv, ni := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = linalg.index %d : index", i, op.Axis)
			fe.line("%s = arith.index_cast %s : index to i64", ii, i)
			fe.line("%s = arith.select %s, %s, %s : %s", nv, take, v, best, acc)
			fe.line("%s = arith.select %s, %s, %s : i64", ni, take, ii, bestIdx)
			return []string{nv, ni}
		})
	fe.rename2(both+"#1", name(res), fe.typ(res))
}
