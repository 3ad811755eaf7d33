package importer

import (
	"encoding/binary"
	"math"

	"github.com/niro-dev/niro/niro"
)

// Known values for shape folding. Exporters compute shapes at run time
// (Shape → Gather → Concat → Reshape chains, with Cast, arithmetic, Range
// and Where in between). The importer tracks small tensors whose values it
// knows (constants, small initializers, the Shape of a static type) and
// evaluates the Niro ops built on them, emitting a constant instead, so
// that the compiled function has static shapes wherever its inputs do.
//
// Only bool, integer, f32 and f64 values are tracked. The ops are
// evaluated by the reference interpreter (interp.EvalOp, see evalNiro),
// which computes what the compiled code does; transcendental functions
// are never folded.

// maxKnownElems bounds the tensors the importer tracks and the results it
// folds; larger ones are computed at run time.
const maxKnownElems = 4096

// known is a tensor with values known at import.
type known struct {
	elem   niro.ScalarType
	dims   []int64
	ints   []int64   // bool and integer elements (unsigned by bit pattern)
	floats []float64 // f32 and f64 elements
}

func (k *known) typ() niro.TensorType { return niro.TensorType{Elem: k.elem, Dims: k.dims} }

func (k *known) len() int {
	if k.elem.IsFloat() {
		return len(k.floats)
	}
	return len(k.ints)
}

// trackable reports whether values of element type e can be known.
func trackable(e niro.ScalarType) bool {
	return e == niro.Bool || e.IsInt() && e.Bits() >= 8 || e == niro.F32 || e == niro.F64
}

// Int returns element i as an integer (floats truncated).
func (k *known) int(i int) int64 {
	if k.elem.IsFloat() {
		return int64(k.floats[i])
	}
	return k.ints[i]
}

// knownOf returns the known value of v.
func (nc *nodeCtx) knownOf(v niro.Value) (*known, bool) {
	k, ok := nc.c.known[v.ID]
	return k, ok
}

// knownInts returns input i's values as integers when it is known.
func (nc *nodeCtx) knownInts(i int) ([]int64, bool) {
	if !nc.has(i) {
		return nil, false
	}
	k, ok := nc.knownOf(nc.args[i])
	if !ok || k.elem.IsFloat() {
		return nil, false
	}
	return k.ints, true
}

// knownInputs returns the known values of the node's inputs (nil for
// omitted ones), and whether every present input is known.
func (nc *nodeCtx) knownInputs() ([]*known, bool) {
	out := make([]*known, len(nc.args))
	for i := range nc.args {
		if !nc.have[i] {
			continue
		}
		k, ok := nc.knownOf(nc.args[i])
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

// recordKnown notes the value of a constant or global read, when small.
func (c *converter) recordKnown(v niro.Value, data []byte) {
	t, ok := v.Type.(niro.TensorType)
	if !ok || !t.HasStaticShape() || !trackable(t.Elem) || t.NumElements() > maxKnownElems {
		return
	}
	n := int(t.NumElements())
	if int64(len(data)) != niro.PackedBytes(t.Elem, int64(n)) {
		return
	}
	k := &known{elem: t.Elem, dims: append([]int64{}, t.Dims...)}
	w := (t.Elem.Bits() + 7) / 8
	for i := 0; i < n; i++ {
		b := data[i*w : (i+1)*w]
		switch {
		case t.Elem == niro.F32:
			k.floats = append(k.floats, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		case t.Elem == niro.F64:
			k.floats = append(k.floats, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		default:
			var u uint64
			for j := w - 1; j >= 0; j-- {
				u = u<<8 | uint64(b[j])
			}
			k.ints = append(k.ints, wrapInt(t.Elem, int64(u)))
		}
	}
	c.known[v.ID] = k
}

// wrapInt reduces v to the range of integer type e: sign-extended for
// signed types, zero-extended for unsigned ones; bool becomes 0 or 1.
func wrapInt(e niro.ScalarType, v int64) int64 {
	if e == niro.Bool {
		if v != 0 {
			return 1
		}
		return 0
	}
	bits := uint(e.Bits())
	if bits >= 64 {
		return v
	}
	if e.IsSigned() {
		return v << (64 - bits) >> (64 - bits)
	}
	return int64(uint64(v) & (1<<bits - 1))
}

// roundTo rounds v to the float type e.
func roundTo(e niro.ScalarType, v float64) float64 {
	if e == niro.F32 {
		return float64(float32(v))
	}
	return v
}

// encode returns the packed little-endian bytes of k.
func (k *known) encode() []byte {
	w := (k.elem.Bits() + 7) / 8
	out := make([]byte, w*k.len())
	for i := 0; i < k.len(); i++ {
		b := out[i*w : (i+1)*w]
		switch k.elem {
		case niro.F16, niro.BF16:
			binary.LittleEndian.PutUint16(b, uint16(niro.FloatBits(k.elem, k.floats[i])))
		case niro.F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(k.floats[i])))
		case niro.F64:
			binary.LittleEndian.PutUint64(b, math.Float64bits(k.floats[i]))
		default:
			u := uint64(k.ints[i])
			for j := 0; j < w; j++ {
				b[j] = byte(u >> (8 * j))
			}
		}
	}
	return out
}

// knownType returns k's type. The type of a rank-0 constant (the scalar
// operand of a Relu, a Clip bound, an epsilon) is made once per element
// type and shared, instead of once per constant.
func (c *converter) knownType(k *known) niro.Type {
	if len(k.dims) != 0 {
		return k.typ()
	}
	key := scalarKey{k.elem, k.dims == nil}
	t, ok := c.scalarTypes[key]
	if !ok {
		if c.scalarTypes == nil {
			c.scalarTypes = map[scalarKey]niro.Type{}
		}
		t = k.typ()
		c.scalarTypes[key] = t
	}
	return t
}

// scalarKey keys converter.scalarTypes: the element type, and whether the
// dimensions are nil rather than empty (kept apart so that every constant
// gets the very type it got before the types were shared).
type scalarKey struct {
	elem   niro.ScalarType
	nilDim bool
}

// constKnown adds a Const holding k and records its value.
func (nc *nodeCtx) constKnown(k *known) niro.Value {
	if nc.err != nil {
		return niro.Value{Type: k.typ()}
	}
	res := nc.c.fn.NewValue(nc.c.knownType(k))
	nc.e.add(&niro.Const{Result: res, Lit: niro.BytesLit(k.encode())})
	nc.c.known[res.ID] = k
	return res
}

// constInts adds an integer constant of element type e and shape dims.
func (nc *nodeCtx) constInts(e niro.ScalarType, dims []int64, vals []int64) niro.Value {
	k := &known{elem: e, dims: dims, ints: make([]int64, len(vals))}
	for i, v := range vals {
		k.ints[i] = wrapInt(e, v)
	}
	return nc.constKnown(k)
}
