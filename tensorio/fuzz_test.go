package tensorio

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/niro-dev/niro/niro"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/tensorio/pb/*.pb")

// pbCorpus returns the TensorProto seeds kept in testdata/tensorio/pb.
func pbCorpus() map[string][]byte {
	i4, _ := Random(niro.I4, []int64{3, 3}, 5)
	i4.Name = "packed_int4"
	raw4, _ := EncodePB(i4)
	f8, _ := Random(niro.F8E5M2, []int64{2, 2}, 6)
	f8.Name = "f8"
	rawF8, _ := EncodePB(f8)
	return map[string][]byte{
		"raw_f32.pb":  mustPB(Tensor{Name: "x", Elem: niro.F32, Dims: []int64{2, 2}, Data: le32(1, -2, 0.5, 3)}),
		"raw_bool.pb": mustPB(Tensor{Name: "mask", Elem: niro.Bool, Dims: []int64{3}, Data: []byte{1, 0, 1}}),
		"raw_int4.pb": raw4,
		"raw_f8.pb":   rawF8,
		"scalar_i64.pb": mustPB(Tensor{Name: "n", Elem: niro.I64, Dims: []int64{},
			Data: []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}),
		"empty_f16.pb": mustPB(Tensor{Elem: niro.F16, Dims: []int64{0, 2}, Data: []byte{}}),
		"float_data.pb": new(pbBuilder).dims(3).varint(pbDataType, 1).bytes(pbFloatData, le32(1.5, -2, 3.25)).
			bytes(pbName, []byte("typed")).b,
		"int32_data_f16.pb": new(pbBuilder).dims(2).varint(pbDataType, 10).bytes(pbInt32Data, packedVarints(0x3c00, 0xc000)).b,
		"int32_data_uint4.pb": new(pbBuilder).dims(3).varint(pbDataType, 21).varint(pbInt32Data, 0x21).
			varint(pbInt32Data, 0x03).b,
		"int64_data.pb":  new(pbBuilder).dims(2).varint(pbDataType, 7).bytes(pbInt64Data, packedVarints(-1, 1<<40)).b,
		"double_data.pb": new(pbBuilder).dims(1).varint(pbDataType, 11).fixed64(pbDoubleData, 0x3ff0000000000000).b,
		"uint64_data.pb": new(pbBuilder).dims(1).varint(pbDataType, 13).varint(pbUint64Data, 1<<63).b,
		"string.pb":      new(pbBuilder).dims(1).varint(pbDataType, 8).bytes(pbStringData, []byte("s")).b,
	}
}

func mustPB(t Tensor) []byte {
	b, err := EncodePB(t)
	if err != nil {
		panic(err)
	}
	return b
}

// TestPBCorpus keeps testdata/tensorio/pb in step with pbCorpus (run with
// -update-corpus to rewrite it).
func TestPBCorpus(t *testing.T) {
	dir := filepath.Join(testdataDir, "pb")
	for name, data := range pbCorpus() {
		path := filepath.Join(dir, name)
		if *updateCorpus {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestPBCorpus -update-corpus)", err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s is out of date (run go test -run TestPBCorpus -update-corpus)", path)
		}
	}
}

// addSeeds adds every file matching pattern under testdata/tensorio.
func addSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join(testdataDir, pattern))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatalf("no seed files match %s", pattern)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzDecodeNPY(f *testing.F) {
	addSeeds(f, "*.npy")
	f.Add([]byte(npyMagic + "\x01\x00\x10\x00{'descr': '<f4'}"))
	f.Add(npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 0, 3), }", nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		tensor, err := DecodeNPY(data)
		if !bytes.Equal(data, orig) {
			t.Fatal("DecodeNPY modified its input")
		}
		if err != nil {
			return
		}
		if err := tensor.Check(); err != nil {
			t.Fatalf("decoded a malformed tensor: %v", err)
		}
		enc, err := EncodeNPY(tensor)
		if err != nil {
			t.Fatalf("cannot re-encode %v: %v", tensor, err)
		}
		again, err := DecodeNPY(enc)
		if err != nil {
			t.Fatalf("cannot decode the re-encoded tensor: %v", err)
		}
		if again.Elem != tensor.Elem || !slices.Equal(again.Dims, tensor.Dims) || !bytes.Equal(again.Data, tensor.Data) {
			t.Fatal("round trip changed the tensor")
		}
	})
}

func FuzzDecodePB(f *testing.F) {
	addSeeds(f, "pb/*.pb")
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		tensor, err := DecodePB(data)
		if !bytes.Equal(data, orig) {
			t.Fatal("DecodePB modified its input")
		}
		if err != nil {
			return
		}
		if err := tensor.Check(); err != nil {
			t.Fatalf("decoded a malformed tensor: %v", err)
		}
		enc, err := EncodePB(tensor)
		if err != nil {
			t.Fatalf("cannot re-encode %v: %v", tensor, err)
		}
		again, err := DecodePB(enc)
		if err != nil {
			t.Fatalf("cannot decode the re-encoded tensor: %v", err)
		}
		if again.Name != tensor.Name || again.Elem != tensor.Elem || !slices.Equal(again.Dims, tensor.Dims) || !bytes.Equal(again.Data, tensor.Data) {
			t.Fatal("round trip changed the tensor")
		}
	})
}

// FuzzDecodeAnyPB decodes arbitrary bytes as a tensor, sequence or
// optional; what decodes must re-encode and decode (by its kind) to the
// same value.
func FuzzDecodeAnyPB(f *testing.F) {
	addSeeds(f, "pb/*.pb")
	tensor, _ := EncodePB(Tensor{Elem: niro.F32, Dims: []int64{1}, Data: make([]byte, 4)})
	seq, _ := EncodeValuePB(Value{Name: "s", Kind: SequenceValue, ElemKind: TensorValue, Elems: []Value{TensorOf(Tensor{Elem: niro.F32, Dims: []int64{1}, Data: make([]byte, 4)})}})
	f.Add(tensor)
	f.Add(seq)
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		v, err := DecodeAnyPB(data)
		if !bytes.Equal(data, orig) {
			t.Fatal("DecodeAnyPB modified its input")
		}
		if err != nil {
			return
		}
		for _, x := range v.Flatten() {
			if err := x.Check(); err != nil {
				t.Fatalf("decoded a malformed tensor: %v", err)
			}
		}
		enc, err := EncodeValuePB(v)
		if err != nil {
			t.Fatalf("cannot re-encode %+v: %v", v, err)
		}
		again, err := DecodeValuePB(enc, v.Kind)
		if err != nil {
			t.Fatalf("cannot decode the re-encoded value: %v", err)
		}
		a, b := v.Flatten(), again.Flatten()
		if again.Name != v.Name || len(a) != len(b) {
			t.Fatal("round trip changed the value")
		}
		for i := range a {
			if a[i].Elem != b[i].Elem || !slices.Equal(a[i].Dims, b[i].Dims) || !bytes.Equal(a[i].Data, b[i].Data) {
				t.Fatalf("round trip changed element %d", i)
			}
		}
	})
}
