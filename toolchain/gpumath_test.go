package toolchain

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// erfModule is (erf(a) + 1, b * b) over 40 elements: one math function
// that needs the device library, and a product that does not.
const erfModule = `#v = affine_map<(d0) -> (d0)>
func.func @erf(%a: tensor<40xf32>, %b: tensor<40xf32>) -> (tensor<40xf32>, tensor<40xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<40xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%a : tensor<40xf32>) outs(%e : tensor<40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.erf %x : f32
    %t = arith.addf %s, %one : f32
    linalg.yield %t : f32
  } -> tensor<40xf32>
  %e2 = tensor.empty() : tensor<40xf32>
  %r2 = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%b : tensor<40xf32>) outs(%e2 : tensor<40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<40xf32>
  return %r, %r2 : tensor<40xf32>, tensor<40xf32>
}
`

// fakeBitcode assembles LLVM IR into a .bc file with llvm-as (beside llc).
func fakeBitcode(t *testing.T, tc *Toolchain, path, ll string) {
	t.Helper()
	llc, _ := tc.Tool(LLC)
	as := filepath.Join(filepath.Dir(llc.Path), "llvm-as")
	if _, err := os.Stat(as); err != nil {
		as = strings.Replace(llc.Path, "llc", "llvm-as", 1)
	}
	if err := os.WriteFile(path+".ll", []byte(ll), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, path+".ll", "-o", path).CombinedOutput(); err != nil {
		t.Fatalf("llvm-as: %v\n%s", err, out)
	}
}

