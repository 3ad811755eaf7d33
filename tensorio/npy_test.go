package tensorio

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

const testdataDir = "../testdata/tensorio"

// numpyValues builds the tensor testdata/tensorio/gen_npy.py writes:
// element i of a real float tensor is 1.5*i - 2 (imaginary part -0.5*i for
// complex), signed integers 7*i - 5, unsigned 7*i, bools i%3 == 0.
func numpyValues(t *testing.T, elem niro.ScalarType, dims ...int64) Tensor {
	t.Helper()
	n := NumElements(dims)
	out := Tensor{Elem: elem, Dims: append([]int64{}, dims...), Data: make([]byte, niro.PackedBytes(elem, n))}
	d := out.Data
	for i := range n {
		f := 1.5*float64(i) - 2
		switch elem {
		case niro.Bool:
			if i%3 == 0 {
				d[i] = 1
			}
		case niro.F16:
			binary.LittleEndian.PutUint16(d[2*i:], F16FromFloat32(float32(f)))
		case niro.F32:
			binary.LittleEndian.PutUint32(d[4*i:], math.Float32bits(float32(f)))
		case niro.F64:
			binary.LittleEndian.PutUint64(d[8*i:], math.Float64bits(f))
		case niro.C64:
			binary.LittleEndian.PutUint32(d[8*i:], math.Float32bits(float32(f)))
			binary.LittleEndian.PutUint32(d[8*i+4:], math.Float32bits(float32(0-0.5*float64(i))))
		case niro.C128:
			binary.LittleEndian.PutUint64(d[16*i:], math.Float64bits(f))
			binary.LittleEndian.PutUint64(d[16*i+8:], math.Float64bits(0-0.5*float64(i)))
		default:
			v := 7 * i
			if elem.IsSigned() {
				v -= 5
			}
			size := int64(elem.Bits() / 8)
			for k := range size {
				d[size*i+k] = byte(uint64(v) >> (8 * k))
			}
		}
	}
	return out
}

