package emit

import (
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// The row form's view of a 1-D or 3-D convolution of one output channel
// (M = 1, one group): a 1-D head [N, C, W] → [N, 1, OW] is the 2-D row
// form (conv_rows.go) with one output row, X viewed as [N, C, 1, W] and
// the kernel as [1, C, 1, K]; a 3-D head [N, C, D, H, W] → [N, 1, OD, OH,
// OW] is the row form over N·OD images, the kernel depth folded into the
// input channel (c′ = c·KD + kd, c outer: the summation order (c, kd, kh,
// kw) of docs/ops.md, as conv_general.go's block folds it):
//
//   - X is gathered once, with its zero padding on every axis, into
//     [N, OD, C, KD, Hp, Wp] (Xpad[n, c, od·sd + kd·dd, h, w]; with a
//     column stride s > 1 per kernel column, [KW, N, OD, C, KD, Hp, OW])
//     and viewed as the row form's padded X [N·OD, C·KD, Hp, Wp];
//   - W [1, C, KD, KH, KW] is read as [C·KD, KH, KW, 1];
//   - the row form's generic (niro.conv2d_rows) writes [N·OD, 1, OH, OW],
//     which is the result's memory ([N, 1, OD, OH, OW] with one channel);
//     it is reshaped back (collapse then expand) into the result.
//
// The epilogue is fused as the 2-D row form's (root niro.epi_rows<bits>):
// the region's generics are written in the 4-D view (epiSplit with view
// set, elementwiseView), an operand from outside the region read through
// the view's loops (a 1-D one's (n, m, ow) are the view's d0, d1, d3; a
// 3-D one's per-channel or scalar parameters through d1, d2, d3, a full
// [N, 1, OD, OH, OW] one collapsed to [N·OD, OH, OW]), and the root's view
// reshaped into its result after the tile loops. No padding channel: the
// blocks are those of the 2-D one-channel row form.

// rowsView reports whether op, a 1-D or 3-D convolution, takes the row
// form's view (see above): one group, one output channel, and a 2-D
// geometry (input channels C·KD, kernel KH × KW, output width OW) that
// the row form takes (useConvRows).
func rowsView(op *niro.Conv) bool {
	rt, ok1 := rankedTensor(op.Result)
	xt, ok2 := rankedTensor(op.X)
	wt, ok3 := rankedTensor(op.W)
	if !ok1 || !ok2 || !ok3 || !rt.HasStaticShape() || !xt.HasStaticShape() || !wt.HasStaticShape() ||
		!isFloat(xt.Elem) || wt.Elem != xt.Elem || xt.Rank() != wt.Rank() || rt.Rank() != xt.Rank() {
		return false
	}
	S := xt.Rank() - 2
	if S != 1 && S != 3 || op.Groups != 1 || wt.Dims[0] != 1 || wt.Dims[1] != xt.Dims[1] ||
		len(op.Pads) != 2*S || len(op.Strides) != S || len(op.Dilations) != S {
		return false
	}
	c, kh, kw := xt.Dims[1], int64(1), wt.Dims[2]
	if S == 3 {
		c, kh, kw = c*wt.Dims[2], wt.Dims[3], wt.Dims[4]
	}
	return useConvRows(rt.Dims[rt.Rank()-1], 1, c, kh, kw)
}

// rowsViewDims returns the 4-D view of a one-channel 1-D or 3-D result
// of dims rt: [N, 1, 1, OW] or [N·OD, 1, OH, OW].
func rowsViewDims(rt []int64) []int64 {
	switch len(rt) {
	case 3:
		return []int64{rt[0], rt[1], 1, rt[2]}
	case 4:
		// One output column (conv_rows_t.go): [N, 1, 1, OH].
		return []int64{rt[0], rt[1], rt[3], rt[2]}
	}
	return []int64{rt[0] * rt[2], rt[1], rt[3], rt[4]}
}

// rowsViewBack writes dst = the view v (4-D, element type elem) reshaped
// into the result dims rt.
func (fe *funcEmitter) rowsViewBack(dst, v string, rt []int64, elem string) {
	vt := tensorTypeOf(rowsViewDims(rt), elem)
	if len(rt) == 3 {
		fe.line("%s = tensor.collapse_shape %s [[0], [1, 2], [3]] : %s into %s", dst, v, vt, tensorTypeOf(rt, elem))
		return
	}
	if len(rt) == 4 {
		mid := []int64{rt[0], rt[1], rt[2]}
		t := fe.tmp()
		fe.line("%s = tensor.collapse_shape %s [[0], [1], [2, 3]] : %s into %s", t, v, vt, tensorTypeOf(mid, elem))
		fe.line("%s = tensor.expand_shape %s [[0], [1], [2, 3]] output_shape [%s] : %s into %s", dst, t, dimList(rt), tensorTypeOf(mid, elem), tensorTypeOf(rt, elem))
		return
	}
	mid := []int64{rt[0] * rt[2], rt[3], rt[4]}
	t := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [[0, 1], [2], [3]] : %s into %s", t, v, vt, tensorTypeOf(mid, elem))
	fe.line("%s = tensor.expand_shape %s [[0, 1, 2], [3], [4]] output_shape [%s] : %s into %s", dst, t, dimList(rt), tensorTypeOf(mid, elem), tensorTypeOf(rt, elem))
}

// rowsViewExprs returns, for an operand of dims t broadcast to the
// one-channel result of dims rt, its map over the view's four loops and
// the reassociation that collapses it first ("" for none), or false where
// the view's loops cannot read it (a 3-D operand that varies along n or
// od but is not the whole [N, 1, OD, OH, OW]).
func rowsViewExprs(t, rt []int64) ([]string, string, bool) {
	exprs, err := broadcastExprs(t, rt)
	if err != nil {
		return nil, "", false
	}
	if len(rt) == 3 {
		for i, e := range exprs {
			if e == "d2" {
				exprs[i] = "d3"
			}
		}
		return exprs, "", true
	}
	if len(rt) == 4 {
		// The transposed view's loops (n, m, ow, oh): the result's row
		// and column loops swapped.
		for i, e := range exprs {
			switch e {
			case "d2":
				exprs[i] = "d3"
			case "d3":
				exprs[i] = "d2"
			}
		}
		return exprs, "", true
	}
	if len(exprs) == 5 && exprs[0] == "d0" && exprs[2] == "d2" {
		out := []string{"d0"}
		for _, e := range exprs[3:] {
			if e != "0" {
				j, _ := strconv.Atoi(e[1:])
				e = "d" + strconv.Itoa(j-1)
			}
			out = append(out, e)
		}
		return out, "[[0, 1, 2], [3], [4]]", true
	}
	for i, e := range exprs {
		if e == "d0" && rt[0] == 1 || e == "d2" && rt[2] == 1 {
			e = "0" // a unit extent of the result: the view's loops hold one value
			exprs[i] = e
		}
		switch e {
		case "d0", "d2":
			return nil, "", false
		case "d3", "d4":
			exprs[i] = "d" + strconv.Itoa(int(e[1]-'0')-1)
		}
	}
	return exprs, "", true
}

// rowsViewOperands reports whether every operand of op outside the region
// inR can be read through the view's loops (rowsViewExprs).
func rowsViewOperands(op niro.Op, inR map[niro.ValueID]bool, rt []int64) bool {
	for _, v := range op.Operands() {
		if inR[v.ID] {
			continue
		}
		t, ok := rankedTensor(v)
		if !ok || !t.HasStaticShape() {
			return false
		}
		if _, _, ok := rowsViewExprs(t.Dims, rt); !ok {
			return false
		}
	}
	return true
}

// elementwiseView writes an element-wise op of a row-view epilogue region
// in the 4-D view (see above).
func (fe *funcEmitter) elementwiseView(s *epiSplit, op niro.Op, res niro.Value, operands []niro.Value, body scalarBody) {
	rt, _ := rankedTensor(res)
	relem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	ins := make([]genericOperand, len(operands))
	for i, v := range operands {
		t, elem, ok := fe.operandTensor(op, res, i, v)
		if !ok {
			return
		}
		if sn, ok := s.names[v.ID]; ok {
			ins[i] = genericOperand{name: sn, typ: tensorTypeOf(rowsViewDims(t.Dims), elem), elem: elem, amap: identityMap(4)}
			continue
		}
		exprs, re, ok := rowsViewExprs(t.Dims, rt.Dims)
		if !ok {
			fe.opErrorf(op, "%s %s: operand #%d %s is not read through the convolution's row view", op.Name(), name(res), i, t)
			return
		}
		vn, vt := name(v), fe.typ(v)
		if re != "" {
			cd := []int64{t.Dims[0] * t.Dims[1] * t.Dims[2], t.Dims[3], t.Dims[4]}
			x := fe.tmp()
			ct := tensorTypeOf(cd, elem)
			fe.line("%s = tensor.collapse_shape %s %s : %s into %s", x, vn, re, vt, ct)
			vn, vt = x, ct
		}
		ins[i] = genericOperand{name: vn, typ: vt, elem: elem, amap: affineMap(4, exprs)}
	}
	vd := rowsViewDims(rt.Dims)
	dst := fe.splitDst(s, res)
	out := genericOperand{name: fe.empty(vd, relem, nil), typ: tensorTypeOf(vd, relem), elem: relem, amap: identityMap(4)}
	fe.generic(dst, parallel(4), ins, out, "", func(args []string) string {
		y, err := body(args[:len(operands)])
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return args[len(operands)]
		}
		return y
	})
	if res.ID == s.root {
		fe.rowsViewBack(name(res), dst, rt.Dims, relem)
	}
}

