package niro

import (
	"fmt"
	"sort"
)

// ValueID identifies a value. IDs are unique within a function, nested
// regions included; different functions may reuse them.
type ValueID uint32

// Value is an immutable reference to an SSA value: its ID and its type.
// A value is defined as a block argument or an operation result; operands
// refer to the definition by ID and repeat its type.
type Value struct {
	ID   ValueID
	Type Type
}

// String returns the value's printed name, %ID.
func (v Value) String() string { return fmt.Sprintf("%%%d", v.ID) }

// Literal is data written directly into the IR: [BoolLit], [IntLit],
// [FloatLit] or [BytesLit]. The operation that holds a literal gives it its
// type. Tensor literals are packed, row-major, little-endian bytes.
//
//sumtype:decl
type Literal interface {
	isLiteral()
}

// BoolLit is a boolean literal.
type BoolLit bool

// IntLit is an integer literal; unsigned 64-bit values are stored by their
// bit pattern.
type IntLit int64

// FloatLit is a floating-point literal.
type FloatLit float64

// BytesLit is raw bytes: packed tensor data or an opaque payload.
type BytesLit []byte

func (BoolLit) isLiteral()  {}
func (IntLit) isLiteral()   {}
func (FloatLit) isLiteral() {}
func (BytesLit) isLiteral() {}

// Attribute is compile-time configuration or metadata: [UnitAttr],
// [BoolAttr], [IntAttr], [FloatAttr], [StringAttr], [BytesAttr] or the
// aggregate [ListAttr].
//
//sumtype:decl
type Attribute interface {
	isAttribute()
}

// UnitAttr is the empty attribute: its presence is the information.
type UnitAttr struct{}

// BoolAttr is a boolean attribute.
type BoolAttr bool

// IntAttr is an integer attribute.
type IntAttr int64

// FloatAttr is a floating-point attribute.
type FloatAttr float64

// StringAttr is a string attribute.
type StringAttr string

// BytesAttr is a raw byte-string attribute.
type BytesAttr []byte

// ListAttr is an aggregate of attributes.
type ListAttr []Attribute

func (UnitAttr) isAttribute()   {}
func (BoolAttr) isAttribute()   {}
func (IntAttr) isAttribute()    {}
func (FloatAttr) isAttribute()  {}
func (StringAttr) isAttribute() {}
func (BytesAttr) isAttribute()  {}
func (ListAttr) isAttribute()   {}

// Attrs maps attribute names to attributes. It prints sorted by name.
type Attrs map[string]Attribute

// Names returns the attribute names in sorted order.
func (a Attrs) Names() []string {
	names := make([]string, 0, len(a))
	for k := range a {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