func TestFindMathLib(t *testing.T) {
	dir := t.TempDir()
	cuda := filepath.Join(dir, "cuda", "nvvm", "libdevice")
	rocm := filepath.Join(dir, "rocm", "amdgcn", "bitcode")
	for _, d := range []string{cuda, rocm} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(cuda, "libdevice.10.bc"), filepath.Join(rocm, "ocml.bc")} {
		if err := os.WriteFile(f, []byte("BC"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	saved := mathLibSearch
	defer func() { mathLibSearch = saved }()
	mathLibSearch = map[GPUVendor][]string{
		NVIDIA: {filepath.Join(dir, "none", "*"), "$CUDA_HOME/nvvm/libdevice"},
		AMD:    {"$ROCM_PATH/amdgcn/bitcode", filepath.Join(dir, "r*", "amdgcn", "bitcode")},
	}
	t.Setenv(MathLibEnv, "")
	t.Setenv("CUDA_HOME", "")
	t.Setenv("ROCM_PATH", "")
	check := func(v GPUVendor, path, want string) {
		t.Helper()
		lib, err := FindMathLib(v, path)
		if err != nil {
			t.Fatalf("%s %q: %v", v, path, err)
		}
		got := ""
		if lib != nil {
			got = lib.Path
		}
		if got != want {
			t.Errorf("%s %q: found %q, want %q", v, path, got, want)
		}
	}
	check(NVIDIA, "", "") // CUDA_HOME unset, nothing at the other place
	check(AMD, "", rocm)  // the glob
	t.Setenv("CUDA_HOME", filepath.Join(dir, "cuda"))
	check(NVIDIA, "", filepath.Join(cuda, "libdevice.10.bc"))
	check(NVIDIA, "none", "")
	check(NVIDIA, cuda, filepath.Join(cuda, "libdevice.10.bc"))
	check(AMD, filepath.Join(rocm, "ocml.bc"), rocm)
	t.Setenv(MathLibEnv, rocm)
	check(AMD, "", rocm)
	t.Setenv(MathLibEnv, MathLibNone)
	check(AMD, "", "")
	if _, err := FindMathLib(NVIDIA, filepath.Join(dir, "rocm")); err == nil || !strings.Contains(err.Error(), "holds no libdevice.10.bc") {
		t.Errorf("a path without the library: error %v", err)
	}
}

func TestLibraryMath(t *testing.T) {
	text := `%1 = math.exp %0 : f32
%2 = math.sqrt %1 : f32
%3 = math.absf %2 : f32
%4 = math.erf %3 : f64
%5 = math.exp %4 : f32
%6 = math.floor %5 : f32
%7 = math.sqrt %6 : f16`
	if got := strings.Join(libraryMath(text), " "); got != "math.exp math.erf math.sqrt" {
		t.Errorf("libraryMath: %s", got)
	}
}

// TestGPUDeviceMathLinked: with a libdevice (here a stand-in built by
// llvm-as that defines __nv_erff as x * 3) the kernels call no external
// function: the library's body is in the PTX.
func TestGPUDeviceMathLinked(t *testing.T) {
	tc := needTools(t)
	bc := filepath.Join(t.TempDir(), "libdevice.10.bc")
	fakeBitcode(t, tc, bc, `target triple = "nvptx64-nvidia-cuda"
define float @__nv_erff(float %x) {
  %r = fmul float %x, 3.0
  ret float %r
}
`)
	tg, _ := ParseGPUTarget("nvidia:sm_90")
	res, err := tc.BuildGPU(context.Background(), GPURequest{
		MLIR: erfModule, Target: tg, Entry: "erf", NumOutputs: 2, MathLib: bc,
		Pipelines: gpuPipelines(t, "nvidia"), Emit: KindPTX,
	})
	if err != nil {
		t.Fatal(err)
	}
	ptx := string(res.Kernels)
	if res.MathLib == nil || res.MathLib.Path != bc {
		t.Errorf("MathLib %v, want %s", res.MathLib, bc)
	}
	if strings.Contains(ptx, ".extern") || !strings.Contains(ptx, "0f40400000") {
		t.Errorf("the library's __nv_erff (x * 3.0) is not in the PTX:\n%s", ptx)
	}
	if strings.Contains(ptx, "fma.") {
		t.Error("the PTX has an fma")
	}
}

// TestGPUDeviceMathLinkedAMD: with an ocml directory (a stand-in ocml.bc
// defining __ocml_erf_f32 as x * 3, and the ISA-version library) the
// AMDGCN code has the body and calls nothing.
func TestGPUDeviceMathLinkedAMD(t *testing.T) {
	tc := needTools(t)
	dir := t.TempDir()
	fakeBitcode(t, tc, filepath.Join(dir, "ocml.bc"), `target triple = "amdgcn-amd-amdhsa"
define float @__ocml_erf_f32(float %x) {
  %r = fmul float %x, 3.0
  ret float %r
}
`)
	fakeBitcode(t, tc, filepath.Join(dir, "oclc_isa_version_942.bc"), `target triple = "amdgcn-amd-amdhsa"
@__oclc_ISA_version = linkonce_odr hidden local_unnamed_addr addrspace(4) constant i32 9402, align 4
`)
	tg, _ := ParseGPUTarget("amd:gfx942")
	res, err := tc.BuildGPU(context.Background(), GPURequest{
		MLIR: erfModule, Target: tg, Entry: "erf", NumOutputs: 2, MathLib: dir,
		Pipelines: gpuPipelines(t, "amd"), Emit: KindISA,
	})
	if err != nil {
		t.Fatal(err)
	}
	isa := string(res.Kernels)
	if strings.Contains(isa, "s_swappc") || strings.Contains(isa, "__ocml_erf_f32@") || !strings.Contains(isa, "0x40400000") {
		t.Errorf("the library's __ocml_erf_f32 (x * 3.0) is not inlined in the AMD code:\n%s", firstLines(isa, 80))
	}
}

// TestGPUDeviceMathMissing: without the library the compile names the
// function; with Fallback the loop nest runs on the host over host copies
// of its buffers, and the kernels call no library.
func TestGPUDeviceMathMissing(t *testing.T) {
	tc := needTools(t)
	for _, target := range []string{"nvidia:sm_90", "amd:gfx942"} {
		tg, _ := ParseGPUTarget(target)
		req := GPURequest{
			MLIR: erfModule, Target: tg, Entry: "erf", NumOutputs: 2, MathLib: MathLibNone,
			Pipelines: gpuPipelines(t, string(tg.Vendor)), Emit: KindLL,
		}
		if tg.Vendor == AMD {
			req.Emit = KindISA
		}
		_, err := tc.BuildGPU(context.Background(), req)
		var de *DeviceLibraryError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "math.erf") || !strings.Contains(err.Error(), "--gpu-fallback") {
			t.Fatalf("%s: error %v, want a DeviceLibraryError naming math.erf", target, err)
		}
		req.Fallback = true
		req.Emit = KindMLIR
		res, err := tc.BuildGPU(context.Background(), req)
		if err != nil {
			t.Fatalf("%s with fallback: %v", target, err)
		}
		host, kernels, _ := strings.Cut(res.MLIR, "gpu.module @erf_kernels")
		if strings.Contains(kernels, "math.erf") || !strings.Contains(host, "math.erf") {
			t.Errorf("%s: the erf loop is not on the host:\n%s", target, res.MLIR)
		}
		// Copied to the host, computed, copied back; the product is a
		// kernel.
		for _, want := range []string{"= memref.alloc() : memref<40xf32>", "gpu.memcpy %niro_hostbuf0_0, %arg0", "memref.dealloc %niro_hostbuf0_"} {
			if !strings.Contains(host, want) {
				t.Errorf("%s: the host loop lacks %q:\n%s", target, want, host)
			}
		}
		if n := len(launches(t, res.MLIR)); n != 1 {
			t.Errorf("%s: %d kernels, want 1", target, n)
		}
		if tg.Vendor == AMD {
			// No ld.lld here for an AMD launcher; the assembly has no ocml call.
			req.Emit = KindISA
			res, err = tc.BuildGPU(context.Background(), req)
			if err != nil || strings.Contains(string(res.Kernels), "__ocml") {
				t.Errorf("%s with fallback, isa: %v", target, err)
			}
			continue
		}
		req.Emit = KindLL
		res, err = tc.BuildGPU(context.Background(), req)
		if err != nil {
			t.Fatalf("%s with fallback, ll: %v", target, err)
		}
		if !strings.Contains(res.LL, "@erff(") || !strings.Contains(res.LL, "@mgpuStreamSynchronize") {
			t.Errorf("%s: the launcher does not call the host's erff after a wait", target)
		}
		if _, err := tc.Compile(context.Background(), res.LL, CompileOptions{Kind: KindObj, OptLevel: 3}); err != nil {
			t.Errorf("%s: llc: %v", target, err)
		}
	}
}

// TestGPURoundingExact: floor, ceil, trunc, roundeven and round need no
// device library on either vendor: they become instructions.
func TestGPURoundingExact(t *testing.T) {
	var b strings.Builder
	b.WriteString("#v = affine_map<(d0) -> (d0)>\nfunc.func @rd(%a: tensor<40xf32>, %b: tensor<40xf64>) -> (tensor<40xf32>, tensor<40xf64>) {\n")
	for _, ty := range []string{"f32", "f64"} {
		arg := map[string]string{"f32": "%a", "f64": "%b"}[ty]
		b.WriteString("  %e" + ty + " = tensor.empty() : tensor<40x" + ty + ">\n")
		b.WriteString("  %r" + ty + " = linalg.generic {indexing_maps = [#v, #v], iterator_types = [\"parallel\"]} ins(" + arg + " : tensor<40x" + ty + ">) outs(%e" + ty + " : tensor<40x" + ty + ">) {\n")
		b.WriteString("  ^bb0(%x: " + ty + ", %o: " + ty + "):\n")
		prev := "%x"
		for i, op := range []string{"floor", "ceil", "trunc", "roundeven", "round"} {
			cur := "%t" + strconv.Itoa(i)
			b.WriteString("    " + cur + " = math." + op + " " + prev + " : " + ty + "\n")
			b.WriteString("    %s" + strconv.Itoa(i) + " = arith.addf " + cur + ", %x : " + ty + "\n")
			prev = "%s" + strconv.Itoa(i)
		}
		b.WriteString("    linalg.yield " + prev + " : " + ty + "\n  } -> tensor<40x" + ty + ">\n")
	}
	b.WriteString("  return %rf32, %rf64 : tensor<40xf32>, tensor<40xf64>\n}\n")
	for _, target := range []string{"nvidia:sm_90", "amd:gfx942"} {
		tg, _ := ParseGPUTarget(target)
		kind := KindPTX
		if tg.Vendor == AMD {
			kind = KindISA
		}
		res := gpuMLIR(t, b.String(), target, "rd", 2, kind)
		k := string(res.Kernels)
		if strings.Contains(k, ".extern") || strings.Contains(k, "__nv_") || strings.Contains(k, "__ocml_") {
			t.Errorf("%s: the rounding functions call a library", target)
		}
		want := []string{"cvt.rmi.f32.f32", "cvt.rpi.f32.f32", "cvt.rzi.f32.f32", "cvt.rni.f32.f32", "cvt.rmi.f64.f64"}
		if tg.Vendor == AMD {
			want = []string{"v_floor_f32", "v_ceil_f32", "v_trunc_f32", "v_rndne_f32", "v_floor_f64"}
		}
		for _, w := range want {
			if !strings.Contains(k, w) {
				t.Errorf("%s: no %s in the kernels", target, w)
			}
		}
	}
}

// amdContractions returns the AMD code's fused multiply-adds that are not
// part of a correctly rounded division (the v_div_scale ... v_div_fixup
// expansion, whose FMAs compute the one correctly rounded quotient).
func amdContractions(isa string) []string {
	var out []string
	inDiv := false
	for _, l := range strings.Split(isa, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "v_div_scale"):
			inDiv = true
		case strings.HasPrefix(t, "v_div_fixup"):
			inDiv = false
		case !inDiv && amdFMARE.MatchString(t):
			out = append(out, t)
		}
	}
	return out
}

