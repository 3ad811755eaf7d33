package toolchain

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParsePipelines(t *testing.T) {
	text := `# comment
pipeline a:
    @opt-level 1   # trailing comment
    @verify
    @schedule contraction
    canonicalize
    one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map}
    func.func(convert-linalg-to-loops,canonicalize)
    @schedule contraction-transfers

pipeline nvidia:sm_90:
  gpu-kernel-outlining
`
	ps, err := ParsePipelines(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.Names(); !slices.Equal(got, []string{"a", "nvidia:sm_90"}) {
		t.Fatalf("names = %q", got)
	}
	a, _ := ps.Lookup("a")
	if a.OptLevel != 1 || !a.Verify {
		t.Errorf("a: OptLevel %d Verify %v", a.OptLevel, a.Verify)
	}
	wantSteps := []Step{
		{Schedule: "contraction"},
		{Pass: "canonicalize"},
		{Pass: "one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map}"},
		{Pass: "func.func(convert-linalg-to-loops,canonicalize)"},
		{Schedule: "contraction-transfers"},
	}
	if !slices.Equal(a.Steps, wantSteps) {
		t.Errorf("a.Steps = %q, want %q", a.Steps, wantSteps)
	}
	if got := a.Schedules(); !slices.Equal(got, []string{"contraction", "contraction-transfers"}) {
		t.Errorf("a.Schedules() = %q", got)
	}
	if got := len(a.Passes()); got != 3 {
		t.Errorf("a has %d passes, want 3", got)
	}
	gpu, ok := ps.Lookup("nvidia:sm_90")
	if !ok || gpu.OptLevel != DefaultOptLevel || gpu.Verify || len(gpu.Steps) != 1 {
		t.Errorf("nvidia:sm_90 = %+v", gpu)
	}
	if _, ok := ps.Lookup("missing"); ok {
		t.Error("Lookup found a missing pipeline")
	}
}

func TestParsePipelinesErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", "# nothing\n", "no pipelines defined"},
		{"pass before pipeline", "canonicalize\n", `line 1: "canonicalize" comes before any`},
		{"no colon", "pipeline host\n  canonicalize\n", "line 1: want `pipeline NAME:`"},
		{"bad name", "pipeline a b:\n  canonicalize\n", "line 1: want `pipeline NAME:`"},
		{"duplicate", "pipeline a:\n  cse\npipeline a:\n  cse\n", "line 3: pipeline a already defined at line 1"},
		{"no steps", "pipeline a:\n  @verify\npipeline b:\n  cse\n", "line 1: pipeline a has no steps"},
		{"no steps at end", "pipeline a:\n", "line 1: pipeline a has no steps"},
		{"unknown directive", "pipeline a:\n  @fast\n  cse\n", "line 2: unknown directive @fast"},
		{"late opt-level", "pipeline a:\n  cse\n  @opt-level 2\n", "line 3: @opt-level after the first step"},
		{"bad opt-level", "pipeline a:\n  @opt-level 4\n  cse\n", "line 2: optimization level must be 0, 1, 2 or 3"},
		{"unknown schedule", "pipeline a:\n  @schedule tiles\n  cse\n", `line 2: unknown schedule "tiles"`},
		{"schedule without name", "pipeline a:\n  @schedule\n  cse\n", "line 2: want `@schedule NAME`"},
		{"two passes on a line", "pipeline a:\n  cse,canonicalize\n", "line 2: pipeline a: top-level comma"},
		{"space between passes", "pipeline a:\n  cse canonicalize\n", "line 2: pipeline a: space outside {}"},
		{"unbalanced", "pipeline a:\n  func.func(cse\n", "line 2: pipeline a: unclosed"},
		{"bad close", "pipeline a:\n  func.func(cse})\n", "line 2: pipeline a: unbalanced"},
		{"bad pass name", "pipeline a:\n  -cse\n", `line 2: pipeline a: bad pass name in "-cse"`},
		{"junk after options", "pipeline a:\n  cse{a=1}x\n", "line 2: pipeline a: unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePipelines(tt.text)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestRepoPipelines checks the shape of passes.txt's pipelines.
func TestRepoPipelines(t *testing.T) {
	ps := repoPipelines(t)
	host, ok := ps.Lookup("host")
	if !ok {
		t.Fatal("passes.txt has no host pipeline")
	}
	if got := host.Schedules(); !slices.Equal(got, []string{"conv", "contraction", "rowfuse", "reduction", "contraction-transfers"}) {
		t.Errorf("host schedules = %q", got)
	}
	passes := strings.Join(host.Passes(), "\n")
	for _, p := range []string{
		"convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}",
		"convert-math-to-llvm", "convert-math-to-libm",
		"one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops=true}",
		"lift-cf-to-scf",
		"buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true}",
		"reconcile-unrealized-casts",
	} {
		if !strings.Contains(passes, p) {
			t.Errorf("host lacks %s", p)
		}
	}
	if last := host.Steps[len(host.Steps)-1]; last.Pass != "reconcile-unrealized-casts" {
		t.Errorf("host ends with %v, want reconcile-unrealized-casts", last)
	}
	o0, ok := ps.Lookup("host-O0")
	if !ok {
		t.Fatal("passes.txt has no host-O0 pipeline")
	}
	if o0.OptLevel != 0 || !o0.Verify || len(o0.Schedules()) != 0 {
		t.Errorf("host-O0: OptLevel %d, Verify %v, schedules %q", o0.OptLevel, o0.Verify, o0.Schedules())
	}
}

// TestPipelinesRunOnSmallModule runs every host pipeline in passes.txt with
// mlir-opt over a small module (a tagged contraction, a fused add, exp and
// erf), translates the result and checks the function's ABI.
func TestPipelinesRunOnSmallModule(t *testing.T) {
	tc := needTools(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "toolchain", "small.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range repoPipelines(t) {
		if !strings.HasPrefix(p.Name, "host") {
			continue // the GPU pipelines: gpu_test.go
		}
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			lowered, err := tc.Lower(ctx, string(src), p)
			if err != nil {
				t.Fatal(err)
			}
			ll, err := tc.Translate(ctx, lowered)
			if err != nil {
				t.Fatal(err)
			}
			// Bare-pointer ABI: three inputs, then the caller's output buffer.
			if !strings.Contains(ll, "define void @small(ptr %0, ptr %1, ptr %2, ptr %3)") {
				t.Errorf("no bare-pointer definition of @small in:\n%s", firstLines(ll, 20))
			}
			if !strings.Contains(ll, "@erff(") {
				t.Error("math.erf did not become a call to erff")
			}
			if !strings.Contains(ll, "@llvm.exp.") {
				t.Error("math.exp did not become the llvm.exp intrinsic")
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
