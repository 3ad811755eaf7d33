package toolchain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeMLIROpt writes a shell script standing in for mlir-opt and makes tc
// run it. When its trigger matches (the input holds a niro.contraction
// tag, trigger "tag"; or the pass pipeline runs a transform schedule,
// trigger "schedule") it misbehaves as mode says: "exit1" (a diagnostic
// and status 1), "segv" (it kills itself with SIGSEGV), "hang" (it spins,
// using CPU, until killed) or "limits" (it writes its own resource limits
// from /proc/self/limits as the output); otherwise it runs the real
// mlir-opt, so a fallback's attempt gives real code.
func fakeMLIROpt(t *testing.T, tc *Toolchain, mode, trigger string) {
	t.Helper()
	real := tc.tools[MLIROpt].Path
	script := fmt.Sprintf(`#!/bin/sh
in="$1"
hit=
case %q in
tag) grep -q 'niro.contraction' "$in" 2>/dev/null && hit=1 ;;
schedule) case "$*" in *transform-interpreter*) hit=1 ;; esac ;;
esac
if [ -n "$hit" ]; then
	case %q in
	exit1) echo "$in:12:5: error: Unsupported Op, cannot vectorize" >&2; exit 1 ;;
	segv) kill -SEGV $$ ;;
	hang) while :; do :; done ;;
	limits) grep -E '^Max (cpu time|data size)' /proc/self/limits > lowered.mlir; exit 0 ;;
	esac
fi
exec %q "$@"
`, trigger, mode, real)
	path := filepath.Join(t.TempDir(), "mlir-opt")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ti := tc.tools[MLIROpt]
	ti.Path = path
	tc.tools[MLIROpt] = ti
}

// lowerMatmul lowers a tagged 8×16×4 product with the host pipeline and
// returns the result, the error and what Lower warned.
func lowerMatmul(t *testing.T, tc *Toolchain) (string, error, string) {
	t.Helper()
	var warn bytes.Buffer
	tc.Warnings = &warn
	out, err := tc.Lower(context.Background(), matmulModule("mm", 0, 8, 16, 4, "f32"), pipeline(t, "host"))
	return out, err, warn.String()
}

func TestScheduleFallbackExit1(t *testing.T) {
	tc := needTools(t)
	fakeMLIROpt(t, tc, "exit1", "tag")
	out, err, warn := lowerMatmul(t, tc)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	if !strings.Contains(out, "llvm.func @mm") {
		t.Errorf("no llvm.func @mm in the fallback's output")
	}
	// One line: why (the status and the tool's first error), how, which.
	want := "niro: warning: mlir-opt exited with status 1: error: Unsupported Op, cannot vectorize; compiled without the contraction schedule's tags: 1 of 1 tagged loop nests fell back to plain loops: niro.contraction\n"
	if warn != want {
		t.Errorf("warning:\n got %q\nwant %q", warn, want)
	}
}

func TestScheduleFallbackSegv(t *testing.T) {
	tc := needTools(t)
	// Every attempt that runs a schedule crashes: only the plain one works.
	fakeMLIROpt(t, tc, "segv", "schedule")
	out, err, warn := lowerMatmul(t, tc)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	if !strings.Contains(out, "llvm.func @mm") {
		t.Errorf("no llvm.func @mm in the fallback's output")
	}
	want := "niro: warning: mlir-opt was killed by signal SIGSEGV (segmentation fault); compiled without schedules: 1 of 1 tagged loop nests fell back to plain loops: niro.contraction\n"
	if warn != want {
		t.Errorf("warning:\n got %q\nwant %q", warn, want)
	}
}

func TestScheduleFallbackBudget(t *testing.T) {
	tc := needTools(t)
	fakeMLIROpt(t, tc, "hang", "tag")
	tc.ScheduleBudget = 700 * time.Millisecond
	start := time.Now()
	out, err, warn := lowerMatmul(t, tc)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	if !strings.Contains(out, "llvm.func @mm") {
		t.Errorf("no llvm.func @mm in the fallback's output")
	}
	// The hang used up the budget: no retry with a family removed.
	want := "niro: warning: mlir-opt exceeded the compile-time budget of 700ms; compiled without schedules: 1 of 1 tagged loop nests fell back to plain loops: niro.contraction\n"
	if warn != want {
		t.Errorf("warning:\n got %q\nwant %q", warn, want)
	}
	// A second of CPU on a busy machine may take longer, not minutes.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Lower took %v", d)
	}
}

func TestScheduleStrict(t *testing.T) {
	tc := needTools(t)
	fakeMLIROpt(t, tc, "segv", "tag")
	tc.StrictSchedule = true
	_, err, warn := lowerMatmul(t, tc)
	var te *ToolError
	if !errors.As(err, &te) || te.ExitCode() != ExitToolFailed {
		t.Fatalf("want a *ToolError (exit %d), got %v", ExitToolFailed, err)
	}
	for _, s := range []string{"--strict-schedule", "SIGSEGV", "bug in niro", "--keep-temps=DIR"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if warn != "" {
		t.Errorf("warned %q", warn)
	}
}

// TestToolLimits checks that a tool runs under the memory limit
// (RLIMIT_DATA) and a scheduled attempt under its CPU budget's backstop
// (RLIMIT_CPU: whole seconds rounded up, plus one), as the tool itself
// sees them.
func TestToolLimits(t *testing.T) {
	tc := needTools(t)
	fakeMLIROpt(t, tc, "limits", "tag")
	tc.MaxMemory = 3 << 30
	tc.ScheduleBudget = 2500 * time.Millisecond
	out, err, _ := lowerMatmul(t, tc)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	for _, re := range []string{`Max cpu time +4 +4 +seconds`, `Max data size +3221225472 +3221225472 +bytes`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("limits %q do not match %q", out, re)
		}
	}
}

