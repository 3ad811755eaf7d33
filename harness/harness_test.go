package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := Spec{Func: "model", Inputs: []Buffer{{"in.bin", 16}}, Outputs: []Buffer{{"out.bin", 16}}, Runs: 1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec rejected: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no func", func(s *Spec) { s.Func = "" }, "no model function name"},
		{"main", func(s *Spec) { s.Func = "main" }, "clashes"},
		{"libc", func(s *Spec) { s.Func = "fopen" }, "clashes"},
		{"runs", func(s *Spec) { s.Runs = 0 }, "runs must be at least 1"},
		{"warmup", func(s *Spec) { s.Warmup = -1 }, "warm-up"},
		{"no path", func(s *Spec) { s.Inputs[0].Path = "" }, "input 0 has no file path"},
		{"nul", func(s *Spec) { s.Outputs[0].Path = "a\x00b" }, "NUL"},
		{"negative", func(s *Spec) { s.Outputs[0].Bytes = -1 }, "out of range"},
		{"no outputs", func(s *Spec) { s.Outputs = nil }, "no outputs"},
		{"empty weights", func(s *Spec) { s.Weights = Buffer{"w.bin", 0} }, "weights w.bin: size 0"},
		{"weights no path", func(s *Spec) { s.Weights = Buffer{"", 8} }, "weights has no file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			s.Inputs = append([]Buffer(nil), ok.Inputs...)
			s.Outputs = append([]Buffer(nil), ok.Outputs...)
			tt.edit(&s)
			_, err := Generate(s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Generate error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestEscapeString(t *testing.T) {
	got := escapeString("a\"b\\c\n\x00é")
	want := `a\22b\5Cc\0A\00\C3\A9`
	if got != want {
		t.Errorf("escapeString = %q, want %q", got, want)
	}
}

func TestSymbolRef(t *testing.T) {
	for in, want := range map[string]string{
		"model":   "@model",
		"_m.x$1":  "@_m.x$1",
		"1model":  `@"1model"`,
		"my-net":  `@"my-net"`,
		"a\"b":    `@"a\22b"`,
		"Resnet9": "@Resnet9",
	} {
		if got := symbolRef(in); got != want {
			t.Errorf("symbolRef(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestGenerateText(t *testing.T) {
	h, err := Generate(Spec{
		Func:        "net",
		Weights:     Buffer{"/tmp/w.bin", 128},
		Inputs:      []Buffer{{"/tmp/x \"q\".bin", 12}},
		Outputs:     []Buffer{{"/tmp/y.bin", 0}},
		Warmup:      1,
		Runs:        3,
		TimingsPath: "/tmp/t.bin",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"llvm.func @main() {",
		"llvm.func @clock_gettime(i32, !llvm.ptr) -> i32",
		`("/tmp/x \22q\22.bin\00")`,
		"llvm.call @net(",
		"llvm.call @mmap(",
		"cannot open input file /tmp/x \\22q\\22.bin",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("harness lacks %q:\n%s", want, h)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(h), "module") {
		t.Errorf("harness must not be wrapped in a module")
	}
}

func TestSplice(t *testing.T) {
	h := "llvm.func @malloc(i64) -> !llvm.ptr\nllvm.func @exit(i32)\nllvm.func @main() {\n  llvm.return\n}\n"
	tests := []struct {
		name, lowered string
		wantEnd       string // text that must follow the harness
	}{
		{"plain", "module {\n  llvm.func @f() {\n    llvm.return\n  }\n}\n", "}\n"},
		{"attributes", "module attributes {llvm.data_layout = \"e-m:e\", x = {y = 1}} {\n  llvm.func @f()\n}\n", "}\n"},
		{"loc trailer", "#loc = loc(\"a.mlir\":1:1)\nmodule {\n  llvm.func @f()\n} loc(#loc)\n#loc1 = loc(\"}\")\n", "} loc(#loc)\n#loc1 = loc(\"}\")\n"},
		{"comment and strings", "// { not a brace\nmodule {\n  llvm.mlir.global internal constant @s(\"}{\")\n  // }\n}", "}"},
		{"named", "module @m {\n}\n", "}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Splice(tt.lowered, h)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(got, "  llvm.return\n  }\n"+tt.wantEnd) {
				t.Errorf("harness not placed before the module's closing brace:\n%s", got)
			}
			if !strings.Contains(got, "llvm.func @exit(i32)") {
				t.Errorf("exit declaration missing:\n%s", got)
			}
		})
	}
	// A declaration already present is not repeated.
	got, err := Splice("module {\n  llvm.func @malloc(i64) -> !llvm.ptr\n}\n", h)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "@malloc("); n != 1 {
		t.Errorf("malloc declared %d times:\n%s", n, got)
	}
}

func TestSpliceErrors(t *testing.T) {
	h := "llvm.func @main() {\n  llvm.return\n}\n"
	for _, tt := range []struct{ lowered, want string }{
		{"llvm.func @f()\n", "no top-level module"},
		{"module {\n  llvm.func @f() {\n", "not closed"},
		{"module {\n  llvm.func @main() {\n    llvm.return\n  }\n}\n", "already defines @main"},
		{"module {\n  llvm.mlir.global internal constant @s(\"abc) \n}\n", "unterminated string"},
		{"}\n", "unbalanced"},
	} {
		if _, err := Splice(tt.lowered, h); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Splice(%q) error = %v, want %q", tt.lowered, err, tt.want)
		}
	}
}

func TestCheckSignature(t *testing.T) {
	mod := `module {
  llvm.func @ok(%arg0: !llvm.ptr {llvm.noalias, llvm.readonly}, %arg1: !llvm.ptr, %arg2: !llvm.ptr) {
    llvm.return
  }
  llvm.func @decl(!llvm.ptr, !llvm.ptr)
  llvm.func @exploded(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64) {
    llvm.return
  }
  llvm.func @returns(%arg0: !llvm.ptr) -> f32 {
    llvm.return
  }
  llvm.func @none() {
    llvm.return
  }
}`
	for _, tt := range []struct {
		fn    string
		nargs int
		want  string
	}{
		{"ok", 3, ""},
		{"decl", 2, ""},
		{"none", 0, ""},
		{"ok", 2, "takes 3 parameters, the harness passes 2"},
		{"exploded", 3, "parameter 2 of llvm.func @exploded has type i64"},
		{"returns", 1, "returns a value"},
		{"missing", 1, "no llvm.func @missing"},
	} {
		err := CheckSignature(mod, tt.fn, tt.nargs)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckSignature(%s): %v", tt.fn, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckSignature(%s) error = %v, want %q", tt.fn, err, tt.want)
		}
	}
}

