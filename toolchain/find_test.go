package toolchain

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		out  string
		want Version
	}{
		{"Debian LLVM version 22.1.8\n  Optimized build.\n", Version{22, 1, 8}},
		{"LLVM (http://llvm.org/):\n  LLVM version 23.0.0git\n  Optimized build.\n", Version{23, 0, 0}},
		{"llvm-objcopy, compatible with GNU objcopy\nDebian LLVM version 22.1.8\n", Version{22, 1, 8}},
		{"Debian LLD 22.1.8 (compatible with GNU linkers)\n", Version{22, 1, 8}},
		{"Ubuntu LLVM version 14.0.6\n", Version{14, 0, 6}},
		{"LLVM version 22\n", Version{22, 0, 0}},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.out)
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", tt.out, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, want %v", tt.out, got, tt.want)
		}
	}
	if _, err := ParseVersion("mlir-opt: unknown option\n"); err == nil {
		t.Error("ParseVersion accepted output without a version")
	}
}

// fakeTools writes shell scripts named after the tools into dir, each
// printing version on --version, and runner libraries into dir/../lib.
func fakeTools(t *testing.T, dir, version string, names ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fake tools are shell scripts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		script := "#!/bin/sh\necho 'Debian LLVM version " + version + "'\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lib := filepath.Join(filepath.Dir(dir), "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{RunnerUtils, CRunnerUtils} {
		if err := os.WriteFile(filepath.Join(lib, l+".so."+version), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var requiredTools = []string{MLIROpt, MLIRTranslate, LLC, MLIRRunner, LLVMObjcopy}

// wantToolError checks that err is a *ToolError with exit code 3 whose
// message holds every fragment.
func wantToolError(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("got no error")
	}
	var coder interface{ ExitCode() int }
	if !errors.As(err, &coder) || coder.ExitCode() != 3 {
		t.Errorf("error %q does not carry exit code 3", err)
	}
	var te *ToolError
	if !errors.As(err, &te) {
		t.Errorf("error %q is not a *ToolError", err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
}

func TestFindPrefixWithoutTools(t *testing.T) {
	t.Setenv(EnvPrefix, "")
	dir := t.TempDir()
	_, err := Find(context.Background(), FindOptions{Prefix: dir})
	wantToolError(t, err, "mlir-opt not found in "+dir, "--llvm-prefix", "llc not found")
}

func TestFindPrefixNotADirectory(t *testing.T) {
	t.Setenv(EnvPrefix, "")
	missing := filepath.Join(t.TempDir(), "nowhere")
	_, err := Find(context.Background(), FindOptions{Prefix: missing})
	wantToolError(t, err, missing, "is not a directory")
}

func TestFindEnvPrefixWithoutTools(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvPrefix, dir)
	_, err := Find(context.Background(), FindOptions{})
	wantToolError(t, err, "mlir-opt not found in "+dir, "$NIRO_LLVM_PREFIX")
}

// An explicit prefix that lacks one tool is an error even when PATH has
// it: no silent fallback.
func TestFindPrefixMissingOneTool(t *testing.T) {
	root := t.TempDir()
	fakeTools(t, filepath.Join(root, "bin"), "22.1.8", MLIROpt, MLIRTranslate, LLC, MLIRRunner)
	other := filepath.Join(t.TempDir(), "bin")
	fakeTools(t, other, "22.1.8", requiredTools...)
	t.Setenv("PATH", other)
	t.Setenv(EnvPrefix, root)
	_, err := Find(context.Background(), FindOptions{})
	wantToolError(t, err, "llvm-objcopy not found in "+filepath.Join(root, "bin"))
}

func TestFindEnvPrefixTooOld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bin")
	fakeTools(t, dir, "14.0.6", requiredTools...)
	t.Setenv(EnvPrefix, dir)
	_, err := Find(context.Background(), FindOptions{})
	wantToolError(t, err, "is LLVM 14.0.6", "needs LLVM 22 or newer")
}

// The explicit prefix wins over $NIRO_LLVM_PREFIX; a prefix with a bin
// subdirectory is accepted; the runner libraries are found beside it.
func TestFindPrefixOrder(t *testing.T) {
	good := t.TempDir()
	fakeTools(t, filepath.Join(good, "bin"), "22.1.8", requiredTools...)
	t.Setenv(EnvPrefix, t.TempDir())
	tc, err := Find(context.Background(), FindOptions{Prefix: good})
	if err != nil {
		t.Fatal(err)
	}
	ti, _ := tc.Tool(MLIROpt)
	if ti.Path != filepath.Join(good, "bin", MLIROpt) || ti.Source != "--llvm-prefix" || ti.Version != (Version{22, 1, 8}) {
		t.Errorf("mlir-opt = %+v", ti)
	}
	lib, _ := tc.Tool(CRunnerUtils)
	if want := filepath.Join(good, "lib", CRunnerUtils+".so.22.1.8"); lib.Path != want {
		t.Errorf("%s at %q, want %q", CRunnerUtils, lib.Path, want)
	}
	if opt, _ := tc.Tool(Opt); opt.Found() {
		t.Errorf("optional opt found in a prefix without it: %+v", opt)
	}
}

// PATH and the system directories skip a tool older than 22 (like the LLVM
// 14 llc in /usr/bin on Debian 12) in favour of a newer one, and say so.
func TestFindSkipsOldToolInPath(t *testing.T) {
	t.Setenv(EnvPrefix, "")
	old := filepath.Join(t.TempDir(), "bin")
	fakeTools(t, old, "14.0.6", LLC)
	newer := filepath.Join(t.TempDir(), "bin")
	fakeTools(t, newer, "22.1.8", requiredTools...)
	t.Setenv("PATH", old)
	tc, err := Find(context.Background(), FindOptions{SystemDirs: []string{newer}})
	if err != nil {
		t.Fatal(err)
	}
	ti, _ := tc.Tool(LLC)
	if ti.Path != filepath.Join(newer, LLC) || ti.Source != newer {
		t.Errorf("llc = %+v, want the one in %s", ti, newer)
	}
	if len(ti.Skipped) != 1 || !strings.Contains(ti.Skipped[0], "LLVM 14.0.6 is older than 22") {
		t.Errorf("llc skipped = %q", ti.Skipped)
	}
}

func TestFindNothingInPath(t *testing.T) {
	t.Setenv(EnvPrefix, "")
	old := filepath.Join(t.TempDir(), "bin")
	fakeTools(t, old, "14.0.6", requiredTools...)
	t.Setenv("PATH", old)
	_, err := Find(context.Background(), FindOptions{SystemDirs: []string{}})
	wantToolError(t, err, "mlir-opt (LLVM 22 or newer) not found", "LLVM 14.0.6 is older than 22")
	report := Probe(context.Background(), FindOptions{SystemDirs: []string{}})
	if len(report) != len(toolSpecs)+2 {
		t.Fatalf("report has %d entries, want %d", len(report), len(toolSpecs)+2)
	}
	for _, ti := range report {
		if ti.Found() {
			t.Errorf("%s found: %+v", ti.Name, ti)
		}
	}
}

func TestSystemLLVMDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"llvm-14", "llvm-22", "llvm-9", "llvm-x"} {
		if err := os.MkdirAll(filepath.Join(root, d, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := systemLLVMDirs(root)
	want := []string{filepath.Join(root, "llvm-22", "bin"), filepath.Join(root, "llvm-14", "bin"), filepath.Join(root, "llvm-9", "bin")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("systemLLVMDirs = %q, want %q", got, want)
	}
}

// TestFindInstalled checks discovery on this machine: every required tool
// at version 22 or newer, the runner libraries beside mlir-runner.
func TestFindInstalled(t *testing.T) {
	tc := needTools(t)
	for _, ti := range tc.Report() {
		if ti.Required && !ti.Found() {
			t.Errorf("%s: %v", ti.Name, ti.Err)
		}
		if ti.Found() && ti.Version.Major < MinVersion {
			t.Errorf("%s: version %v accepted", ti.Name, ti.Version)
		}
	}
	llc, _ := tc.Tool(LLC)
	if strings.HasPrefix(llc.Path, "/usr/bin/") && llc.Version.Major < MinVersion {
		t.Errorf("llc from /usr/bin is %v", llc.Version)
	}
}
