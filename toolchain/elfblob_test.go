package toolchain

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blobTestIR has a function calling a comdat function and reading a global
// table and a counter, so that its object holds relocations against
// symbols, a section group and an address-significance table: all of them
// hold symbol or section indices that AppendBlobSection must keep valid.
const blobTestIR = `@table = internal constant [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4
@count = global i32 0, align 4

$twice = comdat any

define linkonce_odr i32 @twice(i32 %x) comdat {
  %y = add i32 %x, %x
  ret i32 %y
}

define i32 @lookup(i32 %i) {
  %c = load i32, ptr @count
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @count
  %p = getelementptr [4 x i32], ptr @table, i32 0, i32 %i
  %v = load i32, ptr %p
  %r = call i32 @twice(i32 %v)
  ret i32 %r
}
`

// patternBlob is a blob of n bytes, byte i being patternByte(i), written
// in chunks of 1000 bytes. With extra it writes that many bytes more than
// n (fewer when negative); with fail it fails after the first chunk.
type patternBlob struct {
	n, extra int64
	fail     error
}

func patternByte(i int64) byte { return byte(i*131 + i/256 + 7) }

func (p patternBlob) WriteTo(w io.Writer) (int64, error) {
	var written int64
	total := p.n + p.extra
	for written < total {
		chunk := make([]byte, min(1000, total-written))
		for j := range chunk {
			chunk[j] = patternByte(written + int64(j))
		}
		k, err := w.Write(chunk)
		written += int64(k)
		if err != nil {
			return written, err
		}
		if p.fail != nil {
			return written, p.fail
		}
	}
	return written, nil
}

// llcObject compiles blobTestIR for triple with llc.
func llcObject(t *testing.T, tc *Toolchain, triple string) []byte {
	t.Helper()
	llc, _ := tc.Tool(LLC)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ll"), filepath.Join(dir, "out.o")
	if err := os.WriteFile(in, []byte(blobTestIR), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(llc.Path, "-mtriple="+triple, "-relocation-model=pic", "-filetype=obj", in, "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("llc -mtriple=%s: %v\n%s", triple, err, msg)
	}
	obj, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// llvmTool returns the path of an LLVM tool installed beside llc.
func llvmTool(t *testing.T, tc *Toolchain, name string) string {
	t.Helper()
	llc, _ := tc.Tool(LLC)
	path := filepath.Join(filepath.Dir(llc.Path), name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s required (NIRO_REQUIRE_TOOLS is set): %v", name, err)
		}
		t.Skipf("%s not beside llc: %v", name, err)
	}
	return path
}

// appendBlob runs AppendBlobSection on obj with a pattern blob of n bytes.
func appendBlob(t *testing.T, obj []byte, symbol string, n int64) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := AppendBlobSection(&out, obj, symbol, patternBlob{n: n}, n); err != nil {
		t.Fatalf("AppendBlobSection: %v", err)
	}
	return out.Bytes()
}

// checkAppendedBlob checks with debug/elf that out is obj plus the blob
// section and symbol, every original section and symbol unchanged.
func checkAppendedBlob(t *testing.T, obj, out []byte, symbol string, n int64) {
	t.Helper()
	orig, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("result is not ELF: %v", err)
	}
	if f.Machine != orig.Machine || f.Type != elf.ET_REL {
		t.Errorf("result is %v %v, want %v %v", f.Machine, f.Type, orig.Machine, elf.ET_REL)
	}
	if len(f.Sections) != len(orig.Sections)+1 {
		t.Fatalf("result has %d sections, want %d", len(f.Sections), len(orig.Sections)+1)
	}
	for i, os := range orig.Sections {
		s := f.Sections[i]
		if s.Name != os.Name || s.Type != os.Type || s.Flags != os.Flags || s.Link != os.Link || s.Info != os.Info {
			t.Errorf("section %d = %+v, want %+v", i, s.SectionHeader, os.SectionHeader)
			continue
		}
		if s.Type == elf.SHT_NOBITS {
			continue
		}
		was, err := os.Data()
		if err != nil {
			t.Fatal(err)
		}
		now, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		if s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_STRTAB {
			now = now[:min(len(was), len(now))]
		}
		if !bytes.Equal(now, was) {
			t.Errorf("section %d (%s) contents changed", i, s.Name)
		}
	}

	sec := f.Sections[len(orig.Sections)]
	if sec.Name != ".rodata."+symbol || sec.Type != elf.SHT_PROGBITS || sec.Flags != elf.SHF_ALLOC ||
		sec.Addralign != 64 || sec.Size != uint64(n) || sec.Offset%64 != 0 {
		t.Errorf("blob section = %+v, want .rodata.%s PROGBITS ALLOC, %d bytes, aligned to 64 in file and memory", sec.SectionHeader, symbol, n)
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range data {
		if b != patternByte(int64(i)) {
			t.Fatalf("blob byte %d = %#x, want %#x", i, b, patternByte(int64(i)))
		}
	}

	was, err := orig.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	now, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	if len(now) != len(was)+1 {
		t.Fatalf("result has %d symbols, want %d", len(now), len(was)+1)
	}
	for i := range was {
		if now[i] != was[i] {
			t.Errorf("symbol %d = %+v, want %+v", i, now[i], was[i])
		}
	}
	sym := now[len(was)]
	want := elf.Symbol{Name: symbol, Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT),
		Section: elf.SectionIndex(len(orig.Sections)), Value: 0, Size: uint64(n)}
	if sym != want {
		t.Errorf("blob symbol = %+v, want %+v", sym, want)
	}
}

