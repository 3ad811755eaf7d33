package emit

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// recurrent lowers an LSTM, GRU or RNN layer (docs/ops.md, "Recurrent
// networks") to three parts:
//
//  1. before the time loop, per direction: X·Wᵀ for every step at once, one
//     contraction of [S·N, I] by Wᵀ [I, G·H], tagged for the contraction
//     schedule; the summed biases Wb + Rb;
//  2. one scf.for over the S steps (never unrolled) carrying, per
//     direction, its Y [S, N, H], h (and c) and the scratch tensor of each
//     recurrent product, so that no step allocates. Per step and
//     direction: the step τ (t, or
//     S−1−t in reverse), the recurrent product H·Rᵀ as one generic whose
//     loops are (row, contracted, column) — the column loop innermost and
//     contiguous in Rᵀ, so it vectorizes, while every element still sums
//     its products in contracted order — and the whole cell (every gate's
//     sums, clip, activations and the state update, masked by τ < length)
//     as one element-wise generic over [N, H] that writes h, c and Y's
//     slice at τ in place. GRU without linear_before_reset needs r before
//     the h gate's product, so its cell is two generics around a second
//     product;
//  3. after the loop, Y from the directions' sequences, YH and YC from the
//     final states.
//
// A reverse pass visits S−1 down to 0 and leaves a row's state unchanged
// (and Y zero) at steps at or past its length, so it starts at the row's
// own last valid step, as ONNX specifies.
func (fe *funcEmitter) recurrent(op *niro.Recurrent) {
	xt, ok := rankedTensor(op.X)
	if !ok || xt.Rank() != 3 || !xt.HasStaticShape() || (xt.Elem != niro.F32 && xt.Elem != niro.F64) {
		fe.opErrorf(op, "%s %s: needs a static f32 or f64 input of rank 3, got %s", op.Name(), name(op.Y), typeName(op.X.Type))
		return
	}
	et := xt.Elem
	e, _ := scalarType(et)
	S, N, I := xt.Dims[0], xt.Dims[1], xt.Dims[2]
	if N == 0 || I == 0 {
		fe.opErrorf(op, "%s %s: an empty batch or input (X has type %s) is not compiled", op.Name(), name(op.Y), typeName(op.X.Type))
		return
	}
	H, G, D := op.HiddenSize, int64(op.Kind.Gates()), op.Directions()
	GH := G * H
	A := op.Kind.Activations()
	gruSplit := op.Kind == niro.GRU && !op.LinearBeforeReset
	tt := func(dims ...int64) string { return tensorTypeOf(dims, e) }
	slice := func(src, srcTyp string, offs []string, sizes []int64, dstTyp string) string {
		r := fe.tmp()
		sz := make([]string, len(sizes))
		ones := make([]string, len(sizes))
		for i, s := range sizes {
			sz[i], ones[i] = fmt.Sprint(s), "1"
		}
		fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", r, src, strings.Join(offs, ", "), strings.Join(sz, ", "), strings.Join(ones, ", "), srcTyp, dstTyp)
		return r
	}
	num := func(ns ...int64) []string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = fmt.Sprint(n)
		}
		return out
	}
	zero := func() string { return fe.scalarConst(et, 0) }

	// Part 1: the loop-invariant work.
	wTyp, rTyp, bTyp := fe.typ(op.W), fe.typ(op.R), fe.typ(op.B)
	xc := fe.tmp()
	fe.line("%s = tensor.collapse_shape %s [[0, 1], [2]] : %s into %s", xc, name(op.X), fe.typ(op.X), tt(S*N, I))
	type dir struct {
		xw, rt, rtA, rtB, bsum string // rtA, rtB: GRU's z,r and h columns
		wbh, rbh               string
		p                      [3]string
		h0, c0                 string
		reversed               bool
		acts                   []string
		alpha, beta            []float64
	}
	dirs := make([]dir, D)
	for d := 0; d < D; d++ {
		dd := &dirs[d]
		dd.reversed = op.Reversed(d)
		dd.acts, dd.alpha, dd.beta = op.Activations[d*A:(d+1)*A], op.Alpha[d*A:(d+1)*A], op.Beta[d*A:(d+1)*A]
		wt := slice(name(op.W), wTyp, num(int64(d), 0, 0), []int64{1, I, GH}, tt(I, GH))
		init := fe.empty([]int64{S * N, GH}, e, nil)
		filled := fe.fill(init, tt(S*N, GH), e, zero(), 2)
		dd.xw = fe.tmp()
		fe.generic(dd.xw, []string{"parallel", "parallel", "reduction"},
			[]genericOperand{
				{name: xc, typ: tt(S*N, I), elem: e, amap: affineMap(3, []string{"d0", "d2"})},
				{name: wt, typ: tt(I, GH), elem: e, amap: affineMap(3, []string{"d2", "d1"})},
			},
			genericOperand{name: filled, typ: tt(S*N, GH), elem: e, amap: affineMap(3, []string{"d0", "d1"})},
			"niro.contraction", func(args []string) string {
				p, s := fe.tmp(), fe.tmp()
				fe.line("%s = arith.mulf %s, %s : %s", p, args[0], args[1], e)
				fe.line("%s = arith.addf %s, %s : %s", s, args[2], p, e)
				return s
			})
		dd.rt = slice(name(op.R), rTyp, num(int64(d), 0, 0), []int64{1, H, GH}, tt(H, GH))
		if gruSplit {
			dd.rtA = slice(dd.rt, tt(H, GH), num(0, 0), []int64{H, 2 * H}, tt(H, 2*H))
			dd.rtB = slice(dd.rt, tt(H, GH), num(0, 2*H), []int64{H, H}, tt(H, H))
		}
		bw := slice(name(op.B), bTyp, num(int64(d), 0), []int64{1, GH}, tt(GH))
		br := slice(name(op.B), bTyp, num(int64(d), GH), []int64{1, GH}, tt(GH))
		dd.bsum = fe.tmp()
		fe.generic(dd.bsum, parallel(1),
			[]genericOperand{{name: bw, typ: tt(GH), elem: e, amap: identityMap(1)}, {name: br, typ: tt(GH), elem: e, amap: identityMap(1)}},
			genericOperand{name: fe.empty([]int64{GH}, e, nil), typ: tt(GH), elem: e, amap: identityMap(1)},
			"", func(args []string) string {
				s := fe.tmp()
				fe.line("%s = arith.addf %s, %s : %s", s, args[0], args[1], e)
				return s
			})
		if op.Kind == niro.GRU {
			dd.wbh = slice(name(op.B), bTyp, num(int64(d), 2*H), []int64{1, H}, tt(H))
			dd.rbh = slice(name(op.B), bTyp, num(int64(d), GH+2*H), []int64{1, H}, tt(H))
		}
		if op.Kind == niro.LSTM {
			for g := 0; g < 3; g++ {
				dd.p[g] = slice(name(op.P), fe.typ(op.P), num(int64(d), int64(g)*H), []int64{1, H}, tt(H))
			}
			dd.c0 = slice(name(op.C0), fe.typ(op.C0), num(int64(d), 0, 0), []int64{1, N, H}, tt(N, H))
		}
		dd.h0 = slice(name(op.H0), fe.typ(op.H0), num(int64(d), 0, 0), []int64{1, N, H}, tt(N, H))
	}

	// Part 2: the loop. The carried values, per direction: h, c (LSTM),
	// the product scratch [N, cols], and for GRU without
	// linear_before_reset z, r⊙h and the h gate's product.
	yTyp := tt(S, int64(D), N, H)
	ydTyp := tt(S, N, H) // one direction's Y, carried on its own
	nh := tt(N, H)
	cols := GH
	if gruSplit {
		cols = 2 * H
	}
	var carried, carriedTyp []string
	carry := func(v, typ string) int {
		carried = append(carried, v)
		carriedTyp = append(carriedTyp, typ)
		return len(carried) - 1
	}
	// Every generic in the loop reads each of its outputs (a write-only
	// output would be replaced by a fresh tensor, one allocation per
	// step, by elementwise fusion's RemoveOutsDependency), so Y and the
	// scratch tensors start as zeros: Y's slot at (τ, d) is written once,
	// as select(valid, h, old) with old = 0, and a scratch value keeps its
	// old value in rows past their length, whose results are masked.
	zeros := func(dims ...int64) string {
		z := fe.tmp()
		fe.line("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s", z, zero(), e, fe.empty(dims, e, nil), tt(dims...), tt(dims...))
		return z
	}
	type slots struct{ y, h, c, hr, z, rh, hrh int }
	sl := make([]slots, D)
	for d := range dirs {
		sl[d].y = carry(zeros(S, N, H), ydTyp)
		sl[d].h = carry(dirs[d].h0, nh)
		if op.Kind == niro.LSTM {
			sl[d].c = carry(dirs[d].c0, nh)
		}
		sl[d].hr = carry(zeros(N, cols), tt(N, cols))
		if gruSplit {
			sl[d].z = carry(zeros(N, H), nh)
			sl[d].rh = carry(zeros(N, H), nh)
			sl[d].hrh = carry(zeros(N, H), nh)
		}
	}
	loop, t := fe.tmp(), fe.tmp()
	args := make([]string, len(carried))
	inits := make([]string, len(carried))
	for i := range carried {
		args[i] = fe.tmp()
		inits[i] = args[i] + " = " + carried[i]
	}
	fe.line("%s:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {", loop, len(carried), t, fe.index(0), fe.index(S), fe.index(1),
		strings.Join(inits, ", "), strings.Join(carriedTyp, ", "))
	fe.indent++
	next := append([]string(nil), args...)
	seqMap := affineMap(2, []string{"d0"})
	rowMap := affineMap(2, []string{"d1"})
	id2 := identityMap(2)
	in2 := func(v string) genericOperand { return genericOperand{name: v, typ: nh, elem: e, amap: id2} }
	inH := func(v string) genericOperand { return genericOperand{name: v, typ: tt(H), elem: e, amap: rowMap} }
	seqOp := genericOperand{name: name(op.SeqLens), typ: fe.typ(op.SeqLens), elem: "i32", amap: seqMap}
	for d := range dirs {
		dd := &dirs[d]
		tau := t
		if dd.reversed {
			tau = fe.tmp()
			fe.line("%s = arith.subi %s, %s : index", tau, fe.index(S-1), t)
		}
		row, tau32 := fe.tmp(), fe.tmp()
		fe.line("%s = arith.muli %s, %s : index", row, tau, fe.index(N))
		fe.line("%s = arith.index_cast %s : index to i32", tau32, tau)
		xwTyp := tt(S*N, GH)
		xg := func(g int64) string { return slice(dd.xw, xwTyp, []string{row, fmt.Sprint(g * H)}, []int64{N, H}, nh) }
		bg := func(g int64) string { return slice(dd.bsum, tt(GH), num(g*H), []int64{H}, tt(H)) }
		h := next[sl[d].h]
		rt, rtTyp := dd.rt, tt(H, GH)
		if gruSplit {
			rt, rtTyp = dd.rtA, tt(H, 2*H)
		}
		hr := fe.product(h, rt, rtTyp, next[sl[d].hr], N, H, cols, e)
		next[sl[d].hr] = hr
		hrTyp := tt(N, cols)
		hg := func(g int64) string { return slice(hr, hrTyp, num(0, g*H), []int64{N, H}, nh) }
		ySlice := slice(next[sl[d].y], ydTyp, []string{tau, "0", "0"}, []int64{1, N, H}, nh)
		act := func(k int, x string) string { return fe.rnnActivation(op, dd.acts[k], dd.alpha[k], dd.beta[k], et, x) }
		clip := func(x string) string {
			if !op.HasClip {
				return x
			}
			lo, _ := fe.binaryScalar(niro.Max, et, x, fe.scalarConst(et, -op.Clip))
			hi, _ := fe.binaryScalar(niro.Min, et, lo, fe.scalarConst(et, op.Clip))
			return hi
		}
		add := func(a, b string) string { r, _ := fe.binaryScalar(niro.Add, et, a, b); return r }
		sub := func(a, b string) string { r, _ := fe.binaryScalar(niro.Sub, et, a, b); return r }
		mul := func(a, b string) string { r, _ := fe.binaryScalar(niro.Mul, et, a, b); return r }
		valid := func(n string) string {
			v := fe.tmp()
			fe.line("%s = arith.cmpi slt, %s, %s : i32", v, tau32, n)
			return v
		}
		sel := func(c, a, b string) string {
			r := fe.tmp()
			fe.line("%s = arith.select %s, %s, %s : %s", r, c, a, b, e)
			return r
		}
		cell := fe.tmp()
		switch op.Kind {
		case niro.RNN:
			ins := []genericOperand{in2(xg(0)), in2(hg(0)), inH(bg(0)), seqOp}
			outs := []genericOperand{in2(h), in2(ySlice)}
			fe.genericMulti(cell, parallel(2), ins, outs, func(a []string) []string {
				hn := act(0, clip(add(add(a[0], a[1]), a[2])))
				ok := valid(a[3])
				return []string{sel(ok, hn, a[4]), sel(ok, hn, a[5])}
			})
			next[sl[d].h] = cell + "#0"
			next[sl[d].y] = fe.insertY(cell+"#1", next[sl[d].y], ydTyp, tau, N, H, e)
		case niro.LSTM:
			// Gates i, o, f, c; peepholes i, o, f.
			c := next[sl[d].c]
			ins := []genericOperand{in2(xg(0)), in2(xg(1)), in2(xg(2)), in2(xg(3)), in2(hg(0)), in2(hg(1)), in2(hg(2)), in2(hg(3)),
				inH(bg(0)), inH(bg(1)), inH(bg(2)), inH(bg(3)), inH(dd.p[0]), inH(dd.p[1]), inH(dd.p[2]), seqOp}
			outs := []genericOperand{in2(h), in2(c), in2(ySlice)}
			fe.genericMulti(cell, parallel(2), ins, outs, func(a []string) []string {
				hp, cp := a[16], a[17]
				gate := func(g int) string { return add(add(a[g], a[4+g]), a[8+g]) }
				i := act(0, clip(add(gate(0), mul(a[12], cp))))
				var f string
				if op.InputForget {
					f = sub(fe.scalarConst(et, 1), i)
				} else {
					f = act(0, clip(add(gate(2), mul(a[14], cp))))
				}
				cc := act(1, clip(gate(3)))
				cn := add(mul(f, cp), mul(i, cc))
				o := act(0, clip(add(gate(1), mul(a[13], cn))))
				hn := mul(o, act(2, cn))
				ok := valid(a[15])
				return []string{sel(ok, hn, hp), sel(ok, cn, cp), sel(ok, hn, a[18])}
			})
			next[sl[d].h] = cell + "#0"
			next[sl[d].c] = cell + "#1"
			next[sl[d].y] = fe.insertY(cell+"#2", next[sl[d].y], ydTyp, tau, N, H, e)
		case niro.GRU:
			// Gates z, r, h.
			update := func(z, hh, hp string) string {
				return add(mul(sub(fe.scalarConst(et, 1), z), hh), mul(z, hp))
			}
			if op.LinearBeforeReset {
				ins := []genericOperand{in2(xg(0)), in2(xg(1)), in2(xg(2)), in2(hg(0)), in2(hg(1)), in2(hg(2)),
					inH(bg(0)), inH(bg(1)), inH(dd.wbh), inH(dd.rbh), seqOp}
				outs := []genericOperand{in2(h), in2(ySlice)}
				fe.genericMulti(cell, parallel(2), ins, outs, func(a []string) []string {
					hp := a[11]
					z := act(0, clip(add(add(a[0], a[3]), a[6])))
					r := act(0, clip(add(add(a[1], a[4]), a[7])))
					hh := act(1, clip(add(add(a[2], mul(r, add(a[5], a[9]))), a[8])))
					hn := update(z, hh, hp)
					ok := valid(a[10])
					return []string{sel(ok, hn, hp), sel(ok, hn, a[12])}
				})
				next[sl[d].h] = cell + "#0"
				next[sl[d].y] = fe.insertY(cell+"#1", next[sl[d].y], ydTyp, tau, N, H, e)
				break
			}
			// z and r⊙h first, then the h gate's product (r⊙h)·Rhᵀ.
			zr := fe.tmp()
			fe.genericMulti(zr, parallel(2),
				[]genericOperand{in2(xg(0)), in2(xg(1)), in2(hg(0)), in2(hg(1)), inH(bg(0)), inH(bg(1)), in2(h), seqOp},
				[]genericOperand{in2(next[sl[d].z]), in2(next[sl[d].rh])}, func(a []string) []string {
					z := act(0, clip(add(add(a[0], a[2]), a[4])))
					r := act(0, clip(add(add(a[1], a[3]), a[5])))
					ok := valid(a[7])
					return []string{sel(ok, z, a[8]), sel(ok, mul(r, a[6]), a[9])}
				})
			next[sl[d].z], next[sl[d].rh] = zr+"#0", zr+"#1"
			hrh := fe.product(zr+"#1", dd.rtB, tt(H, H), next[sl[d].hrh], N, H, H, e)
			next[sl[d].hrh] = hrh
			ins := []genericOperand{in2(xg(2)), in2(hrh), inH(dd.wbh), inH(dd.rbh), in2(zr + "#0"), seqOp}
			outs := []genericOperand{in2(h), in2(ySlice)}
			fe.genericMulti(cell, parallel(2), ins, outs, func(a []string) []string {
				hp := a[6]
				hh := act(1, clip(add(add(add(a[0], a[1]), a[2]), a[3])))
				hn := update(a[4], hh, hp)
				ok := valid(a[5])
				return []string{sel(ok, hn, hp), sel(ok, hn, a[7])}
			})
			next[sl[d].h] = cell + "#0"
			next[sl[d].y] = fe.insertY(cell+"#1", next[sl[d].y], ydTyp, tau, N, H, e)
		}
	}
	fe.line("scf.yield %s : %s", strings.Join(next, ", "), strings.Join(carriedTyp, ", "))
	fe.indent--
	fe.line("}")

	// Part 3: the results.
	// Y from the directions' sequences, once: [S, N, H] each, into
	// [S, D, N, H].
	if D == 1 {
		fe.line("%s = tensor.expand_shape %s#%d [[0, 1], [2], [3]] output_shape [%d, 1, %d, %d] : %s into %s", name(op.Y), loop, sl[0].y, S, N, H, ydTyp, yTyp)
	} else {
		acc := fe.empty([]int64{S, int64(D), N, H}, e, nil)
		for d := range dirs {
			r := fe.tmp()
			fe.line("%s = tensor.insert_slice %s#%d into %s[0, %d, 0, 0] [%d, 1, %d, %d] [1, 1, 1, 1] : %s into %s", r, loop, sl[d].y, acc, d, S, N, H, ydTyp, yTyp)
			acc = r
		}
		fe.rename2(acc, name(op.Y), yTyp)
	}
	state := func(dst niro.Value, slot func(s slots) int) {
		st := tt(int64(D), N, H)
		acc := fe.empty([]int64{int64(D), N, H}, e, nil)
		for d := range dirs {
			r := fe.tmp()
			fe.line("%s = tensor.insert_slice %s#%d into %s[%d, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s", r, loop, slot(sl[d]), acc, d, N, H, nh, st)
			acc = r
		}
		fe.rename2(acc, name(dst), st)
	}
	state(op.YH, func(s slots) int { return s.h })
	if op.Kind == niro.LSTM {
		state(op.YC, func(s slots) int { return s.c })
	}
}

