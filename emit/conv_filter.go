package emit

import (
	"github.com/niro-dev/niro/niro"
)

// Compile-time filter layouts for the channels-last convolutions.
//
// The scheduled convolutions (conv_nhwc.go) read their filter in the layout
// of the register block: [C, KH, KW, M] for a one-group 2-D convolution
// and [KH, KW, C] for a depthwise one (a 1×1 convolution is a matrix
// product that reads W [M, C] as it is). Where the filter is a constant (an
// initializer read by get_global, or a Const), planData lays out a copy of
// its bytes in that order, in the weights blob or in the text as the
// placement rules decide, and the convolution reads the copy: no transpose
// runs per call. A filter constant that nothing else reads is then left out
// altogether. Any other filter is transposed in the function, as before.

// convFilter is the compile-time layout of one convolution's filter.
type convFilter struct {
	key  string          // blob entry key
	typ  niro.TensorType // the filter in the block's layout
	data []byte
}

// convFilterPlan holds the folded filters of the module, decided by
// planConvFilters.
type convFilterPlan struct {
	byConv map[*niro.Conv]*convFilter
	byKey  map[string]*convFilter
	// unread are the constant ops (Const, GetGlobal) whose results only
	// folded convolutions read: they are not emitted.
	unread map[niro.Op]bool
}

// nhwcFilterPerm says whether op takes a channels-last lowering and, if so,
// the filter layout it reads: the dimensions of the laid-out filter and,
// for each of them, the axis of W [M, C/G, KH, KW] it comes from.
func nhwcFilterPerm(op *niro.Conv) (dims []int64, axes []int, ok bool) {
	rt, ok1 := rankedTensor(op.Result)
	xt, ok2 := rankedTensor(op.X)
	wt, ok3 := rankedTensor(op.W)
	if !ok1 || !ok2 || !ok3 || !rt.HasStaticShape() || !xt.HasStaticShape() || !wt.HasStaticShape() {
		return nil, nil, false
	}
	if xt.Rank() != 4 || wt.Rank() != 4 || len(op.Pads) != 4 || len(op.Strides) != 2 || len(op.Dilations) != 2 {
		return nil, nil, false
	}
	if isPacked(xt.Elem) || wt.Elem != xt.Elem {
		return nil, nil, false
	}
	M, C, KH, KW := wt.Dims[0], wt.Dims[1], wt.Dims[2], wt.Dims[3]
	if useDWMultRows(xt.Dims[1], op.Groups, M, C, rt.Dims[3]) {
		return nil, nil, false // conv_dwmult.go reads W as it is
	}
	if paddedChannelConv(op.Groups, M, C, KH, KW, rt.Dims[3]) {
		return nil, nil, false // conv_general.go reads W as it is (conv.go)
	}
	switch {
	case op.Groups == 1 && KH == 1 && KW == 1:
		return nil, nil, false // a matrix product reading W [M, C] as it is
	case op.Groups == 1:
		return []int64{C, KH, KW, M}, []int{1, 2, 3, 0}, true
	case op.Groups == xt.Dims[1] && M == op.Groups && C == 1:
		return []int64{KH, KW, M}, []int{2, 3, 0}, true
	}
	return nil, nil, false
}

// permuteData returns data (a dense tensor of dims, elements of n bytes)
// with its axes in the order axes: element [i0, i1, …] of the result is
// element [.., i_k at axis axes[k], ..] of data.
func permuteData(data []byte, dims []int64, axes []int, n int) []byte {
	R := len(dims)
	strides := make([]int64, R)
	s := int64(n)
	for i := R - 1; i >= 0; i-- {
		strides[i] = s
		s *= dims[i]
	}
	outDims := make([]int64, R)
	outStrides := make([]int64, R) // source stride of each result axis
	for k, a := range axes {
		outDims[k] = dims[a]
		outStrides[k] = strides[a]
	}
	out := make([]byte, len(data))
	idx := make([]int64, R)
	src := int64(0)
	for dst := 0; dst < len(out); dst += n {
		copy(out[dst:dst+n], data[src:src+int64(n)])
		for k := R - 1; k >= 0; k-- {
			idx[k]++
			src += outStrides[k]
			if idx[k] < outDims[k] {
				break
			}
			src -= outStrides[k] * outDims[k]
			idx[k] = 0
		}
	}
	return out
}

