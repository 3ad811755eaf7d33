package toolchain

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStageFailures checks that a failing tool yields a *ToolError that
// names the stage and the tool, carries the tool's diagnostics and exit
// code 3.
func TestStageFailures(t *testing.T) {
	tc := needTools(t)
	ctx := context.Background()
	invalid, err := os.ReadFile(filepath.Join("..", "testdata", "toolchain", "invalid.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tc.Lower(ctx, string(invalid), pipeline(t, "host"))
	wantToolError(t, err, "lower: mlir-opt:", "type of return operand")
	var te *ToolError
	if errors.As(err, &te) && (te.Stage != "lower" || te.Tool != MLIROpt || te.Stderr == "") {
		t.Errorf("ToolError = %+v", te)
	}

	_, err = tc.Translate(ctx, "func.func @f() { return }")
	wantToolError(t, err, "translate: mlir-translate:")

	_, err = tc.Compile(ctx, "define void @f( {", CompileOptions{Kind: KindObj, OptLevel: 0})
	wantToolError(t, err, "compile: llc:")

	_, err = tc.Run(ctx, "llvm.func @main() { llvm.return }", RunOptions{Entry: "missing"})
	wantToolError(t, err, "run: mlir-runner:")
}

// TestMissingToolFails checks that a stage whose tool was not found fails
// with exit code 3 (here ld.lld, which is optional, when it is absent).
func TestMissingToolFails(t *testing.T) {
	tc := needTools(t)
	if ti, _ := tc.Tool(LLD); ti.Found() {
		t.Skip("ld.lld is installed")
	}
	_, err := tc.Link(context.Background(), []byte("x"))
	wantToolError(t, err, "link: ld.lld:", "not found")
}

// TestCancel checks that a cancelled context stops a stage with an error.
func TestCancel(t *testing.T) {
	tc := needTools(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tc.Lower(ctx, matmulModule("f", 0, 4, 4, 4, "f32"), pipeline(t, "host"))
	wantToolError(t, err, "context canceled")
}

// TestBuildKeepTemps builds every host output of a module plus a blob in
// one call, and checks the outputs and the kept intermediate files.
func TestBuildKeepTemps(t *testing.T) {
	tc := needTools(t)
	tc.KeepTemps = filepath.Join(t.TempDir(), "temps")
	blob := bytes.Repeat([]byte("niro"), 1000)
	res, err := tc.Build(context.Background(), BuildRequest{
		MLIR:        matmulModule("matmul", 0, 8, 16, 4, "f32"),
		Pipeline:    pipeline(t, "host"),
		Emit:        []Kind{KindLLVMDialect, KindLL, KindObj, KindAsm},
		Blob:        blob,
		BlobOptions: BlobOptions{Symbol: "model_weights"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.LLVMDialect, "llvm.func @matmul(") {
		t.Error("llvm dialect output lacks @matmul")
	}
	if !strings.Contains(res.LL, "define void @matmul(ptr") {
		t.Error("LLVM IR lacks @matmul")
	}
	if !strings.Contains(string(res.Asm), "matmul:") {
		t.Error("assembly lacks matmul:")
	}
	f, err := elf.NewFile(bytes.NewReader(res.Obj))
	if err != nil {
		t.Fatalf("object: %v", err)
	}
	syms, _ := f.Symbols()
	if !hasSymbol(syms, "matmul", true) {
		t.Error("object does not define matmul")
	}
	checkBlobObject(t, res.BlobObj, "model_weights", blob, 64)
	for _, name := range []string{
		"input.mlir", "schedule-conv.mlir", "schedule-contraction.mlir", "lowered.mlir", "module.ll", "module.opt.ll",
		"module.o", "module.s", "model_weights.bin", "model_weights.o", "lower.mlir-opt.cmd",
	} {
		if _, err := os.Stat(filepath.Join(tc.KeepTemps, name)); err != nil {
			t.Errorf("kept file: %v", err)
		}
	}
	cmd, _ := os.ReadFile(filepath.Join(tc.KeepTemps, "lower.mlir-opt.cmd"))
	if !strings.Contains(string(cmd), "transform-preload-library{transform-library-paths=schedule-conv.mlir,schedule-contraction.mlir}") {
		t.Errorf("lower command line lacks the schedule: %s", cmd)
	}
}

// TestTempsRemoved checks that without KeepTemps nothing is left behind.
func TestTempsRemoved(t *testing.T) {
	tc := needTools(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := tc.Lower(context.Background(), matmulModule("f", 0, 4, 4, 4, "f32"), pipeline(t, "host")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
}

func hasSymbol(syms []elf.Symbol, name string, defined bool) bool {
	for _, s := range syms {
		if s.Name == name && (!defined || s.Section != elf.SHN_UNDEF) {
			return true
		}
	}
	return false
}

// checkBlobObject checks an EmbedBlob object: the bytes in a read-only
// section with the alignment, and the start, end and size symbols.
func checkBlobObject(t *testing.T, obj []byte, sym string, blob []byte, align uint64) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatalf("blob object: %v", err)
	}
	sec := f.Section(".rodata." + sym)
	if sec == nil {
		t.Fatalf("blob object has no section .rodata.%s", sym)
	}
	if sec.Flags&elf.SHF_WRITE != 0 || sec.Flags&elf.SHF_ALLOC == 0 {
		t.Errorf("section flags %v, want allocated and read-only", sec.Flags)
	}
	if sec.Addralign != align {
		t.Errorf("section alignment %d, want %d", sec.Addralign, align)
	}
	data, err := sec.Data()
	if err != nil || !bytes.Equal(data, blob) {
		t.Errorf("section holds %d bytes (%v), want the %d blob bytes", len(data), err, len(blob))
	}
	syms, _ := f.Symbols()
	for _, s := range []string{sym, sym + "_end", sym + "_size"} {
		if !hasSymbol(syms, s, true) {
			t.Errorf("blob object does not define %s", s)
		}
	}
	for _, s := range syms {
		if s.Name == sym+"_size" && s.Value != uint64(len(blob)) {
			t.Errorf("%s_size = %d, want %d", sym, s.Value, len(blob))
		}
	}
}

func TestEmbedBlobOptions(t *testing.T) {
	tc := needTools(t)
	ctx := context.Background()
	obj, err := tc.EmbedBlob(ctx, []byte{1, 2, 3}, BlobOptions{Symbol: "w", Align: 4096})
	if err != nil {
		t.Fatal(err)
	}
	checkBlobObject(t, obj, "w", []byte{1, 2, 3}, 4096)
	if _, err := tc.EmbedBlob(ctx, nil, BlobOptions{Symbol: "not-an-identifier"}); err == nil {
		t.Error("accepted a symbol that is not a C identifier")
	}
	if _, err := tc.EmbedBlob(ctx, nil, BlobOptions{Symbol: "w", Align: 48}); err == nil {
		t.Error("accepted an alignment that is not a power of two")
	}
}

// TestRunOutput checks that Run returns the program's output and honours
// the entry point and result type.
func TestRunOutput(t *testing.T) {
	tc := needTools(t)
	out, err := tc.Run(context.Background(), `llvm.func @answer() -> i32 {
  %0 = llvm.mlir.constant(42 : i32) : i32
  llvm.return %0 : i32
}`, RunOptions{Entry: "answer", EntryResult: "i32", OptLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != "42" {
		t.Errorf("output %q, want 42", out)
	}
}

// TestProgress checks that the progress writer gets one line per stage.
func TestProgress(t *testing.T) {
	tc := needTools(t)
	var buf bytes.Buffer
	tc.Progress = &buf
	start := time.Now()
	if _, err := tc.Lower(context.Background(), matmulModule("f", 0, 4, 4, 4, "f32"), pipeline(t, "host-O0")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "niro: lower: mlir-opt") {
		t.Errorf("progress %q after %v", buf.String(), time.Since(start))
	}
}

// TestObjectLinksAndRuns links the compiled object (opt, then llc for the
// host CPU) and a blob object into a C program and checks that the product
// has the naive loop nest's bits, as the JIT path does. It needs a C
// compiler, which niro itself never does; without one it is skipped.
func TestObjectLinksAndRuns(t *testing.T) {
	tc := needTools(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to link a test program")
	}
	c := matmulCase{m: 37, n: 53, k: 29, elem: "f32"}
	blob := []byte("weights!")
	res, err := tc.Build(context.Background(), BuildRequest{
		MLIR:        matmulModule("matmul", 0, c.m, c.n, c.k, c.elem),
		Pipeline:    pipeline(t, "host"),
		Emit:        []Kind{KindObj},
		Blob:        blob,
		BlobOptions: BlobOptions{Symbol: "model_weights"},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	a, b := randomValues(r, c.m*c.k), randomValues(r, c.k*c.n)
	files := map[string][]byte{
		"model.o": res.Obj, "weights.o": res.BlobObj,
		"a.bin": encodeF32(a), "b.bin": encodeF32(b),
		"main.c": []byte(`#include <stdio.h>
#include <string.h>
extern const char model_weights[], model_weights_end[];
void matmul(const float *a, const float *b, float *c);
static float a[37*29], b[29*53], c[37*53];
int main(void) {
	FILE *f = fopen("a.bin", "rb"); fread(a, 1, sizeof a, f); fclose(f);
	f = fopen("b.bin", "rb"); fread(b, 1, sizeof b, f); fclose(f);
	matmul(a, b, c);
	f = fopen("c.bin", "wb"); fwrite(c, 1, sizeof c, f); fclose(f);
	if (model_weights_end - model_weights != 8 || memcmp(model_weights, "weights!", 8) != 0) return 2;
	return 0;
}
`)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(cc, "-O1", "main.c", "model.o", "weights.o", "-o", "prog", "-lm")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	run := exec.Command("./prog")
	run.Dir = dir
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("prog: %v\n%s", err, out)
	}
	out, err := os.ReadFile(filepath.Join(dir, "c.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []uint64
	for i := 0; i+4 <= len(out); i += 4 {
		got = append(got, uint64(binary.LittleEndian.Uint32(out[i:])))
	}
	for _, w := range naiveF32(a, b, c.m, c.n, c.k) {
		want = append(want, uint64(w))
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements, want %d", len(got), len(want))
	}
	compareBits(t, c, got, want)
}
