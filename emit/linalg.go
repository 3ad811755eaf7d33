package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// genericOperand is one input or output of a linalg.generic.
type genericOperand struct {
	name string // SSA name
	typ  string // MLIR type: tensor<...> or a scalar
	elem string // element (block argument) type
	amap string // indexing map
}

// generic writes dst = linalg.generic over ins into out. body receives the
// block argument names (ins, then out) and writes the body's ops; it
// returns the value to yield. attrs, when non-empty, is written as
// "attrs = {...}".
func (fe *funcEmitter) generic(dst string, iters []string, ins []genericOperand, out genericOperand, attrs string, body func(args []string) string) {
	// Written straight into the body: this is the most frequent line.
	fe.body.begin(fe.indent)
	w := fe.body.buf
	w = append(w, dst...)
	w = append(w, " = linalg.generic {indexing_maps = ["...)
	for _, in := range ins {
		w = append(w, in.amap...)
		w = append(w, ", "...)
	}
	w = append(w, out.amap...)
	w = append(w, "], iterator_types = ["...)
	for i, it := range iters {
		if i > 0 {
			w = append(w, ", "...)
		}
		w = strconv.AppendQuote(w, it)
	}
	w = append(w, "]}"...)
	if len(ins) > 0 {
		w = append(w, " ins("...)
		for i, in := range ins {
			if i > 0 {
				w = append(w, ", "...)
			}
			w = append(w, in.name...)
		}
		w = append(w, " : "...)
		for i, in := range ins {
			if i > 0 {
				w = append(w, ", "...)
			}
			w = append(w, in.typ...)
		}
		w = append(w, ')')
	}
	w = append(w, " outs("...)
	w = append(w, out.name...)
	w = append(w, " : "...)
	w = append(w, out.typ...)
	w = append(w, ')')
	if a, ok := fe.epiAttrs[dst]; ok {
		if attrs != "" {
			attrs += ", "
		}
		attrs += a
	}
	if attrs != "" {
		w = append(w, " attrs = {"...)
		w = append(w, attrs...)
		w = append(w, '}')
	}
	w = append(w, " {"...)
	fe.body.buf = w
	fe.body.end()

	args := make([]string, len(ins)+1)
	for i := range args {
		args[i] = fe.tmp()
	}
	fe.body.begin(fe.indent)
	w = append(fe.body.buf, "^bb0("...)
	for i, a := range args {
		if i > 0 {
			w = append(w, ", "...)
		}
		w = append(w, a...)
		w = append(w, ": "...)
		if i < len(ins) {
			w = append(w, ins[i].elem...)
		} else {
			w = append(w, out.elem...)
		}
	}
	w = append(w, "):"...)
	fe.body.buf = w
	fe.body.end()
	fe.indent++
	y := body(args)
	fe.lineOf("linalg.yield ", y, " : ", out.elem)
	fe.indent--
	fe.lineOf("} -> ", out.typ)
}

// affineMap returns affine_map<(d0, ..., dn-1) -> (exprs)>.
func affineMap(n int, exprs []string) string {
	var sb strings.Builder
	dims := loopDimList(n)
	size := len("affine_map<() -> ()>") + len(dims)
	for _, e := range exprs {
		size += len(e) + 2
	}
	sb.Grow(size)
	sb.WriteString("affine_map<(")
	sb.WriteString(dims)
	sb.WriteString(") -> (")
	for i, e := range exprs {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(e)
	}
	sb.WriteString(")>")
	return sb.String()
}

// identityMap returns the identity map of rank n.
func identityMap(n int) string {
	if n < len(identityMaps) {
		return identityMaps[n]
	}
	return affineMap(n, dimNames(n))
}

// loopDimList returns "d0, d1, ..., dn-1".
func loopDimList(n int) string {
	if n < len(dimLists) {
		return dimLists[n]
	}
	return strings.Join(dimNames(n), ", ")
}

// The identity maps and dimension lists of the common ranks, made once:
// nearly every generic uses some.
var identityMaps, dimLists = func() (maps, lists [9]string) {
	for n := range lists {
		lists[n] = strings.Join(dimNames(n), ", ")
		maps[n] = "affine_map<(" + lists[n] + ") -> (" + lists[n] + ")>"
	}
	return maps, lists
}()

