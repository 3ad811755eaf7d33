package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Sequence ops: ReverseSequence, CausalConvWithState and LinearAttention,
// decomposed into Niro ops (docs/ops.md, "Sequence ops").

// reverseSequenceConv maps ReverseSequence: along time_axis, the first
// sequence_lens[b] elements of batch entry b are reversed and the rest
// kept. It is one GatherElements along the time axis with the index
// t < L ? L − 1 − t : t, L = sequence_lens clamped to [0, T] (a length
// beyond T reverses the whole entry, as the reference's slicing does).
func reverseSequenceConv(nc *nodeCtx) error {
	x, lens := nc.in(0), nc.in(1)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	r := len(dims)
	if r < 2 {
		return nc.errorf("input must have rank 2 or more, has rank %d", r)
	}
	ba, ta := nc.attrInt("batch_axis", 1), nc.attrInt("time_axis", 0)
	if ba < 0 || ba > 1 || ta < 0 || ta > 1 || ba == ta {
		return nc.errorf("batch_axis %d and time_axis %d must be 0 and 1 in some order", ba, ta)
	}
	b, t := int(ba), int(ta)
	lt := tensorOf(lens)
	if !lt.Elem.IsInt() {
		return nc.errorf("sequence_lens must be an integer tensor, has type %s", lt)
	}
	if lt.Unranked || lt.Rank() != 1 || lt.Dims[0] != dims[b] {
		return nc.errorf("sequence_lens must have shape [%d] (the batch extent), has type %s", dims[b], lt)
	}
	small := make([]int64, r)
	for i := range small {
		small[i] = 1
	}
	small[b] = dims[b]
	l := nc.reshape(nc.cast(lens, niro.I64), append([]int64{}, small...))
	l = nc.bin(niro.Min, nc.bin(niro.Max, l, nc.scalar(niro.I64, 0)), nc.scalar(niro.I64, float64(dims[t])))
	small[t] = dims[t]
	ti := nc.iota(niro.I64, small, t)
	rev := nc.bin(niro.Sub, nc.bin(niro.Sub, l, nc.scalar(niro.I64, 1)), ti)
	idx := nc.sel(nc.cmp(niro.Lt, ti, l), rev, ti)
	if r > 2 {
		idx = nc.op(&niro.Broadcast{Shape: append([]int64{}, dims...), X: idx})
	}
	nc.out(0, nc.op(&niro.GatherElements{Axis: t, X: x, Indices: idx}))
	return nil
}

// causalConvConv maps CausalConvWithState: padded = Concat(past_state or
// zeros, input) along the length axis; output = the depthwise Conv
// (group = channels, no padding) of padded with the weight and bias, then
// x·sigmoid(x) for activation silu or swish (in f32 on 16-bit types);
// present_state = the last k − 1 positions of padded.
func causalConvConv(nc *nodeCtx) error {
	x, w := nc.in(0), nc.in(1)
	dims, ok := nc.staticDims(x)
	if !ok {
		return nc.err
	}
	wd, ok := nc.staticDims(w)
	if !ok {
		return nc.err
	}
	nc.requireFloat(x)
	nc.sameElem(0, 1)
	if nc.err != nil {
		return nc.err
	}
	if len(dims) != 3 {
		return nc.errorf("input must have rank 3 (batch_size, channels, length), has shape %v", dims)
	}
	bsz, c, l := dims[0], dims[1], dims[2]
	if len(wd) != 3 || wd[0] != c || wd[1] != 1 || wd[2] < 1 {
		return nc.errorf("weight must have shape (%d, 1, k) with k ≥ 1, has shape %v", c, wd)
	}
	k := wd[2]
	act := nc.attrString("activation", "none")
	if act != "none" && act != "silu" && act != "swish" {
		return nc.errorf("activation %q is not one of none, silu, swish", act)
	}
	state := []int64{bsz, c, k - 1}
	padded := x
	if k > 1 {
		var past niro.Value
		if nc.has(3) {
			nc.sameElem(0, 3)
			past = nc.in(3)
			if pt := tensorOf(past); pt.Unranked || !pt.HasStaticShape() || len(pt.Dims) != 3 || pt.Dims[0] != bsz || pt.Dims[1] != c || pt.Dims[2] != k-1 {
				return nc.errorf("past_state must have shape %v, has type %s", state, pt)
			}
		} else {
			past = nc.op(&niro.Broadcast{Shape: state, X: nc.like(x, 0)})
		}
		padded = nc.op(&niro.Concat{Axis: 2, Inputs: []niro.Value{past, x}})
	}
	conv := &niro.Conv{Strides: []int64{1}, Dilations: []int64{1}, Pads: []int64{0, 0}, Groups: c, X: padded, W: w}
	if nc.has(2) {
		nc.sameElem(0, 2)
		if bt := tensorOf(nc.in(2)); bt.Unranked || bt.Rank() != 1 || bt.Dims[0] != c {
			return nc.errorf("bias must have shape [%d], has type %s", c, bt)
		}
		conv.B = nc.in(2)
	}
	y := nc.op(conv)
	if act != "none" {
		y = nc.inF32(y, func(v niro.Value) niro.Value { return nc.bin(niro.Mul, v, nc.sigmoid(v)) })
	}
	nc.out(0, y)
	if len(nc.n.Outputs) > 1 {
		start := l
		if k == 1 {
			start = 0 // an empty slice reads from index 0
		}
		nc.out(1, nc.sliceRange(padded, []int64{bsz, c, l + k - 1}, []int64{0, 0, start}, []int64{1, 1, 1}, state))
	}
	return nil
}

func init() {
	register("ReverseSequence",
		opSpec{Since: 10, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"batch_axis", "time_axis"}, Convert: reverseSequenceConv})
	register("CausalConvWithState",
		opSpec{Since: 27, In: [2]int{2, 4}, Out: [2]int{1, 2}, Attrs: []string{"activation"}, Convert: causalConvConv})
}
