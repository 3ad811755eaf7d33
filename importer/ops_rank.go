package importer

import (
	"strings"

	"github.com/niro-dev/niro/niro"
)

// Ranks of the nodes that stay UnknownOps. A node niro cannot compile in
// this instance (a shape known only at run time, an operand of unknown
// extent) still has a result whose rank ONNX's shape rules fix from the
// inputs' ranks, the attributes and the lengths of shape-like inputs; the
// rules below give it, with every extent the rules fix statically and the
// others dynamic, so that the ops downstream keep converting. A result is
// unranked only when these do not fix its rank (an input of unknown rank,
// a shape input of unknown length, Squeeze of dynamic extents without
// axes, a reduction with run-time axes of unknown count).

// inferredDims returns the dims of result i of the node, when its op's
// rule fixes its rank.
func (nc *nodeCtx) inferredDims(i int) ([]int64, bool) {
	if nc.domain != "" {
		return nil, false
	}
	ranked := func(j int) ([]int64, bool) {
		v, ok := nc.input(j)
		if !ok {
			return nil, false
		}
		t := tensorOf(v)
		return t.Dims, !t.Unranked
	}
	// length returns the static length of 1-D input j (1 for a scalar).
	length := func(j int) (int64, bool) {
		d, ok := ranked(j)
		if ok && len(d) == 0 {
			return 1, true
		}
		if !ok || len(d) != 1 || d[0] < 0 {
			return 0, false
		}
		return d[0], true
	}
	dynamic := func(r int) []int64 {
		out := make([]int64, r)
		for k := range out {
			out[k] = niro.Dynamic
		}
		return out
	}
	x, xok := ranked(0)
	r := len(x)
	switch nc.n.OpType {
	case "Shape":
		if !xok {
			return nil, false
		}
		start, end := int64(0), int64(r)
		if nc.opset >= 15 {
			start, end = nc.attrInt("start", 0), nc.attrInt("end", int64(r))
		}
		_, n := sliceBounds(int64(r), start, end, 1)
		return []int64{n}, true
	case "Size":
		return []int64{}, true
	case "Range":
		return []int64{niro.Dynamic}, true
	case "NonZero":
		if !xok {
			return nil, false
		}
		return []int64{int64(r), niro.Dynamic}, true
	case "ConstantOfShape":
		n, ok := length(0)
		if !ok {
			return nil, false
		}
		if vals, known := nc.knownInts(0); known {
			return vals, true
		}
		return dynamic(int(n)), true
	case "Reshape":
		var shape []int64
		var n int64
		if nc.opset < 5 {
			s, ok := nc.attrInts("shape")
			if !ok {
				return nil, false
			}
			shape, n = s, int64(len(s))
		} else {
			var ok bool
			if n, ok = length(1); !ok {
				return nil, false
			}
			shape, _ = nc.knownInts(1)
		}
		out := dynamic(int(n))
		for k, s := range shape {
			switch {
			case s > 0 || s == 0 && nc.attrInt("allowzero", 0) != 0:
				out[k] = s
			case s == 0 && xok && k < r:
				out[k] = x[k]
			}
		}
		return out, true
	case "Expand":
		n, ok := length(1)
		if !xok || !ok {
			return nil, false
		}
		shape, known := nc.knownInts(1)
		out := dynamic(max(r, int(n)))
		for k := range out {
			xd, sd := int64(1), int64(1)
			if j := k - (len(out) - r); j >= 0 {
				xd = x[j]
			}
			if j := k - (len(out) - int(n)); j >= 0 {
				sd = niro.Dynamic
				if known {
					sd = shape[j]
				}
			}
			switch {
			case sd >= 0 && xd >= 0:
				out[k] = max(sd, xd)
			case sd > 1:
				out[k] = sd
			case xd > 1:
				out[k] = xd
			}
		}
		return out, true
	case "Concat":
		if !nc.has(0) {
			return nil, false
		}
		var first []int64
		for j := range nc.args {
			if d, ok := ranked(j); ok {
				first = d
				break
			}
		}
		if first == nil {
			return nil, false
		}
		a := nc.attrInt("axis", 1)
		if a < 0 {
			a += int64(len(first))
		}
		if a < 0 || a >= int64(len(first)) {
			return nil, false
		}
		out := append([]int64(nil), first...)
		sum := int64(0)
		for j := range nc.args {
			d, ok := ranked(j)
			if !ok || len(d) != len(first) || d[a] < 0 || sum < 0 {
				sum = niro.Dynamic
			} else {
				sum += d[a]
			}
			for k := range out {
				if ok && len(d) == len(out) && out[k] < 0 && int64(k) != a {
					out[k] = d[k]
				}
			}
		}
		out[a] = sum
		return out, true
	case "Slice", "Pad", "Resize", "Upsample", "Tile", "CenterCropPad", "Col2Im", "ReverseSequence", "Dropout":
		if !xok || nc.n.OpType == "Col2Im" || nc.n.OpType == "Dropout" && i > 1 {
			return nil, false
		}
		if nc.n.OpType == "CenterCropPad" {
			return dynamic(r), true
		}
		return nc.sameRankDims(x), true
	case "Unsqueeze":
		var k int64
		if nc.opset < 13 {
			axes, _ := nc.attrInts("axes")
			k = int64(len(axes))
		} else {
			var ok bool
			if k, ok = length(1); !ok {
				return nil, false
			}
		}
		if !xok {
			return nil, false
		}
		return dynamic(r + int(k)), true
	case "Squeeze":
		if !xok {
			return nil, false
		}
		var k int64 = -1
		if nc.opset < 13 {
			if axes, ok := nc.attrInts("axes"); ok {
				k = int64(len(axes))
			}
		} else if nc.has(1) {
			if n, ok := length(1); ok {
				k = n
			}
		}
		if k < 0 {
			// Without axes every extent 1 goes: the rank is known
			// only when every extent is.
			out := []int64{}
			for _, d := range x {
				if d < 0 {
					return nil, false
				}
				if d != 1 {
					out = append(out, d)
				}
			}
			return out, true
		}
		return dynamic(r - int(k)), r >= int(k)
	case "Gather":
		ind, ok := ranked(1)
		if !xok || !ok || r == 0 {
			return nil, false
		}
		a := nc.attrInt("axis", 0)
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) {
			return nil, false
		}
		out := append(append(append([]int64{}, x[:a]...), ind...), x[a+1:]...)
		return out, true
	case "Split":
		if !xok || r == 0 {
			return nil, false
		}
		a := nc.attrInt("axis", 0)
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a >= int64(r) {
			return nil, false
		}
		out := append([]int64(nil), x...)
		out[a] = nc.splitExtent(i, x[a])
		return out, true
	case "Flatten":
		if !xok {
			return nil, false
		}
		a := nc.attrInt("axis", 1)
		if a < 0 {
			a += int64(r)
		}
		if a < 0 || a > int64(r) {
			return nil, false
		}
		return []int64{extentProduct(x[:a]), extentProduct(x[a:])}, true
	case "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "AveragePool", "MaxPool", "LpPool",
		"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "DeformConv", "MaxUnpool":
		if !xok || r < 2 {
			return nil, false
		}
		out := dynamic(r)
		out[0] = x[0]
		switch nc.n.OpType {
		case "AveragePool", "MaxPool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "MaxUnpool":
			out[1] = x[1]
		case "Conv", "ConvInteger", "DeformConv":
			if w, ok := ranked(1); ok && len(w) == r {
				out[1] = w[0]
			}
		case "QLinearConv":
			if w, ok := ranked(3); ok && len(w) == r {
				out[1] = w[0]
			}
		}
		if strings.HasPrefix(nc.n.OpType, "Global") {
			for k := 2; k < r; k++ {
				out[k] = 1
			}
		}
		return out, true
	case "RandomUniformLike", "RandomNormalLike", "BernoulliLike":
		if !xok {
			return nil, false
		}
		return append([]int64(nil), x...), true
	case "Loop", "Scan":
		return nc.loopResultDims(i)
	case "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin":
		if !xok {
			return nil, false
		}
		return nc.reduceDims(x)
	}
	return nil, false
}