func dimNames(n int) []string {
	ds := make([]string, n)
	for i := range ds {
		ds[i] = "d" + strconv.Itoa(i)
	}
	return ds
}

func parallel(n int) []string {
	its := make([]string, n)
	for i := range its {
		its[i] = "parallel"
	}
	return its
}

// rankedTensor returns v's type as a ranked tensor type, or false.
func rankedTensor(v niro.Value) (niro.TensorType, bool) {
	t, ok := v.Type.(niro.TensorType)
	return t, ok && !t.Unranked
}

// tensorTypeOf returns the MLIR spelling of a ranked tensor type with the
// given element type.
func tensorTypeOf(dims []int64, elem string) string {
	return "tensor<" + shapePrefix(niro.TensorType{Dims: dims}) + elem + ">"
}

// dim returns an index value holding extent axis of tensor v: a constant
// when static, else a tensor.dim.
func (fe *funcEmitter) dim(v niro.Value, t niro.TensorType, axis int) string {
	if d := t.Dims[axis]; d >= 0 {
		return fe.index(d)
	}
	d := fe.tmp()
	fe.line("%s = tensor.dim %s, %s : %s", d, name(v), fe.index(int64(axis)), fe.typ(v))
	return d
}

// empty writes a tensor.empty of the given shape and element type. dyn
// supplies the index value of each dynamic axis.
func (fe *funcEmitter) empty(dims []int64, elem string, dyn func(axis int) string) string {
	var sizes []string
	for i, d := range dims {
		if d < 0 {
			sizes = append(sizes, dyn(i))
		}
	}
	t := fe.tmp()
	fe.body.begin(fe.indent)
	w := append(fe.body.buf, t...)
	w = append(w, " = tensor.empty("...)
	for i, s := range sizes {
		if i > 0 {
			w = append(w, ", "...)
		}
		w = append(w, s...)
	}
	w = append(w, ") : tensor<"...)
	for _, d := range dims {
		if d < 0 {
			w = append(w, '?')
		} else {
			w = strconv.AppendInt(w, d, 10)
		}
		w = append(w, 'x')
	}
	w = append(w, elem...)
	w = append(w, '>')
	fe.body.buf = w
	fe.body.end()
	return t
}

// broadcastMap returns the indexing map that reads an operand of shape
// dims at each point of a result of shape res.
func broadcastMap(dims, res []int64) (string, error) {
	if len(dims) == len(res) && !stretches(dims, res) {
		return identityMap(len(res)), nil
	}
	exprs, err := broadcastExprs(dims, res)
	if err != nil {
		return "", err
	}
	return affineMap(len(res), exprs), nil
}

// stretches reports whether broadcastExprs would give an operand of shape
// dims anything but dj at axis j of a result of the same rank: a
// stretched extent of 1 (or an error).
func stretches(dims, res []int64) bool {
	for j, d := range dims {
		if r := res[j]; d == 1 && r != 1 || d >= 0 && r >= 0 && d != r {
			return true
		}
	}
	return false
}

// broadcastExprs returns the indexing expressions that read an operand of
// shape dims at each point of res (aligned at the end, loop dimension j
// for result axis j): a stretched extent of 1 reads index 0.
func broadcastExprs(dims, res []int64) ([]string, error) {
	R := len(res)
	if len(dims) > R {
		return nil, fmt.Errorf("operand rank %d exceeds result rank %d", len(dims), R)
	}
	exprs := make([]string, len(dims))
	for a, d := range dims {
		j := R - len(dims) + a
		r := res[j]
		switch {
		case d == 1 && r != 1:
			exprs[a] = "0" // stretched
		case d >= 0 && r >= 0 && d != r:
			return nil, fmt.Errorf("extent %d at axis %d against result extent %d", d, a, r)
		default:
			exprs[a] = "d" + strconv.Itoa(j)
		}
	}
	return exprs, nil
}

