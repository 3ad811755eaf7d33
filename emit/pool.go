package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// pool lowers Pool. X is first padded with the kind's neutral value (−inf
// or the lowest integer for max, 0 otherwise), by the pads and, with
// ceil_mode, by what the last window needs beyond them. One generic with
// the parallel loops (n, c, o1…os) then the kernel loops k1…ks (reading a
// tensor.empty of the kernel's shape, which only gives their bounds)
// folds X[n, c, o·s + k·d] into an accumulator: maximum, sum, or sum of
// |x|^p. A final generic divides by the window's count (avg: the product
// of per-axis counts, per-axis constants), or takes the p-th root (lp),
// and rounds f16 and bf16 (accumulated in f32) once.
func (fe *funcEmitter) pool(op *niro.Pool) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || !rt.HasStaticShape() || !xt.HasStaticShape() {
		fe.opErrorf(op, "%s %s: needs static shapes, got %s -> %s", op.Name(), name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	S := xt.Rank() - 2
	if len(op.Kernel) != S || len(op.Pads) != 2*S || len(op.Strides) != S || len(op.Dilations) != S {
		fe.opErrorf(op, "%s %s: invalid window parameters", op.Name(), name(res))
		return
	}
	acc, accElem := elem, xt.Elem
	if op.Kind != niro.PoolMax { // max needs no wider accumulator
		acc, accElem = accumulator(xt.Elem, elem)
	}
	lo := make([]int64, S+2)
	hi := make([]int64, S+2)
	for i := 0; i < S; i++ {
		lo[2+i], hi[2+i] = op.Pads[i], op.Pads[S+i]
		D, O := xt.Dims[2+i], rt.Dims[2+i]
		if need := (O-1)*op.Strides[i] + (op.Kernel[i]-1)*op.Dilations[i] + 1 - (D + lo[2+i] + hi[2+i]); need > 0 {
			hi[2+i] += need
		}
	}
	var pv, start string
	if op.Kind == niro.PoolMax {
		start, err = fe.reduceInit(niro.ReduceMax, xt.Elem)
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return
		}
		pv = start
	} else {
		pv, start = fe.scalarConst(xt.Elem, 0), fe.scalarConst(accElem, 0)
	}
	P := 2 + S
	L := P + S
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	// 2-D pools run channels-last (nhwc): loops (n, oh, ow, c, kh, kw), X
	// gathered into NHWC with its padding (once per kernel column for a
	// column stride above 1, as a convolution), so that the convolution
	// schedule's depthwise block vectorizes them along channels; the final
	// generic reads the NHWC accumulator back in NCHW order.
	nhwc := S == 2
	var xp, xtyp string
	var xExprs, kExprs, oExprs []string
	accDims := rt.Dims
	tag := ""
	if nhwc {
		N, C, H, W := xt.Dims[0], xt.Dims[1], xt.Dims[2], xt.Dims[3]
		tag = convTag("niro.pool2d", C)
		OH, OW := rt.Dims[2], rt.Dims[3]
		// Cp channels are gathered and folded: C, or C + 1 where C would
		// leave the schedule's depthwise block a one-channel remainder
		// (poolPadChannel). The padding channel reads pv and is never read
		// back.
		Cp := C
		if tag != "" && poolPadChannel(C, acc) {
			Cp = C + 1
		}
		Hp := xt.Dims[2] + lo[2] + hi[2]
		hAxis := convAxis{terms: []convTerm{{1, 1}}, off: lo[2], size: H}
		if op.Strides[1] == 1 {
			dims := []int64{N, Hp, xt.Dims[3] + lo[3] + hi[3], Cp}
			xp = fe.gatherPad(name(x), fe.typ(x), elem, dims, fe.nhwcAxes(x, []convAxis{
				{terms: []convTerm{{0, 1}}, size: N},
				{terms: []convTerm{{3, 1}}, size: C},
				hAxis,
				{terms: []convTerm{{2, 1}}, off: lo[3], size: W},
			}), pv)
			xtyp = tensorTypeOf(dims, elem)
			xExprs = []string{d(0), windowExpr(d(1), op.Strides[0], d(4), op.Dilations[0]), windowExpr(d(2), 1, d(5), op.Dilations[1]), d(3)}
		} else {
			dims := []int64{op.Kernel[1], N, Hp, OW, Cp}
			hAxis.terms[0].idx = 2
			xp = fe.gatherPad(name(x), fe.typ(x), elem, dims, fe.nhwcAxes(x, []convAxis{
				{terms: []convTerm{{1, 1}}, size: N},
				{terms: []convTerm{{4, 1}}, size: C},
				hAxis,
				{terms: []convTerm{{3, op.Strides[1]}, {0, op.Dilations[1]}}, off: lo[3], size: W},
			}), pv)
			xtyp = tensorTypeOf(dims, elem)
			xExprs = []string{d(5), d(0), windowExpr(d(1), op.Strides[0], d(4), op.Dilations[0]), d(2), d(3)}
		}
		kExprs = []string{d(4), d(5)}
		oExprs = []string{d(0), d(1), d(2), d(3)}
		accDims = []int64{N, OH, OW, Cp}
	} else {
		var xdims []int64
		xp, xdims = fe.padWith(name(x), fe.typ(x), xt.Dims, elem, lo, hi, pv)
		xp, xdims = fe.poolFootprint(xp, xdims, elem, rt.Dims, op)
		xtyp = tensorTypeOf(xdims, elem)
		xExprs = []string{d(0), d(1)}
		for i := 0; i < P; i++ {
			oExprs = append(oExprs, d(i))
		}
		for i := 0; i < S; i++ {
			o, k := d(2+i), d(P+i)
			xExprs = append(xExprs, windowExpr(o, op.Strides[i], k, op.Dilations[i]))
			kExprs = append(kExprs, k)
		}
	}
	iters := parallel(L)
	for i := P; i < L; i++ {
		iters[i] = "reduction"
	}
	window := fe.empty(op.Kernel, elem, nil)
	accTyp := tensorTypeOf(accDims, acc)
	filled := fe.fill(fe.empty(accDims, acc, nil), accTyp, acc, start, P)
	final := nhwc || op.Kind != niro.PoolMax && (op.Kind == niro.PoolAvg || op.P != 1 || acc != elem)
	folded := name(res)
	if final {
		folded = fe.tmp()
	}
	fe.generic(folded, iters,
		[]genericOperand{
			{name: xp, typ: xtyp, elem: elem, amap: affineMap(L, xExprs)},
			{name: window, typ: tensorTypeOf(op.Kernel, elem), elem: elem, amap: affineMap(L, kExprs)},
		},
		genericOperand{name: filled, typ: accTyp, elem: acc, amap: affineMap(L, oExprs)},
		tag, func(args []string) string {
			a, o := args[0], args[2]
			if acc != elem {
				a = fe.widen(xt.Elem, args[0])
			}
			var t string
			var err error
			switch op.Kind {
			case niro.PoolMax:
				t, err = fe.binaryScalar(niro.Max, xt.Elem, o, a)
				if err != nil {
					fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
					return o
				}
				return t
			case niro.PoolLp:
				a = fe.lpTerm(a, acc, op.P)
			}
			t = fe.tmp()
			fe.line("%s = arith.addf %s, %s : %s", t, o, a, acc)
			return t
		})
	if !final {
		return
	}
	if nhwc && accDims[3] != xt.Dims[1] {
		// Leave the padding channel out.
		cut := []int64{accDims[0], accDims[1], accDims[2], xt.Dims[1]}
		t := fe.tmp()
		fe.line("%s = tensor.extract_slice %s[0, 0, 0, 0] [%s] [1, 1, 1, 1] : %s to %s", t, folded, dimList(cut), accTyp, tensorTypeOf(cut, acc))
		folded, accTyp = t, tensorTypeOf(cut, acc)
	}
	R := len(rt.Dims)
	accMap := identityMap(R)
	if nhwc {
		accMap = affineMap(R, []string{"d0", "d2", "d3", "d1"})
	}
	resDims, countAxis := rt.Dims, 2
	if fe.channelsLast(res) { // written N×H×W×C (layout.go)
		accMap, resDims, countAxis = identityMap(R), nhwcDims(rt.Dims), 1
	}
	ins := []genericOperand{{name: folded, typ: accTyp, elem: acc, amap: accMap}}
	if op.Kind == niro.PoolAvg {
		for i := 0; i < S; i++ {
			cs := poolCounts(xt.Dims[2+i], rt.Dims[2+i], op.Kernel[i], op.Strides[i], op.Dilations[i], op.Pads[i], op.Pads[S+i], op.CountIncludePad)
			parts := make([]string, len(cs))
			for j, c := range cs {
				parts[j] = strconv.FormatInt(c, 10) + ".0"
			}
			ct := tensorTypeOf([]int64{int64(len(cs))}, acc)
			c := fe.tmp()
			fe.line("%s = arith.constant dense<[%s]> : %s", c, strings.Join(parts, ", "), ct)
			ins = append(ins, genericOperand{name: c, typ: ct, elem: acc, amap: affineMap(R, []string{d(countAxis + i)})})
		}
	}
	dst := fe.empty(resDims, elem, nil)
	fe.generic(name(res), parallel(R), ins,
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			y := args[0]
			switch op.Kind {
			case niro.PoolAvg:
				n := args[1]
				for _, c := range args[2 : 1+S] {
					m := fe.tmp()
					fe.line("%s = arith.mulf %s, %s : %s", m, n, c, acc)
					n = m
				}
				q := fe.tmp()
				fe.line("%s = arith.divf %s, %s : %s", q, y, n, acc)
				y = q
			case niro.PoolLp:
				switch op.P {
				case 1:
				case 2:
					r := fe.tmp()
					fe.line("%s = math.sqrt %s : %s", r, y, acc)
					y = r
				default:
					e, r := fe.scalarConst(accElem, 1/float64(op.P)), fe.tmp()
					fe.line("%s = math.powf %s, %s : %s", r, y, e, acc)
					y = r
				}
			}
			if acc != elem {
				return fe.narrow(xt.Elem, y)
			}
			return y
		})
}

