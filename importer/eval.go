package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// maxFoldedFloats bounds the float results folded at import.
const maxFoldedFloats = 16

// evalNiro evaluates a generic Niro op on known operand values, for
// shape folding. It returns nil when the op, its element types or its
// result size are outside what the importer folds, or when the result
// would be undefined (an integer division by zero).
func evalNiro(op niro.Op, ins []*known, rt niro.TensorType) *known {
	if !rt.HasStaticShape() || rt.NumElements() > maxKnownElems || !trackable(rt.Elem) {
		return nil
	}
	// Float results are folded only when tiny (scalars and short vectors
	// of shape arithmetic); float data stays computed by the compiled code.
	if rt.Elem.IsFloat() && rt.NumElements() > maxFoldedFloats {
		return nil
	}
	for _, k := range ins {
		if k == nil || !trackable(k.elem) {
			return nil
		}
	}
	out := &known{elem: rt.Elem, dims: append([]int64{}, rt.Dims...)}
	n := int(rt.NumElements())
	switch op := op.(type) {
	case *niro.Binary:
		a, b := bcast(ins[0], rt.Dims), bcast(ins[1], rt.Dims)
		for i := 0; i < n; i++ {
			if rt.Elem.IsFloat() {
				v, ok := evalBinaryFloat(op.Kind, ins[0].floats[a[i]], ins[1].floats[b[i]])
				if !ok {
					return nil
				}
				out.floats = append(out.floats, roundTo(rt.Elem, v))
				continue
			}
			v, ok := evalBinaryInt(op.Kind, rt.Elem, ins[0].ints[a[i]], ins[1].ints[b[i]])
			if !ok {
				return nil
			}
			out.ints = append(out.ints, wrapInt(rt.Elem, v))
		}
	case *niro.Unary:
		for i := 0; i < n; i++ {
			if rt.Elem.IsFloat() {
				v, ok := evalUnaryFloat(op.Kind, ins[0].floats[i])
				if !ok {
					return nil
				}
				out.floats = append(out.floats, roundTo(rt.Elem, v))
				continue
			}
			v, ok := evalUnaryInt(op.Kind, ins[0].ints[i])
			if !ok {
				return nil
			}
			out.ints = append(out.ints, wrapInt(rt.Elem, v))
		}
	case *niro.Compare:
		a, b := bcast(ins[0], rt.Dims), bcast(ins[1], rt.Dims)
		e := ins[0].elem
		for i := 0; i < n; i++ {
			var r bool
			if e.IsFloat() {
				r = evalCompareFloat(op.Pred, ins[0].floats[a[i]], ins[1].floats[b[i]])
			} else {
				r = evalCompareInt(op.Pred, !e.IsSigned(), ins[0].ints[a[i]], ins[1].ints[b[i]])
			}
			out.ints = append(out.ints, b2i(r))
		}
	case *niro.Cast:
		from := ins[0].elem
		for i := 0; i < n; i++ {
			switch {
			case rt.Elem.IsFloat() && from.IsFloat():
				out.floats = append(out.floats, roundTo(rt.Elem, ins[0].floats[i]))
			case rt.Elem.IsFloat():
				v := ins[0].ints[i]
				if !from.IsSigned() && v < 0 {
					out.floats = append(out.floats, roundTo(rt.Elem, float64(uint64(v))))
				} else {
					out.floats = append(out.floats, roundTo(rt.Elem, float64(v)))
				}
			case rt.Elem == niro.Bool && from.IsFloat():
				out.ints = append(out.ints, b2i(ins[0].floats[i] != 0))
			case from.IsFloat():
				f := math.Trunc(ins[0].floats[i])
				if math.IsNaN(f) || math.Abs(f) >= 1<<63 {
					return nil
				}
				out.ints = append(out.ints, wrapInt(rt.Elem, int64(f)))
			case rt.Elem == niro.Bool:
				out.ints = append(out.ints, b2i(ins[0].ints[i] != 0))
			default:
				out.ints = append(out.ints, wrapInt(rt.Elem, ins[0].ints[i]))
			}
		}
	case *niro.Select:
		c, a, b := bcast(ins[0], rt.Dims), bcast(ins[1], rt.Dims), bcast(ins[2], rt.Dims)
		for i := 0; i < n; i++ {
			pick, j := ins[2], b[i]
			if ins[0].ints[c[i]] != 0 {
				pick, j = ins[1], a[i]
			}
			if rt.Elem.IsFloat() {
				out.floats = append(out.floats, pick.floats[j])
			} else {
				out.ints = append(out.ints, pick.ints[j])
			}
		}
	case *niro.Reshape:
		out.ints, out.floats = ins[0].ints, ins[0].floats
	case *niro.Broadcast:
		a := bcast(ins[0], rt.Dims)
		for i := 0; i < n; i++ {
			if rt.Elem.IsFloat() {
				out.floats = append(out.floats, ins[0].floats[a[i]])
			} else {
				out.ints = append(out.ints, ins[0].ints[a[i]])
			}
		}
	case *niro.Reduce:
		return evalReduce(op, ins[0], out)
	case *niro.Concat:
		return evalConcat(op.Axis, ins, out)
	case *niro.Slice:
		return evalSlice(op, ins[0], out)
	case *niro.Gather:
		return evalGather(op, ins[0], ins[1], out)
	case *niro.Iota:
		stride := 1
		for _, d := range rt.Dims[op.Axis+1:] {
			stride *= int(d)
		}
		ext := int(rt.Dims[op.Axis])
		for i := 0; i < n; i++ {
			v := int64(i / stride % ext)
			if rt.Elem.IsFloat() {
				out.floats = append(out.floats, float64(v))
			} else {
				out.ints = append(out.ints, wrapInt(rt.Elem, v))
			}
		}
	default:
		return nil
	}
	return out
}

