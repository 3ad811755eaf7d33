package emit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
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
	"github.com/niro-dev/niro/toolchain"
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
// Every emitted module is also run through the host pipeline of passes.txt
// (mlir-opt parses and verifies it, the contraction schedule included) down
// to the LLVM dialect, and translated to LLVM IR with mlir-translate.
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

var (
	toolsOnce sync.Once
	toolsTC   *toolchain.Toolchain
	toolsHost toolchain.Pipeline
	toolsErr  error
)

// hostTools finds the LLVM/MLIR tools as niro does and reads the host
// pipeline from the repository's passes.txt. It skips the test when the
// tools are missing, unless NIRO_REQUIRE_TOOLS is set.
func hostTools(t *testing.T) (*toolchain.Toolchain, toolchain.Pipeline) {
	t.Helper()
	toolsOnce.Do(func() {
		text, err := os.ReadFile("../passes.txt")
		if err != nil {
			toolsErr = err
			return
		}
		ps, err := toolchain.ParsePipelines(string(text))
		if err != nil {
			toolsErr = fmt.Errorf("passes.txt: %w", err)
			return
		}
		var ok bool
		if toolsHost, ok = ps.Lookup("host"); !ok {
			toolsErr = errors.New("passes.txt has no host pipeline")
			return
		}
		toolsTC, toolsErr = toolchain.Find(context.Background(), toolchain.FindOptions{})
	})
	var te *toolchain.ToolError
	if errors.As(toolsErr, &te) && os.Getenv("NIRO_REQUIRE_TOOLS") == "" {
		t.Skipf("LLVM/MLIR tools missing: %v", toolsErr)
	}
	if toolsErr != nil {
		t.Fatal(toolsErr)
	}
	return toolsTC, toolsHost
}

// forModule fits the host pipeline to one module: the bare-pointer calling
// convention needs static shapes, so a module with a dynamic extent keeps
// memref descriptors.
func forModule(host toolchain.Pipeline, mlir string) toolchain.Pipeline {
	if !strings.Contains(mlir, "?") {
		return host
	}
	p := host
	p.Steps = slices.Clone(host.Steps)
	for i, st := range p.Steps {
		if st.Pass == "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}" {
			p.Steps[i].Pass = "convert-func-to-llvm"
		}
	}
	return p
}

// checkWithMLIR lowers text through the host pipeline (mlir-opt parses and
// verifies it on the way) to the LLVM dialect, and translates that to LLVM
// IR.
func checkWithMLIR(t *testing.T, text string) {
	t.Helper()
	tc, host := hostTools(t)
	ctx := context.Background()
	llvmDialect, err := tc.Lower(ctx, text, forModule(host, text))
	if err != nil {
		t.Errorf("%v\ninput:\n%s", err, text)
		return
	}
	if _, err := tc.Translate(ctx, llvmDialect); err != nil {
		t.Errorf("%v\ninput:\n%s", err, text)
	}
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
