package importer

import (
	"math"
	"sort"
	"strings"

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
	if v, ok := nc.transposeConstant(x, t.(niro.TensorType), perm); ok {
		return v
	}
	res := nc.c.fn.NewValue(t)
	nc.e.add(&niro.Transpose{Result: res, X: x, Perm: append([]int(nil), perm...)})
	return res
}

// transposeConstant transposes a constant operand (a weight read with
// get_global, or a const) at import, so that the compiled code reads the
// weight in the order it uses it instead of transposing it on every call
// (Gemm's transB, MatMul by a transposed weight). It copies the weight's
// bytes once into a new global.
func (nc *nodeCtx) transposeConstant(x niro.Value, t niro.TensorType, perm []int) (niro.Value, bool) {
	xt := tensorOf(x)
	if !xt.HasStaticShape() || xt.Elem.Bits() < 8 {
		return x, false
	}
	var data []byte
	name := "const"
	for _, op := range nc.e.blk.Ops {
		switch op := op.(type) {
		case *niro.GetGlobal:
			if op.Result.ID == x.ID {
				if g, _ := nc.c.mod.Lookup(op.Global); g != nil {
					if b, ok := g.Init.(niro.BytesLit); ok {
						data, name = b, op.Global
					}
				}
			}
		case *niro.Const:
			if op.Result.ID == x.ID {
				if b, ok := op.Lit.(niro.BytesLit); ok {
					data = b
				}
			}
		}
	}
	w := int64(xt.Elem.Bits() / 8)
	if data == nil || int64(len(data)) != xt.NumElements()*w {
		return x, false
	}
	out := permuteBytes(data, xt.Dims, perm, w)
	g := nc.c.mod.AddGlobal(nc.c.symbol(name+"_t"), t, niro.BytesLit(out))
	res := nc.c.fn.NewValue(t)
	nc.e.add(&niro.GetGlobal{Result: res, Global: g.Name})
	nc.c.recordKnown(res, out)
	return res, true
}

