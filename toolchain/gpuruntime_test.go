package toolchain

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var definedMgpuRE = regexp.MustCompile(`(?m)^define [^@\n]*@(mgpu\w+)\(`)

func definedMgpu(ll string) []string {
	var out []string
	for _, m := range definedMgpuRE.FindAllStringSubmatch(ll, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// TestGPURuntimeMatchesLauncher: the runtime niro generates for a launcher
// defines exactly the mgpu* functions the launcher declares, and llc
// verifies and compiles it, for both vendors.
func TestGPURuntimeMatchesLauncher(t *testing.T) {
	tc := needTools(t)
	res := buildGPU(t, "nvidia:sm_90", KindLL)
	calls := LauncherRuntimeCalls(res.LL)
	if len(calls) < 8 {
		t.Fatalf("the launcher declares only %v", calls)
	}
	rt, err := GPURuntime(NVIDIA, calls)
	if err != nil {
		t.Fatal(err)
	}
	if got := definedMgpu(rt); !slices.Equal(got, calls) {
		t.Errorf("runtime defines %v, the launcher calls %v", got, calls)
	}
	for _, want := range []string{`c"libcuda.so.1\00"`, "cuLaunchKernel", "cuModuleLoadDataEx", "define i32 @niro_gpu_status()"} {
		if !strings.Contains(rt, want) {
			t.Errorf("the NVIDIA runtime lacks %s", want)
		}
	}
	if _, err := tc.Compile(context.Background(), rt, CompileOptions{Kind: KindObj, OptLevel: 2, Verify: true}); err != nil {
		t.Fatalf("llc refuses the NVIDIA runtime: %v", err)
	}
	// AMD loads code objects (mgpuModuleLoad); HIP has no PTX JIT.
	amdCalls := slices.DeleteFunc(slices.Clone(calls), func(s string) bool { return s == "mgpuModuleLoadJIT" })
	amdCalls = append(amdCalls, "mgpuModuleLoad")
	slices.Sort(amdCalls)
	art, err := GPURuntime(AMD, amdCalls)
	if err != nil {
		t.Fatal(err)
	}
	if got := definedMgpu(art); !slices.Equal(got, amdCalls) {
		t.Errorf("AMD runtime defines %v, want %v", got, amdCalls)
	}
	if !strings.Contains(art, `c"libamdhip64.so\00"`) || !strings.Contains(art, "hipModuleLaunchKernel") {
		t.Error("the AMD runtime does not sit over HIP")
	}
	if _, err := tc.Compile(context.Background(), art, CompileOptions{Kind: KindObj, OptLevel: 2, Verify: true}); err != nil {
		t.Fatalf("llc refuses the AMD runtime: %v", err)
	}
	// Every function the generator knows compiles.
	for _, v := range []GPUVendor{NVIDIA, AMD} {
		all, err := GPURuntime(v, RuntimeFunctions(v))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tc.Compile(context.Background(), all, CompileOptions{Kind: KindObj, OptLevel: 0, Verify: true}); err != nil {
			t.Errorf("llc refuses the full %s runtime: %v", v, err)
		}
	}
	if _, err := GPURuntime(AMD, []string{"mgpuModuleLoadJIT"}); err == nil || !strings.Contains(err.Error(), "mgpuModuleLoadJIT has no amd implementation") {
		t.Errorf("error %v for a function HIP lacks", err)
	}
}

// TestGPURuntimeWithoutDriver links the launcher, the runtime and a main
// that calls the model and prints niro_gpu_status, and runs it with lli.
// Without libcuda.so.1 (a machine with no NVIDIA driver) the status is -1
// and nothing crashes; with a driver and a GPU, the status is 0 and the
// second output is v + k.
func TestGPURuntimeWithoutDriver(t *testing.T) {
	tc := needTools(t)
	llc, _ := tc.Tool(LLC)
	bin := filepath.Dir(llc.Path)
	res := buildGPU(t, "nvidia:sm_90", KindLL)
	rt, err := GPURuntime(NVIDIA, LauncherRuntimeCalls(res.LL))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	main := `@a = global [15 x float] zeroinitializer, align 64
@b = global [54 x float] zeroinitializer, align 64
@c = global [90 x float] zeroinitializer, align 64
@v = global [7 x float] [float 10.0, float 10.0, float 10.0, float 10.0, float 10.0, float 10.0, float 10.0], align 64
@o1 = global [90 x float] zeroinitializer, align 64
@o2 = global [7 x float] zeroinitializer, align 64
@fmt = private constant [19 x i8] c"status %d o2 %.9g\0A\00"
declare void @mm(ptr, ptr, ptr, ptr, ptr, ptr)
declare i32 @niro_gpu_status()
declare i32 @printf(ptr, ...)
define i32 @main() {
  call void @mm(ptr @a, ptr @b, ptr @c, ptr @v, ptr @o1, ptr @o2)
  %s = call i32 @niro_gpu_status()
  %p = getelementptr float, ptr @o2, i64 6
  %x = load float, ptr %p
  %d = fpext float %x to double
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %s, double %d)
  ret i32 0
}
`
	for name, text := range map[string]string{"main.ll": main, "launcher.ll": res.LL, "runtime.ll": rt} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := exec.Command(filepath.Join(bin, "llvm-link"), "main.ll", "launcher.ll", "runtime.ll", "-S", "-o", "all.ll")
	link.Dir = dir
	if out, err := link.CombinedOutput(); err != nil {
		t.Fatalf("llvm-link: %v\n%s", err, out)
	}
	run := exec.Command(filepath.Join(bin, "lli"), "all.ll")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("lli: %v\n%s", err, out)
	}
	switch got := strings.TrimSpace(string(out)); got {
	case "status -1 o2 0":
		// No driver library: every call returned at once.
	case "status 0 o2 17":
		t.Log("ran on a GPU: o2[6] = 10 + 7")
	default:
		t.Errorf("got %q, want status -1 (no driver) or status 0 with o2[6] = 17", got)
	}
}