// poolPadChannel reports whether a 2-D pool with c channels and the
// accumulator type acc gets a padding channel: where the convolution
// schedule's depthwise block (32 channels for 32-bit accumulators, 16 for
// 64-bit ones) would leave a remainder block of one channel, on which its
// unit-dimension folding does not finish in MLIR 22 (max_pool 3×3 of
// 1×33×6×12, checked). A 16-bit accumulator (f16 max) is not scheduled.
func poolPadChannel(c int64, acc string) bool {
	switch acc {
	case "f32", "i32":
		return c%32 == 1
	case "f64", "i64":
		return c%16 == 1
	}
	return false
}

// lpTerm returns |a|^p (a·a for p = 2) in type t.
func (fe *funcEmitter) lpTerm(a, t string, p int64) string {
	if p == 2 {
		m := fe.tmp()
		fe.line("%s = arith.mulf %s, %s : %s", m, a, a, t)
		return m
	}
	abs := fe.tmp()
	fe.line("%s = math.absf %s : %s", abs, a, t)
	if p == 1 {
		return abs
	}
	e, r := fe.tmp(), fe.tmp()
	fe.line("%s = arith.constant %s : %s", e, strconv.FormatFloat(float64(p), 'f', 1, 64), t)
	fe.line("%s = math.powf %s, %s : %s", r, abs, e, t)
	return r
}