// permuteBytes returns the row-major bytes of the tensor of shape dims and
// element size w transposed by perm (result axis i is operand axis
// perm[i]).
func permuteBytes(data []byte, dims []int64, perm []int, w int64) []byte {
	r := len(dims)
	stride := make([]int64, r)
	s := int64(1)
	for a := r - 1; a >= 0; a-- {
		stride[a] = s
		s *= dims[a]
	}
	rdims := make([]int64, r)
	for i, p := range perm {
		rdims[i] = dims[p]
	}
	out := make([]byte, len(data))
	idx := make([]int64, r)
	n := s
	for o := int64(0); o < n; o++ {
		src := int64(0)
		for i, p := range perm {
			src += idx[i] * stride[p]
		}
		copy(out[o*w:(o+1)*w], data[src*w:(src+1)*w])
		for i := r - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < rdims[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// reshapeStatic reshapes x to dims, or returns x when it already has that
// shape (a dynamic extent on either side matches any). Niro's reshape
// needs static shapes: a dynamic one leaves the node not compilable yet.
func (nc *nodeCtx) reshapeStatic(x niro.Value, dims []int64) niro.Value {
	xt := tensorOf(x)
	if nc.err != nil {
		return x
	}
	same := len(xt.Dims) == len(dims)
	for i := 0; same && i < len(dims); i++ {
		same = xt.Dims[i] == dims[i] || xt.Dims[i] < 0 || dims[i] < 0
	}
	if same {
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
	nc.sameElem(0, 1)
	nc.out(0, nc.matmulONNX(nc.in(0), nc.in(1)))
	return nc.err
}

// matmulONNX is ONNX MatMul's product of x and y: a 1-D operand becomes
// rank 2 by a reshape, which a reshape of the product removes again.
func (nc *nodeCtx) matmulONNX(x, y niro.Value) niro.Value {
	xr, yr := nc.rank(x), nc.rank(y)
	if nc.err != nil {
		return x
	}
	if xr == 0 || yr == 0 {
		nc.fail("operands must have rank at least 1, have %s and %s", tensorOf(x), tensorOf(y))
		return x
	}
	if xr == 1 {
		x = nc.reshapeStatic(x, []int64{1, tensorOf(x).Dims[0]})
	}
	if yr == 1 {
		y = nc.reshapeStatic(y, []int64{tensorOf(y).Dims[0], 1})
	}
	p := nc.matmulOp(x, y)
	if nc.err != nil {
		return p
	}
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
	return p
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

// einsumTerm is one operand of an Einsum: its value and one label per
// axis. The axes an ellipsis stands for get labels above the letters
// (just below 0x100), aligned at the end across operands as numpy
// broadcasting aligns them.
type einsumTerm struct {
	v      niro.Value
	labels []rune
}

// ellipsisLabel is the label of axis j of a broadcast ellipsis of n axes.
func ellipsisLabel(j, n int) rune { return rune(0x100 + j - n) }

// parseEinsumTerm reads one comma-separated term of an Einsum equation for
// an operand of the given rank (rank < 0 for the output, where the
// ellipsis has ell axes).
func parseEinsumTerm(term string, rank, ell int) ([]rune, int, bool) {
	before, after, dots := strings.Cut(term, "...")
	if strings.Contains(after, "...") || strings.Contains(after, ".") || strings.Contains(before, ".") {
		return nil, 0, false
	}
	for _, r := range before + after {
		if r < 'A' || r > 'z' || (r > 'Z' && r < 'a') {
			return nil, 0, false
		}
	}
	n := len(before) + len(after)
	k := 0
	switch {
	case dots && rank >= 0:
		k = rank - n
	case dots:
		k = ell
	case rank >= 0 && rank != n:
		return nil, 0, false
	}
	if k < 0 {
		return nil, 0, false
	}
	labels := []rune(before)
	for j := 0; j < k; j++ {
		labels = append(labels, ellipsisLabel(j, k))
	}
	return append(labels, []rune(after)...), k, true
}

// einsum maps Einsum (opset 12). A label repeated in a term takes that
// term's diagonal (see einsumDiagonals); each label only one operand has
// and the output lacks is summed away; then the operands are contracted pairwise from the
// left, each pair by one MatMul (shared labels still needed are batch
// axes, the other shared ones contracted), and the result is transposed to
// the output's label order.
func (nc *nodeCtx) einsum() error {
	eq := strings.ReplaceAll(nc.attrString("equation", ""), " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	parts := strings.Split(lhs, ",")
	if len(parts) != len(nc.args) {
		return nc.errorf("equation %q has %d input terms for %d inputs", eq, len(parts), len(nc.args))
	}
	terms := make([]einsumTerm, len(parts))
	ell := 0
	extent := map[rune]int64{}
	count := map[rune]int{}  // occurrences of each label in the input terms
	nterms := map[rune]int{} // input terms holding each label
	for i, p := range parts {
		if !nc.has(i) {
			return nc.errorf("input %d is omitted", i)
		}
		nc.sameElem(0, i)
		r := nc.rank(nc.in(i))
		if nc.err != nil {
			return nc.err
		}
		labels, k, ok := parseEinsumTerm(p, r, 0)
		if !ok {
			return nc.errorf("equation %q: term %q does not fit input %d of rank %d", eq, p, i, r)
		}
		ell = max(ell, k)
		seen := map[rune]bool{}
		for a, l := range labels {
			if !seen[l] {
				nterms[l]++
			}
			seen[l] = true
			count[l]++
			d := tensorOf(nc.in(i)).Dims[a]
			if e, ok := extent[l]; ok && e != d {
				if e >= 0 && d >= 0 {
					nc.notYet("equation %q: label %q has extents %d and %d (broadcasting within Einsum)", eq, l, e, d)
					return nc.err
				}
			}
			if _, ok := extent[l]; !ok || d >= 0 {
				extent[l] = d
			}
		}
		terms[i] = einsumTerm{v: nc.in(i), labels: labels}
	}
	var out []rune
	if explicit {
		labels, _, ok := parseEinsumTerm(rhs, -1, ell)
		if !ok {
			return nc.errorf("equation %q: bad output term %q", eq, rhs)
		}
		seen := map[rune]bool{}
		for _, l := range labels {
			if seen[l] || count[l] == 0 {
				return nc.errorf("equation %q: output label %q is repeated or in no input", eq, l)
			}
			seen[l] = true
		}
		out = labels
	} else {
		for j := 0; j < ell; j++ {
			out = append(out, ellipsisLabel(j, ell))
		}
		var once []rune
		for l, c := range count {
			if c == 1 && l <= 'z' {
				once = append(once, l)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		out = append(out, once...)
	}
	inOut := map[rune]bool{}
	for _, l := range out {
		inOut[l] = true
	}
	// Take the diagonal of each repeated label, then sum away each label
	// only its own operand has.
	for i := range terms {
		terms[i] = nc.einsumDiagonals(terms[i], extent)
		var axes []int
		var kept []rune
		for a, l := range terms[i].labels {
			if nterms[l] == 1 && !inOut[l] {
				axes = append(axes, a)
			} else {
				kept = append(kept, l)
			}
		}
		if len(axes) > 0 {
			terms[i] = einsumTerm{v: nc.op(&niro.Reduce{Kind: niro.ReduceSum, Axes: axes, X: terms[i].v}), labels: kept}
		}
	}
	acc := terms[0]
	for i := 1; i < len(terms); i++ {
		keep := map[rune]bool{}
		for l := range inOut {
			keep[l] = true
		}
		for _, t := range terms[i+1:] {
			for _, l := range t.labels {
				keep[l] = true
			}
		}
		acc = nc.contractPair(acc, terms[i], keep, extent)
	}
	if nc.err != nil {
		return nc.err
	}
	if len(acc.labels) != len(out) {
		nc.notYet("equation %q: a label shared by operands is summed in none of them", eq)
		return nc.err
	}
	pos := map[rune]int{}
	for a, l := range acc.labels {
		pos[l] = a
	}
	perm := make([]int, len(out))
	for i, l := range out {
		perm[i] = pos[l]
	}
	nc.out(0, nc.transposeOp(acc.v, perm))
	return nil
}

// contractPair multiplies two Einsum operands: shared labels in keep are
// batch axes, other shared labels are contracted, and each operand's own
// labels are its free axes. The result's labels are batch, left free,
// right free.
func (nc *nodeCtx) contractPair(x, y einsumTerm, keep map[rune]bool, extent map[rune]int64) einsumTerm {
	inX, inY := map[rune]int{}, map[rune]int{}
	for a, l := range x.labels {
		inX[l] = a
	}
	for a, l := range y.labels {
		inY[l] = a
	}
	var batch, contracted, xfree, yfree []rune
	for _, l := range x.labels {
		_, shared := inY[l]
		switch {
		case shared && keep[l]:
			batch = append(batch, l)
		case shared:
			contracted = append(contracted, l)
		default:
			xfree = append(xfree, l)
		}
	}
	for _, l := range y.labels {
		if _, shared := inX[l]; !shared {
			yfree = append(yfree, l)
		}
	}
	dims := func(ls []rune) []int64 {
		out := make([]int64, len(ls))
		for i, l := range ls {
			out[i] = extent[l]
		}
		return out
	}
	prod := func(ls []rune) int64 {
		n := int64(1)
		for _, l := range ls {
			if extent[l] < 0 {
				if len(ls) == 1 {
					return extent[l]
				}
				return niro.Dynamic
			}
			n *= extent[l]
		}
		return n
	}
	order := func(t einsumTerm, groups ...[]rune) niro.Value {
		pos := map[rune]int{}
		for a, l := range t.labels {
			pos[l] = a
		}
		var perm []int
		for _, g := range groups {
			for _, l := range g {
				perm = append(perm, pos[l])
			}
		}
		return nc.transposeOp(t.v, perm)
	}
	bd := dims(batch)
	a := nc.reshapeStatic(order(x, batch, xfree, contracted), append(append([]int64{}, bd...), prod(xfree), prod(contracted)))
	b := nc.reshapeStatic(order(y, batch, contracted, yfree), append(append([]int64{}, bd...), prod(contracted), prod(yfree)))
	p := nc.matmulOp(a, b)
	p = nc.reshapeStatic(p, append(append(bd, dims(xfree)...), dims(yfree)...))
	labels := append(append(append([]rune{}, batch...), xfree...), yfree...)
	return einsumTerm{v: p, labels: labels}
}

// einsumDiagonals takes, for each label t repeats, the diagonal along its
// two first axes: those axes are moved last, every element off the
// diagonal is replaced by the lowest value of the element type, and the
// maximum along the last axis is taken, which is exactly the diagonal
// element (NaN and -0 included).
func (nc *nodeCtx) einsumDiagonals(t einsumTerm, extent map[rune]int64) einsumTerm {
	for nc.err == nil {
		p, q := -1, -1
		for a := 0; a < len(t.labels) && q < 0; a++ {
			for b := a + 1; b < len(t.labels); b++ {
				if t.labels[a] == t.labels[b] {
					p, q = a, b
					break
				}
			}
		}
		if q < 0 {
			return t
		}
		l := t.labels[p]
		n := extent[l]
		e := elem(t.v)
		lowest, ok := lowestValue(e)
		if n < 0 || !ok {
			nc.notYet("the diagonal of label %q needs a static extent and a numeric element type, has %d and %s", l, n, e)
			return t
		}
		var perm []int
		var labels []rune
		for a, m := range t.labels {
			if a != p && a != q {
				perm = append(perm, a)
				labels = append(labels, m)
			}
		}
		x := nc.transposeOp(t.v, append(perm, p, q))
		var mask niro.Value
		if n*n <= 4096 {
			eye := make([]int64, n*n)
			for j := int64(0); j < n; j++ {
				eye[j*n+j] = 1
			}
			mask = nc.constInts(niro.Bool, []int64{n, n}, eye)
		} else {
			sq := niro.Tensor(niro.I64, n, n)
			mask = nc.cmp(niro.Eq, nc.op(&niro.Iota{Axis: 0, Type: sq}), nc.op(&niro.Iota{Axis: 1, Type: sq}))
		}
		x = nc.sel(mask, x, nc.scalar(e, lowest))
		r := tensorOf(x).Rank()
		t = einsumTerm{v: nc.op(&niro.Reduce{Kind: niro.ReduceMax, Axes: []int{r - 1}, X: x}), labels: append(labels, l)}
	}
	return t
}

// lowestValue returns the lowest value of element type e (−inf for
// floats); false for bool.
func lowestValue(e niro.ScalarType) (float64, bool) {
	switch {
	case e == niro.Bool:
		return 0, false
	case e.IsFloat():
		return math.Inf(-1), true
	}
	lo, _ := e.IntRange()
	return float64(lo), true
}
