package emit

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/niro-dev/niro/niro"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/emit/*.txtar")

// goldenDir holds one txtar archive per case. Sections:
//
//	in.niro     the module (niro.Parse)
//	options     optional: "inline-limit N"
//	want.mlir   the expected MLIR, or
//	want.err    the expected error text
//	want.h      optional: the expected C header
//	want.blob   optional: the expected blob layout, one "offset size name type" line per entry
//
// Every emitted module is also checked with mlir-opt: parsed and verified,
// run through the host pipeline of passes.txt down to the LLVM dialect, and
// translated to LLVM IR with mlir-translate.
const goldenDir = "../testdata/emit"

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden files in %s", goldenDir)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runGolden(t, file)
		})
	}
}

func runGolden(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, f := range ar.Files {
		sections[f.Name] = string(f.Data)
	}
	src, ok := sections["in.niro"]
	if !ok {
		t.Fatalf("%s: no in.niro section", file)
	}
	m, err := niro.Parse(file+":in.niro", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var opts Options
	if o, ok := sections["options"]; ok {
		fields := strings.Fields(o)
		if len(fields) != 2 || fields[0] != "inline-limit" {
			t.Fatalf("bad options section %q", o)
		}
		if opts.InlineLimit, err = strconv.ParseInt(fields[1], 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Module(m, opts)
	got := map[string]string{}
	if err != nil {
		got["want.err"] = err.Error() + "\n"
	} else {
		got["want.mlir"] = out.MLIR
		if _, ok := sections["want.h"]; ok {
			h, err := Header(out)
			if err != nil {
				h = "error: " + err.Error() + "\n"
			}
			got["want.h"] = h
		}
		if _, ok := sections["want.blob"]; ok {
			got["want.blob"] = blobLayout(out.Blob)
		}
	}
	if *update {
		for i, f := range ar.Files {
			if strings.HasPrefix(f.Name, "want.") {
				if g, ok := got[f.Name]; ok {
					ar.Files[i].Data = []byte(g)
					delete(got, f.Name)
				} else {
					ar.Files[i].Name = ""
				}
			}
		}
		var files []txtar.File
		for _, f := range ar.Files {
			if f.Name != "" {
				files = append(files, f)
			}
		}
		for _, n := range []string{"want.err", "want.mlir"} {
			if g, ok := got[n]; ok {
				files = append(files, txtar.File{Name: n, Data: []byte(g)})
			}
		}
		ar.Files = files
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		for n, g := range got {
			want, ok := sections[n]
			if !ok {
				t.Errorf("got %s but the archive has no such section:\n%s", n, g)
				continue
			}
			if diff := cmp.Diff(want, g); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", n, diff)
			}
		}
		for _, n := range []string{"want.err", "want.mlir"} {
			if _, ok := sections[n]; ok && got[n] == "" {
				t.Errorf("want %s, got none", n)
			}
		}
	}
	if out != nil {
		checkWithMLIR(t, out.MLIR)
	}
}

func blobLayout(b *Blob) string {
	if b == nil {
		return "none\n"
	}
	var sb strings.Builder
	for _, e := range b.Entries {
		fmt.Fprintf(&sb, "%d %d %s %s\n", e.Offset, e.Size, e.Name, e.Type)
	}
	fmt.Fprintf(&sb, "size %d\n", b.Size)
	return sb.String()
}

// fallbackHostPasses is the host pipeline of MLIR22-NOTES.md, used when the
// repository has no passes.txt.
var fallbackHostPasses = []string{
	"linalg-fuse-elementwise-ops",
	"one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map}",
	"buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true}",
	"buffer-deallocation-pipeline",
	"func.func(convert-linalg-to-loops)",
	"convert-vector-to-scf",
	"expand-strided-metadata",
	"lower-affine",
	"convert-scf-to-cf",
	"convert-vector-to-llvm",
	"finalize-memref-to-llvm",
	"convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}",
	"convert-arith-to-llvm",
	"convert-cf-to-llvm",
	"convert-index-to-llvm",
	"convert-ub-to-llvm",
	"reconcile-unrealized-casts",
}

var (
	hostOnce   sync.Once
	hostPasses []string
	hostSource string
	hostErr    error
)

// host returns the passes of the `host` pipeline in the repository's
// passes.txt (directives such as @schedule left out), or the fallback list
// when there is no passes.txt.
func host(t *testing.T) []string {
	t.Helper()
	hostOnce.Do(func() {
		text, err := os.ReadFile("../passes.txt")
		if errors.Is(err, fs.ErrNotExist) {
			hostPasses, hostSource = fallbackHostPasses, "MLIR22-NOTES.md"
			return
		}
		if err != nil {
			hostErr = err
			return
		}
		hostPasses, hostErr = pipelinePasses(string(text), "host")
		hostSource = "passes.txt"
	})
	if hostErr != nil {
		t.Fatalf("passes.txt: %v", hostErr)
	}
	return hostPasses
}

// pipelinePasses returns the passes of pipeline name in a pipelines file:
// the lines after `pipeline NAME:` up to the next `pipeline` line, with
// comments, blank lines and @ directives left out.
func pipelinePasses(text, name string) ([]string, error) {
	var passes []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "pipeline "); ok {
			in = strings.TrimSpace(strings.TrimSuffix(rest, ":")) == name
			continue
		}
		if in && line != "" && !strings.HasPrefix(line, "@") {
			passes = append(passes, line)
		}
	}
	if len(passes) == 0 {
		return nil, fmt.Errorf("no pipeline %q with passes", name)
	}
	return passes, nil
}

