package importer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// Tensor is a constant tensor: an initializer, a tensor attribute or a
// sparse tensor part. Its payload is kept as packed little-endian bytes
// (sub-byte elements packed low bits first), aliasing the model file or
// the mapped external data file whenever the file already stores it in
// that form.
type Tensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	// External is set when the payload came from an external data file.
	External *ExternalData

	data    []byte
	strings [][]byte
}

// ExternalData tells where an external tensor's payload lives.
type ExternalData struct {
	// Location is the file name relative to the model's directory.
	Location string
	Offset   int64
	Length   int64
}

// NumElements returns the number of elements (1 for rank 0).
func (t *Tensor) NumElements() int64 {
	n, _ := numElements(t.Dims)
	return n
}

// Bytes returns the packed little-endian payload. The slice aliases the
// model's memory: it must not be modified, and it is valid until the model
// is closed. It is nil for string tensors.
func (t *Tensor) Bytes() []byte { return t.data }

// Strings returns the elements of a STRING tensor.
func (t *Tensor) Strings() [][]byte { return t.strings }

// NiroType returns the tensor's Niro type; it fails for string tensors.
func (t *Tensor) NiroType() (niro.TensorType, error) {
	s, ok := ScalarType(t.DataType)
	if !ok {
		return niro.TensorType{}, fmt.Errorf("element type %s is not supported", dataTypeName(t.DataType))
	}
	return niro.Tensor(s, t.Dims...), nil
}

// maxElements bounds element counts so that byte sizes cannot overflow.
const maxElements = 1 << 58

// numElements multiplies dims, rejecting negative extents and overflow.
func numElements(dims []int64) (int64, error) {
	n := int64(1)
	for i, d := range dims {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is negative (%d)", i, d)
		}
		if d != 0 && n > maxElements/d {
			return 0, fmt.Errorf("shape %v has more than 2^58 elements", dims)
		}
		n *= d
	}
	return n, nil
}

// littleEndian reports whether the host stores integers little-endian, so
// that typed repeated fields can be reinterpreted as packed bytes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decodeTensor converts a TensorProto. It validates the dimensions, the
// element type and the payload size against the data actually present
// before it allocates anything.
func (ld *loader) decodeTensor(tp *onnxpb.TensorProto) (*Tensor, error) {
	t := &Tensor{Name: tp.GetName(), DataType: DataType(tp.GetDataType()), Dims: tp.GetDims()}
	err := ld.fillTensor(t, tp)
	if err != nil {
		if t.Name != "" {
			return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		return nil, fmt.Errorf("tensor: %w", err)
	}
	return t, nil
}

func (ld *loader) fillTensor(t *Tensor, tp *onnxpb.TensorProto) error {
	n, err := numElements(t.Dims)
	if err != nil {
		return err
	}
	if !validDataType(t.DataType) {
		return fmt.Errorf("invalid element type %s", dataTypeName(t.DataType))
	}
	if tp.GetSegment() != nil {
		return errors.New("segmented tensors are not supported")
	}
	external := tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL
	fields := presentFields(tp)
	if external && len(fields) > 0 {
		return fmt.Errorf("tensor stores its data externally but also has %s", fields[0])
	}
	if len(fields) > 1 {
		return fmt.Errorf("tensor has both %s and %s", fields[0], fields[1])
	}
	if t.DataType == dtString {
		if external || (len(fields) == 1 && fields[0] != "string_data") {
			return errors.New("string tensor must store its elements in string_data")
		}
		if int64(len(tp.GetStringData())) != n {
			return fmt.Errorf("string_data has %d elements, shape %v needs %d", len(tp.GetStringData()), t.Dims, n)
		}
		t.strings = tp.GetStringData()
		return nil
	}
	st, _ := ScalarType(t.DataType)
	size := niro.PackedBytes(st, n)
	if size < 0 {
		return fmt.Errorf("shape %v of %s is too large", t.Dims, dataTypeName(t.DataType))
	}
	if external {
		ext, data, err := ld.externalData(tp.GetExternalData(), size)
		if err != nil {
			return err
		}
		t.External, t.data = ext, data
		return nil
	}
	if len(fields) == 0 {
		if n != 0 {
			return fmt.Errorf("tensor has %d elements but no data", n)
		}
		t.data = []byte{}
		return nil
	}
	field := fields[0]
	if field == "raw_data" {
		if int64(len(tp.GetRawData())) != size {
			return fmt.Errorf("raw_data has %d bytes, %d elements of type %s need %d", len(tp.GetRawData()), n, dataTypeName(t.DataType), size)
		}
		t.data = tp.GetRawData()
		return nil
	}
	t.data, err = typedPayload(tp, field, st, n, size)
	return err
}

// presentFields lists the payload fields a tensor sets.
func presentFields(tp *onnxpb.TensorProto) []string {
	var out []string
	if tp.RawData != nil {
		out = append(out, "raw_data")
	}
	if len(tp.FloatData) > 0 {
		out = append(out, "float_data")
	}
	if len(tp.Int32Data) > 0 {
		out = append(out, "int32_data")
	}
	if len(tp.StringData) > 0 {
		out = append(out, "string_data")
	}
	if len(tp.Int64Data) > 0 {
		out = append(out, "int64_data")
	}
	if len(tp.DoubleData) > 0 {
		out = append(out, "double_data")
	}
	if len(tp.Uint64Data) > 0 {
		out = append(out, "uint64_data")
	}
	return out
}

// typedField names the repeated field ONNX uses for each element type.
func typedField(dt DataType) string {
	switch dt {
	case dtFloat, dtComplex64:
		return "float_data"
	case dtDouble, dtComplex128:
		return "double_data"
	case dtInt64:
		return "int64_data"
	case dtUint32, dtUint64:
		return "uint64_data"
	default:
		return "int32_data"
	}
}

// typedPayload converts a typed repeated field into packed bytes. The
// number of entries is checked first, so the allocation is bounded by the
// size of the decoded field.
func typedPayload(tp *onnxpb.TensorProto, field string, st niro.ScalarType, n, size int64) ([]byte, error) {
	dt := DataType(tp.GetDataType())
	if want := typedField(dt); field != want {
		return nil, fmt.Errorf("%s tensor stores its elements in %s, want raw_data or %s", dataTypeName(dt), field, want)
	}
	entries := n
	switch {
	case st.IsComplex():
		entries = 2 * n
	case st.Bits() < 8:
		// One int32_data entry holds one packed byte: two 4-bit or four
		// 2-bit elements.
		entries = size
	}
	count := func(got int) error {
		if int64(got) != entries {
			return fmt.Errorf("%s has %d entries, %d elements of type %s need %d", field, got, n, dataTypeName(dt), entries)
		}
		return nil
	}
	switch field {
	case "float_data":
		if err := count(len(tp.FloatData)); err != nil {
			return nil, err
		}
		return viewOrEncode(tp.FloatData, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }), nil
	case "double_data":
		if err := count(len(tp.DoubleData)); err != nil {
			return nil, err
		}
		return viewOrEncode(tp.DoubleData, 8, func(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) }), nil
	case "int64_data":
		if err := count(len(tp.Int64Data)); err != nil {
			return nil, err
		}
		return viewOrEncode(tp.Int64Data, 8, func(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }), nil
	case "uint64_data":
		if err := count(len(tp.Uint64Data)); err != nil {
			return nil, err
		}
		if dt == dtUint64 {
			return viewOrEncode(tp.Uint64Data, 8, func(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }), nil
		}
		out := make([]byte, 4*len(tp.Uint64Data))
		for i, v := range tp.Uint64Data {
			if v > math.MaxUint32 {
				return nil, fmt.Errorf("uint64_data[%d] = %d is out of range for uint32", i, v)
			}
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
		}
		return out, nil
	default: // int32_data
		if err := count(len(tp.Int32Data)); err != nil {
			return nil, err
		}
		return int32Payload(tp.Int32Data, dt, st)
	}
}