// sameRankDims types a result of the input's rank whose extents the
// node's run-time operands decide: an extent stays where the op keeps it
// for certain (Slice, Pad or Tile on the other axes, when their axes are
// known), and is dynamic elsewhere.
func (nc *nodeCtx) sameRankDims(x []int64) []int64 {
	out := make([]int64, len(x))
	for k := range out {
		out[k] = niro.Dynamic
	}
	var axes []int64
	known := false
	switch nc.n.OpType {
	case "Slice":
		if nc.opset < 10 {
			axes, known = nc.attrInts("axes")
			if !known {
				starts, _ := nc.attrInts("starts")
				for k := range starts {
					axes = append(axes, int64(k))
				}
				known = true
			}
		} else if nc.has(3) {
			axes, known = nc.knownInts(3)
		} else if n, ok := func() (int64, bool) {
			v, ok := nc.input(1)
			if !ok || tensorOf(v).Rank() != 1 || tensorOf(v).Dims[0] < 0 {
				return 0, false
			}
			return tensorOf(v).Dims[0], true
		}(); ok {
			for k := int64(0); k < n; k++ {
				axes = append(axes, k)
			}
			known = true
		}
	case "Pad":
		pads, ok := nc.attrInts("pads")
		if nc.opset >= 11 {
			pads, ok = nc.knownInts(1)
		}
		if nc.opset >= 18 && nc.has(3) {
			axes, known = nc.knownInts(3)
		} else if ok && len(pads) == 2*len(x) {
			for k := range x {
				axes = append(axes, int64(k))
			}
			known = true
		}
		if known && ok && len(pads) == 2*len(axes) {
			// Padded extents are static where the input's are.
			copy(out, x)
			for j, a := range axes {
				if a < 0 {
					a += int64(len(x))
				}
				if a >= 0 && a < int64(len(x)) && x[a] >= 0 {
					out[a] = x[a] + pads[j] + pads[j+len(axes)]
				} else if a >= 0 && a < int64(len(x)) {
					out[a] = niro.Dynamic
				}
			}
			return out
		}
	}
	if !known {
		return out
	}
	copy(out, x)
	for _, a := range axes {
		if a < 0 {
			a += int64(len(x))
		}
		if a >= 0 && a < int64(len(x)) {
			out[a] = niro.Dynamic
		}
	}
	return out
}