func TestReadNPYNumpyFiles(t *testing.T) {
	tests := []struct {
		file string
		elem niro.ScalarType
		dims []int64
	}{
		{"f2.npy", niro.F16, []int64{2, 3}},
		{"f4.npy", niro.F32, []int64{2, 3}},
		{"f8.npy", niro.F64, []int64{2, 3}},
		{"i1.npy", niro.I8, []int64{2, 3}},
		{"u1.npy", niro.U8, []int64{2, 3}},
		{"i2.npy", niro.I16, []int64{2, 3}},
		{"u2.npy", niro.U16, []int64{2, 3}},
		{"i4.npy", niro.I32, []int64{2, 3}},
		{"u4.npy", niro.U32, []int64{2, 3}},
		{"i8.npy", niro.I64, []int64{2, 3}},
		{"u8.npy", niro.U64, []int64{2, 3}},
		{"b1.npy", niro.Bool, []int64{2, 3}},
		{"c8.npy", niro.C64, []int64{2, 3}},
		{"c16.npy", niro.C128, []int64{2, 3}},
		{"be_f2.npy", niro.F16, []int64{2, 3}},
		{"be_f4.npy", niro.F32, []int64{2, 3}},
		{"be_f8.npy", niro.F64, []int64{2, 3}},
		{"be_u2.npy", niro.U16, []int64{2, 3}},
		{"be_i8.npy", niro.I64, []int64{2, 3}},
		{"be_c8.npy", niro.C64, []int64{2, 3}},
		{"be_c16.npy", niro.C128, []int64{2, 3}},
		{"fortran_f8.npy", niro.F64, []int64{2, 3}},
		{"fortran_i4_3d.npy", niro.I32, []int64{2, 3, 4}},
		{"fortran_be_c8_3d.npy", niro.C64, []int64{3, 1, 2}},
		{"v2_f4.npy", niro.F32, []int64{2, 3}},
		{"v3_i2.npy", niro.I16, []int64{2, 3}},
		{"scalar_f8.npy", niro.F64, []int64{}},
		{"empty_f4.npy", niro.F32, []int64{0, 3}},
		{"vec_u1.npy", niro.U8, []int64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ReadNPY(filepath.Join(testdataDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			want := numpyValues(t, tt.elem, tt.dims...)
			if got.Elem != want.Elem || FormatDims(got.Dims) != FormatDims(want.Dims) {
				t.Fatalf("got %s, want %s", got.Type(), want.Type())
			}
			if !bytes.Equal(got.Data, want.Data) {
				t.Errorf("data = %x, want %x", got.Data, want.Data)
			}
		})
	}
}

// TestEncodeNPYMatchesNumpy checks that EncodeNPY writes the same bytes as
// numpy.save for little-endian C-order arrays.
func TestEncodeNPYMatchesNumpy(t *testing.T) {
	for _, name := range []string{"f2.npy", "f4.npy", "f8.npy", "i1.npy", "u8.npy", "b1.npy", "c8.npy", "c16.npy",
		"scalar_f8.npy", "empty_f4.npy", "vec_u1.npy"} {
		path := filepath.Join(testdataDir, name)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tensor, err := DecodeNPY(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeNPY(tensor)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("%s: EncodeNPY differs from numpy:\n got %q\nwant %q", name, got[:min(len(got), 128)], raw[:min(len(raw), 128)])
		}
	}
}

func TestNPYRoundTrip(t *testing.T) {
	for _, elem := range niro.AllScalarTypes() {
		if _, ok := NPYDescr(elem); !ok {
			continue
		}
		in, err := Random(elem, []int64{3, 1, 4}, 7)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := WriteNPY(path, in); err != nil {
			t.Fatal(err)
		}
		out, err := ReadNPY(path)
		if err != nil {
			t.Fatal(err)
		}
		if out.Elem != elem || FormatDims(out.Dims) != "3x1x4" || !bytes.Equal(out.Data, in.Data) {
			t.Errorf("%s: round trip gave %s %x, want %x", elem, out.Type(), out.Data, in.Data)
		}
	}
}

// TestNPYVersion2 writes a header too long for format 1.0.
func TestNPYVersion2(t *testing.T) {
	dims := make([]int64, 30000)
	for i := range dims {
		dims[i] = 1
	}
	in := Tensor{Elem: niro.F32, Dims: dims, Data: []byte{0, 0, 128, 63}}
	b, err := EncodeNPY(in)
	if err != nil {
		t.Fatal(err)
	}
	if b[6] != 2 || b[7] != 0 {
		t.Fatalf("version %d.%d, want 2.0", b[6], b[7])
	}
	if hl := 12 + int(binary.LittleEndian.Uint32(b[8:])); hl%64 != 0 || b[hl-1] != '\n' {
		t.Errorf("data starts at %d, want a multiple of 64 after a newline", hl)
	}
	out, err := DecodeNPY(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Dims) != 30000 || !bytes.Equal(out.Data, in.Data) {
		t.Errorf("round trip: rank %d data %x", len(out.Dims), out.Data)
	}
}

// npyFile builds a format 1.0 .npy file from a header dict and data.
func npyFile(header string, data []byte) []byte {
	b := []byte(npyMagic + "\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(header)+1))
	b = append(b, header...)
	b = append(b, '\n')
	return append(b, data...)
}

func TestDecodeNPYErrors(t *testing.T) {
	f4 := func(n int) []byte { return make([]byte, 4*n) }
	hdr := func(descr, fortran, shape string) string {
		return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }"
	}
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "not a .npy file"},
		{"magic", []byte("\x93NUMPX\x01\x00\x00\x00"), "not a .npy file"},
		{"version", []byte(npyMagic + "\x04\x00\x00\x00"), "unsupported .npy format version 4.0"},
		{"v2 truncated", []byte(npyMagic + "\x02\x00\x00\x00"), "truncated"},
		{"header too long", []byte(npyMagic + "\x01\x00\xff\xff{}"), "header length 65535 exceeds the file size"},
		{"v2 header too long", []byte(npyMagic + "\x02\x00\xff\xff\xff\xff{}"), "exceeds the file size"},
		{"not dict", npyFile("[1, 2]", nil), "not a dictionary"},
		{"missing key", npyFile("{'descr': '<f4', 'shape': (1,), }", f4(1)), `missing key "fortran_order"`},
		{"extra key", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", f4(1)), `unexpected key "x"`},
		{"duplicate key", npyFile("{'descr': '<f4', 'descr': '<f4'}", f4(1)), "duplicate key"},
		{"structured", npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", f4(1)), "structured dtypes"},
		{"dtype", npyFile(hdr("<f16", "False", "(1,)"), make([]byte, 16)), `unsupported .npy dtype "<f16"`},
		{"object", npyFile(hdr("|O", "False", "(1,)"), make([]byte, 8)), `unsupported .npy dtype "|O"`},
		{"no byte order", npyFile(hdr("|f4", "False", "(1,)"), f4(1)), "without a byte order"},
		{"bool word", npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", f4(1)), "expected True or False"},
		{"negative dim", npyFile(hdr("<f4", "False", "(-1,)"), f4(1)), "non-negative integer"},
		{"dim range", npyFile(hdr("<f4", "False", "(99999999999999999999,)"), f4(1)), "out of range"},
		{"overflow", npyFile(hdr("<f4", "False", "(4294967296, 4294967296)"), f4(1)), "too large"},
		{"int not tuple", npyFile(hdr("<f4", "False", "(3)"), f4(3)), "(N,)"},
		{"short data", npyFile(hdr("<f4", "False", "(2, 3)"), f4(5)), "data is 20 bytes, shape 2x3 of <f4 needs 24"},
		{"long data", npyFile(hdr("<f4", "False", "(2, 3)"), f4(7)), "data is 28 bytes"},
		{"bool value", npyFile(hdr("|b1", "False", "(3,)"), []byte{0, 2, 1}), "bool element 1 has byte value 2"},
		{"trailing", npyFile(hdr("<f4", "False", "(1,)")+" x", f4(1)), "unexpected text after"},
		{"unterminated", npyFile("{'descr", nil), "unterminated string"},
		{"escape", npyFile(`{'descr': '<f\4', 'fortran_order': False, 'shape': (1,), }`, f4(1)), "escapes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeNPY(tt.file)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestReadNPYNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.npy")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadNPY(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("error = %v, want it to start with the path", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "x.txt")); err == nil || !strings.Contains(err.Error(), "unknown tensor file type") {
		t.Errorf("ReadFile(.txt) error = %v", err)
	}
}

func TestEncodeNPYErrors(t *testing.T) {
	if _, err := EncodeNPY(Tensor{Elem: niro.BF16, Dims: []int64{1}, Data: []byte{0, 0}}); err == nil || !strings.Contains(err.Error(), "numpy has no dtype for bf16") {
		t.Errorf("bf16: %v", err)
	}
	if _, err := EncodeNPY(Tensor{Elem: niro.F32, Dims: []int64{2}, Data: []byte{0, 0}}); err == nil || !strings.Contains(err.Error(), "needs 8 bytes, has 2") {
		t.Errorf("short data: %v", err)
	}
}

func TestRawFiles(t *testing.T) {
	dir := t.TempDir()
	in, _ := Random(niro.I16, []int64{2, 5}, 1)
	path := filepath.Join(dir, "x.bin")
	if err := WriteRaw(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRaw(path, niro.I16, []int64{2, 5})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Data, in.Data) {
		t.Errorf("raw round trip differs")
	}
	if _, err := ReadRaw(path, niro.I16, []int64{3, 5}); err == nil || !strings.Contains(err.Error(), "has 20 bytes, a i16 tensor of shape 3x5 needs 30") {
		t.Errorf("size mismatch: %v", err)
	}
}

func TestReadWriteFile(t *testing.T) {
	in, _ := Random(niro.U16, []int64{4}, 3)
	for _, name := range []string{"t.npy", "t.pb", "T.NPY"} {
		path := filepath.Join(t.TempDir(), name)
		if err := WriteFile(path, in); err != nil {
			t.Fatal(err)
		}
		out, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if out.Elem != in.Elem || !bytes.Equal(out.Data, in.Data) {
			t.Errorf("%s: round trip differs", name)
		}
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "t.bin"), in); err == nil {
		t.Error("WriteFile(.bin) succeeded")
	}
}
