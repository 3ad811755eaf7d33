package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// concat lowers Concat to a tensor.empty of the result and one
// tensor.insert_slice per operand at its offset along the axis. Dynamic
// extents are read with tensor.dim; the axis's offsets and extent are
// then summed at run time.
func (fe *funcEmitter) concat(op *niro.Concat) {
	res := op.Result
	rt, ok := rankedTensor(res)
	if !ok {
		fe.opErrorf(op, "concat %s: needs a ranked result, got %s", name(res), typeName(res.Type))
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	if fe.channelsLast(res) { // layout.go
		fe.concatNHWC(op, rt, elem)
		return
	}
	R, axis := rt.Rank(), op.Axis
	types := make([]niro.TensorType, len(op.Inputs))
	for i, in := range op.Inputs {
		it, ok := rankedTensor(in)
		if !ok || it.Rank() != R || axis < 0 || axis >= R {
			fe.opErrorf(op, "concat %s: operand %s has type %s, needs rank %d", name(res), name(in), typeName(in.Type), R)
			return
		}
		types[i] = it
	}
	// extent returns operand i's extent at axis a: a constant or an SSA
	// index value.
	extent := func(i, a int) string {
		if d := types[i].Dims[a]; d >= 0 {
			return strconv.FormatInt(d, 10)
		}
		return fe.dim(op.Inputs[i], types[i], a)
	}
	acc := fe.empty(rt.Dims, elem, func(a int) string {
		if a != axis {
			return fe.dim(op.Inputs[0], types[0], a)
		}
		sum := fe.dim(op.Inputs[0], types[0], a)
		for i := 1; i < len(op.Inputs); i++ {
			d := fe.dim(op.Inputs[i], types[i], a)
			s := fe.tmp()
			fe.line("%s = arith.addi %s, %s : index", s, sum, d)
			sum = s
		}
		return sum
	})
	off, dynOff := int64(0), "" // the static offset; the SSA offset once dynamic
	dynamic := false
	// Operands with a static zero extent hold nothing (and MLIR refuses an
	// insert_slice at the end offset), so they are skipped.
	last := -1
	for i := range op.Inputs {
		if !hasZeroExtent(types[i]) {
			last = i
		}
	}
	if last < 0 {
		fe.line("%s = tensor.cast %s : %s to %s", name(res), acc, fe.typ(res), fe.typ(res))
		return
	}
	for i, in := range op.Inputs {
		if hasZeroExtent(types[i]) {
			off += max(types[i].Dims[axis], 0)
			continue
		}
		offs := make([]string, R)
		sizes := make([]string, R)
		for a := range offs {
			offs[a], sizes[a] = "0", extent(i, a)
		}
		if dynamic {
			offs[axis] = dynOff
		} else {
			offs[axis] = strconv.FormatInt(off, 10)
		}
		dst := name(res)
		if i < last {
			dst = fe.tmp()
		}
		fe.line("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s",
			dst, name(in), acc, strings.Join(offs, ", "), strings.Join(sizes, ", "), dimList(ones(R)), fe.typ(in), fe.typ(res))
		acc = dst
		if i == last {
			break
		}
		// The next operand's offset.
		if d := types[i].Dims[axis]; d >= 0 && !dynamic {
			off += d
			continue
		}
		if !dynamic {
			dynamic, dynOff = true, fe.index(off)
		}
		d := fe.dim(in, types[i], axis)
		s := fe.tmp()
		fe.line("%s = arith.addi %s, %s : index", s, dynOff, d)
		dynOff = s
	}
}

// slice lowers Slice: a tensor.extract_slice when every step is positive.
// Otherwise the extract_slice takes, on each axis, the elements the slice
// reads in ascending order (from the lowest index, |step| apart), so that
// its extents are the result's, and a generic reverses the axes of a
// negative step (input map rdim−1 − d). An input read at a plain dimension
// whose extent differs from the result's fails linalg's verifier (the loop
// range is inferred from the input), which this avoids.
func (fe *funcEmitter) slice(op *niro.Slice) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || !rt.HasStaticShape() || rt.Rank() != xt.Rank() || len(op.Starts) != xt.Rank() || len(op.Steps) != xt.Rank() {
		fe.opErrorf(op, "slice %s: needs ranked tensors of equal rank and a static result, got %s -> %s", name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	R := rt.Rank()
	if R == 0 {
		fe.rename2(name(x), name(res), fe.typ(res))
		return
	}
	starts, steps, rdims := op.Starts, op.Steps, rt.Dims
	if fe.channelsLast(res) { // and x (layout.go): the same slice in channels-last order
		starts, steps, rdims = clOrder(starts), clOrder(steps), nhwcDims(rdims)
	}
	positive := true
	for _, s := range steps {
		positive = positive && s > 0
	}
	if positive {
		fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s",
			name(res), name(x), dimList(starts), dimList(rdims), dimList(steps), fe.typ(x), fe.typ(res))
		return
	}
	offs, strides := make([]int64, R), make([]int64, R)
	exprs := make([]string, R)
	for a := range exprs {
		d := "d" + strconv.Itoa(a)
		offs[a], strides[a], exprs[a] = starts[a], steps[a], d
		if steps[a] < 0 {
			offs[a], strides[a] = starts[a]+(rdims[a]-1)*steps[a], -steps[a]
			exprs[a] = reversedExpr(rdims[a], d)
		}
	}
	window := fe.tmp()
	fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s",
		window, name(x), dimList(offs), dimList(rdims), dimList(strides), fe.typ(x), fe.typ(res))
	dst := fe.empty(rdims, elem, nil)
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: window, typ: fe.typ(res), elem: elem, amap: affineMap(R, exprs)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string { return args[0] })
}

// reversedExpr returns the affine expression (n − 1) − d: axis d of
// extent n read backwards.
func reversedExpr(n int64, d string) string {
	if n == 1 {
		return "-" + d
	}
	return strconv.FormatInt(n-1, 10) + " - " + d
}

func ones(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// hasZeroExtent reports whether t has a static extent of 0.
func hasZeroExtent(t niro.TensorType) bool {
	for _, d := range t.Dims {
		if d == 0 {
			return true
		}
	}
	return false
}