var amdFMARE = regexp.MustCompile(`^(v_fma\w*|v_fmac\w*|v_mad_f32\w*|v_mac_f32\w*|v_pk_fma\w*)\b`)

// TestGPUDivisionExact: a model's a * b + c / d keeps its multiply and
// add apart on both vendors; AMD's FMAs are only those of the division's
// correctly rounded expansion, and NVIDIA divides with div.rn.
func TestGPUDivisionExact(t *testing.T) {
	src := `#v = affine_map<(d0) -> (d0)>
func.func @dv(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#v, #v, #v, #v, #v], iterator_types = ["parallel"]} ins(%a, %b, %c, %d : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %w: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %q = arith.divf %z, %w : f32
    %s = arith.addf %m, %q : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
`
	ptx := string(gpuMLIR(t, src, "nvidia:sm_90", "dv", 1, KindPTX).Kernels)
	for _, w := range []string{"mul.rn.f32", "add.rn.f32", "div.rn.f32"} {
		if !strings.Contains(ptx, w) {
			t.Errorf("the PTX has no %s", w)
		}
	}
	if strings.Contains(ptx, "fma.") || strings.Contains(ptx, "div.approx") || strings.Contains(ptx, "div.full") {
		t.Error("the PTX fuses or approximates")
	}
	isa := string(gpuMLIR(t, src, "amd:gfx942", "dv", 1, KindISA).Kernels)
	if got := amdContractions(isa); len(got) > 0 {
		t.Errorf("the AMD code contracts outside the division: %v", got)
	}
	if !strings.Contains(isa, "v_div_fixup_f32") || !strings.Contains(isa, "v_mul_f32") || !strings.Contains(isa, "v_add_f32") {
		t.Error("the AMD code lacks the correctly rounded division or the separate multiply and add")
	}
	// The check itself: a contraction outside a division is caught.
	if got := amdContractions("v_div_scale_f32 v1\nv_fma_f32 v2\nv_div_fixup_f32 v3\nv_fmac_f32_e32 v4, v5, v6\n"); len(got) != 1 {
		t.Errorf("amdContractions: %v", got)
	}
}

