package importer

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// externalTensor returns a FLOAT initializer whose data lives in a file.
func externalTensor(name string, dims []int64, location string, offset, length int64) *onnxpb.TensorProto {
	t := &onnxpb.TensorProto{
		Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dtFloat)),
		DataLocation: onnxpb.TensorProto_EXTERNAL.Enum(),
		ExternalData: []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String(location)}},
	}
	if offset >= 0 {
		t.ExternalData = append(t.ExternalData, &onnxpb.StringStringEntryProto{Key: proto.String("offset"), Value: proto.String(strconv.FormatInt(offset, 10))})
	}
	if length >= 0 {
		t.ExternalData = append(t.ExternalData, &onnxpb.StringStringEntryProto{Key: proto.String("length"), Value: proto.String(strconv.FormatInt(length, 10))})
	}
	return t
}

// writeExternalModel writes model.onnx (x + w) into dir and returns its path.
func writeExternalModel(t *testing.T, dir string, w *onnxpb.TensorProto) string {
	t.Helper()
	m := model(13, graph("g",
		[]*onnxpb.NodeProto{node("Add", []string{"x", "w"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 3)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 3)},
		w))
	path := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(path, marshal(t, m), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	want := floats("", nil, 1, 2, 3, 4, 5, 6).RawData
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "w.bin"), append(bytes.Repeat([]byte{0xee}, 16), want...), 0o644); err != nil {
		t.Fatal(err)
	}
	path := writeExternalModel(t, dir, externalTensor("w", []int64{2, 3}, "data/w.bin", 16, 24))
	m, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := m.Graph.Initializers[0].Initializer
	if !bytes.Equal(w.Bytes(), want) || w.External == nil || w.External.Offset != 16 {
		t.Fatalf("external tensor = %x (%+v), want %x at offset 16", w.Bytes(), w.External, want)
	}
	mod, err := Convert(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := mod.Lookup("w")
	if lit := g.Init.(niro.BytesLit); &lit[0] != &w.Bytes()[0] {
		t.Error("the global's literal is a copy of the mapped data, want an alias")
	}
	if s := Summarize(m, mod); s.ExternalBytes != 24 {
		t.Errorf("summary external bytes = %d, want 24", s.ExternalBytes)
	}
}

func TestExternalDataErrors(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.bin"), make([]byte, 24), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		location string
		offset   int64
		length   int64
		setup    func(dir string) error
		want     string
	}{
		{name: "absolute", location: filepath.Join(outside, "secret.bin"), offset: -1, length: -1,
			want: "escapes the model directory (absolute paths"},
		{name: "dotdot", location: "../secret.bin", offset: -1, length: -1,
			want: `external data location "../secret.bin" escapes the model directory`},
		{name: "symlink outside", location: "link.bin", offset: -1, length: -1,
			setup: func(dir string) error {
				return os.Symlink(filepath.Join(outside, "secret.bin"), filepath.Join(dir, "link.bin"))
			},
			want: `external data location "link.bin" escapes the model directory through a symbolic link`},
		{name: "missing", location: "nope.bin", offset: -1, length: -1,
			want: `external data file "nope.bin" not found`},
		{name: "too short", location: "short.bin", offset: 8, length: -1,
			setup: func(dir string) error { return os.WriteFile(filepath.Join(dir, "short.bin"), make([]byte, 24), 0o644) },
			want:  `external data file "short.bin" has 24 bytes, the tensor needs bytes [8, 32)`},
		{name: "empty file", location: "empty.bin", offset: -1, length: -1,
			setup: func(dir string) error { return os.WriteFile(filepath.Join(dir, "empty.bin"), nil, 0o644) },
			want:  `external data file "empty.bin" has 0 bytes`},
		{name: "length mismatch", location: "w.bin", offset: 0, length: 20,
			setup: func(dir string) error { return os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 24), 0o644) },
			want:  "external data length is 20 bytes, the tensor needs 24"},
		{name: "directory", location: "sub", offset: -1, length: -1,
			setup: func(dir string) error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) },
			want:  `external data "sub" is not a regular file`},
		{name: "no location", location: "", offset: -1, length: -1,
			want: "external data has no location"},
		{name: "offset overflow", location: "w.bin", offset: math.MaxInt64, length: -1,
			setup: func(dir string) error { return os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 24), 0o644) },
			want:  "external data offset 9223372036854775807 plus the tensor's 24 bytes overflows a 64-bit file offset"},
		{name: "fifo", location: "fifo.bin", offset: -1, length: -1,
			setup: func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "fifo.bin"), 0o644) },
			want:  `external data "fifo.bin" is not a regular file (a FIFO)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.setup != nil {
				if err := tc.setup(dir); err != nil {
					t.Fatal(err)
				}
			}
			path := writeExternalModel(t, dir, externalTensor("w", []int64{2, 3}, tc.location, tc.offset, tc.length))
			m, err := Load(path, Options{})
			if err == nil {
				m.Close()
				t.Fatalf("Load succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `tensor "w"`) {
				t.Errorf("error %q\ndoes not name tensor \"w\" and contain %q", err, tc.want)
			}
		})
	}
}

// TestExternalDataBeyond4GiB reads a tensor stored past the 4 GiB mark of
// a sparse external file: nothing limits external data to 2 GB.
func TestExternalDataBeyond4GiB(t *testing.T) {
	dir := t.TempDir()
	const offset = 5 << 30
	want := floats("", nil, 1, 2, 3, 4, 5, 6).RawData
	f, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(want, offset); err != nil {
		f.Close()
		t.Fatalf("writing a sparse 5 GiB file: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	path := writeExternalModel(t, dir, externalTensor("w", []int64{2, 3}, "big.bin", offset, 24))
	m, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.Graph.Initializers[0].Initializer.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("tensor at offset 5 GiB = %x, want %x", got, want)
	}
	if _, err := Convert(m, Options{}); err != nil {
		t.Fatal(err)
	}
}
