package interp

import (
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
)

// loop runs a structured loop (docs/ops.md, "loop", the interpreter's
// steps 1 to 4): T from the trip count, the scan inputs' extents and the
// static extents of the scan outputs; the body run while i < T and the
// condition holds; the scan outputs stacked in iteration order (reversed
// where asked), their static rows past N zero.
func (in *machine) loop(fr *frame, op *niro.Loop, depth int) ([]*tensor, error) {
	limit := int64(math.MaxInt64)
	if op.HasTrip {
		limit = max(fr.get(op.Trip).ints[0], 0)
	}
	scans := fr.list(op.Scans)
	for i, s := range scans {
		ax := op.ScanInAxes[i]
		if ax >= len(s.dims) {
			return nil, fmt.Errorf("scan input #%d of shape %v has no axis %d", i, s.dims, ax)
		}
		if i > 0 && s.dims[ax] != scans[0].dims[op.ScanInAxes[0]] {
			return nil, fmt.Errorf("scan input #%d has extent %d along its axis, scan input #0 has %d", i, s.dims[ax], scans[0].dims[op.ScanInAxes[0]])
		}
		limit = min(limit, s.dims[ax])
	}
	outs := op.ScanResults()
	static := make([]int64, len(outs)) // E, or -1 when dynamic
	for j, r := range outs {
		static[j] = -1
		if t, ok := r.Type.(niro.TensorType); ok {
			if e := t.Dims[op.ScanOutAxes[j]]; e >= 0 {
				static[j] = e
				limit = min(limit, e)
			}
		}
	}
	if limit == math.MaxInt64 && !op.HasCond {
		return nil, fmt.Errorf("loop without a bound")
	}
	cond := true
	if op.HasCond {
		cond = fr.get(op.Cond).ints[0] != 0
	}
	carried := fr.list(op.Init)
	slices := make([][]*tensor, len(outs))
	first := 0
	if op.HasCond {
		first = 1
	}
	n := int64(0)
	for ; n < limit && cond; n++ {
		it := newTensor(niro.I64, []int64{})
		it.ints[0] = n
		args := []*tensor{it}
		if op.HasCond {
			c := newTensor(niro.Bool, []int64{})
			c.ints[0] = 1
			args = append(args, c)
		}
		args = append(args, carried...)
		for i, s := range scans {
			ax := op.ScanInAxes[i]
			k := n
			if op.ScanInReverse[i] {
				k = s.dims[ax] - 1 - n
			}
			args = append(args, takeAxis(s, ax, k))
		}
		ys, err := in.region(fr, op.Body, args, depth)
		if err != nil {
			return nil, err
		}
		if len(ys) != first+len(op.Res) {
			return nil, fmt.Errorf("the body yields %d values for %d", len(ys), first+len(op.Res))
		}
		if op.HasCond {
			cond = ys[0].ints[0] != 0
		}
		carried = ys[first : first+len(op.Init)]
		for j := range outs {
			slices[j] = append(slices[j], ys[first+len(op.Init)+j])
		}
	}
	res := append([]*tensor(nil), carried...)
	yield := op.Body.Blocks[0].Terminator().(*niro.Yield)
	for j, r := range outs {
		rows := n
		if static[j] >= 0 {
			rows = static[j]
		}
		var sdims []int64
		if len(slices[j]) > 0 {
			sdims = slices[j][0].dims
		} else if t, ok := yield.Values[first+len(op.Init)+j].Type.(niro.TensorType); ok && t.HasStaticShape() {
			sdims = t.Dims
		} else {
			return nil, fmt.Errorf("scan output #%d: no iteration ran and its slice's shape is not static", j)
		}
		ax := op.ScanOutAxes[j]
		dims := append(append(append([]int64{}, sdims[:ax]...), rows), sdims[ax:]...)
		out := newTensor(niro.ElemOf(r.Type), dims)
		for i, s := range slices[j] {
			k := int64(i)
			if op.ScanOutReverse[j] {
				k = rows - 1 - int64(i)
			}
			putAxis(out, ax, k, s)
		}
		res = append(res, out)
	}
	return res, nil
}

// takeAxis returns x's slice at index k along axis, without that axis.
func takeAxis(x *tensor, axis int, k int64) *tensor {
	outer, inner := numel(x.dims[:axis]), numel(x.dims[axis+1:])
	e := int(x.dims[axis])
	dims := append(append([]int64{}, x.dims[:axis]...), x.dims[axis+1:]...)
	idx := make([]int, outer*inner)
	for o := range outer {
		for i := range inner {
			idx[o*inner+i] = (o*e+int(k))*inner + i
		}
	}
	return gatherIdx(x, dims, idx)
}

// putAxis writes s as out's slice at index k along axis.
func putAxis(out *tensor, axis int, k int64, s *tensor) {
	outer, inner := numel(out.dims[:axis]), numel(out.dims[axis+1:])
	e := int(out.dims[axis])
	for o := range outer {
		for i := range inner {
			copyElem(out, (o*e+int(k))*inner+i, s, o*inner+i)
		}
	}
}