// evalReduce folds x over op's axes in ascending row-major order.
func evalReduce(op *niro.Reduce, x *known, out *known) *known {
	var kept []int64
	for i, d := range x.dims {
		if !op.IsReduced(i) {
			kept = append(kept, d)
		}
	}
	m := 1
	for _, d := range kept {
		m *= int(d)
	}
	isF := x.elem.IsFloat()
	accF := make([]float64, m)
	accI := make([]int64, m)
	first := make([]bool, m)
	idx := make([]int64, len(x.dims))
	for i := 0; i < x.len(); i++ {
		o := 0
		for a, d := range x.dims {
			if !op.IsReduced(a) {
				o = o*int(d) + int(idx[a])
			}
		}
		if !first[o] {
			first[o] = true
			switch op.Kind {
			case niro.ReduceSum:
				accF[o], accI[o] = 0, 0
			case niro.ReduceProd:
				accF[o], accI[o] = 1, 1
			default:
				if isF {
					accF[o] = x.floats[i]
				} else {
					accI[o] = x.ints[i]
				}
				goto next
			}
		}
		if isF {
			v := x.floats[i]
			switch op.Kind {
			case niro.ReduceSum:
				accF[o] = roundTo(x.elem, accF[o]+v)
			case niro.ReduceProd:
				accF[o] = roundTo(x.elem, accF[o]*v)
			case niro.ReduceMax:
				accF[o], _ = evalBinaryFloat(niro.Max, accF[o], v)
			case niro.ReduceMin:
				accF[o], _ = evalBinaryFloat(niro.Min, accF[o], v)
			}
		} else {
			k := map[niro.ReduceKind]niro.BinaryKind{niro.ReduceSum: niro.Add, niro.ReduceProd: niro.Mul, niro.ReduceMax: niro.Max, niro.ReduceMin: niro.Min}[op.Kind]
			v, _ := evalBinaryInt(k, x.elem, accI[o], x.ints[i])
			accI[o] = wrapInt(x.elem, v)
		}
	next:
		for a := len(idx) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < x.dims[a] {
				break
			}
			idx[a] = 0
		}
	}
	for o := 0; o < m; o++ {
		if !first[o] { // an empty reduction
			if op.Kind == niro.ReduceMax || op.Kind == niro.ReduceMin {
				return nil
			}
			if op.Kind == niro.ReduceProd {
				accF[o], accI[o] = 1, 1
			}
		}
	}
	if isF {
		out.floats = accF
	} else {
		out.ints = accI
	}
	return out
}