// TestScheduleNoFallbackOnSuccess: a schedule that works is used as it
// is, silently.
func TestScheduleNoFallbackOnSuccess(t *testing.T) {
	tc := needTools(t)
	out, err, warn := lowerMatmul(t, tc)
	if err != nil {
		t.Fatalf("Lower: %v", err)
	}
	if warn != "" {
		t.Errorf("warned %q", warn)
	}
	if !strings.Contains(out, "vector") && !strings.Contains(out, "<16 x f32>") && !strings.Contains(out, "vector<16xf32>") {
		t.Errorf("the scheduled output has no vectors")
	}
}

func TestDefaultScheduleBudget(t *testing.T) {
	for _, c := range []struct {
		nests, lines int
		want         time.Duration
	}{
		{0, 0, time.Second},
		{26, 321, 1780*time.Millisecond + 326152*time.Microsecond},
		{0, 20000, time.Second + 40*time.Second},
	} {
		if got := DefaultScheduleBudget(c.nests, c.lines); got.Round(time.Millisecond) != c.want.Round(time.Millisecond) {
			t.Errorf("DefaultScheduleBudget(%d, %d) = %v, want %v", c.nests, c.lines, got, c.want)
		}
	}
}

func TestCrashErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&CrashError{Signal: "SIGSEGV (segmentation fault)"}, "was killed by signal SIGSEGV (segmentation fault); this is a bug in niro: please report it, with the input that --keep-temps=DIR keeps"},
		{&CrashError{Signal: "SIGABRT (aborted)", Memory: true, Limit: 4 << 30}, "ran out of memory under its limit of 4.0 GiB (--max-memory) and was killed by signal SIGABRT (aborted); this is a bug in niro: please report it, with the input that --keep-temps=DIR keeps"},
		{&BudgetError{Budget: 3 * time.Second}, "exceeded its compile-time budget of 3s of CPU time (see --schedule-budget) and was killed"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestScanAndStripNests(t *testing.T) {
	src := `module {
  func.func @m(%0: tensor<4xf32>) -> tensor<4xf32> {
    %1 = linalg.generic {iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%0 : tensor<4xf32>) attrs = {niro.conv2d_rows_e, niro.conv_epi} {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    } -> tensor<4xf32> loc(#loc0)
    %2 = linalg.generic {iterator_types = ["parallel"]} ins(%1 : tensor<4xf32>) outs(%1 : tensor<4xf32>) attrs = {niro.contraction, other = 1 : i64} {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    } -> tensor<4xf32>
    %3 = linalg.fill ins(%c : f32) outs(%2 : tensor<4xf32>) attrs = {niro.epi_rows32} -> tensor<4xf32> loc(#loc1)
    func.return %3 : tensor<4xf32>
  }
}
#loc0 = loc("conv \22\31\22"("conv"))
#loc1 = loc("fill"("fill"))
`
	dir := t.TempDir()
	in := filepath.Join(dir, "in.mlir")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	nests, lines, err := scanNests(in)
	if err != nil {
		t.Fatal(err)
	}
	if lines != 16 {
		t.Errorf("%d lines, want 16", lines)
	}
	if err := nameNests(in, nests); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nests {
		got = append(got, fmt.Sprintf("%d %s", n.line, n.describe()))
	}
	want := []string{`3 niro.conv2d_rows_e+niro.conv_epi "conv \"1\""`, `7 niro.contraction`, `11 niro.epi_rows32 "fill"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("nests:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fams := presentFamilies(nests); strings.Join(fams, ",") != "conv,contraction" {
		t.Errorf("families %v, want conv, contraction", fams)
	}
	out := filepath.Join(dir, "out.mlir")
	if err := stripTags(in, out, func(tag string) bool { return tagFamily(tag) == familyConv }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wantText := strings.NewReplacer(
		" attrs = {niro.conv2d_rows_e, niro.conv_epi}", "",
		" attrs = {niro.epi_rows32}", "").Replace(src)
	if string(data) != wantText {
		t.Errorf("stripped:\n%s\nwant\n%s", data, wantText)
	}
}

// TestToolMemoryLimit runs the real mlir-opt under a data limit too small
// for it (1 MiB):
// every attempt fails, and the error says, in plain words, that the tool
// ran out of memory under the limit and that this is a bug to report.
func TestToolMemoryLimit(t *testing.T) {
	tc := needTools(t)
	tc.MaxMemory = 1 << 20
	_, err, warn := lowerMatmul(t, tc)
	if err == nil {
		t.Fatal("Lower worked under an 8 MiB data limit")
	}
	// The limit applies right after the tool starts, so it fails loading
	// its libraries, allocating (LLVM's "out of memory") or in a signal.
	for _, s := range []string{"limit of 1.0 MiB", "--max-memory", "bug in niro", "--keep-temps=DIR"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if warn != "" {
		t.Errorf("warned %q", warn)
	}
}
