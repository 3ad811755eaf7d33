package niro

import (
	"fmt"
	"strconv"
	"strings"
)

// Type is the union of Niro types: [ScalarType] or [TensorType].
//
//sumtype:decl
type Type interface {
	// String returns the MLIR spelling of the type.
	String() string
	isType()
}

// ScalarType is the type of a single non-tensor value.
type ScalarType uint8

// The scalar types. The spec's initial set is Bool, I32, I64, F32 and F64;
// the others are the element types ONNX models use.
const (
	InvalidScalar ScalarType = iota
	Bool
	I8
	I16
	I32
	I64
	U8
	U16
	U32
	U64
	F16
	BF16
	F32
	F64
	C64
	C128
	F8E4M3FN
	F8E4M3FNUZ
	F8E5M2
	F8E5M2FNUZ
	F8E8M0FNU
	F4E2M1FN
	I4
	U4
	I2
	U2
	numScalarTypes
)

type scalarInfo struct {
	name    string // MLIR spelling
	bits    int    // storage bits per element
	float   bool
	integer bool
	signed  bool
	complex bool
}

var scalarInfos = [numScalarTypes]scalarInfo{
	Bool:       {name: "i1", bits: 8, integer: false},
	I8:         {name: "i8", bits: 8, integer: true, signed: true},
	I16:        {name: "i16", bits: 16, integer: true, signed: true},
	I32:        {name: "i32", bits: 32, integer: true, signed: true},
	I64:        {name: "i64", bits: 64, integer: true, signed: true},
	U8:         {name: "ui8", bits: 8, integer: true},
	U16:        {name: "ui16", bits: 16, integer: true},
	U32:        {name: "ui32", bits: 32, integer: true},
	U64:        {name: "ui64", bits: 64, integer: true},
	F16:        {name: "f16", bits: 16, float: true},
	BF16:       {name: "bf16", bits: 16, float: true},
	F32:        {name: "f32", bits: 32, float: true},
	F64:        {name: "f64", bits: 64, float: true},
	C64:        {name: "complex<f32>", bits: 64, complex: true},
	C128:       {name: "complex<f64>", bits: 128, complex: true},
	F8E4M3FN:   {name: "f8E4M3FN", bits: 8, float: true},
	F8E4M3FNUZ: {name: "f8E4M3FNUZ", bits: 8, float: true},
	F8E5M2:     {name: "f8E5M2", bits: 8, float: true},
	F8E5M2FNUZ: {name: "f8E5M2FNUZ", bits: 8, float: true},
	F8E8M0FNU:  {name: "f8E8M0FNU", bits: 8, float: true},
	F4E2M1FN:   {name: "f4E2M1FN", bits: 4, float: true},
	I4:         {name: "i4", bits: 4, integer: true, signed: true},
	U4:         {name: "ui4", bits: 4, integer: true},
	I2:         {name: "i2", bits: 2, integer: true, signed: true},
	U2:         {name: "ui2", bits: 2, integer: true},
}

// AllScalarTypes returns every valid scalar type, in declaration order.
func AllScalarTypes() []ScalarType {
	out := make([]ScalarType, 0, numScalarTypes-1)
	for s := Bool; s < numScalarTypes; s++ {
		out = append(out, s)
	}
	return out
}

func (ScalarType) isType() {}

// Valid reports whether s is one of the defined scalar types.
func (s ScalarType) Valid() bool { return s > InvalidScalar && s < numScalarTypes }

// String returns the MLIR spelling: i1 for Bool, ui8 for U8, f32, complex<f32>…
func (s ScalarType) String() string {
	if !s.Valid() {
		return fmt.Sprintf("<invalid scalar %d>", uint8(s))
	}
	return scalarInfos[s].name
}

// Bits returns the storage size of one element in bits. Bool is stored as
// one byte; the 4- and 2-bit types are packed.
func (s ScalarType) Bits() int {
	if !s.Valid() {
		return 0
	}
	return scalarInfos[s].bits
}

// IsFloat reports whether s is a real floating-point type.
func (s ScalarType) IsFloat() bool { return s.Valid() && scalarInfos[s].float }

// IsInt reports whether s is an integer type (Bool excluded).
func (s ScalarType) IsInt() bool { return s.Valid() && scalarInfos[s].integer }

// IsSigned reports whether s is a signed integer type.
func (s ScalarType) IsSigned() bool { return s.Valid() && scalarInfos[s].signed }

// IsComplex reports whether s is a complex type.
func (s ScalarType) IsComplex() bool { return s.Valid() && scalarInfos[s].complex }