// planConvFilters finds the channels-last convolutions whose filter is a
// constant and lays out each filter in the block's order.
func (e *emitter) planConvFilters() {
	p := &convFilterPlan{byConv: map[*niro.Conv]*convFilter{}, byKey: map[string]*convFilter{}, unread: map[niro.Op]bool{}}
	e.filters = p
	for _, f := range e.m.Functions {
		if f == nil || f.Body == nil {
			continue
		}
		def := map[niro.ValueID]niro.Op{}
		var convs []*niro.Conv
		f.Body.Walk(func(op niro.Op) bool {
			for _, r := range op.Results() {
				def[r.ID] = op
			}
			if c, ok := op.(*niro.Conv); ok {
				convs = append(convs, c)
			}
			return true
		})
		folded := map[niro.ValueID]bool{} // filter values some conv folds
		for _, c := range convs {
			dims, axes, ok := nhwcFilterPerm(c)
			if !ok {
				continue
			}
			wt, _ := rankedTensor(c.W)
			var data []byte
			var base string
			switch d := def[c.W.ID].(type) {
			case *niro.Const:
				b, ok := d.Lit.(niro.BytesLit)
				if !ok || checkTensorData(wt, b) != nil {
					continue
				}
				data, base = b, constKey(f, c.W)
			case *niro.GetGlobal:
				g := e.globals[d.Global]
				if g == nil || !niro.TypesEqual(g.Type, c.W.Type) {
					continue
				}
				b, ok := g.Init.(niro.BytesLit)
				if !ok || checkTensorData(wt, b) != nil {
					continue
				}
				data, base = b, d.Global
			default:
				continue
			}
			key := base + ":" + dimList(dims)
			cf := p.byKey[key]
			if cf == nil {
				cf = &convFilter{
					key:  key,
					typ:  niro.TensorType{Elem: wt.Elem, Dims: dims},
					data: permuteData(data, wt.Dims, axes, elemBytes(wt.Elem)),
				}
				p.byKey[key] = cf
			}
			p.byConv[c] = cf
			folded[c.W.ID] = true
		}
		if len(folded) == 0 {
			continue
		}
		// A filter constant read by nothing but folded convolutions (as
		// their W) is not needed any more.
		uses := niro.Users(f)
		for id := range folded {
			only := true
			for _, u := range uses[id] {
				c, ok := u.Op.(*niro.Conv)
				if !ok || p.byConv[c] == nil || u.Index != 1 {
					only = false
					break
				}
			}
			if only {
				p.unread[def[id]] = true
			}
		}
	}
}

// foldedFilter returns the name of op's filter in the block's layout when
// it was laid out at compile time, and writes its definition (a view of
// the weights blob, or a constant in the text).
func (fe *funcEmitter) foldedFilter(op *niro.Conv) (string, bool) {
	if fe.e.filters == nil {
		return "", false
	}
	cf := fe.e.filters.byConv[op]
	if cf == nil {
		return "", false
	}
	v := fe.tmp()
	if i, ok := fe.e.blobIndex[cf.key]; ok {
		fe.blobView(v, fe.e.blob.Entries[i], cf.typ)
		return v, true
	}
	attr, err := denseAttr(cf.typ, cf.data)
	if err != nil {
		fe.opErrorf(op, "conv %s: filter: %v", name(op.Result), err)
		return "", false
	}
	t, _ := mlirType(cf.typ)
	fe.line("%s = arith.constant %s : %s", v, attr, t)
	return v, true
}

// convFilterIn returns op's filter in the block's layout dims and its
// type: the compile-time copy where planConvFilters made one, otherwise a
// transpose of W per call, element [d0, d1, …] read from W at srcExprs.
func (fe *funcEmitter) convFilterIn(op *niro.Conv, dims []int64, srcExprs []string, elem string) (string, string) {
	typ := tensorTypeOf(dims, elem)
	if wT, folded := fe.foldedFilter(op); folded {
		return wT, typ
	}
	w := op.W
	wT := fe.tmp()
	fe.generic(wT, parallel(len(dims)),
		[]genericOperand{{name: name(w), typ: fe.typ(w), elem: elem, amap: affineMap(len(dims), srcExprs)}},
		genericOperand{name: fe.empty(dims, elem, nil), typ: typ, elem: elem, amap: identityMap(len(dims))},
		"", func(args []string) string { return args[0] })
	return wT, typ
}
