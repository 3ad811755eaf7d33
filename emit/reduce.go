package emit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// reduce lowers Reduce to a fill of the accumulator with the kind's
// initial value and one generic whose reduced axes are "reduction"
// iterators. The loops nest in axis order, so every result element folds
// its inputs in ascending row-major order of the reduced axes. 16-bit
// floats accumulate in f32 and are rounded once at the end.
func (fe *funcEmitter) reduce(op *niro.Reduce) {
	res, x := op.Result, op.X
	rt, xt, elem, ok := fe.rankedUnary(op, res, x)
	if !ok {
		return
	}
	acc, accElem := accumulator(xt.Elem, elem)
	R := len(xt.Dims)
	iters := make([]string, R)
	var outExprs []string
	var outDims []int64
	var dynSrc []int // operand axis of each result axis, -1 for kept-1 axes
	for i := range xt.Dims {
		if op.IsReduced(i) {
			iters[i] = "reduction"
			if op.KeepDims {
				outExprs = append(outExprs, "0")
				outDims = append(outDims, 1)
				dynSrc = append(dynSrc, -1)
			}
			continue
		}
		iters[i] = "parallel"
		outExprs = append(outExprs, "d"+strconv.Itoa(i))
		outDims = append(outDims, xt.Dims[i])
		dynSrc = append(dynSrc, i)
	}
	dyn := func(j int) string { return fe.dim(x, xt, dynSrc[j]) }
	kind := map[niro.ReduceKind]niro.BinaryKind{niro.ReduceSum: niro.Add, niro.ReduceProd: niro.Mul, niro.ReduceMax: niro.Max, niro.ReduceMin: niro.Min}[op.Kind]
	accType := tensorTypeOf(outDims, acc)
	if run := op.LaneRun(); run > 0 {
		// A run longer than niro.ReduceLanes folds lane by lane first.
		start, err := fe.reduceInit(op.Kind, accElem)
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return
		}
		folded := name(res)
		if accElem != xt.Elem {
			folded = fe.tmp()
		}
		fe.reduceLanes(op, x, xt, elem, acc, accElem, kind, start, folded, run)
		fe.narrowReduced(res, xt, rt, elem, folded, accType, len(outDims), dyn)
		return
	}
	init := fe.empty(outDims, acc, dyn)
	start, err := fe.reduceInit(op.Kind, accElem)
	if err != nil {
		fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
		return
	}
	filled := fe.fill(init, accType, acc, start, len(outDims))
	folded := name(res)
	if accElem != xt.Elem {
		folded = fe.tmp()
	}
	fe.generic(folded, iters,
		[]genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: identityMap(R)}},
		genericOperand{name: filled, typ: accType, elem: acc, amap: affineMap(R, outExprs)},
		"", func(args []string) string {
			// The element first, then the accumulator: the reduction
			// schedule's vector combines take their operands in this
			// order, so a sum of two NaNs keeps the same NaN either way.
			in := fe.widen(xt.Elem, args[0])
			y, err := fe.binaryScalar(kind, accElem, in, args[1])
			if err != nil {
				fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
				return args[1]
			}
			return y
		})
	fe.narrowReduced(res, xt, rt, elem, folded, accType, len(outDims), dyn)
}