// int32Payload narrows int32_data entries to the element type's storage.
func int32Payload(vals []int32, dt DataType, st niro.ScalarType) ([]byte, error) {
	if dt == dtInt32 {
		return viewOrEncode(vals, 4, func(b []byte, v int32) { binary.LittleEndian.PutUint32(b, uint32(v)) }), nil
	}
	var lo, hi int64
	width := 1
	switch {
	case dt == dtBool:
		lo, hi = 0, 1
	case st.Bits() < 8, st.Bits() == 8 && !st.IsSigned():
		lo, hi = 0, math.MaxUint8
	case st.Bits() == 8:
		lo, hi = math.MinInt8, math.MaxInt8
	case dt == dtInt16:
		lo, hi, width = math.MinInt16, math.MaxInt16, 2
	default: // uint16, float16, bfloat16 (bit patterns)
		lo, hi, width = 0, math.MaxUint16, 2
	}
	out := make([]byte, width*len(vals))
	for i, v := range vals {
		if int64(v) < lo || int64(v) > hi {
			return nil, fmt.Errorf("int32_data[%d] = %d is out of range for %s storage", i, v, dataTypeName(dt))
		}
		if width == 1 {
			out[i] = byte(v)
		} else {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		}
	}
	return out, nil
}

// viewOrEncode returns the bytes of vals as packed little-endian data:
// on a little-endian host a view of the same memory, otherwise a copy.
func viewOrEncode[T float32 | float64 | int32 | int64 | uint64](vals []T, width int, put func([]byte, T)) []byte {
	if len(vals) == 0 {
		return []byte{}
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*width)
	}
	out := make([]byte, len(vals)*width)
	for i, v := range vals {
		put(out[i*width:], v)
	}
	return out
}

// externalData resolves a tensor's external_data entries and returns the
// mapped payload, which must be exactly size bytes.
func (ld *loader) externalData(entries []*onnxpb.StringStringEntryProto, size int64) (*ExternalData, []byte, error) {
	ext := &ExternalData{Length: -1}
	haveLoc := false
	for _, e := range entries {
		switch e.GetKey() {
		case "location":
			ext.Location, haveLoc = e.GetValue(), true
		case "offset", "length":
			v, err := strconv.ParseInt(e.GetValue(), 10, 64)
			if err != nil || v < 0 {
				return nil, nil, fmt.Errorf("external data %s %q is not a non-negative integer", e.GetKey(), e.GetValue())
			}
			if e.GetKey() == "offset" {
				ext.Offset = v
			} else {
				ext.Length = v
			}
		}
	}
	if !haveLoc || ext.Location == "" {
		return nil, nil, errors.New("external data has no location")
	}
	if ext.Length >= 0 && ext.Length != size {
		return nil, nil, fmt.Errorf("external data length is %d bytes, the tensor needs %d", ext.Length, size)
	}
	ext.Length = size
	file, err := ld.externalFile(ext.Location)
	if err != nil {
		return nil, nil, err
	}
	if ext.Offset > math.MaxInt64-size {
		return nil, nil, fmt.Errorf("external data offset %d plus the tensor's %d bytes overflows a 64-bit file offset", ext.Offset, size)
	}
	if ext.Offset > int64(len(file)) || size > int64(len(file))-ext.Offset {
		return nil, nil, fmt.Errorf("external data file %q has %d bytes, the tensor needs bytes [%d, %d)", ext.Location, len(file), ext.Offset, ext.Offset+size)
	}
	end := ext.Offset + size
	return ext, file[ext.Offset:end:end], nil
}
