package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Convolutions: Conv maps to Niro Conv; ConvTranspose is decomposed into
// the zero-insertion of the input (by the strides), zero padding (or
// cropping) and a Conv with the flipped, transposed kernel.

func init() {
	convAttrs := []string{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}
	convSpec := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: convAttrs, Convert: (*nodeCtx).conv}
	}
	register("Conv", convSpec(1), convSpec(11), convSpec(22))
	ctAttrs := append([]string{"output_padding", "output_shape"}, convAttrs...)
	ctSpec := func(since int64) opSpec {
		return opSpec{Since: since, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: ctAttrs, Convert: (*nodeCtx).convTranspose}
	}
	register("ConvTranspose", ctSpec(1), ctSpec(11), ctSpec(22))
}

// staticSpatial returns the static shape of the N×C×D… input v with 1 to 3
// spatial axes, failing the node otherwise.
func (nc *nodeCtx) staticSpatial(v niro.Value, what string) []int64 {
	t := tensorOf(v)
	if nc.err != nil {
		return nil
	}
	if t.Unranked || !t.HasStaticShape() {
		nc.notYet("%s %s has type %s; %s needs static shapes (bind symbolic dimensions with --dim NAME=VALUE or --shape INPUT=DxD...)", what, v, v.Type, nc.n.OpType)
		return nil
	}
	if t.Rank() < 3 || t.Rank() > 5 {
		nc.notYet("%s %s has rank %d; %s is compiled for 1 to 3 spatial axes", what, v, t.Rank(), nc.n.OpType)
		return nil
	}
	return t.Dims
}

// listAttr returns attribute name, or s copies of def when absent; it
// fails the node when the list does not have s entries.
func (nc *nodeCtx) listAttr(name string, s int, def int64) []int64 {
	v, ok := nc.attrInts(name)
	if !ok {
		v = make([]int64, s)
		for i := range v {
			v[i] = def
		}
		return v
	}
	if len(v) != s {
		nc.fail("attribute %s = %v needs %d entries", name, v, s)
		return make([]int64, s)
	}
	return append([]int64{}, v...)
}