// checkLLVMTools checks that llvm-readelf reads out without a warning and
// lists the blob's section and symbol, and that llvm-objdump disassembles
// the same code with the same relocations from obj and out.
func checkLLVMTools(t *testing.T, tc *Toolchain, obj, out []byte, symbol string, n int64) {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.o"), filepath.Join(dir, "b.o")
	if err := os.WriteFile(a, obj, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(llvmTool(t, tc, "llvm-readelf"), "-S", "-s", "-g", "--wide", b)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 || strings.Contains(stdout.String(), "warning") {
		t.Fatalf("llvm-readelf: %v\n%s%s", err, stderr.String(), stdout.String())
	}
	text := stdout.String()
	for _, want := range []string{
		fmt.Sprintf(" .rodata.%s PROGBITS ", symbol),
		fmt.Sprintf(" %d OBJECT  GLOBAL DEFAULT ", n),
	} {
		if !strings.Contains(strings.Join(strings.Fields(text), " ")+" ", strings.Join(strings.Fields(want), " ")+" ") {
			t.Errorf("llvm-readelf output lacks %q:\n%s", want, text)
		}
	}

	objdump := llvmTool(t, tc, "llvm-objdump")
	disasm := func(path string) string {
		cmd := exec.Command(objdump, "-d", "-r", path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("llvm-objdump %s: %v\n%s", path, err, stderr.String())
		}
		return strings.ReplaceAll(stdout.String(), path, "OBJ")
	}
	if da, db := disasm(a), disasm(b); da != db {
		t.Errorf("llvm-objdump -d -r differs:\nbefore:\n%s\nafter:\n%s", da, db)
	}
}

// TestAppendBlobSectionHost adds a blob to an object llc made for the host
// and, when a C compiler is installed, links it into a program that reads
// the blob through its symbol and calls the object's code.
func TestAppendBlobSectionHost(t *testing.T) {
	tc := needTools(t)
	obj, err := tc.Compile(context.Background(), blobTestIR, CompileOptions{Kind: KindObj, OptLevel: 2})
	if err != nil {
		t.Fatal(err)
	}
	const symbol, n = "model_weights", 5000 // not a multiple of 64
	out := appendBlob(t, obj, symbol, n)
	checkAppendedBlob(t, obj, out, symbol, n)
	checkLLVMTools(t, tc, obj, out, symbol, n)

	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to link with: %v", err)
	}
	dir := t.TempDir()
	main := fmt.Sprintf(`#include <stdint.h>
#include <stdio.h>

extern const unsigned char %[1]s[];
int lookup(int);

int main(void) {
	if ((uintptr_t)%[1]s %% 64 != 0) {
		printf("misaligned: %%p\n", (const void *)%[1]s);
		return 1;
	}
	for (long i = 0; i < %[2]d; i++) {
		if (%[1]s[i] != (unsigned char)(i * 131 + i / 256 + 7)) {
			printf("byte %%ld is %%d\n", i, %[1]s[i]);
			return 1;
		}
	}
	printf("ok %%d\n", lookup(2));
	return 0;
}
`, symbol, n)
	for name, data := range map[string][]byte{"main.c": []byte(main), "model.o": out} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(cc, "-o", "prog", "main.c", "model.o")
	build.Dir = dir
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, msg)
	}
	run := exec.Command(filepath.Join(dir, "prog"))
	got, err := run.CombinedOutput()
	if err != nil || string(got) != "ok 60\n" {
		t.Fatalf("program: %v, output %q; want \"ok 60\\n\"", err, got)
	}
}

// TestAppendBlobSectionTargets adds blobs to objects for both supported
// architectures, whatever the host, including an empty blob.
func TestAppendBlobSectionTargets(t *testing.T) {
	tc := needTools(t)
	for _, triple := range []string{"x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"} {
		t.Run(triple, func(t *testing.T) {
			obj := llcObject(t, tc, triple)
			for _, n := range []int64{0, 1, 64, 3000} {
				out := appendBlob(t, obj, "net_weights", n)
				checkAppendedBlob(t, obj, out, "net_weights", n)
				if n == 3000 {
					checkLLVMTools(t, tc, obj, out, "net_weights", n)
				}
			}
		})
	}
}