// matmul lowers MatMul to a tensor.empty, a generic that fills it with
// zero, and a contraction generic tagged niro.contraction that adds each
// product to the accumulator in contracted order. Its loops are the batch
// axes of the result, then row, column and contracted. An operand's batch
// axis of extent 1 that the result stretches is collapsed away first (see
// dropStretched). Several batch axes that every operand either has all of
// or none of are collapsed into one, and the product is expanded back, so
// that the contraction has the rank-4 form the schedule takes; and when
// the right operand has no batch axes (a weight), the left operand's batch
// axes and rows become the rows of one rank-2 contraction, so that the
// schedule packs each right-operand panel once for all of them.
// Half-precision operands are widened in the body and accumulated in f32;
// one final generic rounds each element back once.
func (fe *funcEmitter) matmul(op *niro.MatMul) {
	res, lhs, rhs := op.Result, op.LHS, op.RHS
	rt, ok := rankedTensor(res)
	lt, ok1 := rankedTensor(lhs)
	xt, ok2 := rankedTensor(rhs)
	if !ok || !ok1 || !ok2 || len(lt.Dims) < 2 || len(xt.Dims) < 2 || len(rt.Dims) != max(len(lt.Dims), len(xt.Dims)) {
		fe.opErrorf(op, "matmul %s: needs ranked tensors of rank at least 2, got (%s, %s) -> %s",
			name(res), typeName(lhs.Type), typeName(rhs.Type), typeName(res.Type))
		return
	}
	if lt.Elem != rt.Elem || xt.Elem != rt.Elem {
		fe.opErrorf(op, "matmul %s: operand types %s and %s do not match result element type %s", name(res), lt, xt, rt.Elem)
		return
	}
	R, lr, xr := len(rt.Dims), len(lt.Dims), len(xt.Dims)
	B := R - 2
	lmap, err1 := broadcastExprs(lt.Dims[:lr-2], rt.Dims[:B])
	xmap, err2 := broadcastExprs(xt.Dims[:xr-2], rt.Dims[:B])
	if err1 != nil || err2 != nil || !extentsMatch(lt.Dims[lr-2], rt.Dims[B]) || !extentsMatch(xt.Dims[xr-1], rt.Dims[B+1]) || !extentsMatch(lt.Dims[lr-1], xt.Dims[xr-2]) {
		fe.opErrorf(op, "matmul %s: shapes %s and %s do not give %s", name(res), lt, xt, rt)
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	if !rt.Elem.IsFloat() && !rt.Elem.IsInt() {
		fe.opErrorf(op, "matmul %s: not defined on element type %s", name(res), rt.Elem)
		return
	}
	half := isHalf(rt.Elem)
	acc := elem
	if half {
		acc = "f32"
	}
	batchOps := []niro.Value{lhs, rhs}
	batchTypes := []niro.TensorType{{Dims: lt.Dims[:lr-2]}, {Dims: xt.Dims[:xr-2]}}
	dyn := func(j int) string {
		switch j {
		case B:
			return fe.dim(lhs, lt, lr-2)
		case B + 1:
			return fe.dim(rhs, xt, xr-1)
		}
		return fe.broadcastExtent(batchOps, batchTypes, B, j)
	}
	l := fe.dropStretched(lhs, lt, lmap)
	x := fe.dropStretched(rhs, xt, xmap)
	dims, dst, resTyp := rt.Dims, name(res), fe.typ(res)
	rowsFolded := false
	if rt.HasStaticShape() && B > 0 && len(x.exprs) == 0 && readsAllBatch(l, B) {
		// A right operand without batch axes (a weight): the left
		// operand's batch axes and rows are one [P·M, K] matrix, so the
		// product is one rank-2 contraction whose right-operand panels are
		// packed once for all rows, expanded back at the end.
		rows := rt.Dims[B]
		for _, d := range rt.Dims[:B] {
			rows *= d
		}
		ldims := []int64{rows, l.dims[B+1]}
		ltyp := tensorTypeOf(ldims, elem)
		c := fe.tmp()
		fe.line("%s = tensor.collapse_shape %s [%s, [%d]] : %s into %s", c, l.name, allAxes(B+1), B+1, l.typ, ltyp)
		l = contractOperand{name: c, typ: ltyp, elem: l.elem, dims: ldims}
		dims, dst, rowsFolded = []int64{rows, rt.Dims[B+1]}, "", true
		resTyp = tensorTypeOf(dims, elem)
		R, B = 2, 0
	} else if rt.HasStaticShape() && batchCollapsible(l, B) && batchCollapsible(x, B) {
		l, x = fe.collapseBatch(l, B), fe.collapseBatch(x, B)
		// The product is [P, M, N] with P the batch axes' product, expanded
		// back to the result's shape at the end.
		p := int64(1)
		for _, d := range rt.Dims[:B] {
			p *= d
		}
		dims, dst = []int64{p, rt.Dims[B], rt.Dims[B+1]}, ""
		resTyp = tensorTypeOf(dims, elem)
		R, B = 3, 1
	}
	row, col, red := "d"+strconv.Itoa(B), "d"+strconv.Itoa(B+1), "d"+strconv.Itoa(B+2)
	accType := tensorTypeOf(dims, acc)
	init := fe.empty(dims, acc, dyn)
	zero := fe.tmp()
	fe.line("%s = arith.constant %s : %s", zero, zeroAttr(rt.Elem), acc)
	filled := fe.tmp()
	fe.generic(filled, parallel(R),
		[]genericOperand{{name: zero, typ: acc, elem: acc, amap: affineMap(R, nil)}},
		genericOperand{name: init, typ: accType, elem: acc, amap: identityMap(R)},
		"", func(args []string) string { return args[0] })

	if dst == "" {
		dst = fe.tmp()
	}
	product := dst
	if half {
		product = fe.tmp()
	}
	ins := []genericOperand{
		{name: l.name, typ: l.typ, elem: elem, amap: affineMap(R+1, append(append([]string{}, l.exprs...), row, red))},
		{name: x.name, typ: x.typ, elem: elem, amap: affineMap(R+1, append(append([]string{}, x.exprs...), red, col))},
	}
	out := genericOperand{name: filled, typ: accType, elem: acc, amap: affineMap(R+1, dimNames(R))}
	fe.generic(product, append(parallel(R), "reduction"), ins, out, "niro.contraction", func(args []string) string {
		a, b, o := args[0], args[1], args[2]
		if half {
			a, b = fe.extProduct(rt.Elem, a), fe.extProduct(rt.Elem, b) // bf16.go
		}
		p, s := fe.tmp(), fe.tmp()
		switch {
		case rt.Elem.IsFloat():
			fe.line("%s = arith.mulf %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addf %s, %s : %s", s, o, p, acc)
		default:
			fe.line("%s = arith.muli %s, %s : %s", p, a, b, acc)
			fe.line("%s = arith.addi %s, %s : %s", s, o, p, acc)
		}
		return s
	})
	if half {
		rounded := fe.empty(dims, elem, dyn)
		fe.generic(dst, parallel(R),
			[]genericOperand{{name: product, typ: accType, elem: acc, amap: identityMap(R)}},
			genericOperand{name: rounded, typ: resTyp, elem: elem, amap: identityMap(R)},
			"", func(args []string) string {
				r := fe.tmp()
				fe.line("%s = arith.truncf %s : f32 to %s", r, args[0], elem)
				return r
			})
	}
	if rowsFolded {
		B := len(rt.Dims) - 2
		fe.line("%s = tensor.expand_shape %s [%s, [%d]] output_shape [%s] : %s into %s",
			name(res), dst, allAxes(B+1), B+1, dimList(rt.Dims), resTyp, fe.typ(res))
	} else if dst != name(res) {
		B := len(rt.Dims) - 2
		fe.line("%s = tensor.expand_shape %s [%s, [%d], [%d]] output_shape [%s] : %s into %s",
			name(res), dst, allAxes(B), B, B+1, dimList(rt.Dims), resTyp, fe.typ(res))
	}
}

// contractOperand is a matmul operand as the contraction reads it: its SSA
// name, type, shape and batch indexing expressions.
type contractOperand struct {
	name, typ string
	elem      niro.ScalarType
	dims      []int64
	exprs     []string
}

// dropStretched collapses away the batch axes of matmul operand v (type t)
// that the result stretches (index 0 in exprs, its batch indexing
// expressions), each into the next axis, so that the contraction's
// indexing maps are projected permutations, which the vectorizer needs.
func (fe *funcEmitter) dropStretched(v niro.Value, t niro.TensorType, exprs []string) contractOperand {
	var kept []string
	var dims []int64
	var groups, group []string
	for a, d := range t.Dims {
		group = append(group, strconv.Itoa(a))
		if a < len(exprs) && exprs[a] == "0" {
			continue
		}
		if a < len(exprs) {
			kept = append(kept, exprs[a])
		}
		dims = append(dims, d)
		groups = append(groups, "["+strings.Join(group, ", ")+"]")
		group = nil
	}
	if len(dims) == len(t.Dims) {
		return contractOperand{name: name(v), typ: fe.typ(v), elem: t.Elem, dims: t.Dims, exprs: exprs}
	}
	elem, _ := scalarType(t.Elem)
	typ := tensorTypeOf(dims, elem)
	c := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [%s] : %s into %s", c, name(v), strings.Join(groups, ", "), fe.typ(v), typ)
	return contractOperand{name: c, typ: typ, elem: t.Elem, dims: dims, exprs: kept}
}

// batchCollapsible reports whether operand o of a contraction with B > 1
// batch axes reads either none of them or all of them in order, with
// static extents: then its batch axes can become one.
func batchCollapsible(o contractOperand, B int) bool {
	if B < 2 || len(o.exprs) == 0 {
		return B >= 2
	}
	if len(o.exprs) != B {
		return false
	}
	for j, e := range o.exprs {
		if e != "d"+strconv.Itoa(j) || o.dims[j] < 0 {
			return false
		}
	}
	return true
}

// readsAllBatch reports whether operand o reads all B batch axes of a
// contraction in order.
func readsAllBatch(o contractOperand, B int) bool {
	if len(o.exprs) != B {
		return false
	}
	for j, e := range o.exprs {
		if e != "d"+strconv.Itoa(j) {
			return false
		}
	}
	return true
}

// collapseBatch collapses the B batch axes of operand o, if it has them,
// into one.
func (fe *funcEmitter) collapseBatch(o contractOperand, B int) contractOperand {
	if len(o.exprs) == 0 {
		return o
	}
	p := int64(1)
	for _, d := range o.dims[:B] {
		p *= d
	}
	dims := []int64{p, o.dims[B], o.dims[B+1]}
	elem, _ := scalarType(o.elem)
	typ := tensorTypeOf(dims, elem)
	c := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [%s, [%d], [%d]] : %s into %s", c, o.name, allAxes(B), B, B+1, o.typ, typ)
	return contractOperand{name: c, typ: typ, elem: o.elem, dims: dims, exprs: []string{"d0"}}
}

// zeroAttr returns the zero a contraction over elements of type s starts
// from, in its accumulator type (f32 for half precision).
func zeroAttr(s niro.ScalarType) string {
	switch {
	case s == niro.F64:
		return "0x0000000000000000"
	case s.IsFloat():
		return "0x00000000"
	default:
		return "0"
	}
}

// extentsMatch reports whether two extents may be equal at run time.
func extentsMatch(a, b int64) bool { return a == b || a < 0 || b < 0 }

// transpose lowers Transpose to a generic whose input map is the inverse
// permutation: result dimension i reads operand dimension Perm[i].
func (fe *funcEmitter) transpose(op *niro.Transpose) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 {
		fe.opErrorf(op, "transpose %s: needs ranked tensors, got %s -> %s", name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	R := len(xt.Dims)
	inv := make([]int, R)
	valid := len(op.Perm) == R && len(rt.Dims) == R && rt.Elem == xt.Elem
	for i := range inv {
		inv[i] = -1
	}
	for i, p := range op.Perm {
		if !valid || p < 0 || p >= R || inv[p] >= 0 || !extentsMatch(rt.Dims[i], xt.Dims[p]) {
			valid = false
			break
		}
		inv[p] = i
	}
	if !valid {
		fe.opErrorf(op, "transpose %s: permutation %v does not take %s to %s", name(res), op.Perm, xt, rt)
		return
	}
	elem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	exprs := make([]string, R)
	for a, j := range inv {
		exprs[a] = "d" + strconv.Itoa(j)
	}
	if fe.channelsLast(x) { // read in its channels-last order (layout.go)
		exprs = clOrder(exprs)
	}
	dst := fe.empty(rt.Dims, elem, func(j int) string { return fe.dim(x, xt, op.Perm[j]) })
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(x), typ: fe.typ(x), elem: elem, amap: affineMap(R, exprs)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string { return args[0] })
}
