package importer

import (
	"math"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// maxFoldedFloats bounds the float results folded at import.
const maxFoldedFloats = 16

// evalNiro evaluates a generic Niro op on known operand values, for
// shape folding, through the reference interpreter (interp.EvalOp): one
// definition of every op's semantics serves the interpreter, the passes'
// constant folding and this. It returns nil when the op, its element
// types or its result size are outside what the importer folds, or when
// the result would be undefined (an integer division by zero, a float to
// integer cast out of range, a gather index out of range).
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
	if !foldsAtImport(op, ins) {
		return nil
	}
	ts := make([]tensorio.Tensor, len(ins))
	for i, k := range ins {
		ts[i] = k.tensor()
	}
	outs, err := interp.EvalOp(op, ts, interp.Options{})
	if err != nil || len(outs) != 1 {
		return nil
	}
	return knownOfTensor(outs[0])
}

// foldsAtImport reports whether the importer folds op on these values:
// the exact element-wise kinds (never a transcendental function), compares,
// casts, selects, the shape and data-movement ops and reductions, with
// the undefined cases left to run time.
func foldsAtImport(op niro.Op, ins []*known) bool {
	switch op := op.(type) {
	case *niro.Binary:
		switch op.Kind {
		case niro.Add, niro.Sub, niro.Mul, niro.Div, niro.Max, niro.Min, niro.Rem:
			return true
		case niro.Mod, niro.And, niro.Or, niro.Xor:
			return !ins[0].elem.IsFloat()
		}
		return false
	case *niro.Unary:
		switch op.Kind {
		case niro.Neg, niro.Abs:
			return true
		case niro.Floor, niro.Ceil, niro.Round, niro.Sqrt:
			return ins[0].elem.IsFloat()
		case niro.Not, niro.BitNot, niro.Sign:
			return !ins[0].elem.IsFloat()
		}
		return false
	case *niro.Cast:
		if ins[0].elem.IsFloat() && !op.To.IsFloat() && op.To != niro.Bool {
			for _, f := range ins[0].floats {
				if t := math.Trunc(f); math.IsNaN(t) || math.Abs(t) >= 1<<63 {
					return false
				}
			}
		}
		return true
	case *niro.Gather:
		ext := ins[0].dims[op.Axis]
		for _, i := range ins[1].ints {
			if i < -ext || i >= ext {
				return false
			}
		}
		return true
	case *niro.Compare, *niro.Select, *niro.Reshape, *niro.Broadcast, *niro.Reduce, *niro.Concat, *niro.Slice, *niro.Iota:
		return true
	}
	return false
}

// tensor returns k packed.
func (k *known) tensor() tensorio.Tensor {
	n := k.len()
	t := tensorio.Tensor{Elem: k.elem, Dims: k.dims, Data: make([]byte, niro.PackedBytes(k.elem, int64(n)))}
	size := max(k.elem.Bits()/8, 1)
	for i := 0; i < n; i++ {
		var bits uint64
		switch k.elem {
		case niro.F32:
			bits = uint64(math.Float32bits(float32(k.floats[i])))
		case niro.F64:
			bits = math.Float64bits(k.floats[i])
		default:
			bits = uint64(k.ints[i])
		}
		for j := 0; j < size; j++ {
			t.Data[i*size+j] = byte(bits >> (8 * j))
		}
	}
	return t
}

// knownOfTensor unpacks a tensor of a trackable type.
func knownOfTensor(t tensorio.Tensor) *known {
	k := &known{elem: t.Elem, dims: append([]int64{}, t.Dims...)}
	n := int(t.NumElements())
	size := max(t.Elem.Bits()/8, 1)
	for i := 0; i < n; i++ {
		var bits uint64
		for j := 0; j < size; j++ {
			bits |= uint64(t.Data[i*size+j]) << (8 * j)
		}
		switch {
		case t.Elem == niro.F32:
			k.floats = append(k.floats, float64(math.Float32frombits(uint32(bits))))
		case t.Elem == niro.F64:
			k.floats = append(k.floats, math.Float64frombits(bits))
		case t.Elem.IsSigned():
			shift := 64 - uint(8*size)
			k.ints = append(k.ints, int64(bits<<shift)>>shift)
		default:
			k.ints = append(k.ints, int64(bits))
		}
	}
	return k
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