// bcast maps each flat index of a result of shape dims to the flat index of
// k under trailing-axis broadcasting.
func bcast(k *known, dims []int64) []int {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	out := make([]int, n)
	R, r := len(dims), len(k.dims)
	idx := make([]int64, R)
	for i := 0; i < n; i++ {
		j := 0
		for a := 0; a < r; a++ {
			d := k.dims[a]
			x := idx[R-r+a]
			if d == 1 {
				x = 0
			}
			j = j*int(d) + int(x)
		}
		out[i] = j
		for a := R - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < dims[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func evalBinaryFloat(k niro.BinaryKind, a, b float64) (float64, bool) {
	switch k {
	case niro.Add:
		return a + b, true
	case niro.Sub:
		return a - b, true
	case niro.Mul:
		return a * b, true
	case niro.Div:
		return a / b, true
	case niro.Max, niro.Min:
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN(), true
		}
		if k == niro.Max {
			if a == b && a == 0 {
				return math.Copysign(0, math.Max(math.Copysign(1, a), math.Copysign(1, b))), true
			}
			return math.Max(a, b), true
		}
		if a == b && a == 0 {
			return math.Min(a, b), true
		}
		return math.Min(a, b), true
	case niro.Rem:
		return math.Mod(a, b), true
	}
	return 0, false
}

func evalBinaryInt(k niro.BinaryKind, e niro.ScalarType, a, b int64) (int64, bool) {
	unsigned := !e.IsSigned()
	switch k {
	case niro.Add:
		return a + b, true
	case niro.Sub:
		return a - b, true
	case niro.Mul:
		return a * b, true
	case niro.Div, niro.Rem, niro.Mod:
		if b == 0 {
			return 0, false
		}
		if unsigned {
			ua, ub := uint64(a), uint64(b)
			if k == niro.Div {
				return int64(ua / ub), true
			}
			return int64(ua % ub), true
		}
		switch k {
		case niro.Div:
			return a / b, true
		case niro.Rem:
			return a % b, true
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, true
	case niro.Max:
		if unsigned && uint64(a) < uint64(b) || !unsigned && a < b {
			return b, true
		}
		return a, true
	case niro.Min:
		if unsigned && uint64(a) > uint64(b) || !unsigned && a > b {
			return b, true
		}
		return a, true
	case niro.And:
		return a & b, true
	case niro.Or:
		return a | b, true
	case niro.Xor:
		return a ^ b, true
	}
	return 0, false
}

func evalUnaryFloat(k niro.UnaryKind, a float64) (float64, bool) {
	switch k {
	case niro.Neg:
		return -a, true
	case niro.Abs:
		return math.Abs(a), true
	case niro.Floor:
		return math.Floor(a), true
	case niro.Ceil:
		return math.Ceil(a), true
	case niro.Round:
		return math.RoundToEven(a), true
	case niro.Sqrt:
		return math.Sqrt(a), true
	}
	return 0, false
}

func evalUnaryInt(k niro.UnaryKind, a int64) (int64, bool) {
	switch k {
	case niro.Neg:
		return -a, true
	case niro.Abs:
		if a < 0 {
			return -a, true
		}
		return a, true
	case niro.Not:
		return 1 - a, true
	case niro.BitNot:
		return ^a, true
	case niro.Sign:
		switch {
		case a > 0:
			return 1, true
		case a < 0:
			return -1, true
		}
		return 0, true
	}
	return 0, false
}

func evalCompareFloat(p niro.Predicate, a, b float64) bool {
	switch p {
	case niro.Eq:
		return a == b
	case niro.Ne:
		return a != b
	case niro.Lt:
		return a < b
	case niro.Le:
		return a <= b
	case niro.Gt:
		return a > b
	}
	return a >= b
}

func evalCompareInt(p niro.Predicate, unsigned bool, a, b int64) bool {
	lt := a < b
	if unsigned {
		lt = uint64(a) < uint64(b)
	}
	switch p {
	case niro.Eq:
		return a == b
	case niro.Ne:
		return a != b
	case niro.Lt:
		return lt
	case niro.Le:
		return lt || a == b
	case niro.Gt:
		return !lt && a != b
	}
	return !lt
}

// evalConcat joins ins along axis into out.
func evalConcat(axis int, ins []*known, out *known) *known {
	outer := 1
	for _, d := range out.dims[:axis] {
		outer *= int(d)
	}
	for o := 0; o < outer; o++ {
		for _, k := range ins {
			chunk := 1
			for _, d := range k.dims[axis:] {
				chunk *= int(d)
			}
			if k.elem != out.elem {
				return nil
			}
			if out.elem.IsFloat() {
				out.floats = append(out.floats, k.floats[o*chunk:(o+1)*chunk]...)
			} else {
				out.ints = append(out.ints, k.ints[o*chunk:(o+1)*chunk]...)
			}
		}
	}
	return out
}

// evalSlice reads op's strided window of x into out.
func evalSlice(op *niro.Slice, x *known, out *known) *known {
	r := len(out.dims)
	n := 1
	for _, d := range out.dims {
		n *= int(d)
	}
	idx := make([]int64, r)
	for i := 0; i < n; i++ {
		j := int64(0)
		for a := 0; a < r; a++ {
			j = j*x.dims[a] + op.Starts[a] + idx[a]*op.Steps[a]
		}
		if out.elem.IsFloat() {
			out.floats = append(out.floats, x.floats[j])
		} else {
			out.ints = append(out.ints, x.ints[j])
		}
		for a := r - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < out.dims[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}
