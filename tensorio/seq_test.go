package tensorio

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/niro-dev/niro/niro"
)

func seqOf(name string, elems ...Value) Value {
	return Value{Name: name, Kind: SequenceValue, Elems: elems, ElemKind: TensorValue}
}

// TestValuePBRoundTrip writes sequences and optionals (empty, of tensors,
// an optional sequence) and reads them back, by kind and with
// DecodeAnyPB.
func TestValuePBRoundTrip(t *testing.T) {
	a := Tensor{Elem: niro.F32, Dims: []int64{2}, Data: []byte{0, 0, 128, 63, 0, 0, 0, 64}}
	b := Tensor{Elem: niro.I64, Dims: []int64{}, Data: []byte{7, 0, 0, 0, 0, 0, 0, 0}}
	cases := []Value{
		seqOf("s", TensorOf(a), TensorOf(a)),
		seqOf("empty"),
		{Name: "o", Kind: OptionalValue, ElemKind: TensorValue, Elems: []Value{TensorOf(b)}},
		{Name: "none", Kind: OptionalValue, ElemKind: TensorValue},
		{Name: "os", Kind: OptionalValue, ElemKind: SequenceValue, Elems: []Value{seqOf("", TensorOf(a), TensorOf(b))}},
	}
	dir := t.TempDir()
	for _, v := range cases {
		path := filepath.Join(dir, v.Name+".pb")
		if err := WriteValuePB(path, v); err != nil {
			t.Fatal(err)
		}
		got, err := ReadValuePB(path, v.Kind)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s: read back %+v, want %+v", v.Name, got, v)
		}
		any, err := ReadAnyPB(path)
		if err != nil {
			t.Fatalf("%s: ReadAnyPB: %v", v.Name, err)
		}
		if any.Kind != SequenceValue {
			t.Errorf("%s: ReadAnyPB gave a %s, want a sequence", v.Name, any.Kind)
		}
		if v.Kind == OptionalValue {
			if any, err = any.AsOptional(); err != nil || !reflect.DeepEqual(any, v) {
				t.Errorf("%s: AsOptional = %+v, %v", v.Name, any, err)
			}
		}
		if !reflect.DeepEqual(any.Flatten(), v.Flatten()) {
			t.Errorf("%s: flattened %v, want %v", v.Name, any.Flatten(), v.Flatten())
		}
	}
	// A plain TensorProto stays a tensor, named or not, empty or not.
	for _, x := range []Tensor{a, {Name: "z", Elem: niro.F32, Dims: []int64{0, 3}, Data: []byte{}}} {
		data, err := EncodePB(x)
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeAnyPB(data)
		if err != nil || v.Kind != TensorValue || v.Tensor.Name != x.Name || !reflect.DeepEqual(v.Tensor.Dims, x.Dims) {
			t.Errorf("tensor %v: DecodeAnyPB = %+v, %v", x.Dims, v, err)
		}
	}
}

// TestValuePBErrors checks malformed sequences and optionals.
func TestValuePBErrors(t *testing.T) {
	msg := func(fields ...func([]byte) []byte) []byte {
		var b []byte
		for _, f := range fields {
			b = f(b)
		}
		return b
	}
	elemType := func(v uint64) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), v)
		}
	}
	field := func(num protowire.Number, data []byte) func([]byte) []byte {
		return func(b []byte) []byte {
			return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), data)
		}
	}
	tensor, _ := EncodePB(Tensor{Elem: niro.F32, Dims: []int64{1}, Data: make([]byte, 4)})
	for _, c := range []struct {
		data []byte
		kind ValueKind
		want string
	}{
		{msg(field(3, tensor)), SequenceValue, "no elem_type"},
		{msg(elemType(4)), SequenceValue, "maps"},
		{msg(elemType(2)), SequenceValue, "sparse"},
		{msg(elemType(9)), SequenceValue, "unknown elem_type 9"},
		{msg(elemType(1), field(5, tensor)), SequenceValue, "holds field 5"},
		{msg(elemType(1), field(3, tensor), field(3, tensor)), OptionalValue, "at most one"},
		{msg(elemType(1), field(3, []byte{0xff})), SequenceValue, "element 0"},
	} {
		_, err := DecodeValuePB(c.data, c.kind)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%x as %s: got %v, want an error containing %q", c.data, c.kind, err, c.want)
		}
	}
	// Nesting is bounded.
	b := msg(elemType(1))
	for range maxValueNesting + 1 {
		b = msg(elemType(3), field(5, b))
	}
	if _, err := DecodeValuePB(b, SequenceValue); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep nesting: got %v", err)
	}
}