// TestAppendBlobSectionRefused checks the objects, symbols and blobs that
// AppendBlobSection refuses, each with a clear error.
func TestAppendBlobSectionRefused(t *testing.T) {
	ident := func(class, data byte) []byte {
		b := make([]byte, 64)
		copy(b, elf.ELFMAG)
		b[elf.EI_CLASS], b[elf.EI_DATA], b[elf.EI_VERSION] = class, data, 1
		return b
	}
	tests := []struct {
		name    string
		obj     []byte
		symbol  string
		blob    patternBlob
		wantErr string
	}{
		{"empty", nil, "w", patternBlob{}, "not an ELF file"},
		{"text", []byte("#!/bin/sh\necho not an object\n"), "w", patternBlob{}, "not an ELF file"},
		{"elf32", ident(1, 1), "w", patternBlob{}, "ELFCLASS32; only 64-bit ELF objects"},
		{"big-endian", ident(2, 2), "w", patternBlob{}, "ELFDATA2MSB; only little-endian ELF objects"},
		{"header only", ident(2, 1), "w", patternBlob{}, "the model's object"},
		{"symbol", ident(2, 1), "model-weights", patternBlob{}, `blob symbol "model-weights" is not a C identifier`},
		{"digit", ident(2, 1), "1w", patternBlob{}, `blob symbol "1w" is not a C identifier`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := AppendBlobSection(io.Discard, tt.obj, tt.symbol, tt.blob, tt.blob.n)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "embed: ") {
				t.Errorf("error = %v, want embed: ...%s...", err, tt.wantErr)
			}
		})
	}
}

// TestAppendBlobSectionRefusedObjects checks refusals that need real
// objects: other architectures' and a clash of symbols, and blobs that
// write a different size than announced or fail.
func TestAppendBlobSectionRefusedObjects(t *testing.T) {
	tc := needTools(t)
	x86 := llcObject(t, tc, "x86_64-unknown-linux-gnu")
	boom := errors.New("disk on fire")
	tests := []struct {
		name    string
		obj     []byte
		symbol  string
		blob    patternBlob
		wantErr string
		wantIs  error
	}{
		{"i686", llcObject(t, tc, "i686-unknown-linux-gnu"), "w", patternBlob{n: 10}, "ELFCLASS32; only 64-bit", nil},
		{"ppc64", llcObject(t, tc, "powerpc64-unknown-linux-gnu"), "w", patternBlob{n: 10}, "ELFDATA2MSB; only little-endian", nil},
		{"clash", x86, "lookup", patternBlob{n: 10}, "already has a symbol lookup", nil},
		{"short", x86, "w", patternBlob{n: 2000, extra: -1}, "the weights are 1999 bytes, not the 2000 announced", nil},
		{"long", x86, "w", patternBlob{n: 2000, extra: 1}, "more bytes than the blob size", nil},
		{"failing", x86, "w", patternBlob{n: 2000, fail: boom}, "writing the weights: disk on fire", boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := AppendBlobSection(io.Discard, tt.obj, tt.symbol, tt.blob, tt.blob.n)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %s", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error = %v, does not wrap %v", err, tt.wantIs)
			}
		})
	}
}

// TestAppendBlobSectionDamaged feeds truncated and corrupted objects:
// each must give an error or a result, never a panic.
func TestAppendBlobSectionDamaged(t *testing.T) {
	tc := needTools(t)
	obj := llcObject(t, tc, "x86_64-unknown-linux-gnu")
	try := func(damaged []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		AppendBlobSection(io.Discard, damaged, "w", patternBlob{n: 100}, 100)
	}
	for n := range len(obj) {
		if err := AppendBlobSection(io.Discard, obj[:n], "w", patternBlob{n: 100}, 100); err == nil && n < 64 {
			t.Errorf("truncated to %d bytes: no error", n)
		}
		try(obj[:n])
	}
	// Corrupt each byte of the ELF header and the section header table.
	shoff := int(binary.LittleEndian.Uint64(obj[0x28:]))
	var positions []int
	for i := range 64 {
		positions = append(positions, i)
	}
	for i := shoff; i < len(obj); i++ {
		positions = append(positions, i)
	}
	for _, i := range positions {
		for _, v := range []byte{0, 0xff, obj[i] ^ 0x80} {
			damaged := bytes.Clone(obj)
			damaged[i] = v
			try(damaged)
		}
	}
}
