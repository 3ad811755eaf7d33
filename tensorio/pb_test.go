package tensorio

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/niro-dev/niro/niro"
)

// pbBuilder writes TensorProto fields for tests.
type pbBuilder struct{ b []byte }

func (p *pbBuilder) varint(num protowire.Number, v uint64) *pbBuilder {
	p.b = protowire.AppendTag(p.b, num, protowire.VarintType)
	p.b = protowire.AppendVarint(p.b, v)
	return p
}

func (p *pbBuilder) bytes(num protowire.Number, v []byte) *pbBuilder {
	p.b = protowire.AppendTag(p.b, num, protowire.BytesType)
	p.b = protowire.AppendBytes(p.b, v)
	return p
}

func (p *pbBuilder) fixed32(num protowire.Number, v uint32) *pbBuilder {
	p.b = protowire.AppendTag(p.b, num, protowire.Fixed32Type)
	p.b = protowire.AppendFixed32(p.b, v)
	return p
}

func (p *pbBuilder) fixed64(num protowire.Number, v uint64) *pbBuilder {
	p.b = protowire.AppendTag(p.b, num, protowire.Fixed64Type)
	p.b = protowire.AppendFixed64(p.b, v)
	return p
}

func (p *pbBuilder) dims(dims ...int64) *pbBuilder {
	for _, d := range dims {
		p.varint(pbDims, uint64(d))
	}
	return p
}

func packedVarints(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, uint64(v))
	}
	return b
}

func le32(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func TestDecodePBRaw(t *testing.T) {
	for _, elem := range niro.AllScalarTypes() {
		in, err := Random(elem, []int64{3, 5}, 11)
		if err != nil {
			t.Fatal(err)
		}
		in.Name = "x_" + elem.String()
		b, err := EncodePB(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := DecodePB(b)
		if err != nil {
			t.Fatalf("%s: %v", elem, err)
		}
		if out.Name != in.Name || out.Elem != elem || FormatDims(out.Dims) != "3x5" || !bytes.Equal(out.Data, in.Data) {
			t.Errorf("%s: round trip gave %v %x, want %v %x", elem, out, out.Data, in, in.Data)
		}
	}
}

func TestDecodePBTyped(t *testing.T) {
	f32 := le32(1.5, -2, 3.25)
	tests := []struct {
		name string
		pb   *pbBuilder
		elem niro.ScalarType
		dims []int64
		data []byte
	}{
		{"float_data unpacked", new(pbBuilder).dims(3).varint(pbDataType, 1).
			fixed32(pbFloatData, math.Float32bits(1.5)).fixed32(pbFloatData, math.Float32bits(-2)).fixed32(pbFloatData, math.Float32bits(3.25)),
			niro.F32, []int64{3}, f32},
		{"float_data packed", new(pbBuilder).dims(3).varint(pbDataType, 1).bytes(pbFloatData, f32), niro.F32, []int64{3}, f32},
		{"complex64", new(pbBuilder).dims(1).varint(pbDataType, 14).bytes(pbFloatData, le32(1, 2)), niro.C64, []int64{1}, le32(1, 2)},
		{"double_data", new(pbBuilder).dims(2).varint(pbDataType, 11).fixed64(pbDoubleData, math.Float64bits(0.1)).
			bytes(pbDoubleData, binary.LittleEndian.AppendUint64(nil, math.Float64bits(-3))),
			niro.F64, []int64{2}, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.1)), math.Float64bits(-3))},
		{"int64_data", new(pbBuilder).dims(2).varint(pbDataType, 7).bytes(pbInt64Data, packedVarints(-1, 1<<40)),
			niro.I64, []int64{2}, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.MaxUint64), 1<<40)},
		{"uint64_data u32", new(pbBuilder).dims(1).varint(pbDataType, 12).varint(pbUint64Data, 0xfffffffe),
			niro.U32, []int64{1}, []byte{0xfe, 0xff, 0xff, 0xff}},
		{"int32_data i32", new(pbBuilder).dims(2).varint(pbDataType, 6).bytes(pbInt32Data, packedVarints(-7, 9)),
			niro.I32, []int64{2}, []byte{0xf9, 0xff, 0xff, 0xff, 9, 0, 0, 0}},
		{"int32_data i16", new(pbBuilder).dims(2).varint(pbDataType, 5).varint(pbInt32Data, uint64(0xffffffffffff8000)).varint(pbInt32Data, 0x7fff),
			niro.I16, []int64{2}, []byte{0x00, 0x80, 0xff, 0x7f}},
		{"int32_data u8", new(pbBuilder).dims(2).varint(pbDataType, 2).bytes(pbInt32Data, packedVarints(255, 0)),
			niro.U8, []int64{2}, []byte{255, 0}},
		{"int32_data bool", new(pbBuilder).dims(3).varint(pbDataType, 9).bytes(pbInt32Data, packedVarints(1, 0, 1)),
			niro.Bool, []int64{3}, []byte{1, 0, 1}},
		{"int32_data f16", new(pbBuilder).dims(2).varint(pbDataType, 10).bytes(pbInt32Data, packedVarints(0x3c00, 0xc000)),
			niro.F16, []int64{2}, []byte{0x00, 0x3c, 0x00, 0xc0}},
		{"int32_data bf16", new(pbBuilder).dims(1).varint(pbDataType, 16).varint(pbInt32Data, 0x3f80),
			niro.BF16, []int64{1}, []byte{0x80, 0x3f}},
		{"int32_data f8e4m3fn", new(pbBuilder).dims(2).varint(pbDataType, 17).bytes(pbInt32Data, packedVarints(0x38, 0xfe)),
			niro.F8E4M3FN, []int64{2}, []byte{0x38, 0xfe}},
		{"int32_data int4 odd", new(pbBuilder).dims(3).varint(pbDataType, 22).bytes(pbInt32Data, packedVarints(0x7f, 0x08)),
			niro.I4, []int64{3}, []byte{0x7f, 0x08}},
		{"int32_data uint2", new(pbBuilder).dims(5).varint(pbDataType, 25).bytes(pbInt32Data, packedVarints(0xe4, 0x03)),
			niro.U2, []int64{5}, []byte{0xe4, 0x03}},
		{"scalar", new(pbBuilder).varint(pbDataType, 1).bytes(pbRawData, le32(4)), niro.F32, []int64{}, le32(4)},
		{"empty no data", new(pbBuilder).dims(0, 4).varint(pbDataType, 1), niro.F32, []int64{0, 4}, []byte{}},
		{"unknown field skipped", new(pbBuilder).dims(1).varint(pbDataType, 1).bytes(12, []byte("doc")).varint(99, 5).bytes(pbRawData, le32(1)),
			niro.F32, []int64{1}, le32(1)},
		{"packed dims", new(pbBuilder).bytes(pbDims, packedVarints(2, 1)).varint(pbDataType, 3).bytes(pbRawData, []byte{0x80, 0x7f}),
			niro.I8, []int64{2, 1}, []byte{0x80, 0x7f}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodePB(tt.pb.b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Elem != tt.elem || FormatDims(got.Dims) != FormatDims(tt.dims) || !bytes.Equal(got.Data, tt.data) {
				t.Errorf("got %s %x, want %s %x", got.Type(), got.Data, niro.Tensor(tt.elem, tt.dims...), tt.data)
			}
		})
	}
}

