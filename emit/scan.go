package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// cumsum lowers CumSum to a fill of the result with zero (one for a
// product) and one generic
// over the result's axes plus one reduction axis k that runs along the
// scanned axis. Result element i adds the input element at k (at n-1-k
// when reversed) when that element belongs to its running sum, so every
// sum is accumulated one element at a time in scan order, exactly as a
// sequential scan; the cost is quadratic in the scanned extent. 16-bit
// floats round after each addition (multiplication), as a sequence of adds
// does.
func (fe *funcEmitter) cumsum(op *niro.CumSum) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || op.Axis < 0 || op.Axis >= xt.Rank() {
		fe.opErrorf(op, "%s %s: needs ranked tensors and an axis in range, got %s -> %s", op.Name(), name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	n := xt.Dims[op.Axis]
	if n < 0 {
		fe.opErrorf(op, "%s %s: needs a static extent along axis %d, got %s", op.Name(), name(res), op.Axis, xt)
		return
	}
	R := xt.Rank()
	k := "d" + strconv.Itoa(R)
	if op.Reverse {
		k = strconv.FormatInt(n-1, 10) + " - " + k
	}
	plain := dimNames(R)
	plain[op.Axis] = "d" + strconv.Itoa(R)
	ins := []genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R+1, plain)}}
	if op.Reverse {
		// The reversed read alone does not give linalg the loop bound of
		// k, so the operand is also passed with the plain map.
		rev := dimNames(R)
		rev[op.Axis] = k
		ins = append(ins, genericOperand{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R+1, rev)})
	}
	iters := append(parallel(R), "reduction")
	dyn := func(j int) string { return fe.dim(x, xt, j) }
	init := fe.empty(rt.Dims, elem, dyn)
	kind, start := niro.Add, 0.0
	if op.Prod {
		kind, start = niro.Mul, 1
	}
	filled := fe.fill(init, fe.typ(res), elem, fe.scalarConst(xt.Elem, start), R)
	fe.generic(name(res), iters,
		ins,
		genericOperand{name: filled, typ: fe.typ(res), elem: elem, amap: affineMap(R+1, dimNames(R))},
		"", func(args []string) string {
			acc := args[len(ins)]
			i, j := fe.tmp(), fe.tmp()
			fe.line("%s = linalg.index %d : index", i, op.Axis)
			fe.line("%s = linalg.index %d : index", j, R)
			src := j
			if op.Reverse {
				src = fe.tmp()
				fe.line("%s = arith.subi %s, %s : index", src, fe.index(n-1), j)
			}
			// Forward: src ≤ i (src < i exclusive); reverse: src ≥ i
			// (src > i exclusive).
			pred := map[[2]bool]string{{false, false}: "ule", {false, true}: "ult", {true, false}: "uge", {true, true}: "ugt"}[[2]bool{op.Reverse, op.Exclusive}]
			in := fe.tmp()
			fe.line("%s = arith.cmpi %s, %s, %s : index", in, pred, src, i)
			sum, err := fe.binaryScalar(kind, xt.Elem, acc, args[len(ins)-1])
			if err != nil {
				fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
				return acc
			}
			y := fe.tmp()
			fe.line("%s = arith.select %s, %s, %s : %s", y, in, sum, acc, elem)
			return y
		})
}
