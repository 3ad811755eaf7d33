package emit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/niro-dev/niro/niro"
)

// parseModule parses and verifies Niro text.
func parseModule(t *testing.T, src string) *niro.Module {
	t.Helper()
	m, err := niro.Parse("test.niro", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := niro.Verify(m); err != nil {
		t.Fatalf("verify: %v\n%s", err, m)
	}
	return m
}

// f32Bytes packs float32 values little-endian.
func f32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// TestBlob checks the blob layout and that WriteTo streams each entry's
// bytes at its aligned offset with zero padding in between.
func TestBlob(t *testing.T) {
	m := niro.NewModule()
	a := m.AddGlobal("a", niro.Tensor(niro.F32, 3), niro.BytesLit(f32Bytes(1, 2, 3)))
	b := m.AddGlobal("b", niro.Tensor(niro.F32, 2, 2), niro.BytesLit(f32Bytes(4, 5, 6, 7)))
	f := m.AddFunction("main", niro.FunctionType{Outputs: []niro.Type{a.Type, b.Type}})
	bl := f.Builder()
	bl.Return(bl.GetGlobal(a), bl.GetGlobal(b))

	out, err := Module(m, Options{InlineLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Entry.HasWeights || out.Blob == nil {
		t.Fatalf("HasWeights = %v, Blob = %v; want a blob", out.Entry.HasWeights, out.Blob)
	}
	var got []string
	for _, e := range out.Blob.Entries {
		if e.Offset%BlobAlign != 0 {
			t.Errorf("entry %s at offset %d, not a multiple of %d", e.Name, e.Offset, BlobAlign)
		}
		got = append(got, e.Name)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if out.Blob.Size != 64+16 {
		t.Errorf("Size = %d, want 80", out.Blob.Size)
	}
	var buf bytes.Buffer
	n, err := out.Blob.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 80)
	copy(want, f32Bytes(1, 2, 3))
	copy(want[64:], f32Bytes(4, 5, 6, 7))
	if n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteTo wrote %d bytes %x, want %x", n, buf.Bytes(), want)
	}
	if !strings.Contains(out.MLIR, "func.func @main(%weights: memref<80xi8>)") {
		t.Errorf("entry does not take the weights first:\n%s", out.MLIR)
	}
}

// errWriter fails after accepting limit bytes.
type errWriter struct{ limit int }

func (w *errWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errors.New("disk full")
	}
	w.limit -= len(p)
	return len(p), nil
}

func TestBlobWriteToError(t *testing.T) {
	var b Blob
	b.add("x", niro.Tensor(niro.I8, 10), make([]byte, 10))
	b.add("y", niro.Tensor(niro.I8, 10), make([]byte, 10))
	n, err := b.WriteTo(&errWriter{limit: 30})
	if err == nil || n != 30 {
		t.Errorf("WriteTo = %d, %v; want 30 bytes and the writer's error", n, err)
	}
}

// TestEntry checks the entry description the CLI and Header rely on.
func TestEntry(t *testing.T) {
	m := parseModule(t, `module attributes {entry = "net"}

func @helper(f32) -> (f32) {
^bb0(%0: f32):
  return %0 : f32
}

func @net(tensor<2xf32>, f32) -> (tensor<2xf32>) inputs ["x", none] outputs ["y"] {
^bb0(%0: tensor<2xf32>, %1: f32):
  return %0 : tensor<2xf32>
}
`)
	out, err := Module(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Entry{
		Name:    "net",
		Inputs:  []Param{{Name: "x", Type: niro.Tensor(niro.F32, 2)}, {Type: niro.F32}},
		Outputs: []Param{{Name: "y", Type: niro.Tensor(niro.F32, 2)}},
	}
	if diff := cmp.Diff(want, out.Entry); diff != "" {
		t.Errorf("Entry (-want +got):\n%s", diff)
	}
	if out.Blob != nil {
		t.Errorf("Blob = %+v, want nil", out.Blob)
	}
}

func TestModuleErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no entry", "func @ext(f32) -> ()\n", "emit: module has no function with a body to serve as the entry"},
		{"entry not C", "func @\"my-model\"() -> () {\n  return\n}\n", `emit: entry function name "my-model" is not a valid C identifier`},
		{"entry declared", "module attributes {entry = \"f\"}\n\nfunc @f() -> ()\n", "emit: entry function @f has no body"},
		{"invalid", "func @f(f32) -> (f32) {\n^bb0(%0: f32):\n  return\n}\n", "emit: invalid module:\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := niro.Parse("test.niro", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Module(m, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %v, want prefix %q", err, tc.want)
			}
		})
	}
	if _, err := Module(nil, Options{}); err == nil {
		t.Error("Module(nil) did not fail")
	}
}

func TestHeaderErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  *Output
		want string
	}{
		{"nil", nil, "emit: header: nil output"},
		{"dynamic", &Output{Entry: Entry{Name: "m", Inputs: []Param{{Name: "x", Type: niro.Tensor(niro.F32, niro.Dynamic)}}}},
			`emit: header: input 0 "x" has type tensor<?xf32>; the C interface needs a static shape`},
		{"scalar output", &Output{Entry: Entry{Name: "m", Outputs: []Param{{Type: niro.F32}}}},
			"emit: header: output 0 is the scalar f32; the C interface takes tensors"},
		{"bad name", &Output{Entry: Entry{Name: "int"}}, `emit: header: entry name "int" is not a valid C identifier`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Header(tc.out)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %v, want prefix %q", err, tc.want)
			}
		})
	}
}

// TestDeterministicAndPure emits every golden module twice: the text must
// not change, and emitting must not modify the IR.
func TestDeterministicAndPure(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name != "in.niro" {
				continue
			}
			m, err := niro.Parse(file, f.Data)
			if err != nil {
				t.Fatal(err)
			}
			before := m.String()
			out1, err1 := Module(m, Options{InlineLimit: 16})
			out2, err2 := Module(m, Options{InlineLimit: 16})
			if m.String() != before {
				t.Errorf("%s: Module modified the IR", file)
			}
			if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
				t.Errorf("%s: errors differ: %v / %v", file, err1, err2)
			}
			if err1 == nil && err2 == nil && out1.MLIR != out2.MLIR {
				t.Errorf("%s: output differs between runs", file)
			}
		}
	}
}

// TestFloatBits checks the rounding of float literals to f16 and bf16.
func TestFloatBits(t *testing.T) {
	for _, tc := range []struct {
		s    niro.ScalarType
		v    float64
		want uint64
	}{
		{niro.F16, 1, 0x3C00},
		{niro.F16, -2, 0xC000},
		{niro.F16, 65504, 0x7BFF},
		{niro.F16, 65519.99, 0x7BFF},
		{niro.F16, 65520, 0x7C00},                   // rounds up to infinity
		{niro.F16, math.Ldexp(1, -24), 0x0001},      // smallest subnormal
		{niro.F16, math.Ldexp(1, -25), 0x0000},      // tie to even: zero
		{niro.F16, math.Ldexp(3, -25), 0x0002},      // tie to even: 2
		{niro.F16, math.Ldexp(1023.5, -24), 0x0400}, // subnormal carries into the smallest normal
		{niro.F16, 1 + math.Ldexp(1, -11), 0x3C00},  // tie to even at 1
		{niro.F16, 1 + math.Ldexp(3, -11), 0x3C02},
		{niro.F16, 2047.9, 0x6800}, // mantissa carry bumps the exponent
		{niro.F16, math.Copysign(0, -1), 0x8000},
		{niro.F16, math.Inf(-1), 0xFC00},
		{niro.F16, math.NaN(), 0x7E00},
		{niro.BF16, 1, 0x3F80},
		{niro.BF16, 3.4e38, 0x7F80}, // above bf16's largest finite (about 3.39e38)
		{niro.BF16, 1 + math.Ldexp(1, -8), 0x3F80},
		{niro.BF16, 1 + math.Ldexp(3, -8), 0x3F82},
		{niro.BF16, math.Ldexp(1, -133), 0x0001},
	} {
		got, _ := floatBits(tc.s, tc.v)
		if got != tc.want {
			t.Errorf("floatBits(%s, %g) = %#04x, want %#04x", tc.s, tc.v, got, tc.want)
		}
	}
}

// TestGoldenCoverage checks that the golden files exercise every op kind
// Niro defines.
func TestGoldenCoverage(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ar := txtar.Parse(data)
		for _, f := range ar.Files {
			if f.Name != "in.niro" {
				continue
			}
			m, err := niro.Parse(file, f.Data)
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range m.Functions {
				fn.Body.Walk(func(op niro.Op) bool {
					if _, ok := op.(*niro.UnknownOp); ok {
						seen["unknown"] = true
					} else {
						seen[op.Name()] = true
					}
					return true
				})
			}
		}
	}
	for _, op := range niro.OpKinds() {
		n := op.Name()
		if _, ok := op.(*niro.UnknownOp); ok {
			n = "unknown"
		}
		if !seen[n] {
			t.Errorf("no golden file uses op kind %s", n)
		}
	}
}
