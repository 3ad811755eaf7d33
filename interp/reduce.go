package interp

import (
	"math"
	"sort"

	"github.com/niro-dev/niro/niro"
)

// outIndex returns, for every element of x (row-major), the flat index of
// the result element it folds into when the axes marked in red are
// reduced.
func outIndex(dims []int64, red func(int) bool) []int {
	var keep []int64
	for i, d := range dims {
		if !red(i) {
			keep = append(keep, d)
		}
	}
	ks := strides(keep)
	st := make([]int64, len(dims))
	j := 0
	for i := range dims {
		if !red(i) {
			st[i] = int64(ks[j])
			j++
		}
	}
	// bcastIndex with zero strides on the reduced axes.
	n := numel(dims)
	idx := make([]int, n)
	R := len(dims)
	cnt := make([]int64, R)
	off := int64(0)
	for i := 0; i < n; i++ {
		idx[i] = int(off)
		for a := R - 1; a >= 0; a-- {
			cnt[a]++
			off += st[a]
			if cnt[a] < dims[a] {
				break
			}
			off -= st[a] * cnt[a]
			cnt[a] = 0
		}
	}
	return idx
}

// reduce folds x over op's axes: every result element folds its inputs in
// ascending row-major order, as acc = x ⊕ acc from the kind's start value;
// f16 and bf16 accumulate in f32 and round once.
func reduce(op *niro.Reduce, x *tensor, rd []int64) (*tensor, error) {
	e := x.elem
	out := newTensor(e, rd)
	oi := outIndex(x.dims, op.IsReduced)
	kind := map[niro.ReduceKind]niro.BinaryKind{niro.ReduceSum: niro.Add, niro.ReduceProd: niro.Mul, niro.ReduceMax: niro.Max, niro.ReduceMin: niro.Min}[op.Kind]
	high := op.Kind == niro.ReduceMin
	switch storeOf(e) {
	case sF32:
		acc := out.f32
		var s float32
		switch op.Kind {
		case niro.ReduceProd:
			s = 1
		case niro.ReduceMax:
			s = float32(math.Inf(-1))
		case niro.ReduceMin:
			s = float32(math.Inf(1))
		}
		for i := range acc {
			acc[i] = s
		}
		xs := x.f32
		if run := op.LaneRun(); run > 0 {
			f := floatBinary[float32](kind)
			laneFold(acc, xs, oi, runIndex(x.dims, op.IsReduced), s, f)
			round16(e, acc)
			break
		}
		switch op.Kind {
		case niro.ReduceSum:
			for i, v := range xs {
				acc[oi[i]] = v + acc[oi[i]]
			}
		case niro.ReduceProd:
			for i, v := range xs {
				acc[oi[i]] = v * acc[oi[i]]
			}
		case niro.ReduceMax:
			for i, v := range xs {
				acc[oi[i]] = maximum(v, acc[oi[i]])
			}
		default:
			for i, v := range xs {
				acc[oi[i]] = minimum(v, acc[oi[i]])
			}
		}
		round16(e, acc)
	case sF64:
		acc := out.f64
		fn := floatBinary[float64](kind)
		var s float64
		switch op.Kind {
		case niro.ReduceProd:
			s = 1
		case niro.ReduceMax:
			s = math.Inf(-1)
		case niro.ReduceMin:
			s = math.Inf(1)
		}
		for i := range acc {
			acc[i] = s
		}
		if op.LaneRun() > 0 {
			laneFold(acc, x.f64, oi, runIndex(x.dims, op.IsReduced), s, fn)
			break
		}
		for i, v := range x.f64 {
			acc[oi[i]] = fn(v, acc[oi[i]])
		}
	default:
		acc := out.ints
		var s int64
		switch op.Kind {
		case niro.ReduceProd:
			s = 1
		case niro.ReduceMax, niro.ReduceMin:
			s = intExtreme(e, high)
		}
		for i := range acc {
			acc[i] = s
		}
		fn := intBinary(kind, e)
		if op.LaneRun() > 0 {
			laneFold(acc, x.ints, oi, runIndex(x.dims, op.IsReduced), s, func(a, b int64) int64 {
				v, _ := fn(a, b)
				return wrap(e, v)
			})
			wrapAll(e, acc)
			break
		}
		for i, v := range x.ints {
			acc[oi[i]], _ = fn(v, acc[oi[i]])
		}
		wrapAll(e, acc)
	}
	return out, nil
}

