package emit

import (
	"strings"

	"github.com/niro-dev/niro/niro"
)

// This file lowers the gather family (Gather, GatherElements, GatherND)
// to one linalg.generic over the result whose body reads the data with
// tensor.extract, and Scatter to an scf.for nest over the updates that
// inserts them one at a time into the loop-carried copy of the data.
// Every index read at run time is wrapped (a negative index plus the
// extent) and clamped into range, so no access leaves the tensor.

// wrapIndex converts the index idx (an i32 or i64 scalar) to an index
// value: idx + extent when negative, then clamped to [0, extent-1].
func (fe *funcEmitter) wrapIndex(idx, ielem, extent string) string {
	a, n, neg, w, lo, hi, r := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.index_cast %s : %s to index", a, idx, ielem)
	fe.line("%s = arith.addi %s, %s : index", n, a, extent)
	fe.line("%s = arith.cmpi slt, %s, %s : index", neg, a, fe.index(0))
	fe.line("%s = arith.select %s, %s, %s : index", w, neg, n, a)
	fe.line("%s = arith.maxsi %s, %s : index", lo, w, fe.index(0))
	fe.line("%s = arith.subi %s, %s : index", hi, extent, fe.index(1))
	fe.line("%s = arith.minsi %s, %s : index", r, lo, hi)
	return r
}

// loopIndex writes linalg.index d in a generic body.
func (fe *funcEmitter) loopIndex(d int) string {
	i := fe.tmp()
	fe.line("%s = linalg.index %d : index", i, d)
	return i
}

// extract writes a tensor.extract of t (of MLIR type typ) at coords.
func (fe *funcEmitter) extract(t, typ string, coords []string) string {
	v := fe.tmp()
	fe.line("%s = tensor.extract %s[%s] : %s", v, t, strings.Join(coords, ", "), typ)
	return v
}

// extents returns the index values of every extent of v.
func (fe *funcEmitter) extents(v niro.Value, t niro.TensorType) []string {
	out := make([]string, t.Rank())
	for a := range out {
		out[a] = fe.dim(v, t, a)
	}
	return out
}

// gatherTypes returns the ranked types of a gather's result, data and
// indices and the MLIR element types of the data and the indices.
func (fe *funcEmitter) gatherTypes(op niro.Op, res, x, ind niro.Value) (rt, xt, it niro.TensorType, elem, ielem string, ok bool) {
	var ok1, ok2 bool
	rt, ok = rankedTensor(res)
	xt, ok1 = rankedTensor(x)
	it, ok2 = rankedTensor(ind)
	if !ok || !ok1 || !ok2 {
		fe.opErrorf(op, "%s %s: needs ranked tensors, got (%s, %s) -> %s", op.Name(), name(res), typeName(x.Type), typeName(ind.Type), typeName(res.Type))
		return rt, xt, it, "", "", false
	}
	var err error
	if elem, err = scalarType(xt.Elem); err != nil {
		fe.typ(x)
		return rt, xt, it, "", "", false
	}
	if ielem, err = scalarType(it.Elem); err != nil {
		fe.typ(ind)
		return rt, xt, it, "", "", false
	}
	return rt, xt, it, elem, ielem, true
}

// gather lowers Gather: result point (a, i, b) reads data at
// (a, wrap(indices[i]), b).
func (fe *funcEmitter) gather(op *niro.Gather) {
	res, x, ind := op.Result, op.X, op.Indices
	rt, xt, it, elem, ielem, ok := fe.gatherTypes(op, res, x, ind)
	if !ok {
		return
	}
	if fe.channelsLast(res) { // and x (layout.go)
		fe.gatherNHWC(op, rt, xt, it, elem, ielem)
		return
	}
	R, q, axis := rt.Rank(), it.Rank(), op.Axis
	ext := fe.dim(x, xt, axis)
	dst := fe.empty(rt.Dims, elem, func(j int) string {
		switch {
		case j < axis:
			return fe.dim(x, xt, j)
		case j < axis+q:
			return fe.dim(ind, it, j-axis)
		}
		return fe.dim(x, xt, j-q+1)
	})
	exprs := dimNames(R)[axis : axis+q]
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(ind), typ: fe.typ(ind), elem: ielem, amap: affineMap(R, exprs)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			k := fe.wrapIndex(args[0], ielem, ext)
			coords := make([]string, xt.Rank())
			for a := range coords {
				switch {
				case a < axis:
					coords[a] = fe.loopIndex(a)
				case a == axis:
					coords[a] = k
				default:
					coords[a] = fe.loopIndex(a + q - 1)
				}
			}
			return fe.extract(name(x), fe.typ(x), coords)
		})
}

// gatherElements lowers GatherElements: result point p reads data at p
// with coordinate Axis replaced by wrap(indices[p]).
func (fe *funcEmitter) gatherElements(op *niro.GatherElements) {
	res, x, ind := op.Result, op.X, op.Indices
	rt, xt, it, elem, ielem, ok := fe.gatherTypes(op, res, x, ind)
	if !ok {
		return
	}
	R := rt.Rank()
	ext := fe.dim(x, xt, op.Axis)
	dst := fe.empty(rt.Dims, elem, func(j int) string { return fe.dim(ind, it, j) })
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(ind), typ: fe.typ(ind), elem: ielem, amap: identityMap(R)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			k := fe.wrapIndex(args[0], ielem, ext)
			coords := make([]string, R)
			for a := range coords {
				if a == op.Axis {
					coords[a] = k
				} else {
					coords[a] = fe.loopIndex(a)
				}
			}
			return fe.extract(name(x), fe.typ(x), coords)
		})
}