// product writes acc = lhs·rhs for lhs [M, K] and rhs [K, Ncols] (type
// rhsTyp) into the scratch tensor acc, zero-filled first, as one generic
// over (row, contracted, column): the column loop is innermost, so it
// vectorizes along rhs's rows, and every element adds its products in
// contracted order, each product rounded first.
func (fe *funcEmitter) product(lhs, rhs, rhsTyp, acc string, M, K, Ncols int64, e string) string {
	accTyp := tensorTypeOf([]int64{M, Ncols}, e)
	z, filled := fe.tmp(), fe.tmp()
	fe.line("%s = arith.constant 0.0 : %s", z, e)
	fe.line("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s", filled, z, e, acc, accTyp, accTyp)
	// The contracted loop steps by u (4, 2 or 1, dividing K): each
	// iteration adds the products of k = u·d1, u·d1 + 1, ... in that order,
	// so the accumulator row is loaded and stored once per u products.
	u := int64(1)
	for _, c := range []int64{4, 2} {
		if K%c == 0 {
			u = c
			break
		}
	}
	// Both operands are viewed with the contracted axis split in
	// (K/u, u), so each read is a projected permutation plus a constant.
	hx, rx := fe.tmp(), fe.tmp()
	hxTyp := tensorTypeOf([]int64{M, K / u, u}, e)
	rxTyp := tensorTypeOf([]int64{K / u, u, Ncols}, e)
	fe.line("%s = tensor.expand_shape %s [[0], [1, 2]] output_shape [%d, %d, %d] : %s into %s", hx, lhs, M, K/u, u, tensorTypeOf([]int64{M, K}, e), hxTyp)
	fe.line("%s = tensor.expand_shape %s [[0, 1], [2]] output_shape [%d, %d, %d] : %s into %s", rx, rhs, K/u, u, Ncols, rhsTyp, rxTyp)
	var ins []genericOperand
	for i := int64(0); i < u; i++ {
		ins = append(ins,
			genericOperand{name: hx, typ: hxTyp, elem: e, amap: affineMap(3, []string{"d0", "d1", fmt.Sprint(i)})},
			genericOperand{name: rx, typ: rxTyp, elem: e, amap: affineMap(3, []string{"d1", fmt.Sprint(i), "d2"})})
	}
	r := fe.tmp()
	fe.generic(r, []string{"parallel", "reduction", "parallel"}, ins,
		genericOperand{name: filled, typ: accTyp, elem: e, amap: affineMap(3, []string{"d0", "d2"})},
		"", func(args []string) string {
			acc := args[len(args)-1]
			for i := int64(0); i < u; i++ {
				p, s := fe.tmp(), fe.tmp()
				fe.line("%s = arith.mulf %s, %s : %s", p, args[2*i], args[2*i+1], e)
				fe.line("%s = arith.addf %s, %s : %s", s, acc, p, e)
				acc = s
			}
			return acc
		})
	return r
}

