package emit

import (
	"strings"

	"github.com/niro-dev/niro/niro"
)

// tensorExtract lowers TensorExtract to tensor.extract, casting each I32 or
// I64 index to index (index_castui for the unsigned types).
func (fe *funcEmitter) tensorExtract(op *niro.TensorExtract) {
	res, x := op.Result, op.X
	xt, ok := rankedTensor(x)
	if !ok {
		fe.opErrorf(op, "tensor_extract %s: needs a ranked tensor, got %s", name(res), typeName(x.Type))
		return
	}
	if len(op.Indices) != len(xt.Dims) {
		fe.opErrorf(op, "tensor_extract %s: %d indices for rank %d", name(res), len(op.Indices), len(xt.Dims))
		return
	}
	if rs, ok := res.Type.(niro.ScalarType); !ok || rs != xt.Elem {
		fe.opErrorf(op, "tensor_extract %s: result type %s is not the element type of %s", name(res), typeName(res.Type), xt)
		return
	}
	idx := make([]string, len(op.Indices))
	for i, v := range op.Indices {
		s, ok := v.Type.(niro.ScalarType)
		if !ok || !s.IsInt() || s.Bits() < 32 {
			fe.opErrorf(op, "tensor_extract %s: index #%d %s has type %s, want i32 or i64", name(res), i, name(v), typeName(v.Type))
			return
		}
		cast := "arith.index_cast"
		if !s.IsSigned() {
			cast = "arith.index_castui"
		}
		idx[i] = fe.tmp()
		fe.line("%s = %s %s : %s to index", idx[i], cast, name(v), fe.typ(v))
	}
	t := fe.typ(x)
	fe.typ(res)
	fe.line("%s = tensor.extract %s[%s] : %s", name(res), name(x), strings.Join(idx, ", "), t)
}
