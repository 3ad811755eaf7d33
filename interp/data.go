package interp

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// Data movement: every result element copies one operand element, so the
// results are exact by construction.

// forEach calls fn with the multi-index and flat position of every
// element of dims, in row-major order.
func forEach(dims []int64, fn func(idx []int64, flat int)) {
	n := numel(dims)
	idx := make([]int64, len(dims))
	for f := 0; f < n; f++ {
		fn(idx, f)
		for a := len(dims) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < dims[a] {
				break
			}
			idx[a] = 0
		}
	}
}

func broadcastTo(x *tensor, rd []int64) *tensor {
	idx := bcastIndex(x.dims, rd)
	if idx == nil {
		return x.reshaped(rd)
	}
	return gatherIdx(x, rd, idx)
}

func iotaOp(e niro.ScalarType, rd []int64, axis int) *tensor {
	out := newTensor(e, rd)
	forEach(rd, func(idx []int64, f int) {
		v := idx[axis]
		switch storeOf(e) {
		case sInt:
			out.ints[f] = wrap(e, v)
		default:
			out.setFloat(f, float64(v))
		}
	})
	return out
}

func transpose(x *tensor, perm []int, rd []int64) *tensor {
	xs := strides(x.dims)
	idx := make([]int, numel(rd))
	forEach(rd, func(ix []int64, f int) {
		off := 0
		for i, p := range perm {
			off += int(ix[i]) * xs[p]
		}
		idx[f] = off
	})
	return gatherIdx(x, rd, idx)
}

// indexOf reads an integer index scalar (normalized: unsigned values are
// non-negative, except u64 above 2^63, which is out of range anyway).
func indexOf(t *tensor) int64 { return t.ints[0] }

func tensorExtract(x *tensor, ix []*tensor) (*tensor, error) {
	off := int64(0)
	st := strides(x.dims)
	for a, t := range ix {
		i := indexOf(t)
		if i < 0 || i >= x.dims[a] {
			return nil, fmt.Errorf("index %d is out of range for axis %d of extent %d", i, a, x.dims[a])
		}
		off += i * int64(st[a])
	}
	out := gatherIdx(x, nil, []int{int(off)})
	out.scalar = true
	return out, nil
}

func concat(ins []*tensor, axis int, rd []int64) *tensor {
	out := newTensor(ins[0].elem, rd)
	outer, _, inner := along(rd, axis)
	ext := int(rd[axis])
	pos := 0
	for _, t := range ins {
		n := int(t.dims[axis])
		for o := 0; o < outer; o++ {
			for k := 0; k < n*inner; k++ {
				copyElem(out, (o*ext+pos)*inner+k, t, o*n*inner+k)
			}
		}
		pos += n
	}
	return out
}

func slice(x *tensor, starts, steps []int64, rd []int64) *tensor {
	xs := strides(x.dims)
	idx := make([]int, numel(rd))
	forEach(rd, func(ix []int64, f int) {
		off := int64(0)
		for a := range ix {
			off += (starts[a] + ix[a]*steps[a]) * int64(xs[a])
		}
		idx[f] = int(off)
	})
	return gatherIdx(x, rd, idx)
}

// pad implements the four modes of docs/ops.md ("Pad").
func pad(op *niro.Pad, x, v *tensor, rd []int64) *tensor {
	out := newTensor(x.elem, rd)
	xs := strides(x.dims)
	forEach(rd, func(ix []int64, f int) {
		off := int64(0)
		for a := range ix {
			n := x.dims[a]
			s := ix[a] - op.Low[a]
			switch op.Mode {
			case "constant":
				if s < 0 || s >= n {
					copyElem(out, f, v, 0)
					return
				}
			case "edge":
				s = min(max(s, 0), n-1)
			case "wrap":
				s = ((s % n) + n) % n
			case "reflect":
				if n == 1 {
					s = 0
				} else {
					p := 2 * (n - 1)
					m := ((s % p) + p) % p
					if m >= n {
						m = p - m
					}
					s = m
				}
			}
			off += s * int64(xs[a])
		}
		copyElem(out, f, x, int(off))
	})
	return out
}

// clampIndex wraps a negative index by the extent and clamps it into
// [0, extent−1], as the compiled code does for indices computed at run
// time.
func clampIndex(i, extent int64) int64 {
	if i < 0 {
		i += extent
	}
	return min(max(i, 0), extent-1)
}

