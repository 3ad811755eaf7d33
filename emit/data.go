package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// concat lowers Concat of static shapes to a tensor.empty of the result
// and one tensor.insert_slice per operand at its offset along the axis.
func (fe *funcEmitter) concat(op *niro.Concat) {
	res := op.Result
	rt, ok := rankedTensor(res)
	if !ok || !rt.HasStaticShape() {
		fe.opErrorf(op, "concat %s: needs a static result shape, got %s", name(res), typeName(res.Type))
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	R := rt.Rank()
	acc := fe.empty(rt.Dims, elem, nil)
	off := int64(0)
	for i, in := range op.Inputs {
		it, ok := rankedTensor(in)
		if !ok || !it.HasStaticShape() || it.Rank() != R {
			fe.opErrorf(op, "concat %s: operand %s has type %s, needs a static shape of rank %d", name(res), name(in), typeName(in.Type), R)
			return
		}
		offs := make([]int64, R)
		offs[op.Axis] = off
		off += it.Dims[op.Axis]
		dst := name(res)
		if i < len(op.Inputs)-1 {
			dst = fe.tmp()
		}
		fe.line("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s",
			dst, name(in), acc, dimList(offs), dimList(it.Dims), dimList(ones(R)), fe.typ(in), fe.typ(res))
		acc = dst
	}
}

// slice lowers Slice: a tensor.extract_slice when every step is positive,
// else a generic whose input map reads start + i*step on every axis.
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
	positive := true
	for _, s := range op.Steps {
		positive = positive && s > 0
	}
	if positive {
		fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s",
			name(res), name(x), dimList(op.Starts), dimList(rt.Dims), dimList(op.Steps), fe.typ(x), fe.typ(res))
		return
	}
	exprs := make([]string, R)
	for a := range exprs {
		exprs[a] = stridedExpr(op.Starts[a], op.Steps[a], "d"+strconv.Itoa(a))
	}
	dst := fe.empty(rt.Dims, elem, nil)
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R, exprs)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string { return args[0] })
}

// stridedExpr returns the affine expression start + d*step.
func stridedExpr(start, step int64, d string) string {
	var term string
	switch {
	case step == 1:
		term = d
	case step == -1:
		term = "-" + d
	default:
		term = d + " * " + strconv.FormatInt(step, 10)
	}
	if start == 0 {
		return term
	}
	if strings.HasPrefix(term, "-") {
		return strconv.FormatInt(start, 10) + " - " + term[1:]
	}
	if step < 0 {
		return strconv.FormatInt(start, 10) + " - " + d + " * " + strconv.FormatInt(-step, 10)
	}
	return strconv.FormatInt(start, 10) + " + " + term
}

func ones(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}