// TestGPUFallbackSerialNest: with --gpu-fallback a whole-tensor reduction
// whose fused body needs the library (a loop nest with no parallel axis)
// folds on the host over host copies, after its seed kernel.
func TestGPUFallbackSerialNest(t *testing.T) {
	tc := needTools(t)
	src := `func.func @sr(%a: tensor<2x3xf32>) -> tensor<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.sin %x : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
`
	tg, _ := ParseGPUTarget("nvidia:sm_90")
	req := GPURequest{MLIR: src, Target: tg, Entry: "sr", NumOutputs: 1, MathLib: MathLibNone, Fallback: true,
		Pipelines: gpuPipelines(t, "nvidia"), Emit: KindMLIR}
	res, err := tc.BuildGPU(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := strings.Cut(res.MLIR, "gpu.module @")
	if !regexp.MustCompile(`(?s)gpu\.launch_func.*gpu\.memcpy %niro_hostbuf0_1, %arg1.*math\.sin.*gpu\.memcpy %arg1, %niro_hostbuf0_1`).MatchString(host) {
		t.Errorf("the seed is not a kernel followed by the fold on the host:\n%s", host)
	}
	req.Emit = KindLL
	if res, err = tc.BuildGPU(context.Background(), req); err != nil || !strings.Contains(res.LL, "@llvm.sin.f32(") {
		t.Errorf("ll: %v", err)
	}
}