func TestFusedOps(t *testing.T) {
	mod := `%1 = llvm.fmul %a, %b : f32
%2 = llvm.fadd %1, %c {fastmathFlags = #llvm.fastmath<nnan, contract>} : f32
%3 = llvm.intr.fmuladd(%a, %b, %c) : (f32, f32, f32) -> f32
%4 = llvm.intr.fma(%a, %b, %c) : (f32, f32, f32) -> f32
%5 = "llvm.intr.vector.reduce.fadd"(%a, %v) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, vector<4xf32>) -> f32
%6 = llvm.fadd %1, %c {fastmathFlags = #llvm.fastmath<fast>} : f32`
	got := fusedOps(mod)
	if len(got) != 3 || !strings.HasPrefix(got[0], "%2") || !strings.HasPrefix(got[1], "%3") || !strings.HasPrefix(got[2], "%6") {
		t.Errorf("fusedOps = %q", got)
	}
}

func TestReadTimings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.bin")
	if err := os.WriteFile(path, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x40}, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTimings(path, 2)
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("ReadTimings = %v, %v", got, err)
	}
	if _, err := ReadTimings(path, 3); err == nil || !strings.Contains(err.Error(), "has 16 bytes, 3 timings need 24") {
		t.Errorf("ReadTimings(3) error = %v", err)
	}
}