// narrowReduced rounds the f32 accumulator folded of a 16-bit float
// reduction to the result res once; for other types folded is res itself.
func (fe *funcEmitter) narrowReduced(res niro.Value, xt, rt niro.TensorType, elem, folded, accType string, rank int, dyn func(int) string) {
	if !isHalf(xt.Elem) {
		return
	}
	dst := fe.empty(rt.Dims, elem, dyn)
	fe.generic(name(res), parallel(rank),
		[]genericOperand{{name: folded, typ: accType, elem: "f32", amap: identityMap(rank)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(rank)},
		"", func(args []string) string { return fe.narrow(xt.Elem, args[0]) })
}

// fill writes a generic that sets every element of the tensor init (of
// MLIR type typ, rank rank, elements elem) to the scalar v.
func (fe *funcEmitter) fill(init, typ, elem, v string, rank int) string {
	filled := fe.tmp()
	fe.generic(filled, parallel(rank),
		[]genericOperand{{name: v, typ: elem, elem: elem, amap: affineMap(rank, nil)}},
		genericOperand{name: init, typ: typ, elem: elem, amap: identityMap(rank)},
		"", func(args []string) string { return args[0] })
	return filled
}

// reduceInit writes the initial accumulator of a reduction.
func (fe *funcEmitter) reduceInit(k niro.ReduceKind, e niro.ScalarType) (string, error) {
	if niro.ClassOf(e)&k.Info().Types == 0 {
		return "", fmt.Errorf("%s is not defined on element type %s", k, e)
	}
	switch k {
	case niro.ReduceSum:
		return fe.scalarConst(e, 0), nil
	case niro.ReduceProd:
		return fe.scalarConst(e, 1), nil
	}
	high := k == niro.ReduceMin
	switch {
	case e == niro.Bool:
		return fe.boolConst(high), nil
	case e.IsFloat():
		return fe.scalarConst(e, map[bool]float64{true: math.Inf(1), false: math.Inf(-1)}[high]), nil
	}
	lo, hi := e.IntRange()
	v := lo
	if high {
		v = int64(hi) // unsigned all-ones reads as -1, the same bits
		if !e.IsSigned() {
			v = -1
		}
	}
	return fe.intConst(e, v), nil
}

// intConst writes an integer constant of type e with the bits of v.
func (fe *funcEmitter) intConst(e niro.ScalarType, v int64) string {
	st, _ := scalarType(e)
	bits := uint(e.Bits())
	v = v << (64 - bits) >> (64 - bits)
	c := fe.tmp()
	fe.line("%s = arith.constant %d : %s", c, v, st)
	return c
}

// reshape lowers Reshape of static shapes: collapse the operand to one
// axis, then expand it to the result's shape (rank 0 on either side uses
// an empty reassociation).
func (fe *funcEmitter) reshape(op *niro.Reshape) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if ok && ok1 && !(rt.HasStaticShape() && xt.HasStaticShape()) && sameShapeBut(xt, rt) {
		// Only the static knowledge of the extents changes (an If arm's
		// value given its result's dynamic extent): a tensor.cast.
		fe.line("%s = tensor.cast %s : %s to %s", name(res), name(x), fe.typ(x), fe.typ(res))
		return
	}
	if !ok || !ok1 || !rt.HasStaticShape() || !xt.HasStaticShape() {
		fe.opErrorf(op, "reshape %s: needs static shapes, got %s -> %s", name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	n := xt.NumElements()
	src := name(x)
	rdims := rt.Dims
	if fe.channelsLast(res) { // and x, with the same axes 0 and 1 (layout.go)
		rdims = nhwcDims(rdims)
	}
	switch {
	case xt.Rank() == 0 && rt.Rank() == 0:
		fe.rename2(src, name(res), fe.typ(res))
		return
	case xt.Rank() == 0:
		fe.line("%s = tensor.expand_shape %s [] output_shape [%s] : %s into %s", name(res), src, dimList(rt.Dims), fe.typ(x), fe.typ(res))
		return
	case rt.Rank() == 0:
		fe.line("%s = tensor.collapse_shape %s [] : %s into %s", name(res), src, fe.typ(x), fe.typ(res))
		return
	}
	flat := tensorTypeOf([]int64{n}, elem)
	if xt.Rank() > 1 || rt.Rank() == 1 {
		dst := name(res)
		if rt.Rank() > 1 {
			dst = fe.tmp()
		}
		fe.line("%s = tensor.collapse_shape %s [%s] : %s into %s", dst, src, allAxes(xt.Rank()), fe.typ(x), flat)
		src = dst
	}
	if rt.Rank() > 1 {
		fe.line("%s = tensor.expand_shape %s [%s] output_shape [%s] : %s into %s", name(res), src, allAxes(rt.Rank()), dimList(rdims), flat, fe.typ(res))
	}
}

// rename2 binds dst to the tensor value src through a tensor.cast, which
// canonicalization folds.
func (fe *funcEmitter) rename2(src, dst, typ string) {
	fe.line("%s = tensor.cast %s : %s to %s", dst, src, typ, typ)
}

// allAxes returns "[0, 1, ..., n-1]".
func allAxes(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(i)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func dimList(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(parts, ", ")
}

// broadcast lowers Broadcast to a generic that reads the operand through
// its broadcasting map.
func (fe *funcEmitter) broadcast(op *niro.Broadcast) {
	res, x := op.Result, op.X
	rt, xt, elem, ok := fe.rankedUnary(op, res, x)
	if !ok {
		return
	}
	m, err := broadcastMap(xt.Dims, rt.Dims)
	if err != nil {
		fe.opErrorf(op, "broadcast %s: %s does not broadcast to %s: %v", name(res), xt, rt, err)
		return
	}
	R := rt.Rank()
	bad := false
	dst := fe.empty(rt.Dims, elem, func(j int) string {
		a := j - (R - xt.Rank())
		if a >= 0 && xt.Dims[a] < 0 {
			return fe.dim(x, xt, a)
		}
		bad = true
		return fe.index(1)
	})
	if bad {
		fe.opErrorf(op, "broadcast %s: a dynamic result extent of %s has no operand extent to read", name(res), rt)
		return
	}
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: m}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string { return args[0] })
}

// iota lowers Iota to a generic without inputs whose body converts
// linalg.index of the axis to the element type.
func (fe *funcEmitter) iota(op *niro.Iota) {
	res := op.Result
	rt, ok := rankedTensor(res)
	if !ok {
		fe.opErrorf(op, "iota %s: needs a ranked tensor, got %s", name(res), typeName(res.Type))
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	if !rt.HasStaticShape() {
		fe.opErrorf(op, "iota %s: needs a static shape, got %s", name(res), rt)
		return
	}
	R := rt.Rank()
	dst := fe.empty(rt.Dims, elem, nil)
	fe.generic(name(res), parallel(R), nil,
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			i, c := fe.tmp(), fe.tmp()
			fe.line("%s = linalg.index %d : index", i, op.Axis)
			fe.line("%s = arith.index_cast %s : index to i64", c, i)
			y, err := fe.castScalar(niro.I64, rt.Elem, c)
			if err != nil {
				fe.opErrorf(op, "iota %s: %v", name(res), err)
				return args[0]
			}
			return y
		})
}

// rankedUnary checks the ranked result and operand of a one-operand
// lowering and returns their types and the operand's MLIR element type;
// it reports and returns false otherwise.
func (fe *funcEmitter) rankedUnary(op niro.Op, res, x niro.Value) (rt, xt niro.TensorType, elem string, ok bool) {
	rt, ok1 := rankedTensor(res)
	xt, ok2 := rankedTensor(x)
	if !ok1 || !ok2 {
		fe.opErrorf(op, "%s %s: needs ranked tensors, got %s -> %s", op.Name(), name(res), typeName(x.Type), typeName(res.Type))
		return rt, xt, "", false
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return rt, xt, "", false
	}
	return rt, xt, elem, true
}

// accumulator returns the type a fold over elements of type e (MLIR
// spelling elem) accumulates in: f32 for 16-bit floats, which are rounded
// once at the end, else e itself.
func accumulator(e niro.ScalarType, elem string) (string, niro.ScalarType) {
	if isHalf(e) {
		return "f32", niro.F32
	}
	return elem, e
}

// sameShapeBut reports whether a and b have the same rank and every axis
// the same extent or a dynamic one on either side.
func sameShapeBut(a, b niro.TensorType) bool {
	if a.Rank() != b.Rank() {
		return false
	}
	for i, d := range a.Dims {
		if d >= 0 && b.Dims[i] >= 0 && d != b.Dims[i] {
			return false
		}
	}
	return true
}