// conv2dRowsView lowers op, a 1-D or 3-D convolution that rowsView
// takes, in the row form's view (see above).
func (fe *funcEmitter) conv2dRowsView(op *niro.Conv, rt, xt, wt niro.TensorType, elem string) {
	S := xt.Rank() - 2
	N, C := xt.Dims[0], xt.Dims[1]
	// The 3-D geometry, a 1-D one with unit depth and rows.
	in := [3]int64{1, 1, xt.Dims[2]}
	k := [3]int64{1, 1, wt.Dims[2]}
	o := [3]int64{1, 1, rt.Dims[2]}
	st, dl, pd := [3]int64{1, 1, op.Strides[0]}, [3]int64{1, 1, op.Dilations[0]}, [3]int64{0, 0, op.Pads[0]}
	if S == 3 {
		for i := 0; i < 3; i++ {
			in[i], k[i], o[i] = xt.Dims[2+i], wt.Dims[2+i], rt.Dims[2+i]
			st[i], dl[i], pd[i] = op.Strides[i], op.Dilations[i], op.Pads[i]
		}
	}
	Cp := C * k[0]
	Hp := (o[1]-1)*st[1] + (k[1]-1)*dl[1] + 1
	xname, xtyp := name(op.X), fe.typ(op.X)
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	// X's axes for the gather's loops of n, od, c, kd, h and the column
	// (w, or ow and kw).
	axes := func(n, od, c, kd, h int, col []convTerm) []convAxis {
		a := []convAxis{{terms: []convTerm{{n, 1}}, size: N}, {terms: []convTerm{{c, 1}}, size: C}}
		if S == 3 {
			a = append(a,
				convAxis{terms: []convTerm{{od, st[0]}, {kd, dl[0]}}, off: pd[0], size: in[0]},
				convAxis{terms: []convTerm{{h, 1}}, off: pd[1], size: in[1]})
		}
		return append(a, convAxis{terms: col, off: pd[2], size: in[2]})
	}
	var xp, xpTyp string
	var xExprs []string
	if st[2] == 1 {
		Wp := o[2] + (k[2]-1)*dl[2]
		gd := []int64{N, o[0], C, k[0], Hp, Wp}
		g := fe.gatherZero(xname, xtyp, xt.Elem, elem, gd, axes(0, 1, 2, 3, 4, []convTerm{{5, 1}}))
		dims := []int64{N * o[0], Cp, Hp, Wp}
		xp, xpTyp = fe.tmp(), tensorTypeOf(dims, elem)
		fe.line("%s = tensor.collapse_shape %s [[0, 1], [2, 3], [4], [5]] : %s into %s", xp, g, tensorTypeOf(gd, elem), xpTyp)
		xExprs = []string{d(0), d(4), windowExpr(d(2), st[1], d(5), dl[1]), windowExpr(d(3), 1, d(6), dl[2])}
	} else {
		gd := []int64{k[2], N, o[0], C, k[0], Hp, o[2]}
		g := fe.gatherZero(xname, xtyp, xt.Elem, elem, gd, axes(1, 2, 3, 4, 5, []convTerm{{6, st[2]}, {0, dl[2]}}))
		dims := []int64{k[2], N * o[0], Cp, Hp, o[2]}
		xp, xpTyp = fe.tmp(), tensorTypeOf(dims, elem)
		fe.line("%s = tensor.collapse_shape %s [[0], [1, 2], [3, 4], [5], [6]] : %s into %s", xp, g, tensorTypeOf(gd, elem), xpTyp)
		xExprs = []string{d(6), d(0), d(4), windowExpr(d(2), st[1], d(5), dl[1]), d(3)}
	}
	// W [1, C, (KD,) (KH,) KW] as [C·KD, KH, KW, 1].
	wd := []int64{C, k[0], k[1], k[2], 1}
	wsrc := []string{d(4), d(0), d(1), d(2), d(3)}
	if S == 1 {
		wsrc = []string{d(4), d(0), d(3)}
	}
	w5 := fe.tmp()
	fe.generic(w5, parallel(5),
		[]genericOperand{{name: name(op.W), typ: fe.typ(op.W), elem: elem, amap: affineMap(5, wsrc)}},
		genericOperand{name: fe.empty(wd, elem, nil), typ: tensorTypeOf(wd, elem), elem: elem, amap: identityMap(5)},
		"", func(args []string) string { return args[0] })
	wDims := []int64{Cp, k[1], k[2], 1}
	wT, wtTyp := fe.tmp(), tensorTypeOf(wDims, elem)
	fe.line("%s = tensor.collapse_shape %s [[0, 1], [2], [3], [4]] : %s into %s", wT, w5, tensorTypeOf(wd, elem), wtTyp)

	acc, accElem := accumulator(xt.Elem, elem)
	vd := rowsViewDims(rt.Dims)
	accTyp := tensorTypeOf(vd, acc)
	filled := fe.fill(fe.empty(vd, acc, nil), accTyp, acc, fe.scalarConst(accElem, 0), 4)
	sum := fe.tmp()
	fe.rowsBlock(op, sum, filled, accTyp, acc, xt.Elem, elem, xp, xpTyp, xExprs, wT, wtTyp)
	fe.rowsViewFinish(op, rt, xt, elem, sum, accTyp, acc)
}

// rowsViewFinish writes the end of a convolution op in a row view
// (conv2dRowsView, conv2dRowsT): the bias or the rounding on the view's
// accumulator sum (its epilogue region's first generic where the region
// is fused), and the view reshaped into the result where no region
// continues it.
func (fe *funcEmitter) rowsViewFinish(op *niro.Conv, rt, xt niro.TensorType, elem, sum, accTyp, acc string) {
	vd := rowsViewDims(rt.Dims)
	res := op.Result
	s := fe.epiSplit[res.ID]
	v := sum
	if op.HasBias() || isHalf(xt.Elem) {
		v = fe.tmp()
		if s != nil {
			v = fe.splitDst(s, res)
		}
		fe.convEpilogueTo(op, vd, v, tensorTypeOf(vd, elem), xt, elem, sum, accTyp, acc)
	} else if s != nil {
		s.names[res.ID] = v
	}
	if s == nil || res.ID == s.root {
		fe.rowsViewBack(name(res), v, rt.Dims, elem)
	}
}
