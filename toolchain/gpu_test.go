package toolchain

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateGPU = flag.Bool("update-gpu", false, "rewrite testdata/gpu/*.gpu.mlir from the gpu-kernels pipeline")

func TestParseGPUTarget(t *testing.T) {
	for _, s := range []string{"nvidia:sm_90", "nvidia:sm_80", "nvidia:sm_90a", "amd:gfx942", "amd:gfx1100", "amd:gfx90a"} {
		tg, err := ParseGPUTarget(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if tg.String() != s {
			t.Errorf("%s parsed as %s", s, tg)
		}
	}
	for s, want := range map[string]string{
		"nvidia":       "want host, nvidia:sm_NN",
		"intel:xe":     `unknown vendor "intel"`,
		"nvidia:gfx90": "an NVIDIA chip is sm_NN",
		"amd:sm_90":    "an AMD chip is gfxNNN",
		"nvidia:sm_91": `does not know the nvidia chip "sm_91"`,
		"amd:gfx999":   `does not know the amd chip "gfx999"`,
		"nvidia:":      "an NVIDIA chip is sm_NN",
	} {
		_, err := ParseGPUTarget(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", s, err, want)
		}
	}
}

func TestGPUPipelines(t *testing.T) {
	ps := repoPipelines(t)
	for _, name := range []string{GPUFusePipeline, GPULoopsPipeline, GPUKernelsPipeline, "nvidia", "amd"} {
		if _, ok := ps.Lookup(name); !ok {
			t.Fatalf("passes.txt has no %s pipeline", name)
		}
	}
	nv, _ := ps.Lookup("nvidia")
	p := nv.withPlaceholders(map[string]string{chipPlaceholder: "sm_80", formatPlaceholder: "isa", toolkitPlaceholder: "", libsPlaceholder: ""})
	got := strings.Join(p.Passes(), "\n")
	for _, want := range []string{"nvvm-attach-target{chip=sm_80 O=3}", "gpu-module-to-binary{format=isa}"} {
		if !strings.Contains(got, want) {
			t.Errorf("nvidia with sm_80 lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "$") {
		t.Errorf("a placeholder is left:\n%s", got)
	}
	p = nv.withPlaceholders(map[string]string{chipPlaceholder: "sm_90", formatPlaceholder: "isa", toolkitPlaceholder: "", libsPlaceholder: "/x/libdevice.10.bc"})
	if got := strings.Join(p.Passes(), "\n"); !strings.Contains(got, "nvvm-attach-target{chip=sm_90 O=3 l=/x/libdevice.10.bc}") {
		t.Errorf("nvidia with a libdevice:\n%s", got)
	}
	amd, _ := ps.Lookup("amd")
	p = amd.withPlaceholders(map[string]string{chipPlaceholder: "gfx942", formatPlaceholder: "bin", toolkitPlaceholder: "/tmp/x"})
	if got := strings.Join(p.Passes(), "\n"); !strings.Contains(got, "gpu-module-to-binary{format=bin toolkit=/tmp/x}") ||
		!strings.Contains(got, "convert-gpu-to-rocdl{chipset=gfx942 runtime=HIP}") {
		t.Errorf("amd with gfx942:\n%s", got)
	}
	// Nothing in a GPU pipeline may allow contraction.
	for _, name := range []string{"nvidia", "amd"} {
		q, _ := ps.Lookup(name)
		for _, s := range q.Passes() {
			if strings.Contains(s, "fast") || strings.Contains(s, "unsafe") {
				t.Errorf("%s: %s relaxes the numerics", name, s)
			}
		}
	}
}

// buildGPU runs BuildGPU over testdata/gpu/matmul_add.mlir.
func buildGPU(t *testing.T, target string, kind Kind) *GPUResult {
	t.Helper()
	tc := needTools(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "gpu", "matmul_add.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ParseGPUTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tc.BuildGPU(context.Background(), GPURequest{
		MLIR: string(src), Target: tg, Entry: "mm", NumOutputs: 2,
		Pipelines: gpuPipelines(t, tg.Pipeline()), Emit: kind,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// kernelParams returns each gpu.func of the GPU MLIR with its number of
// scalar parameters once lowered: a rank-r memref is a descriptor of
// 3 + 2r values, anything else one.
func kernelParams(t *testing.T, mlir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	re := regexp.MustCompile(`(?m)^    gpu\.func @(\w+)\((.*)\) kernel`)
	for _, m := range re.FindAllStringSubmatch(mlir, -1) {
		n := 0
		for _, a := range splitArgs(m[2]) {
			_, typ, _ := strings.Cut(a, ": ")
			if shape, ok := strings.CutPrefix(typ, "memref<"); ok {
				n += 3 + 2*strings.Count(shape, "x")
			} else {
				n++
			}
		}
		out[m[1]] = n
	}
	if len(out) == 0 {
		t.Fatalf("no kernels in:\n%s", mlir)
	}
	return out
}

func TestGPUMLIRGolden(t *testing.T) {
	res := buildGPU(t, "nvidia:sm_90", KindMLIR)
	golden := filepath.Join("..", "testdata", "gpu", "matmul_add.gpu.mlir")
	if *updateGPU {
		if err := os.WriteFile(golden, []byte(res.MLIR), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if res.MLIR != string(want) {
		t.Errorf("GPU MLIR differs from %s (rerun with -update-gpu to accept):\n%s", golden, res.MLIR)
	}
	// What the golden file must show, whatever it holds.
	for _, want := range []string{
		"gpu.module @mm_kernels {",
		"func.func private @mm__niro_device(",
		"func.func @mm(%arg0: memref<5x3xf32>, %arg1: memref<3x18xf32>, %arg2: memref<5x18xf32>, %arg3: memref<7xf32>, %arg4: memref<5x18xf32>, %arg5: memref<7xf32>) {",
		"gpu.memcpy %niro_dev3, %arg3 : memref<7xf32>, memref<7xf32>",       // inputs copied in
		"gpu.memcpy %arg4, %niro_dev4 : memref<5x18xf32>, memref<5x18xf32>", // outputs copied out
		"threads in (%c32, %c8, %c1)",                                       // 8 x 32 tiles, inner axis on x
		"scf.if",                                                            // bounds guards
	} {
		if !strings.Contains(res.MLIR, want) {
			t.Errorf("GPU MLIR lacks %q", want)
		}
	}
	// The outputs are not copied in; the constant is copied to the device.
	if strings.Contains(res.MLIR, "gpu.memcpy %niro_dev4, %arg4") {
		t.Error("an output is copied in")
	}
	if !regexp.MustCompile(`memref\.get_global @\w+ : memref<7xf32>\n\s+%\w+ = gpu\.alloc \(\) : memref<7xf32>\n\s+gpu\.memcpy`).MatchString(res.MLIR) {
		t.Error("the constant is not copied to a device buffer")
	}
	// No host code reads a buffer: every memref.load/store is in a kernel.
	host, _, _ := strings.Cut(res.MLIR, "gpu.module @mm_kernels")
	for _, op := range []string{"memref.load", "memref.store", "memref.alloc", "memref.copy"} {
		if strings.Contains(host, op) {
			t.Errorf("host code keeps %s", op)
		}
	}
}

func TestGPUPTXStructure(t *testing.T) {
	mlir := buildGPU(t, "nvidia:sm_90", KindMLIR).MLIR
	params := kernelParams(t, mlir)
	ptx := string(buildGPU(t, "nvidia:sm_90", KindPTX).Kernels)
	if !strings.Contains(ptx, "\n.target sm_90\n") {
		t.Errorf("no .target sm_90 in:\n%s", firstLines(ptx, 10))
	}
	entries := regexp.MustCompile(`(?s)\.visible \.entry (\w+)\((.*?)\)`).FindAllStringSubmatch(ptx, -1)
	var names []string
	for _, e := range entries {
		names = append(names, e[1])
		if got, want := strings.Count(e[2], ".param "), params[e[1]]; got != want {
			t.Errorf("entry %s has %d .param, want %d", e[1], got, want)
		}
	}
	var want []string
	for k := range params {
		want = append(want, k)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) || len(names) != 4 {
		t.Errorf("PTX entries %v, want the 4 kernels %v", names, want)
	}
	// Exact: the multiply and the add rounded apart, .rn so that ptxas does
	// not fuse them either.
	if strings.Contains(ptx, "fma.") {
		t.Error("the PTX has an fma")
	}
	for _, op := range []string{"mul.rn.f32", "add.rn.f32"} {
		if !strings.Contains(ptx, op) {
			t.Errorf("the PTX has no %s", op)
		}
	}
}

func TestGPUAMDISAStructure(t *testing.T) {
	mlir := buildGPU(t, "amd:gfx942", KindMLIR).MLIR
	params := kernelParams(t, mlir)
	isa := string(buildGPU(t, "amd:gfx942", KindISA).Kernels)
	if !strings.Contains(isa, `.amdgcn_target "amdgcn-amd-amdhsa--gfx942"`) {
		t.Errorf("no gfx942 target in:\n%s", firstLines(isa, 5))
	}
	// The metadata lists each kernel: its fields in order, the arguments
	// (.args) among them, its .name later.
	_, meta, ok := strings.Cut(isa, "amdhsa.kernels:")
	if !ok {
		t.Fatal("no amdhsa.kernels metadata")
	}
	var names []string
	for _, k := range strings.Split(meta, "\n  - ")[1:] {
		if !strings.Contains(k, "\n    .args:") {
			continue // amdhsa.version's list
		}
		m := regexp.MustCompile(`\n    \.name:\s+(\w+)`).FindStringSubmatch(k)
		if m == nil {
			t.Fatalf("kernel metadata without a name:\n%s", k)
		}
		names = append(names, m[1])
		got := strings.Count(k, ".value_kind:") - strings.Count(k, ".value_kind:     hidden_")
		if got != params[m[1]] {
			t.Errorf("kernel %s has %d arguments, want %d", m[1], got, params[m[1]])
		}
		if !strings.Contains(isa, ".amdhsa_kernel "+m[1]+"\n") {
			t.Errorf("no .amdhsa_kernel %s", m[1])
		}
	}
	if len(names) != 4 {
		t.Errorf("kernels %v, want 4", names)
	}
	if m := regexp.MustCompile(`\b(v_fma\w*|v_fmac\w*|v_mad_f32\w*|v_mac_f32\w*|v_pk_fma\w*)`).FindString(isa); m != "" {
		t.Errorf("the AMD code has %s: a multiply and an add contracted", m)
	}
	for _, op := range []string{"v_mul_f32", "v_add_f32"} {
		if !strings.Contains(isa, op) {
			t.Errorf("the AMD code has no %s", op)
		}
	}
}

func TestGPULauncher(t *testing.T) {
	res := buildGPU(t, "nvidia:sm_90", KindObj)
	// The host ABI: four inputs, then the two outputs, as bare pointers.
	if !strings.Contains(res.LL, "define void @mm(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4, ptr %5)") {
		t.Errorf("no host-pointer @mm in:\n%s", firstLines(res.LL, 40))
	}
	if len(res.Obj) < 4 || string(res.Obj[1:4]) != "ELF" {
		t.Error("llc did not give an ELF object for the launcher")
	}
	got := LauncherRuntimeCalls(res.LL)
	for _, want := range []string{"mgpuModuleLoadJIT", "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuStreamCreate",
		"mgpuStreamSynchronize", "mgpuStreamDestroy", "mgpuMemAlloc", "mgpuMemFree", "mgpuMemcpy", "mgpuModuleUnload"} {
		if !slices.Contains(got, want) {
			t.Errorf("the launcher does not call %s (calls %v)", want, got)
		}
	}
}

func TestGPUDeviceMathRefused(t *testing.T) {
	tc := needTools(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "toolchain", "small.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := ParseGPUTarget("nvidia:sm_90")
	res, err := tc.BuildGPU(context.Background(), GPURequest{
		MLIR: string(src), Target: tg, Entry: "small", NumOutputs: 1, MathLib: MathLibNone,
		Pipelines: gpuPipelines(t, "nvidia"), Emit: KindPTX,
	})
	var de *DeviceLibraryError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "math.erf") {
		if res != nil {
			t.Logf("PTX:\n%s", res.Kernels)
		}
		t.Fatalf("error %v, want a DeviceLibraryError naming math.erf", err)
	}
}

func TestGPUCodeObjectNeedsLLD(t *testing.T) {
	tc := needTools(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "gpu", "matmul_add.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := ParseGPUTarget("amd:gfx942")
	delete(tc.tools, LLD) // as on a machine without lld-22
	_, err = tc.BuildGPU(context.Background(), GPURequest{
		MLIR: string(src), Target: tg, Entry: "mm", NumOutputs: 2,
		Pipelines: gpuPipelines(t, "amd"), Emit: KindHSACO,
	})
	var te *ToolError
	if !errors.As(err, &te) || te.ExitCode() != 3 || !strings.Contains(err.Error(), "needs ld.lld") {
		t.Fatalf("error %v, want a ToolError (exit 3) saying it needs ld.lld", err)
	}
}

func TestDeviceMemoryRefusesHostAccess(t *testing.T) {
	mlir := `module attributes {gpu.container_module} {
  func.func @f(%arg0: memref<4xf32>, %arg1: memref<f32>) {
    %c0 = arith.constant 0 : index
    %0 = memref.load %arg0[%c0] : memref<4xf32>
    memref.store %0, %arg1[] : memref<f32>
    return
  }
}
`
	_, err := DeviceMemory(mlir, DeviceMemoryOptions{Entry: "f", NumOutputs: 1})
	if err == nil || !strings.Contains(err.Error(), "@f keeps memref.load on the host") {
		t.Fatalf("error %v, want one naming @f and memref.load", err)
	}
	_, err = DeviceMemory(strings.Replace(mlir, "@f(", "@g(", 1), DeviceMemoryOptions{Entry: "f"})
	if err == nil {
		t.Fatal("no error for a missing entry")
	}
}

func TestUnquoteMLIR(t *testing.T) {
	got, err := unquoteMLIR(`"a\0A\09b\22c\\d\n" tail`)
	if err != nil || string(got) != "a\n\tb\"c\\d\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := unquoteMLIR(`"abc`); err == nil {
		t.Error("no error for an unterminated string")
	}
}

func TestGPUDeviceMathRefusedAMD(t *testing.T) {
	tc := needTools(t)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "toolchain", "small.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := ParseGPUTarget("amd:gfx942")
	_, err = tc.BuildGPU(context.Background(), GPURequest{
		MLIR: string(src), Target: tg, Entry: "small", NumOutputs: 1, MathLib: MathLibNone,
		Pipelines: gpuPipelines(t, "amd"), Emit: KindISA,
	})
	var de *DeviceLibraryError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "math.erf") {
		t.Fatalf("error %v, want a DeviceLibraryError naming math.erf", err)
	}
}

// TestGPUSqrtExact: math.sqrt needs no device library: PTX's correctly
// rounded sqrt.rn on NVIDIA, the AMDGPU backend's correctly rounded
// expansion of llvm.sqrt on AMD.
func TestGPUSqrtExact(t *testing.T) {
	tc := needTools(t)
	src := `#v = affine_map<(d0) -> (d0)>
func.func @sq(%a: tensor<40xf32>, %b: tensor<40xf64>) -> (tensor<40xf32>, tensor<40xf64>) {
  %e = tensor.empty() : tensor<40xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<40xf32>) outs(%e : tensor<40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.sqrt %x : f32
    linalg.yield %s : f32
  } -> tensor<40xf32>
  %e2 = tensor.empty() : tensor<40xf64>
  %r2 = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%b : tensor<40xf64>) outs(%e2 : tensor<40xf64>) {
  ^bb0(%x: f64, %o: f64):
    %s = math.sqrt %x : f64
    linalg.yield %s : f64
  } -> tensor<40xf64>
  return %r, %r2 : tensor<40xf32>, tensor<40xf64>
}
`
	for target, want := range map[string][]string{
		"nvidia:sm_90": {"sqrt.rn.f32", "sqrt.rn.f64"},
		"amd:gfx942":   {"v_sqrt_f32", "v_rsq_f64"},
	} {
		tg, _ := ParseGPUTarget(target)
		kind := KindPTX
		if tg.Vendor == AMD {
			kind = KindISA
		}
		res, err := tc.BuildGPU(context.Background(), GPURequest{
			MLIR: src, Target: tg, Entry: "sq", NumOutputs: 2,
			Pipelines: gpuPipelines(t, tg.Pipeline()), Emit: kind,
		})
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		for _, w := range want {
			if !strings.Contains(string(res.Kernels), w) {
				t.Errorf("%s: no %s in the kernels", target, w)
			}
		}
		if strings.Contains(string(res.Kernels), "sqrt.approx") || strings.Contains(string(res.Kernels), "__nv_") || strings.Contains(string(res.Kernels), "__ocml_") {
			t.Errorf("%s: an approximate or library sqrt", target)
		}
	}
}

// gpuPipelines returns the passes.txt pipelines for a vendor ("nvidia",
// "amd").
func gpuPipelines(t testing.TB, vendor string) GPUPipelines {
	t.Helper()
	ps, err := LookupGPUPipelines(repoPipelines(t), GPUTarget{Vendor: GPUVendor(vendor)})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}