// insertY writes a step's [N, H] output into one direction's Y at τ.
func (fe *funcEmitter) insertY(v, y, yTyp, tau string, N, H int64, e string) string {
	r := fe.tmp()
	fe.line("%s = tensor.insert_slice %s into %s[%s, 0, 0] [1, %d, %d] [1, 1, 1] : %s into %s", r, v, y, tau, N, H, tensorTypeOf([]int64{N, H}, e), yTyp)
	return r
}

// rnnActivation writes one of the recurrent cells' activation functions
// on x, as the ONNX operator of that name computes it (Sigmoid as
// 1/(1 + e^−x), Softplus as log(e^x + 1), as the importer decomposes those
// operators), with niro's exp, log and tanh.
func (fe *funcEmitter) rnnActivation(op niro.Op, kind string, alpha, beta float64, et niro.ScalarType, x string) string {
	e, _ := scalarType(et)
	c := func(v float64) string { return fe.scalarConst(et, v) }
	must := func(r string, err error) string {
		if err != nil {
			fe.opErrorf(op, "%s: %v", kind, err)
		}
		return r
	}
	un := func(k niro.UnaryKind, a string) string { return must(fe.unaryScalar(k, et, a)) }
	bin := func(k niro.BinaryKind, a, b string) string { return must(fe.binaryScalar(k, et, a, b)) }
	cmp := func(pred, a, b string) string {
		r := fe.tmp()
		fe.line("%s = arith.cmpf %s, %s, %s : %s", r, pred, a, b, e)
		return r
	}
	sel := func(cond, a, b string) string {
		r := fe.tmp()
		fe.line("%s = arith.select %s, %s, %s : %s", r, cond, a, b, e)
		return r
	}
	switch kind {
	case "Relu":
		return bin(niro.Max, x, c(0))
	case "Tanh":
		return un(niro.Tanh, x)
	case "Sigmoid":
		one := c(1)
		return bin(niro.Div, one, bin(niro.Add, one, un(niro.Exp, un(niro.Neg, x))))
	case "Affine":
		return bin(niro.Add, bin(niro.Mul, c(alpha), x), c(beta))
	case "LeakyRelu":
		return sel(cmp("olt", x, c(0)), bin(niro.Mul, x, c(alpha)), x)
	case "ThresholdedRelu":
		return sel(cmp("ogt", x, c(alpha)), x, c(0))
	case "ScaledTanh":
		return bin(niro.Mul, c(alpha), un(niro.Tanh, bin(niro.Mul, c(beta), x)))
	case "HardSigmoid":
		y := bin(niro.Add, bin(niro.Mul, c(alpha), x), c(beta))
		return bin(niro.Max, bin(niro.Min, y, c(1)), c(0))
	case "Elu":
		return sel(cmp("olt", x, c(0)), bin(niro.Mul, c(alpha), bin(niro.Sub, un(niro.Exp, x), c(1))), x)
	case "Softsign":
		return bin(niro.Div, x, bin(niro.Add, c(1), un(niro.Abs, x)))
	case "Softplus":
		return un(niro.Log, bin(niro.Add, un(niro.Exp, x), c(1)))
	}
	fe.opErrorf(op, "%s: unknown activation %q", op.Name(), kind)
	return x
}
