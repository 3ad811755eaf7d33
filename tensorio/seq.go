package tensorio

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/niro-dev/niro/internal/safefile"
)

// ONNX sequences and optionals (SequenceProto, OptionalProto): the values
// of the ONNX test data whose model input or output has a sequence or
// optional type. The two messages share their field numbers; only the
// model's declared type tells them apart (a SequenceProto of one tensor
// and an OptionalProto holding it are the same bytes), so the caller says
// which one a file holds.

// ValueKind says what a [Value] holds.
type ValueKind uint8

// Value kinds.
const (
	TensorValue ValueKind = iota + 1
	SequenceValue
	OptionalValue
)

func (k ValueKind) String() string {
	switch k {
	case TensorValue:
		return "tensor"
	case SequenceValue:
		return "sequence"
	case OptionalValue:
		return "optional"
	}
	return "invalid value kind"
}

// Value is a tensor, a sequence of values, or an optional value (none or
// one element).
type Value struct {
	Name   string
	Kind   ValueKind
	Tensor Tensor // TensorValue
	// Elems are a sequence's elements or an optional's element (none when
	// the optional is empty).
	Elems []Value
	// ElemKind is the kind of the elements as the file declares it (an
	// empty sequence or optional still has one); 0 when undefined.
	ElemKind ValueKind
}

// TensorOf wraps a tensor as a Value.
func TensorOf(t Tensor) Value { return Value{Name: t.Name, Kind: TensorValue, Tensor: t} }

// Flatten returns the tensors of v in order: v itself for a tensor, the
// elements' tensors for a sequence or optional.
func (v Value) Flatten() []Tensor {
	if v.Kind == TensorValue {
		return []Tensor{v.Tensor}
	}
	var out []Tensor
	for _, e := range v.Elems {
		out = append(out, e.Flatten()...)
	}
	return out
}

// SequenceProto and OptionalProto field numbers (onnx-data.proto); the
// element type enum is theirs (TENSOR 1, SPARSE_TENSOR 2, SEQUENCE 3,
// MAP 4, OPTIONAL 5).
const (
	pbsName     = 1
	pbsElemType = 2
	pbsTensor   = 3
	pbsSparse   = 4
	pbsSequence = 5
	pbsMap      = 6
	pbsOptional = 7

	elemTensor   = 1
	elemSparse   = 2
	elemSequence = 3
	elemMap      = 4
	elemOptional = 5
)

// maxValueNesting bounds sequences of sequences and optionals of optionals.
const maxValueNesting = 8

var kindOfElem = map[uint64]ValueKind{elemTensor: TensorValue, elemSequence: SequenceValue, elemOptional: OptionalValue}

// DecodeValuePB decodes a serialized value of the given kind: a
// TensorProto, a SequenceProto or an OptionalProto. Sparse tensors and
// maps are not supported.
func DecodeValuePB(data []byte, kind ValueKind) (Value, error) {
	return decodeValue(data, kind, 0)
}

func decodeValue(data []byte, kind ValueKind, depth int) (Value, error) {
	switch kind {
	case TensorValue:
		t, err := DecodePB(data)
		if err != nil {
			return Value{}, err
		}
		return TensorOf(t), nil
	case SequenceValue, OptionalValue:
	default:
		return Value{}, fmt.Errorf("cannot decode a value of kind %d", kind)
	}
	what := "SequenceProto"
	if kind == OptionalValue {
		what = "OptionalProto"
	}
	if depth >= maxValueNesting {
		return Value{}, fmt.Errorf("%s nested more than %d levels", what, maxValueNesting)
	}
	v := Value{Kind: kind}
	var elemType uint64
	type elem struct {
		field protowire.Number
		data  []byte
	}
	var elems []elem
	b := data
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return Value{}, fmt.Errorf("not a valid ONNX %s: %w", what, protowire.ParseError(n))
		}
		b = b[n:]
		switch num {
		case pbsName, pbsTensor, pbsSparse, pbsSequence, pbsMap, pbsOptional:
			if typ != protowire.BytesType {
				return Value{}, fmt.Errorf("not a valid ONNX %s: field %d has wire type %d, want %d", what, num, typ, protowire.BytesType)
			}
			var f []byte
			f, n = protowire.ConsumeBytes(b)
			if n >= 0 {
				if num == pbsName {
					v.Name = string(f)
				} else {
					elems = append(elems, elem{num, f})
				}
			}
		case pbsElemType:
			if typ != protowire.VarintType {
				return Value{}, fmt.Errorf("not a valid ONNX %s: field 2 (elem_type) has wire type %d, want %d", what, typ, protowire.VarintType)
			}
			elemType, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return Value{}, fmt.Errorf("not a valid ONNX %s: field %d: %w", what, num, protowire.ParseError(n))
		}
		b = b[n:]
	}
	switch elemType {
	case 0:
		if len(elems) > 0 {
			return Value{}, fmt.Errorf("%s %q has elements but no elem_type", what, v.Name)
		}
	case elemSparse:
		return Value{}, fmt.Errorf("%s %q holds sparse tensors, which are not supported", what, v.Name)
	case elemMap:
		return Value{}, fmt.Errorf("%s %q holds maps, which are not supported", what, v.Name)
	default:
		if kindOfElem[elemType] == 0 {
			return Value{}, fmt.Errorf("%s %q has unknown elem_type %d", what, v.Name, elemType)
		}
	}
	v.ElemKind = kindOfElem[elemType]
	want := map[ValueKind]protowire.Number{TensorValue: pbsTensor, SequenceValue: pbsSequence, OptionalValue: pbsOptional}[v.ElemKind]
	for _, e := range elems {
		if e.field != want {
			return Value{}, fmt.Errorf("%s %q has elem_type %d but holds field %d", what, v.Name, elemType, e.field)
		}
		x, err := decodeValue(e.data, v.ElemKind, depth+1)
		if err != nil {
			return Value{}, fmt.Errorf("%s %q element %d: %w", what, v.Name, len(v.Elems), err)
		}
		v.Elems = append(v.Elems, x)
	}
	if kind == OptionalValue && len(v.Elems) > 1 {
		return Value{}, fmt.Errorf("OptionalProto %q holds %d values, at most one allowed", v.Name, len(v.Elems))
	}
	return v, nil
}