// reduceDims types a reduction's result: with keepdims the input's rank
// (reduced axes 1 where known), without it the rank less the number of
// axes, which must be known (an attribute before opset 18 for most, 13
// for ReduceSum; a 1-D input of static length after).
func (nc *nodeCtx) reduceDims(x []int64) ([]int64, bool) {
	r := len(x)
	keep := nc.attrInt("keepdims", 1) != 0
	arg := nc.n.OpType == "ArgMax" || nc.n.OpType == "ArgMin"
	var axes []int64
	count := -1
	switch {
	case arg:
		a := nc.attrInt("axis", 0)
		axes, count = []int64{a}, 1
	case nc.attr("axes") != nil:
		axes, _ = nc.attrInts("axes")
		count = len(axes)
	case nc.has(1):
		if vals, ok := nc.knownInts(1); ok {
			axes, count = vals, len(vals)
		} else if v := tensorOf(nc.args[1]); !v.Unranked && v.Rank() == 1 && v.Dims[0] >= 0 {
			count = int(v.Dims[0])
		}
	default:
		count = 0
	}
	if count == 0 {
		if nc.attrInt("noop_with_empty_axes", 0) != 0 {
			return append([]int64(nil), x...), true
		}
		count = r
		axes = nil
		for k := 0; k < r; k++ {
			axes = append(axes, int64(k))
		}
	}
	if keep {
		out := make([]int64, r)
		for k := range out {
			switch {
			case axes == nil && count == r, x[k] == 1:
				out[k] = 1
			case axes != nil:
				out[k] = x[k]
			default:
				out[k] = niro.Dynamic
			}
		}
		for _, a := range axes {
			if a < 0 {
				a += int64(r)
			}
			if a >= 0 && a < int64(r) {
				out[a] = 1
			}
		}
		return out, true
	}
	if count < 0 || count > r {
		return nil, false
	}
	out := make([]int64, 0, r-count)
	if axes != nil {
		drop := map[int64]bool{}
		for _, a := range axes {
			if a < 0 {
				a += int64(r)
			}
			drop[a] = true
		}
		for k, d := range x {
			if !drop[int64(k)] {
				out = append(out, d)
			}
		}
		if len(out) == r-count {
			return out, true
		}
		out = out[:0]
	}
	for k := 0; k < r-count; k++ {
		out = append(out, niro.Dynamic)
	}
	return out, true
}

// splitExtent returns the extent of Split's output i along the axis of
// extent d: from the split sizes (an attribute before opset 13, a known
// input after), or d in equal parts (num_outputs from opset 18, the last
// part smaller), dynamic when neither is known.
func (nc *nodeCtx) splitExtent(i int, d int64) int64 {
	sizes, ok := nc.attrInts("split")
	if !ok && nc.has(1) {
		sizes, ok = nc.knownInts(1)
	}
	if ok && len(sizes) > 0 {
		if i < len(sizes) {
			return sizes[i]
		}
		return niro.Dynamic
	}
	if nc.has(1) || d < 0 {
		return niro.Dynamic
	}
	n := int64(len(nc.n.Outputs))
	if nc.attr("num_outputs") == nil {
		if d%n != 0 {
			return niro.Dynamic
		}
		return d / n
	}
	part := (d + n - 1) / n
	return max(0, min(part, d-int64(i)*part))
}

// loopResultDims types result i of a Loop or Scan kept as an UnknownOp
// from its body's yields: a carried value or state has the rank its body
// yields, a scan output one more (the iterations), all extents dynamic.
func (nc *nodeCtx) loopResultDims(i int) ([]int64, bool) {
	if len(nc.yields) != 1 {
		return nil, false
	}
	ys := nc.yields[0]
	var nState, first int
	if nc.n.OpType == "Loop" {
		first = 1 // the condition
		nState = len(nc.args) - 2
	} else {
		m := int(nc.attrInt("num_scan_inputs", 0))
		nState = len(nc.args) - m
		if nc.opset < 9 {
			nState-- // sequence_lens
		}
	}
	j := first + i
	if nState < 0 || j >= len(ys) {
		return nil, false
	}
	t := tensorOf(ys[j])
	if t.Unranked {
		return nil, false
	}
	r := t.Rank()
	if i >= nState {
		r++
	}
	if nc.n.OpType == "Scan" && nc.opset < 9 {
		r++ // the batch axis
	}
	out := make([]int64, r)
	for k := range out {
		out[k] = niro.Dynamic
	}
	return out, true
}

// extentProduct multiplies extents, dynamic when one is.
func extentProduct(dims []int64) int64 {
	p := int64(1)
	for _, d := range dims {
		if d < 0 {
			return niro.Dynamic
		}
		p *= d
	}
	return p
}