func TestDecodePBErrors(t *testing.T) {
	tests := []struct {
		name string
		pb   *pbBuilder
		want string
	}{
		{"string type", new(pbBuilder).dims(1).varint(pbDataType, 8).bytes(pbStringData, []byte("a")), "string tensors are not supported"},
		{"string data", new(pbBuilder).dims(1).varint(pbDataType, 1).bytes(pbStringData, []byte("a")), "string tensors are not supported"},
		{"undefined", new(pbBuilder).dims(1).bytes(pbRawData, le32(1)), "no data_type"},
		{"unknown type", new(pbBuilder).dims(1).varint(pbDataType, 99), "unknown data_type 99"},
		{"external", new(pbBuilder).dims(1).varint(pbDataType, 1).varint(pbDataLocation, 1), "external data"},
		{"raw size", new(pbBuilder).dims(2, 2).varint(pbDataType, 1).bytes(pbRawData, le32(1, 2, 3)), "raw_data is 12 bytes, a f32 tensor of shape 2x2 needs 16"},
		{"no data", new(pbBuilder).dims(2).varint(pbDataType, 1), "has no data"},
		{"raw and typed", new(pbBuilder).dims(1).varint(pbDataType, 1).bytes(pbRawData, le32(1)).bytes(pbFloatData, le32(1)), "both raw_data and float_data"},
		{"two typed", new(pbBuilder).dims(1).varint(pbDataType, 1).bytes(pbFloatData, le32(1)).varint(pbInt32Data, 1), "both float_data and int32_data"},
		{"wrong field", new(pbBuilder).dims(1).varint(pbDataType, 7).bytes(pbFloatData, le32(1)), "float_data cannot hold i64 data (want int64_data)"},
		{"count", new(pbBuilder).dims(3).varint(pbDataType, 1).bytes(pbFloatData, le32(1, 2)), "float_data has 2 values, a f32 tensor of 3 elements needs 3"},
		{"int4 count", new(pbBuilder).dims(3).varint(pbDataType, 22).bytes(pbInt32Data, packedVarints(1, 2, 3)), "int32_data has 3 values, a i4 tensor of 3 elements needs 2"},
		{"range u8", new(pbBuilder).dims(1).varint(pbDataType, 2).varint(pbInt32Data, 256), "int32_data value 256 (index 0) is out of range for ui8"},
		{"range u32", new(pbBuilder).dims(1).varint(pbDataType, 12).varint(pbUint64Data, 1<<32), "out of range for ui32"},
		{"bool value", new(pbBuilder).dims(2).varint(pbDataType, 9).bytes(pbRawData, []byte{1, 3}), "bool element 1 has byte value 3"},
		{"negative dim", new(pbBuilder).varint(pbDims, uint64(math.MaxUint64)).varint(pbDataType, 1), "invalid shape -1"},
		{"huge shape", new(pbBuilder).dims(1<<40, 1<<40).varint(pbDataType, 1).bytes(pbRawData, le32(1)), "invalid shape"},
		{"wire type", new(pbBuilder).fixed32(pbDataType, 1), "field 2 (data_type) has wire type 5, want 0"},
		{"segment", new(pbBuilder).bytes(pbSegment, nil), "segmented tensors"},
		{"truncated", &pbBuilder{b: []byte{0x4a, 0x10, 1, 2}}, "not a valid ONNX TensorProto"},
		{"bad packed", new(pbBuilder).bytes(pbFloatData, []byte{1, 2, 3}), "not a multiple of 4"},
		{"bad packed varint", new(pbBuilder).bytes(pbInt64Data, []byte{0x80}), "packed values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodePB(tt.pb.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// sharedDir finds the directory shared/NAME by walking up from the package
// directory; the ONNX test data lives there, outside the repository.
func sharedDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("shared/%s not found above the module", name)
		}
		dir = parent
	}
}