// EncodeValuePB serializes v as a TensorProto, SequenceProto or
// OptionalProto, by its kind.
func EncodeValuePB(v Value) ([]byte, error) {
	switch v.Kind {
	case TensorValue:
		t := v.Tensor
		if v.Name != "" {
			t.Name = v.Name
		}
		return EncodePB(t)
	case SequenceValue, OptionalValue:
	default:
		return nil, fmt.Errorf("cannot encode a value of kind %d", v.Kind)
	}
	if v.Kind == OptionalValue && len(v.Elems) > 1 {
		return nil, fmt.Errorf("optional %q holds %d values, at most one allowed", v.Name, len(v.Elems))
	}
	ek := v.ElemKind
	for _, e := range v.Elems {
		if ek == 0 {
			ek = e.Kind
		}
		if e.Kind != ek {
			return nil, fmt.Errorf("%s %q mixes elements of kinds %s and %s", v.Kind, v.Name, ek, e.Kind)
		}
	}
	var b []byte
	if v.Name != "" {
		b = protowire.AppendTag(b, pbsName, protowire.BytesType)
		b = protowire.AppendString(b, v.Name)
	}
	field := map[ValueKind]protowire.Number{TensorValue: pbsTensor, SequenceValue: pbsSequence, OptionalValue: pbsOptional}[ek]
	if ek != 0 {
		code := map[ValueKind]uint64{TensorValue: elemTensor, SequenceValue: elemSequence, OptionalValue: elemOptional}[ek]
		b = protowire.AppendTag(b, pbsElemType, protowire.VarintType)
		b = protowire.AppendVarint(b, code)
	}
	for _, e := range v.Elems {
		eb, err := EncodeValuePB(e)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, field, protowire.BytesType)
		b = protowire.AppendBytes(b, eb)
	}
	return b, nil
}

// ReadValuePB reads a .pb file holding a value of the given kind.
func ReadValuePB(path string, kind ValueKind) (Value, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return Value{}, err
	}
	v, err := DecodeValuePB(data, kind)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// WriteValuePB writes v to path as a TensorProto, SequenceProto or
// OptionalProto file.
func WriteValuePB(path string, v Value) error {
	data, err := EncodeValuePB(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return safefile.WriteFile(path, data)
}

// DecodeAnyPB decodes a .pb file's bytes as a TensorProto or, when they
// have the shape of one, a SequenceProto or OptionalProto, returned as a
// SequenceValue (the two share their fields; the model's declared type
// tells which one was meant, see [Value.AsOptional]). A TensorProto is
// told apart by its fields: dims are varints there and a name or data
// field comes after field 7, while a SequenceProto's field 1 is its name
// and fields 3, 5 and 7 hold messages.
func DecodeAnyPB(data []byte) (Value, error) {
	if looksComposite(data) {
		if v, err := DecodeValuePB(data, SequenceValue); err == nil {
			return v, nil
		}
	}
	t, err := DecodePB(data)
	if err != nil {
		return Value{}, err
	}
	return TensorOf(t), nil
}

// looksComposite reports whether data parses as fields that a
// SequenceProto or OptionalProto has, with the wire types they have there.
func looksComposite(data []byte) bool {
	b := data
	seen := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case num == pbsElemType && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 || v > elemOptional {
				return false
			}
			n = m
		case (num == pbsName || num == pbsTensor || num == pbsSequence || num == pbsOptional) && typ == protowire.BytesType:
			_, n = protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			seen = seen || num == pbsName
		default:
			return false
		}
		b = b[n:]
		seen = true
	}
	return seen
}

// AsOptional returns v, read as a sequence by DecodeAnyPB, as the optional
// the same bytes encode; it fails when v holds more than one value.
func (v Value) AsOptional() (Value, error) {
	if v.Kind == OptionalValue {
		return v, nil
	}
	if v.Kind != SequenceValue || len(v.Elems) > 1 {
		return Value{}, fmt.Errorf("%q holds %d values, but an optional holds at most one", v.Name, len(v.Elems))
	}
	v.Kind = OptionalValue
	return v, nil
}

// ReadAnyPB reads a .pb file with DecodeAnyPB.
func ReadAnyPB(path string) (Value, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return Value{}, err
	}
	v, err := DecodeAnyPB(data)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