// runIndex returns, for every element of x (row-major), its position in
// its result element's run: the row-major index over the reduced axes.
func runIndex(dims []int64, red func(int) bool) []int {
	return outIndex(dims, func(i int) bool { return !red(i) })
}

// laneFold folds xs into acc (filled with the seed s) in the lane order of
// docs/ops.md: element i, at run position pos[i] of result element oi[i],
// folds into lane pos[i] mod niro.ReduceLanes of that result element as
// fn(x, lane), each lane from s, in ascending run order (the row-major
// walk meets a result element's positions in ascending order); then every
// result element folds its lanes 0..ReduceLanes-1 in order as
// fn(lane, acc).
func laneFold[T any](acc, xs []T, oi, pos []int, s T, fn func(a, b T) T) {
	const lanes = niro.ReduceLanes
	part := make([]T, len(acc)*lanes)
	for i := range part {
		part[i] = s
	}
	for i, v := range xs {
		k := oi[i]*lanes + pos[i]%lanes
		part[k] = fn(v, part[k])
	}
	for o := range acc {
		a := acc[o]
		for _, v := range part[o*lanes : (o+1)*lanes] {
			a = fn(v, a)
		}
		acc[o] = a
	}
}

// intExtreme returns the lowest (or highest) value of the integer type e.
func intExtreme(e niro.ScalarType, high bool) int64 {
	if e == niro.Bool {
		return b2i(high)
	}
	lo, hi := e.IntRange()
	if high {
		return int64(hi) // u64's all ones is -1 here
	}
	return lo
}

// along describes iteration along one axis: outer·n·inner elements, the
// axis in the middle.
func along(dims []int64, axis int) (outer, n, inner int) {
	outer, inner = 1, 1
	for i, d := range dims {
		switch {
		case i < axis:
			outer *= int(d)
		case i > axis:
			inner *= int(d)
		}
	}
	return outer, int(dims[axis]), inner
}

// cumsum is the running sum (product) along the axis in scan order;
// 16-bit floats round after each step.
func cumsum(op *niro.CumSum, x *tensor) *tensor {
	e := x.elem
	out := newTensor(e, x.dims)
	outer, n, inner := along(x.dims, op.Axis)
	kind := niro.Add
	if op.Prod {
		kind = niro.Mul
	}
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*n*inner + in
			var af float32
			var ad float64
			var ai int64
			if op.Prod {
				af, ad, ai = 1, 1, 1
			}
			for s := 0; s < n; s++ {
				k := s
				if op.Reverse {
					k = n - 1 - s
				}
				p := base + k*inner
				if op.Exclusive {
					setAcc(out, p, af, ad, ai)
				}
				switch storeOf(e) {
				case sF32:
					if op.Prod {
						af = round1(e, x.f32[p]*af)
					} else {
						af = round1(e, x.f32[p]+af)
					}
				case sF64:
					if op.Prod {
						ad = x.f64[p] * ad
					} else {
						ad = x.f64[p] + ad
					}
				default:
					ai, _ = intBinary(kind, e)(x.ints[p], ai)
					ai = wrap(e, ai)
				}
				if !op.Exclusive {
					setAcc(out, p, af, ad, ai)
				}
			}
		}
	}
	return out
}