// TestReadPBONNXTestData decodes every tensor file of the ONNX backend test
// data. The only files refused are string tensors and the sequence and
// optional values (not TensorProtos).
func TestReadPBONNXTestData(t *testing.T) {
	root := sharedDir(t, "onnx-tests")
	var ok, strs, other int
	typed := map[niro.ScalarType]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".pb") || !strings.Contains(path, "test_data_set_") {
			return err
		}
		tensor, err := ReadPB(path)
		switch {
		case err == nil:
			ok++
			if cerr := tensor.Check(); cerr != nil {
				t.Errorf("%s: decoded tensor is malformed: %v", path, cerr)
			}
			typed[tensor.Elem]++
		case strings.Contains(err.Error(), "string tensors"):
			strs++
		case strings.Contains(err.Error(), "not a TensorProto"):
			other++
		default:
			t.Errorf("%v", err)
		}
		if !strings.HasPrefix(errString(err), path) && err != nil {
			t.Errorf("error does not name the file: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("decoded %d tensors, %d string tensors, %d sequences/optionals; element types %v", ok, strs, other, typed)
	if ok < 6000 {
		t.Errorf("decoded only %d tensors", ok)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestReadPBKnownValues checks decoded values of a few ONNX test files
// against values the test documents state.
func TestReadPBKnownValues(t *testing.T) {
	root := sharedDir(t, "onnx-tests")
	// test_cast_FLOAT_to_FLOAT8E4M3FN stores its float8 output in int32_data.
	dir := filepath.Join(root, "node", "test_cast_FLOAT_to_FLOAT8E4M3FN", "test_data_set_0")
	in, err := ReadPB(filepath.Join(dir, "input_0.pb"))
	if err != nil {
		t.Skip(err)
	}
	out, err := ReadPB(filepath.Join(dir, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Elem != niro.F32 || out.Elem != niro.F8E4M3FN || in.NumElements() != out.NumElements() {
		t.Fatalf("input %v, output %v", in, out)
	}
	// Values small enough to be exact in float8 must survive the cast.
	for i := range in.NumElements() {
		x := floatAt(niro.F32, in.Data, i)
		y := floatAt(niro.F8E4M3FN, out.Data, i)
		if x == math.Trunc(x) && math.Abs(x) <= 16 && x != y {
			t.Errorf("element %d: float8 %v, input %v", i, y, x)
		}
	}
}
