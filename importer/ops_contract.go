package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Contractions: MatMul, Gemm and Einsum. Each becomes Niro MatMul (batch
// axes broadcast), with Transpose, Reshape, Reduce and element-wise ops
// around it, in the order the ONNX reference computes.

func init() {
	register("MatMul", opSpec{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).matmul})
	gemmAttrs := []string{"alpha", "beta", "transA", "transB"}
	register("Gemm",
		opSpec{Since: 1, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: append([]string{"broadcast"}, gemmAttrs...), Convert: (*nodeCtx).gemm},
		opSpec{Since: 7, In: [2]int{3, 3}, Out: [2]int{1, 1}, Attrs: gemmAttrs, Convert: (*nodeCtx).gemm},
		opSpec{Since: 11, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: gemmAttrs, Convert: (*nodeCtx).gemm})
	register("Einsum", opSpec{Since: 12, In: [2]int{1, -1}, Out: [2]int{1, 1}, Attrs: []string{"equation"}, Convert: (*nodeCtx).einsum})
}

// matmulOp adds a Niro MatMul of x and y (rank at least 2) and returns its
// result. After a failure it adds nothing.
func (nc *nodeCtx) matmulOp(x, y niro.Value) niro.Value {
	if nc.err != nil {
		return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
	}
	t, err := niro.InferMatMul(x.Type, y.Type)
	if err != nil {
		nc.fail("%v", err)
		return niro.Value{Type: niro.UnrankedTensor(niro.F32)}
	}
	res := nc.c.fn.NewValue(t)
	nc.e.add(&niro.MatMul{Result: res, LHS: x, RHS: y})
	return res
}

// transposeOp adds a Niro Transpose of x by perm, or returns x when perm
// is the identity.
func (nc *nodeCtx) transposeOp(x niro.Value, perm []int) niro.Value {
	if nc.err != nil {
		return x
	}
	identity := true
	for i, p := range perm {
		identity = identity && p == i
	}
	if identity {
		return x
	}
	t, err := niro.InferTranspose(x.Type, perm)
	if err != nil {
		nc.fail("%v", err)
		return x
	}
	res := nc.c.fn.NewValue(t)
	nc.e.add(&niro.Transpose{Result: res, X: x, Perm: append([]int(nil), perm...)})
	return res
}

// reshapeStatic reshapes x to dims, or returns x when it already has that
// shape. Niro's reshape needs static shapes: a dynamic one leaves the node
// not compilable yet.
func (nc *nodeCtx) reshapeStatic(x niro.Value, dims []int64) niro.Value {
	xt := tensorOf(x)
	if nc.err != nil || equalDims(xt.Dims, dims) {
		return x
	}
	rt := niro.TensorType{Elem: xt.Elem, Dims: dims}
	if !xt.HasStaticShape() || !rt.HasStaticShape() {
		nc.notYet("reshaping %s to %v needs static shapes", xt, dims)
		return x
	}
	return nc.reshape(x, dims)
}

// matmul maps MatMul with numpy semantics: a 1-D left operand gets a
// leading axis of 1 and a 1-D right operand a trailing one, removed again
// from the product; batch axes broadcast.
func (nc *nodeCtx) matmul() error {
	x, y := nc.in(0), nc.in(1)
	nc.sameElem(0, 1)
	xr, yr := nc.rank(x), nc.rank(y)
	if nc.err != nil {
		return nc.err
	}
	if xr == 0 || yr == 0 {
		return nc.errorf("operands must have rank at least 1, have %s and %s", tensorOf(x), tensorOf(y))
	}
	if xr == 1 {
		x = nc.reshapeStatic(x, []int64{1, tensorOf(x).Dims[0]})
	}
	if yr == 1 {
		y = nc.reshapeStatic(y, []int64{tensorOf(y).Dims[0], 1})
	}
	p := nc.matmulOp(x, y)
	if xr == 1 || yr == 1 {
		pd := tensorOf(p).Dims
		var dims []int64
		dims = append(dims, pd[:len(pd)-2]...)
		if xr != 1 {
			dims = append(dims, pd[len(pd)-2])
		}
		if yr != 1 {
			dims = append(dims, pd[len(pd)-1])
		}
		p = nc.reshapeStatic(p, dims)
	}
	nc.out(0, p)
	return nil
}

// gemm maps Gemm: Y = alpha·(A'·B') + beta·C, computed as the reference
// does, (A'·B')·alpha + C·beta, where A' and B' are A and B transposed
// under transA and transB. A factor of 1 is skipped, and so is C when it is
// absent or beta is 0. Before opset 7, C broadcasts only under broadcast=1.
func (nc *nodeCtx) gemm() error {
	a, b := nc.in(0), nc.in(1)
	nc.sameElem(0, 1)
	if nc.rank(a) != 2 || nc.rank(b) != 2 {
		if nc.err != nil {
			return nc.err
		}
		return nc.errorf("A and B must have rank 2, have %s and %s", tensorOf(a), tensorOf(b))
	}
	alpha, beta := nc.attrFloat("alpha", 1), nc.attrFloat("beta", 1)
	e := elem(a)
	if !e.IsFloat() && (alpha != math.Trunc(alpha) || beta != math.Trunc(beta)) {
		nc.notYet("alpha %g and beta %g on integer elements %s", alpha, beta, e)
		return nc.err
	}
	if nc.attrInt("transA", 0) != 0 {
		a = nc.transposeOp(a, []int{1, 0})
	}
	if nc.attrInt("transB", 0) != 0 {
		b = nc.transposeOp(b, []int{1, 0})
	}
	y := nc.matmulOp(a, b)
	if alpha != 1 {
		y = nc.bin(niro.Mul, y, nc.like(y, alpha))
	}
	if nc.has(2) && beta != 0 {
		nc.sameElem(0, 2)
		c := nc.in(2)
		if nc.opset < 7 && nc.attrInt("broadcast", 0) == 0 && nc.err == nil {
			ct, yt := tensorOf(c), tensorOf(y)
			if !ct.Unranked && !equalDims(ct.Dims, yt.Dims) && ct.HasStaticShape() && yt.HasStaticShape() {
				return nc.errorf("C %s differs from the product's shape %s and broadcast is 0 (opset %d)", ct, yt, nc.opset)
			}
		}
		if beta != 1 {
			c = nc.bin(niro.Mul, c, nc.like(c, beta))
		}
		y = nc.bin(niro.Add, y, c)
	}
	nc.out(0, y)
	return nil
}

// einsum is filled in below.
func (nc *nodeCtx) einsum() error {
	nc.notYet("Einsum is not mapped yet")
	return nc.err
}