func gather(x, ind *tensor, axis int, rd []int64) *tensor {
	outer, n, inner := along(x.dims, axis)
	m := ind.n()
	idx := make([]int, 0, outer*m*inner)
	for o := 0; o < outer; o++ {
		for j := 0; j < m; j++ {
			k := int(clampIndex(ind.ints[j], int64(n)))
			for in := 0; in < inner; in++ {
				idx = append(idx, (o*n+k)*inner+in)
			}
		}
	}
	return gatherIdx(x, rd, idx)
}

func gatherElements(x, ind *tensor, axis int) *tensor {
	xs := strides(x.dims)
	idx := make([]int, ind.n())
	forEach(ind.dims, func(ix []int64, f int) {
		off := 0
		for a := range ix {
			i := ix[a]
			if a == axis {
				i = clampIndex(ind.ints[f], x.dims[a])
			}
			off += int(i) * xs[a]
		}
		idx[f] = off
	})
	return gatherIdx(x, ind.dims, idx)
}

// gatherND: I has shape B + M + [k]; the result at (β, m) is the slice of
// X at (β, I[β, m, 0..k−1]).
func gatherND(x, ind *tensor, b int, rd []int64) *tensor {
	q := len(ind.dims)
	k := int(ind.dims[q-1])
	xs := strides(x.dims)
	sliceN := 1
	for _, d := range x.dims[b+k:] {
		sliceN *= int(d)
	}
	batchN := 1
	for _, d := range ind.dims[:b] {
		batchN *= int(d)
	}
	tuples := ind.n() / max(k, 1)
	perBatch := 0
	if batchN > 0 {
		perBatch = tuples / batchN
	}
	batchStride := 1
	if b > 0 {
		batchStride = xs[b-1]
	}
	idx := make([]int, 0, tuples*sliceN)
	for t := 0; t < tuples; t++ {
		beta := 0
		if perBatch > 0 {
			beta = t / perBatch
		}
		off := beta * batchStride
		if b == 0 {
			off = 0
		}
		for j := 0; j < k; j++ {
			i := clampIndex(ind.ints[t*k+j], x.dims[b+j])
			off += int(i) * xs[b+j]
		}
		for s := 0; s < sliceN; s++ {
			idx = append(idx, off+s)
		}
	}
	return gatherIdx(x, rd, idx)
}

// scatter writes the updates one at a time in row-major order of Updates.
func scatter(op *niro.Scatter, x, ind, upd *tensor) (*tensor, error) {
	out := gatherIdx(x, x.dims, identity(x.n()))
	xs := strides(x.dims)
	var kind niro.BinaryKind
	switch op.Reduction {
	case niro.ScatterAdd:
		kind = niro.Add
	case niro.ScatterMul:
		kind = niro.Mul
	case niro.ScatterMax:
		kind = niro.Max
	case niro.ScatterMin:
		kind = niro.Min
	}
	combine := func(dst, src int) {
		if op.Reduction == niro.ScatterNone {
			copyElem(out, dst, upd, src)
			return
		}
		switch storeOf(out.elem) {
		case sF32:
			out.f32[dst] = round1(out.elem, floatBinary[float32](kind)(out.f32[dst], upd.f32[src]))
		case sF64:
			out.f64[dst] = floatBinary[float64](kind)(out.f64[dst], upd.f64[src])
		default:
			v, _ := intBinary(kind, out.elem)(out.ints[dst], upd.ints[src])
			out.ints[dst] = wrap(out.elem, v)
		}
	}
	switch op.Kind {
	case niro.ScatterElements:
		forEach(upd.dims, func(ix []int64, f int) {
			off := 0
			for a := range ix {
				i := ix[a]
				if a == op.Axis {
					i = clampIndex(ind.ints[f], x.dims[a])
				}
				off += int(i) * xs[a]
			}
			combine(off, f)
		})
	case niro.ScatterND:
		q := len(ind.dims)
		k := int(ind.dims[q-1])
		sliceN := 1
		for _, d := range x.dims[k:] {
			sliceN *= int(d)
		}
		tuples := ind.n() / k
		for t := 0; t < tuples; t++ {
			off := 0
			for j := 0; j < k; j++ {
				off += int(clampIndex(ind.ints[t*k+j], x.dims[j])) * xs[j]
			}
			for s := 0; s < sliceN; s++ {
				combine(off+s, t*sliceN+s)
			}
		}
	}
	return out, nil
}

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
