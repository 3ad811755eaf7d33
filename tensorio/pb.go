package tensorio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/niro"
)

// ONNX TensorProto field numbers (onnx.proto).
const (
	pbDims         = 1
	pbDataType     = 2
	pbSegment      = 3
	pbFloatData    = 4
	pbInt32Data    = 5
	pbStringData   = 6
	pbInt64Data    = 7
	pbName         = 8
	pbRawData      = 9
	pbDoubleData   = 10
	pbUint64Data   = 11
	pbExternalData = 13
	pbDataLocation = 14
)

// onnxString is TensorProto.DataType STRING.
const onnxString = 8

// onnxTypes maps TensorProto.DataType values to element types.
var onnxTypes = map[int64]niro.ScalarType{
	1: niro.F32, 2: niro.U8, 3: niro.I8, 4: niro.U16, 5: niro.I16, 6: niro.I32, 7: niro.I64,
	9: niro.Bool, 10: niro.F16, 11: niro.F64, 12: niro.U32, 13: niro.U64, 14: niro.C64, 15: niro.C128,
	16: niro.BF16, 17: niro.F8E4M3FN, 18: niro.F8E4M3FNUZ, 19: niro.F8E5M2, 20: niro.F8E5M2FNUZ,
	21: niro.U4, 22: niro.I4, 23: niro.F4E2M1FN, 24: niro.F8E8M0FNU, 25: niro.U2, 26: niro.I2,
}

// ONNXDataType returns the TensorProto.DataType value of elem.
func ONNXDataType(elem niro.ScalarType) (int32, bool) {
	for dt, t := range onnxTypes {
		if t == elem {
			return int32(dt), true
		}
	}
	return 0, false
}