// windowPads returns the pads of a sliding window over spatial extents
// dims (kernel, strides, dilations) under auto_pad: NOTSET reads the pads
// attribute (default zeros), VALID gives zeros, SAME_UPPER and SAME_LOWER
// pad so that the output has ⌈D/s⌉ elements, the odd element at the end
// (UPPER) or the start (LOWER).
func (nc *nodeCtx) windowPads(dims, kernel, strides, dilations []int64) []int64 {
	s := len(dims)
	switch ap := nc.attrString("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		return nc.listAttr("pads", 2*s, 0)
	case "VALID":
		return make([]int64, 2*s)
	case "SAME_UPPER", "SAME_LOWER":
		pads := make([]int64, 2*s)
		for i, d := range dims {
			out := (d + strides[i] - 1) / strides[i]
			total := max(0, (out-1)*strides[i]+(kernel[i]-1)*dilations[i]+1-d)
			small, big := total/2, total-total/2
			if ap == "SAME_UPPER" {
				pads[i], pads[s+i] = small, big
			} else {
				pads[i], pads[s+i] = big, small
			}
		}
		return pads
	default:
		nc.fail("auto_pad %q is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap)
		return make([]int64, 2*s)
	}
}

// conv maps ONNX Conv to Niro Conv.
func (nc *nodeCtx) conv() error {
	x, w := nc.in(0), nc.in(1)
	nc.requireFloat(x)
	var b *niro.Value
	if nc.has(2) {
		v := nc.in(2)
		b = &v
	}
	nc.out(0, nc.convWith(x, w, b))
	return nc.err
}

// convWith adds the Niro conv of x by w (and the bias b when not nil) under
// the node's Conv attributes (kernel_shape, strides, dilations, pads,
// auto_pad, group).
func (nc *nodeCtx) convWith(x, w niro.Value, b *niro.Value) niro.Value {
	xd := nc.staticSpatial(x, "input")
	wd := nc.staticSpatial(w, "weight")
	bad := niro.Value{Type: niro.UnrankedTensor(elem(x))}
	if nc.err != nil {
		return bad
	}
	s := len(xd) - 2
	if len(wd) != len(xd) {
		nc.fail("input %s and weight %s have different ranks", x.Type, w.Type)
		return bad
	}
	kernel := nc.listAttr("kernel_shape", s, 0)
	if _, ok := nc.attrInts("kernel_shape"); !ok {
		kernel = wd[2:]
	}
	for i, k := range kernel {
		if k != wd[2+i] {
			nc.fail("kernel_shape %v does not match weight %s", kernel, w.Type)
			return bad
		}
	}
	strides := nc.listAttr("strides", s, 1)
	dilations := nc.listAttr("dilations", s, 1)
	pads := nc.windowPads(xd[2:], kernel, strides, dilations)
	op := &niro.Conv{Strides: strides, Dilations: dilations, Pads: pads, Groups: nc.attrInt("group", 1), X: x, W: w}
	if b != nil {
		op.B = *b
	}
	return nc.op(op)
}

// convTranspose maps ONNX ConvTranspose: with input X (N×C×D…), weight W
// (C×M/G×K…), strides s, dilations d, pads (b, e) and output_padding a,
// the result is the Conv (strides 1, dilations d) of X with s − 1 zeros
// inserted between neighbours, padded by d·(K − 1) − b before and
// d·(K − 1) − e + a after (negative counts crop), with the kernel
// W'[g·M/G + m, c, k] = W[g·C/G + c, m, K − 1 − k]. Its summation order is
// Conv's over that input and kernel (c, then the flipped kernel positions
// ascending), the inserted zeros included.
func (nc *nodeCtx) convTranspose() error {
	x, w := nc.in(0), nc.in(1)
	nc.requireFloat(x)
	xd := nc.staticSpatial(x, "input")
	wd := nc.staticSpatial(w, "weight")
	if nc.err != nil {
		return nc.err
	}
	s := len(xd) - 2
	if len(wd) != len(xd) {
		return nc.errorf("input %s and weight %s have different ranks", x.Type, w.Type)
	}
	g := nc.attrInt("group", 1)
	if g < 1 || xd[1]%g != 0 || wd[0] != xd[1] {
		return nc.errorf("weight %s does not match input %s in %d groups", w.Type, x.Type, g)
	}
	kernel := wd[2:]
	if ks, ok := nc.attrInts("kernel_shape"); ok {
		for i := range ks {
			if i >= s || ks[i] != kernel[i] {
				return nc.errorf("kernel_shape %v does not match weight %s", ks, w.Type)
			}
		}
	}
	strides := nc.listAttr("strides", s, 1)
	dilations := nc.listAttr("dilations", s, 1)
	outPad := nc.listAttr("output_padding", s, 0)
	if nc.err != nil {
		return nc.err
	}
	full := func(i int) int64 { // the output extent without pads
		return strides[i]*(xd[2+i]-1) + outPad[i] + (kernel[i]-1)*dilations[i] + 1
	}
	ap := nc.attrString("auto_pad", "NOTSET")
	var pads []int64
	outShape, haveShape := nc.attrInts("output_shape")
	if haveShape || ap == "SAME_UPPER" || ap == "SAME_LOWER" {
		target := make([]int64, s)
		switch {
		case haveShape && len(outShape) >= s:
			copy(target, outShape[len(outShape)-s:])
		case haveShape:
			return nc.errorf("output_shape %v needs %d spatial extents", outShape, s)
		default:
			for i := range target {
				target[i] = xd[2+i] * strides[i]
			}
		}
		pads = make([]int64, 2*s)
		for i := range target {
			total := full(i) - target[i]
			small := total / 2 // rounded down, as the reference's //
			if total < 0 && total%2 != 0 {
				small--
			}
			big := total - small
			if ap == "SAME_UPPER" {
				pads[i], pads[s+i] = small, big
			} else {
				pads[i], pads[s+i] = big, small
			}
		}
	} else if ap == "VALID" {
		pads = make([]int64, 2*s)
	} else if ap == "NOTSET" || ap == "" {
		pads = nc.listAttr("pads", 2*s, 0)
	} else {
		return nc.errorf("auto_pad %q is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap)
	}
	e := elem(x)
	// Zero insertion: X as N×C×D1×1×D2×1…, padded to N×C×D1×s1×…, then
	// viewed as N×C×(D1·s1)×…; the last s − 1 zeros are cropped below.
	xi := x
	inserted := append([]int64{}, xd[:2]...)
	anyStride := false
	for i := 0; i < s; i++ {
		anyStride = anyStride || strides[i] > 1
		inserted = append(inserted, xd[2+i]*strides[i])
	}
	if anyStride {
		split := append([]int64{}, xd[:2]...)
		lo := make([]int64, 2+2*s)
		hi := make([]int64, 2+2*s)
		for i := 0; i < s; i++ {
			split = append(split, xd[2+i], 1)
			hi[2+2*i+1] = strides[i] - 1
		}
		xi = nc.reshapeStatic(xi, split)
		xi = nc.op(&niro.Pad{Mode: "constant", Low: lo, High: hi, X: xi, Value: nc.scalar(e, 0)})
		xi = nc.reshapeStatic(xi, inserted)
	}
	lo := make([]int64, 2+s)
	hi := make([]int64, 2+s)
	anyPad := false
	for i := 0; i < s; i++ {
		span := dilations[i] * (kernel[i] - 1)
		lo[2+i] = span - pads[i]
		hi[2+i] = span - pads[s+i] + outPad[i] - (strides[i] - 1)
		anyPad = anyPad || lo[2+i] != 0 || hi[2+i] != 0
	}
	if anyPad {
		xi = nc.op(&niro.Pad{Mode: "constant", Low: lo, High: hi, X: xi, Value: nc.scalar(e, 0)})
	}
	// The kernel: flipped on the spatial axes, then C×M/G → M×C/G per group.
	starts := make([]int64, len(wd))
	steps := make([]int64, len(wd))
	for i := range wd {
		steps[i] = 1
		if i >= 2 {
			starts[i], steps[i] = wd[i]-1, -1
		}
	}
	wf := nc.op(&niro.Slice{Starts: starts, Steps: steps, Shape: append([]int64{}, wd...), X: w})
	cg, mg := wd[0]/g, wd[1]
	grouped := append([]int64{g, cg, mg}, kernel...)
	perm := []int{0, 2, 1}
	for i := 0; i < s; i++ {
		perm = append(perm, 3+i)
	}
	wf = nc.reshapeStatic(wf, grouped)
	wf = nc.transposeOp(wf, perm)
	wf = nc.reshapeStatic(wf, append([]int64{g * mg, cg}, kernel...))
	ones := make([]int64, s)
	for i := range ones {
		ones[i] = 1
	}
	op := &niro.Conv{Strides: ones, Dilations: dilations, Pads: make([]int64, 2*s), Groups: g, X: xi, W: wf}
	if nc.has(2) {
		op.B = nc.in(2)
	}
	nc.out(0, nc.op(op))
	return nc.err
}
