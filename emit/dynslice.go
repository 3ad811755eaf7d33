package emit

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// dynSlice lowers DynSlice to index arithmetic on the bounds (ONNX Slice's
// resolution: a negative bound plus the extent, then clamped to
// [0, extent]; the size max(end − start, 0)) and one tensor.extract_slice,
// cast to the result type when it is more precise.
func (fe *funcEmitter) dynSlice(op *niro.DynSlice) {
	res, x := op.Result, op.X
	xt, ok1 := rankedTensor(x)
	_, ok2 := rankedTensor(res)
	if !ok1 || !ok2 {
		fe.opErrorf(op, "dyn_slice %s: needs ranked tensors", name(res))
		return
	}
	offs := make([]string, xt.Rank())
	sizes := make([]string, xt.Rank())
	strides := make([]string, xt.Rank())
	dyn := append([]int64{}, xt.Dims...)
	for a := range offs {
		offs[a], strides[a] = "0", "1"
		if d := xt.Dims[a]; d >= 0 {
			sizes[a] = fmt.Sprint(d)
		} else {
			sizes[a] = fe.dim(x, xt, a)
		}
	}
	zero := fe.intConst(niro.I64, 0)
	for k, a := range op.Axes {
		d := fe.tmp()
		fe.line("%s = arith.index_cast %s : index to i64", d, fe.dim(x, xt, a))
		bound := func(v niro.Value) string {
			vt, _ := rankedTensor(v)
			b := fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", b, name(v), fe.index(int64(k)), fe.typ(v))
			if vt.Elem == niro.I32 {
				w := fe.tmp()
				fe.line("%s = arith.extsi %s : i32 to i64", w, b)
				b = w
			}
			neg, plus, sel, lo, hi := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = arith.cmpi slt, %s, %s : i64", neg, b, zero)
			fe.line("%s = arith.addi %s, %s : i64", plus, b, d)
			fe.line("%s = arith.select %s, %s, %s : i64", sel, neg, plus, b)
			fe.line("%s = arith.maxsi %s, %s : i64", lo, sel, zero)
			fe.line("%s = arith.minsi %s, %s : i64", hi, lo, d)
			return hi
		}
		s, e := bound(op.Starts), bound(op.Ends)
		diff, size := fe.tmp(), fe.tmp()
		fe.line("%s = arith.subi %s, %s : i64", diff, e, s)
		fe.line("%s = arith.maxsi %s, %s : i64", size, diff, zero)
		so, sz := fe.tmp(), fe.tmp()
		fe.line("%s = arith.index_cast %s : i64 to index", so, s)
		fe.line("%s = arith.index_cast %s : i64 to index", sz, size)
		offs[a], sizes[a] = so, sz
		dyn[a] = niro.Dynamic
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	dt := tensorTypeOf(dyn, elem)
	dst := name(res)
	if dt != fe.typ(res) {
		dst = fe.tmp()
	}
	fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", dst, name(x), strings.Join(offs, ", "), strings.Join(sizes, ", "), strings.Join(strides, ", "), fe.typ(x), dt)
	if dst != name(res) {
		fe.line("%s = tensor.cast %s : %s to %s", name(res), dst, dt, fe.typ(res))
	}
}