// poolCounts returns, for each of the O windows along an axis of extent D
// (kernel k, stride s, dilation dl, pads lo and hi), the number of its
// positions inside the input, or with includePad inside the padded input.
func poolCounts(D, O, k, s, dl, lo, hi int64, includePad bool) []int64 {
	first, end := int64(0), D
	if includePad {
		first, end = -lo, D+hi
	}
	out := make([]int64, O)
	for o := range out {
		for j := int64(0); j < k; j++ {
			p := int64(o)*s + j*dl - lo
			if p >= first && p < end {
				out[o]++
			}
		}
		if out[o] == 0 {
			out[o] = 1 // an all-padding window (0/0 in the reference): 0
		}
	}
	return out
}

// maxPoolIndices lowers MaxPoolIndices: X padded with the lowest value
// (so that every read is in range), then one generic over (n, c, o…, k…)
// with two accumulators, the best value and its flattened index (−1 at
// first). A position inside X is taken when no position was taken yet or
// its value is strictly larger (ordered compare): the first maximum, as
// ONNX's reference picks it.
func (fe *funcEmitter) maxPoolIndices(op *niro.MaxPoolIndices) {
	res, x := op.Result, op.X
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || !rt.HasStaticShape() || !xt.HasStaticShape() {
		fe.opErrorf(op, "%s %s: needs static shapes, got %s -> %s", op.Name(), name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	S := xt.Rank() - 2
	if len(op.Kernel) != S || len(op.Pads) != 2*S || len(op.Strides) != S || len(op.Dilations) != S {
		fe.opErrorf(op, "%s %s: invalid window parameters", op.Name(), name(res))
		return
	}
	lo := make([]int64, S+2)
	hi := make([]int64, S+2)
	for i := 0; i < S; i++ {
		lo[2+i], hi[2+i] = op.Pads[i], op.Pads[S+i]
		D, O := xt.Dims[2+i], rt.Dims[2+i]
		if need := (O-1)*op.Strides[i] + (op.Kernel[i]-1)*op.Dilations[i] + 1 - (D + lo[2+i] + hi[2+i]); need > 0 {
			hi[2+i] += need
		}
	}
	lowest, err := fe.reduceInit(niro.ReduceMax, xt.Elem)
	if err != nil {
		fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
		return
	}
	xp, xdims := fe.padWith(name(x), fe.typ(x), xt.Dims, elem, lo, hi, lowest)
	xtyp := tensorTypeOf(xdims, elem)
	P := 2 + S
	L := P + S
	d := func(i int) string { return "d" + strconv.Itoa(i) }
	xExprs := []string{d(0), d(1)}
	var kExprs, oExprs []string
	for i := 0; i < P; i++ {
		oExprs = append(oExprs, d(i))
	}
	for i := 0; i < S; i++ {
		xExprs = append(xExprs, windowExpr(d(2+i), op.Strides[i], d(P+i), op.Dilations[i]))
		kExprs = append(kExprs, d(P+i))
	}
	iters := parallel(L)
	for i := P; i < L; i++ {
		iters[i] = "reduction"
	}
	window := fe.empty(op.Kernel, elem, nil)
	valTyp := tensorTypeOf(rt.Dims, elem)
	vals := fe.fill(fe.empty(rt.Dims, elem, nil), valTyp, elem, lowest, P)
	idxs := fe.fill(fe.empty(rt.Dims, "i64", nil), fe.typ(res), "i64", fe.intConst(niro.I64, -1), P)
	plane := int64(1)
	for _, D := range xt.Dims[2:] {
		plane *= D
	}
	both := fe.tmp()
	fe.genericMulti(both, iters,
		[]genericOperand{
			{name: xp, typ: xtyp, elem: elem, amap: affineMap(L, xExprs)},
			{name: window, typ: tensorTypeOf(op.Kernel, elem), elem: elem, amap: affineMap(L, kExprs)},
		},
		[]genericOperand{
			{name: vals, typ: valTyp, elem: elem, amap: affineMap(L, oExprs)},
			{name: idxs, typ: fe.typ(res), elem: "i64", amap: affineMap(L, oExprs)},
		}, func(args []string) []string {
			v, best, bestIdx := args[0], args[2], args[3]
			ix := func(j int) string {
				t := fe.tmp()
				fe.line("%s = linalg.index %d : index", t, j)
				return t
			}
			mul := func(a string, n int64) string {
				t := fe.tmp()
				fe.line("%s = arith.muli %s, %s : index", t, a, fe.index(n))
				return t
			}
			add := func(a, b string) string {
				t := fe.tmp()
				fe.line("%s = arith.addi %s, %s : index", t, a, b)
				return t
			}
			// (n·C + c)·plane
			flat := mul(add(mul(ix(0), xt.Dims[1]), ix(1)), plane)
			pos := make([]string, S)
			inside := ""
			for a := 0; a < S; a++ {
				p := add(mul(ix(2+a), op.Strides[a]), mul(ix(P+a), op.Dilations[a]))
				src := fe.tmp()
				fe.line("%s = arith.subi %s, %s : index", src, p, fe.index(op.Pads[a]))
				ge, lt, in := fe.tmp(), fe.tmp(), fe.tmp()
				fe.line("%s = arith.cmpi sge, %s, %s : index", ge, src, fe.index(0))
				fe.line("%s = arith.cmpi slt, %s, %s : index", lt, src, fe.index(xt.Dims[2+a]))
				fe.line("%s = arith.andi %s, %s : i1", in, ge, lt)
				if inside != "" {
					both := fe.tmp()
					fe.line("%s = arith.andi %s, %s : i1", both, inside, in)
					in = both
				}
				inside, pos[a] = in, src
			}
			sp := ""
			if op.StorageOrder == 0 {
				sp = pos[0]
				for a := 1; a < S; a++ {
					sp = add(mul(sp, xt.Dims[2+a]), pos[a])
				}
			} else {
				sp = pos[S-1]
				for a := S - 2; a >= 0; a-- {
					sp = add(mul(sp, xt.Dims[2+a]), pos[a])
				}
			}
			flat = add(flat, sp)
			first, better, either, take := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = arith.cmpi slt, %s, %s : i64", first, bestIdx, fe.intConst(niro.I64, 0))
			switch {
			case xt.Elem.IsFloat():
				fe.line("%s = arith.cmpf ogt, %s, %s : %s", better, v, best, elem)
			case xt.Elem.IsSigned():
				fe.line("%s = arith.cmpi sgt, %s, %s : %s", better, v, best, elem)
			default:
				fe.line("%s = arith.cmpi ugt, %s, %s : %s", better, v, best, elem)
			}
			fe.line("%s = arith.ori %s, %s : i1", either, first, better)
			fe.line("%s = arith.andi %s, %s : i1", take, inside, either)
			fi, nv, ni := fe.tmp(), fe.tmp(), fe.tmp()
			fe.line("%s = arith.index_cast %s : index to i64", fi, flat)
			fe.line("%s = arith.select %s, %s, %s : %s", nv, take, v, best, elem)
			fe.line("%s = arith.select %s, %s, %s : i64", ni, take, fi, bestIdx)
			return []string{nv, ni}
		})
	fe.rename2(both+"#1", name(res), fe.typ(res))
}

// poolFootprint cuts the (padded) input x of dims to the elements the
// windows read, (O−1)·stride + (K−1)·dilation + 1 along each spatial
// axis, when it is longer (a stride that leaves the last input elements
// unread). An unread tail would break the generic once a unit loop is
// folded away (the host pipeline's fold-unit-extent-dims before row
// fusion): an output extent of 1 turns the window expression o·s + k into
// the plain k, and linalg then infers k's range from the input's longer
// extent and refuses the kernel operand ("inferred input/output operand
// #1 has shape's dimension #0 to be 3, but found 2").
func (fe *funcEmitter) poolFootprint(x string, dims []int64, elem string, out []int64, op *niro.Pool) (string, []int64) {
	S := len(dims) - 2
	cut := append([]int64(nil), dims...)
	shorter := false
	for i := 0; i < S; i++ {
		foot := (out[2+i]-1)*op.Strides[i] + (op.Kernel[i]-1)*op.Dilations[i] + 1
		if foot < dims[2+i] {
			cut[2+i], shorter = foot, true
		}
	}
	if !shorter {
		return x, dims
	}
	t := fe.tmp()
	fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", t, x, dimList(make([]int64, len(dims))),
		dimList(cut), dimList(ones(len(dims))), tensorTypeOf(dims, elem), tensorTypeOf(cut, elem))
	return t, cut
}