// ReadPB reads an ONNX TensorProto file (the test data's input_K.pb and
// output_K.pb).
func ReadPB(path string) (Tensor, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return Tensor{}, err
	}
	t, err := DecodePB(data)
	if err != nil {
		return Tensor{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// pbTensor collects the fields of a TensorProto as they are decoded.
type pbTensor struct {
	dims     []int64
	dataType int64
	name     string
	raw      []byte
	hasRaw   bool
	floats   []uint32 // float_data, as bit patterns
	int32s   []int64  // int32_data, sign-extended
	int64s   []int64
	doubles  []uint64 // double_data, as bit patterns
	uint64s  []uint64
	strings  int
	external bool
	// notTensor records signs of a SequenceProto, OptionalProto or
	// MapProto, whose field 1 is a string and field 3 a message.
	notTensor bool
}

// notTensorHint explains errors from files that look like another ONNX
// value type.
const notTensorHint = " (the file may hold an ONNX SequenceProto, OptionalProto or MapProto, not a TensorProto)"

var pbFieldNames = map[protowire.Number]string{
	pbDims: "dims", pbDataType: "data_type", pbSegment: "segment", pbFloatData: "float_data",
	pbInt32Data: "int32_data", pbStringData: "string_data", pbInt64Data: "int64_data", pbName: "name",
	pbRawData: "raw_data", pbDoubleData: "double_data", pbUint64Data: "uint64_data",
	pbExternalData: "external_data", pbDataLocation: "data_location",
}

// DecodePB decodes a serialized ONNX TensorProto. Values may come from
// raw_data (little-endian) or from the typed fields (float_data,
// int32_data, int64_data, double_data, uint64_data), packed or not. The
// returned Data may share memory with data.
func DecodePB(data []byte) (Tensor, error) {
	var p pbTensor
	if err := p.decode(data); err != nil {
		return Tensor{}, fmt.Errorf("not a valid ONNX TensorProto: %w", err)
	}
	t, err := p.tensor()
	if err != nil && p.notTensor {
		err = fmt.Errorf("%w%s", err, notTensorHint)
	}
	return t, err
}

func (p *pbTensor) decode(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		want, known := pbFieldWire(num)
		if known && typ != want && !(typ == protowire.BytesType && isPackable(num)) {
			return fmt.Errorf("field %d (%s) has wire type %d, want %d (is this a TensorProto?)", num, pbFieldNames[num], typ, want)
		}
		var err error
		switch num {
		case pbDims:
			if typ == protowire.BytesType {
				p.notTensor = true
			}
			n, err = consumeVarints(b, typ, func(v uint64) { p.dims = append(p.dims, int64(v)) })
		case pbDataType:
			var v uint64
			v, n = protowire.ConsumeVarint(b)
			p.dataType = int64(int32(v))
		case pbSegment:
			return errors.New("segmented tensors are not supported" + notTensorHint)
		case pbFloatData:
			n, err = consumeFixed32s(b, typ, func(v uint32) { p.floats = append(p.floats, v) })
		case pbInt32Data:
			n, err = consumeVarints(b, typ, func(v uint64) { p.int32s = append(p.int32s, int64(int32(v))) })
		case pbStringData:
			_, n = protowire.ConsumeBytes(b)
			p.strings++
		case pbInt64Data:
			n, err = consumeVarints(b, typ, func(v uint64) { p.int64s = append(p.int64s, int64(v)) })
		case pbName:
			var v []byte
			v, n = protowire.ConsumeBytes(b)
			p.name = string(v)
		case pbRawData:
			p.raw, n = protowire.ConsumeBytes(b)
			p.hasRaw = true
		case pbDoubleData:
			n, err = consumeFixed64s(b, typ, func(v uint64) { p.doubles = append(p.doubles, v) })
		case pbUint64Data:
			n, err = consumeVarints(b, typ, func(v uint64) { p.uint64s = append(p.uint64s, v) })
		case pbExternalData:
			_, n = protowire.ConsumeBytes(b)
			p.external = true
		case pbDataLocation:
			var v uint64
			v, n = protowire.ConsumeVarint(b)
			if v != 0 {
				p.external = true
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if err != nil {
			return fmt.Errorf("field %d (%s): %w", num, pbFieldNames[num], err)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
	}
	return nil
}

// pbFieldWire returns the wire type a known TensorProto field uses.
func pbFieldWire(num protowire.Number) (protowire.Type, bool) {
	switch num {
	case pbDims, pbDataType, pbInt32Data, pbInt64Data, pbUint64Data, pbDataLocation:
		return protowire.VarintType, true
	case pbFloatData:
		return protowire.Fixed32Type, true
	case pbDoubleData:
		return protowire.Fixed64Type, true
	case pbSegment, pbStringData, pbName, pbRawData, pbExternalData:
		return protowire.BytesType, true
	}
	return 0, false
}

func isPackable(num protowire.Number) bool {
	switch num {
	case pbDims, pbFloatData, pbInt32Data, pbInt64Data, pbDoubleData, pbUint64Data:
		return true
	}
	return false
}

// consumeVarints reads one varint or a packed run of them.
func consumeVarints(b []byte, typ protowire.Type, add func(uint64)) (int, error) {
	if typ == protowire.VarintType {
		v, n := protowire.ConsumeVarint(b)
		if n >= 0 {
			add(v)
		}
		return n, nil
	}
	buf, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return n, nil
	}
	for len(buf) > 0 {
		v, m := protowire.ConsumeVarint(buf)
		if m < 0 {
			return 0, fmt.Errorf("packed values: %w", protowire.ParseError(m))
		}
		add(v)
		buf = buf[m:]
	}
	return n, nil
}

func consumeFixed32s(b []byte, typ protowire.Type, add func(uint32)) (int, error) {
	if typ == protowire.Fixed32Type {
		v, n := protowire.ConsumeFixed32(b)
		if n >= 0 {
			add(v)
		}
		return n, nil
	}
	buf, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return n, nil
	}
	if len(buf)%4 != 0 {
		return 0, fmt.Errorf("packed fixed32 values: length %d is not a multiple of 4", len(buf))
	}
	for i := 0; i < len(buf); i += 4 {
		add(binary.LittleEndian.Uint32(buf[i:]))
	}
	return n, nil
}

func consumeFixed64s(b []byte, typ protowire.Type, add func(uint64)) (int, error) {
	if typ == protowire.Fixed64Type {
		v, n := protowire.ConsumeFixed64(b)
		if n >= 0 {
			add(v)
		}
		return n, nil
	}
	buf, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return n, nil
	}
	if len(buf)%8 != 0 {
		return 0, fmt.Errorf("packed fixed64 values: length %d is not a multiple of 8", len(buf))
	}
	for i := 0; i < len(buf); i += 8 {
		add(binary.LittleEndian.Uint64(buf[i:]))
	}
	return n, nil
}

// tensor checks the decoded fields against each other and builds the tensor.
func (p *pbTensor) tensor() (Tensor, error) {
	if p.dataType == onnxString || p.strings > 0 {
		return Tensor{}, errors.New("string tensors are not supported")
	}
	elem, ok := onnxTypes[p.dataType]
	if !ok {
		if p.dataType == 0 {
			return Tensor{}, errors.New("tensor has no data_type (UNDEFINED)" + notTensorHint)
		}
		return Tensor{}, fmt.Errorf("unknown data_type %d", p.dataType)
	}
	if p.external {
		return Tensor{}, errors.New("tensors with external data are not supported in tensor files")
	}
	t := Tensor{Name: p.name, Elem: elem, Dims: p.dims}
	if t.Dims == nil {
		t.Dims = []int64{}
	}
	n := NumElements(t.Dims)
	if n < 0 {
		return Tensor{}, fmt.Errorf("invalid shape %s", FormatDims(t.Dims))
	}
	size := niro.PackedBytes(elem, n)
	if size < 0 {
		return Tensor{}, fmt.Errorf("shape %s of %s is too large", FormatDims(t.Dims), elem)
	}
	if err := CheckSize(p.name, elem, t.Dims); err != nil {
		return Tensor{}, err
	}
	typed := []struct {
		name  string
		count int
	}{
		{"float_data", len(p.floats)}, {"int32_data", len(p.int32s)}, {"int64_data", len(p.int64s)},
		{"double_data", len(p.doubles)}, {"uint64_data", len(p.uint64s)},
	}
	var field string
	var count int
	for _, f := range typed {
		if f.count == 0 {
			continue
		}
		if field != "" {
			return Tensor{}, fmt.Errorf("both %s and %s hold data", field, f.name)
		}
		field, count = f.name, f.count
	}
	switch {
	case p.hasRaw && field != "":
		return Tensor{}, fmt.Errorf("both raw_data and %s hold data", field)
	case p.hasRaw:
		if int64(len(p.raw)) != size {
			return Tensor{}, fmt.Errorf("raw_data is %d bytes, a %s tensor of shape %s needs %d", len(p.raw), elem, FormatDims(t.Dims), size)
		}
		t.Data = p.raw
		if elem == niro.Bool {
			if err := checkBools(t.Data); err != nil {
				return Tensor{}, err
			}
		}
		return t, nil
	case field == "":
		if n != 0 {
			return Tensor{}, fmt.Errorf("a %s tensor of shape %s has no data", elem, FormatDims(t.Dims))
		}
		t.Data = []byte{}
		return t, nil
	}
	var err error
	t.Data, err = p.typedData(elem, n, field, count)
	if err != nil {
		return Tensor{}, err
	}
	return t, nil
}

// typedData converts the values of the one typed field that holds data into
// packed little-endian bytes.
func (p *pbTensor) typedData(elem niro.ScalarType, n int64, field string, count int) ([]byte, error) {
	wantField, perEntry := typedField(elem)
	if field != wantField {
		return nil, fmt.Errorf("%s cannot hold %s data (want %s)", field, elem, wantField)
	}
	// Entries needed: n elements, perEntry (>1 for sub-byte types) per
	// entry, or two entries per complex element.
	var want int64
	switch {
	case elem.IsComplex():
		want = 2 * n
	default:
		want = (n + int64(perEntry) - 1) / int64(perEntry)
	}
	if int64(count) != want {
		return nil, fmt.Errorf("%s has %d values, a %s tensor of %d elements needs %d", field, count, elem, n, want)
	}
	out := make([]byte, niro.PackedBytes(elem, n))
	switch field {
	case "float_data":
		for i, v := range p.floats {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
	case "double_data":
		for i, v := range p.doubles {
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
	case "int64_data":
		for i, v := range p.int64s {
			binary.LittleEndian.PutUint64(out[8*i:], uint64(v))
		}
	case "uint64_data":
		for i, v := range p.uint64s {
			if elem == niro.U32 {
				if v > math.MaxUint32 {
					return nil, fmt.Errorf("uint64_data value %d (index %d) is out of range for %s", v, i, elem)
				}
				binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(out[8*i:], v)
			}
		}
	case "int32_data":
		lo, hi := int32DataRange(elem)
		bytesPer := max(elem.Bits()/8, 1)
		for i, v := range p.int32s {
			if v < lo || v > hi {
				return nil, fmt.Errorf("int32_data value %d (index %d) is out of range for %s", v, i, elem)
			}
			if elem == niro.Bool && v > 1 {
				return nil, fmt.Errorf("int32_data value %d (index %d) is not a bool", v, i)
			}
			u := uint32(v)
			for k := range bytesPer {
				out[bytesPer*i+k] = byte(u >> (8 * k))
			}
		}
	}
	return out, nil
}

// typedField returns the TensorProto field that holds elem's values when
// raw_data is not used, and how many elements one entry holds.
func typedField(elem niro.ScalarType) (string, int) {
	switch elem {
	case niro.F32, niro.C64:
		return "float_data", 1
	case niro.F64, niro.C128:
		return "double_data", 1
	case niro.I64:
		return "int64_data", 1
	case niro.U32, niro.U64:
		return "uint64_data", 1
	case niro.I4, niro.U4, niro.F4E2M1FN:
		return "int32_data", 2
	case niro.I2, niro.U2:
		return "int32_data", 4
	}
	return "int32_data", 1
}

// int32DataRange returns the values int32_data may hold for elem. Types
// stored as bit patterns (f16, bf16, float8, packed sub-byte bytes) accept
// both the unsigned pattern and its sign-extended form.
func int32DataRange(elem niro.ScalarType) (lo, hi int64) {
	switch {
	case elem == niro.Bool:
		return 0, 1
	case elem == niro.I32:
		return math.MinInt32, math.MaxInt32
	case elem == niro.I16:
		return math.MinInt16, math.MaxInt16
	case elem == niro.I8:
		return math.MinInt8, math.MaxInt8
	case elem == niro.U16:
		return 0, math.MaxUint16
	case elem == niro.U8:
		return 0, math.MaxUint8
	case elem.Bits() == 16:
		return math.MinInt16, math.MaxUint16
	}
	return math.MinInt8, math.MaxUint8
}

// EncodePB serializes t as an ONNX TensorProto with its data in raw_data.
func EncodePB(t Tensor) ([]byte, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	dt, ok := ONNXDataType(t.Elem)
	if !ok {
		return nil, fmt.Errorf("ONNX has no data type for %s", t.Elem)
	}
	var b []byte
	for _, d := range t.Dims {
		b = protowire.AppendTag(b, pbDims, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(d))
	}
	b = protowire.AppendTag(b, pbDataType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(dt))
	if t.Name != "" {
		b = protowire.AppendTag(b, pbName, protowire.BytesType)
		b = protowire.AppendString(b, t.Name)
	}
	b = protowire.AppendTag(b, pbRawData, protowire.BytesType)
	b = protowire.AppendBytes(b, t.Data)
	return b, nil
}

// WritePB writes t to path as an ONNX TensorProto file.
func WritePB(path string, t Tensor) error {
	data, err := EncodePB(t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return safefile.WriteFile(path, data)
}