// IntRange returns the inclusive range of an integer type's values, as
// int64 for the lower bound and uint64 for the upper bound.
func (s ScalarType) IntRange() (lo int64, hi uint64) {
	bits := s.Bits()
	if s.IsSigned() {
		return -1 << (bits - 1), 1<<(bits-1) - 1
	}
	if bits == 64 {
		return 0, ^uint64(0)
	}
	return 0, 1<<bits - 1
}

// PackedBytes returns the number of bytes n elements of t occupy when packed
// row-major, as ONNX packs them (sub-byte elements share bytes, low bits
// first). It returns -1 if the size overflows.
func PackedBytes(t ScalarType, n int64) int64 {
	bits := int64(t.Bits())
	if n < 0 || bits == 0 {
		return -1
	}
	if n > (1<<62)/bits {
		return -1
	}
	return (n*bits + 7) / 8
}

// ParseScalarType parses an MLIR scalar spelling such as "f32" or "ui8".
func ParseScalarType(s string) (ScalarType, bool) {
	for t := Bool; t < numScalarTypes; t++ {
		if scalarInfos[t].name == s {
			return t, true
		}
	}
	return InvalidScalar, false
}

// Dynamic marks a dimension whose extent is unknown until execution.
const Dynamic int64 = -1

// TensorType describes a tensor by element type and shape. A nil or empty
// Dims with Unranked false is a rank-zero tensor; Unranked true means the
// rank is unknown and Dims is ignored.
type TensorType struct {
	Elem     ScalarType
	Dims     []int64
	Unranked bool
}

func (TensorType) isType() {}

// Tensor returns a ranked tensor type. Use [Dynamic] for a dynamic extent.
func Tensor(elem ScalarType, dims ...int64) TensorType {
	return TensorType{Elem: elem, Dims: append([]int64(nil), dims...)}
}

// UnrankedTensor returns a tensor type of unknown rank.
func UnrankedTensor(elem ScalarType) TensorType {
	return TensorType{Elem: elem, Unranked: true}
}

// Rank returns the number of dimensions, or -1 when unranked.
func (t TensorType) Rank() int {
	if t.Unranked {
		return -1
	}
	return len(t.Dims)
}

// HasStaticShape reports whether the tensor is ranked with only
// non-negative extents.
func (t TensorType) HasStaticShape() bool {
	if t.Unranked {
		return false
	}
	for _, d := range t.Dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// NumElements returns the number of elements of a static shape, or -1 if
// the shape is not static or the count overflows.
func (t TensorType) NumElements() int64 {
	if !t.HasStaticShape() {
		return -1
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d != 0 && n > (1<<62)/d {
			return -1
		}
		n *= d
	}
	return n
}

// String returns the MLIR spelling: tensor<?x4xf32>, tensor<*xf32>, tensor<f32>.
func (t TensorType) String() string {
	var sb strings.Builder
	sb.WriteString("tensor<")
	if t.Unranked {
		sb.WriteString("*x")
	} else {
		for _, d := range t.Dims {
			if d == Dynamic {
				sb.WriteString("?")
			} else {
				sb.WriteString(strconv.FormatInt(d, 10))
			}
			sb.WriteString("x")
		}
	}
	sb.WriteString(t.Elem.String())
	sb.WriteString(">")
	return sb.String()
}

// TypesEqual reports whether a and b are the same type.
func TypesEqual(a, b Type) bool {
	switch a := a.(type) {
	case ScalarType:
		b, ok := b.(ScalarType)
		return ok && a == b
	case TensorType:
		b, ok := b.(TensorType)
		if !ok || a.Elem != b.Elem || a.Unranked != b.Unranked {
			return false
		}
		if a.Unranked {
			return true
		}
		if len(a.Dims) != len(b.Dims) {
			return false
		}
		for i := range a.Dims {
			if a.Dims[i] != b.Dims[i] {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	default:
		panic(fmt.Sprintf("niro: unhandled type %T", a))
	}
}

// typeString prints a possibly-nil type without crashing.
func typeString(t Type) string {
	if t == nil {
		return "<nil type>"
	}
	return t.String()
}

// FunctionType holds the input and output types of a function.
type FunctionType struct {
	Inputs  []Type
	Outputs []Type
}

// String returns the MLIR spelling (f32, f32) -> (f32).
func (ft FunctionType) String() string {
	return "(" + typeList(ft.Inputs) + ") -> (" + typeList(ft.Outputs) + ")"
}

func typeList(ts []Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = typeString(t)
	}
	return strings.Join(parts, ", ")
}