// gatherND lowers GatherND: result point (b, m, s) reads data at
// (b, wrap(indices[b, m, 0]), ..., wrap(indices[b, m, k-1]), s).
func (fe *funcEmitter) gatherND(op *niro.GatherND) {
	res, x, ind := op.Result, op.X, op.Indices
	rt, xt, it, elem, ielem, ok := fe.gatherTypes(op, res, x, ind)
	if !ok {
		return
	}
	R, q, b := rt.Rank(), it.Rank(), op.BatchDims
	k := int(it.Dims[q-1])
	if k < 1 || b+k > xt.Rank() {
		fe.opErrorf(op, "gather_nd %s: indices %s do not fit data %s", name(res), it, xt)
		return
	}
	exts := fe.extents(x, xt)
	dst := fe.empty(rt.Dims, elem, func(j int) string {
		if j < q-1 {
			return fe.dim(ind, it, j)
		}
		return fe.dim(x, xt, b+k+j-(q-1))
	})
	fe.generic(name(res), parallel(R), nil,
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			outer := make([]string, q-1)
			for d := range outer {
				outer[d] = fe.loopIndex(d)
			}
			coords := append([]string{}, outer[:b]...)
			for j := 0; j < k; j++ {
				i := fe.extract(name(ind), fe.typ(ind), append(append([]string{}, outer...), fe.index(int64(j))))
				coords = append(coords, fe.wrapIndex(i, ielem, exts[b+j]))
			}
			for d := q - 1; d < R; d++ {
				coords = append(coords, fe.loopIndex(d))
			}
			return fe.extract(name(x), fe.typ(x), coords)
		})
}

// scatter lowers Scatter to an scf.for nest over the updates, in
// row-major order, carrying the data tensor: each iteration reads one
// update, combines it with the element it lands on under the reduction,
// and inserts it.
func (fe *funcEmitter) scatter(op *niro.Scatter) {
	res, x, ind, upd := op.Result, op.X, op.Indices, op.Updates
	_, xt, it, _, ielem, ok := fe.gatherTypes(op, res, x, ind)
	if !ok {
		return
	}
	ut, ok := rankedTensor(upd)
	if !ok {
		fe.opErrorf(op, "%s %s: needs ranked updates, got %s", op.Name(), name(res), typeName(upd.Type))
		return
	}
	kind, reduce := map[niro.ScatterReduction]niro.BinaryKind{niro.ScatterAdd: niro.Add, niro.ScatterMul: niro.Mul, niro.ScatterMax: niro.Max, niro.ScatterMin: niro.Min}[op.Reduction]
	if op.Reduction != niro.ScatterNone && !reduce {
		fe.opErrorf(op, "%s %s: unknown reduction %s", op.Name(), name(res), op.Reduction)
		return
	}
	q, U := it.Rank(), ut.Rank()
	typ := fe.typ(res)
	exts := fe.extents(x, xt)
	bounds := fe.extents(upd, ut)
	loops := make([]string, U)
	acc := name(x)
	var ivs []string
	for d := 0; d < U; d++ {
		loops[d] = name(res)
		if d > 0 {
			loops[d] = fe.tmp()
		}
		iv, next := fe.tmp(), fe.tmp()
		fe.line("%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (%s) {", loops[d], iv, fe.index(0), bounds[d], fe.index(1), next, acc, typ)
		fe.indent++
		ivs = append(ivs, iv)
		acc = next
	}
	u := fe.extract(name(upd), fe.typ(upd), ivs)
	var coords []string
	switch op.Kind {
	case niro.ScatterElements:
		coords = append(coords, ivs...)
		i := fe.extract(name(ind), fe.typ(ind), ivs)
		coords[op.Axis] = fe.wrapIndex(i, ielem, exts[op.Axis])
	default:
		k := int(it.Dims[q-1])
		for j := 0; j < k; j++ {
			i := fe.extract(name(ind), fe.typ(ind), append(append([]string{}, ivs[:q-1]...), fe.index(int64(j))))
			coords = append(coords, fe.wrapIndex(i, ielem, exts[j]))
		}
		coords = append(coords, ivs[q-1:]...)
	}
	if reduce {
		old := fe.extract(acc, typ, coords)
		y, err := fe.binaryScalar(kind, xt.Elem, old, u)
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return
		}
		u = y
	}
	inner := name(res)
	if U > 0 {
		inner = fe.tmp()
	}
	fe.line("%s = tensor.insert %s into %s[%s] : %s", inner, u, acc, strings.Join(coords, ", "), typ)
	for d := U - 1; d >= 0; d-- {
		fe.line("scf.yield %s : %s", inner, typ)
		fe.indent--
		fe.line("}")
		inner = loops[d]
	}
}