// adaptPipeline fits the host passes to one module and says what it
// changed. The bare-pointer calling convention needs static shapes, so a
// module with a dynamic extent keeps memref descriptors. The ownership-based
// deallocation in buffer-deallocation-pipeline rejects unstructured loops,
// so a module with cf branches first has its CFG lifted to scf
// (lift-cf-to-scf, then canonicalize so that the loop-carried tensors
// bufferize in place) unless the pipeline already does so.
func adaptPipeline(passes []string, mlir string) ([]string, []string) {
	var notes []string
	out := append([]string(nil), passes...)
	if strings.Contains(mlir, "?") {
		for i, p := range out {
			if p == "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}" {
				out[i] = "convert-func-to-llvm"
				notes = append(notes, "dynamic shapes: memref descriptors instead of bare pointers")
			}
		}
	}
	if strings.Contains(mlir, "cf.br") || strings.Contains(mlir, "cf.cond_br") {
		if !slices.Contains(out, "lift-cf-to-scf") {
			out = append([]string{"lift-cf-to-scf", "canonicalize"}, out...)
			notes = append(notes, "cf branches: lift-cf-to-scf and canonicalize first")
		}
		for i, p := range out {
			if strings.HasPrefix(p, "one-shot-bufferize{") && !strings.Contains(p, "allow-return-allocs-from-loops") {
				out[i] = strings.Replace(p, "{", "{allow-return-allocs-from-loops=true ", 1)
				notes = append(notes, "cf branches: one-shot-bufferize allows allocations returned from loops")
			}
		}
	}
	return out, notes
}

// checkWithMLIR parses and verifies text with mlir-opt, lowers it through
// the host pipeline to the LLVM dialect, and translates that to LLVM IR.
func checkWithMLIR(t *testing.T, text string) {
	t.Helper()
	opt := tool(t, "mlir-opt")
	run(t, text, opt)
	passes, notes := adaptPipeline(host(t), text)
	for _, n := range notes {
		t.Logf("%s host pipeline adapted: %s", hostSource, n)
	}
	llvmDialect := run(t, text, opt, "--pass-pipeline=builtin.module("+strings.Join(passes, ",")+")")
	if llvmDialect != "" {
		run(t, llvmDialect, tool(t, "mlir-translate"), "--mlir-to-llvmir")
	}
}

// run pipes input through the command and returns its output, failing the
// test (with the input) when it fails.
func run(t *testing.T, input string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%s %s: %v\n%s\ninput:\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String(), input)
		return ""
	}
	return stdout.String()
}

// tool locates an LLVM tool: in $NIRO_LLVM_PREFIX (a bin directory or a
// directory holding bin), then /usr/lib/llvm-NN/bin for NN from 30 down to
// 22, then PATH. When it is missing the test is skipped, or fails when
// NIRO_REQUIRE_TOOLS is set.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p := os.Getenv("NIRO_LLVM_PREFIX"); p != "" {
		for _, c := range []string{filepath.Join(p, name), filepath.Join(p, "bin", name)} {
			if isExec(c) {
				return c
			}
		}
	}
	for v := 30; v >= 22; v-- {
		if c := fmt.Sprintf("/usr/lib/llvm-%d/bin/%s", v, name); isExec(c) {
			return c
		}
	}
	if c, err := exec.LookPath(name); err == nil {
		return c
	}
	if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s not found and NIRO_REQUIRE_TOOLS is set", name)
	}
	t.Skipf("%s not found (set NIRO_LLVM_PREFIX)", name)
	return ""
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// TestEveryOpKind checks that the emitter dispatches every op kind Niro
// defines: each sample from niro.OpKinds must reach a case of the type
// switch in (*funcEmitter).op rather than its panicking default.
func TestEveryOpKind(t *testing.T) {
	m := niro.NewModule()
	f := m.AddFunction("main", niro.FunctionType{})
	e := &emitter{m: m, entry: f, globals: map[string]*niro.Global{}, funcs: map[string]*niro.Function{}}
	seen := map[reflect.Type]bool{}
	for _, op := range niro.OpKinds() {
		typ := reflect.TypeOf(op)
		if seen[typ] {
			t.Errorf("niro.OpKinds lists %v twice", typ)
		}
		seen[typ] = true
		func() {
			defer func() {
				if r := recover(); r != nil {
					if s, ok := r.(string); ok && strings.HasPrefix(s, "emit: unhandled op") {
						t.Errorf("op kind %v is not lowered: %v", typ, r)
					}
					// Other panics come from the zero-valued sample, not
					// from a missing case.
				}
			}()
			fe := newFuncEmitter(e, f)
			fe.op(op)
		}()
	}
}