func setAcc(t *tensor, p int, f float32, d float64, i int64) {
	switch storeOf(t.elem) {
	case sF32:
		t.f32[p] = f
	case sF64:
		t.f64[p] = d
	default:
		t.ints[p] = i
	}
}

// widened returns element i of x as float64 (f16/bf16 exactly, as they
// compare in f32).
func (t *tensor) float(i int) float64 {
	if storeOf(t.elem) == sF32 {
		return float64(t.f32[i])
	}
	return t.f64[i]
}

// argReduce gives the i64 index of the first (select_last: last) largest
// or smallest element along the axis; a NaN counts as the extreme and the
// first NaN wins, as the emitted generic computes it.
func argReduce(op *niro.ArgReduce, x *tensor, rd []int64) *tensor {
	out := newTensor(niro.I64, rd)
	outer, n, inner := along(x.dims, op.Axis)
	isF := storeOf(x.elem) != sInt
	minK := op.Kind == niro.ArgMin
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*n*inner + in
			var bestF float64
			var bestI int64
			if minK {
				bestF, bestI = math.Inf(1), intExtreme(x.elem, true)
			} else {
				bestF, bestI = math.Inf(-1), intExtreme(x.elem, false)
			}
			idx := int64(0)
			for k := 0; k < n; k++ {
				p := base + k*inner
				var take bool
				if isF {
					v := x.float(p)
					var better bool
					switch {
					case !minK && !op.SelectLast:
						better = v > bestF
					case !minK:
						better = v >= bestF
					case !op.SelectLast:
						better = v < bestF
					default:
						better = v <= bestF
					}
					take = better || (v != v && bestF == bestF)
					if take {
						bestF = v
					}
				} else {
					v := x.ints[p]
					a, b := v, bestI
					var better bool
					if x.elem == niro.U64 {
						better = cmpInt(argPred(minK, op.SelectLast), uint64(a), uint64(b))
					} else {
						better = cmpInt(argPred(minK, op.SelectLast), a, b)
					}
					take = better
					if take {
						bestI = v
					}
				}
				if take {
					idx = int64(k)
				}
			}
			out.ints[o*inner+in] = idx
		}
	}
	return out
}

func argPred(minK, last bool) niro.Predicate {
	switch {
	case !minK && !last:
		return niro.Gt
	case !minK:
		return niro.Ge
	case !last:
		return niro.Lt
	}
	return niro.Le
}

// topk gives the K best elements along the axis and their indices, best
// first; equal elements lower index first, NaN above every number and
// equal to another NaN.
func topk(op *niro.TopK, x *tensor, rd []int64) (*tensor, *tensor) {
	vals := newTensor(x.elem, rd)
	idxs := newTensor(niro.I64, rd)
	outer, n, inner := along(x.dims, op.Axis)
	k := int(op.K)
	isF := storeOf(x.elem) != sInt
	u64 := x.elem == niro.U64
	order := make([]int, n)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			base := o*n*inner + in
			for j := range order {
				order[j] = j
			}
			// beats reports whether element b comes strictly before a.
			beats := func(b, a int) bool {
				pb, pa := base+b*inner, base+a*inner
				if isF {
					vb, va := x.float(pb), x.float(pa)
					bn, an := vb != vb, va != va
					if op.Largest {
						return vb > va || (bn && !an)
					}
					return vb < va || (an && !bn)
				}
				vb, va := x.ints[pb], x.ints[pa]
				if u64 {
					if op.Largest {
						return uint64(vb) > uint64(va)
					}
					return uint64(vb) < uint64(va)
				}
				if op.Largest {
					return vb > va
				}
				return vb < va
			}
			sort.SliceStable(order, func(i, j int) bool { return beats(order[i], order[j]) })
			for p := 0; p < k; p++ {
				dst := o*k*inner + p*inner + in
				copyElem(vals, dst, x, base+order[p]*inner)
				idxs.ints[dst] = int64(order[p])
			}
		}
	}
	return vals, idxs
}
