package toolchain

import (
	"fmt"
	"sort"
	"strings"
)

// The GPU runtime niro generates: MLIR's GPU runtime ABI (the mgpu*
// functions the launchers call) over the vendor's driver library, which it
// loads at run time with dlopen, so a compiled model links with nothing but
// libc (and finds the driver where it runs). docs/gpu.md, "The runtime".
//
// Errors never crash: the first failing driver call's code is kept as the
// status (niro_gpu_status), and once the driver cannot be loaded or
// initialized (status -1: no library, -2: a function missing from it)
// every mgpu* function returns at once (null, or nothing). A failure after
// that leaves later calls running; each returns null where it makes
// nothing.

// runtimeFunc is one mgpu* function: its LLVM signature and its body over
// the driver, for each vendor.
type runtimeFunc struct {
	ret    string // "void" or "ptr"
	params string // LLVM parameter list with names
	cuda   string // body of the ready path; "" where the vendor lacks it
	hip    string
}

// Bodies: `call NAME(ARGS)` lines call a driver function through its
// dlsym'd pointer and check its result; other lines are LLVM IR. %out is
// an alloca'd ptr slot (null first), returned for a "ptr" function.
var runtimeFuncs = map[string]runtimeFunc{
	"mgpuStreamCreate": {ret: "ptr", params: "",
		cuda: "call cuStreamCreate(ptr %out, i32 1)", // CU_STREAM_NON_BLOCKING
		hip:  "call hipStreamCreate(ptr %out)"},
	"mgpuStreamSynchronize": {ret: "void", params: "ptr %s",
		cuda: "call cuStreamSynchronize(ptr %s)", hip: "call hipStreamSynchronize(ptr %s)"},
	"mgpuStreamDestroy": {ret: "void", params: "ptr %s",
		cuda: "call cuStreamDestroy_v2(ptr %s)", hip: "call hipStreamDestroy(ptr %s)"},
	"mgpuStreamWaitEvent": {ret: "void", params: "ptr %s, ptr %e",
		cuda: "call cuStreamWaitEvent(ptr %s, ptr %e, i32 0)", hip: "call hipStreamWaitEvent(ptr %s, ptr %e, i32 0)"},
	"mgpuEventCreate": {ret: "ptr", params: "",
		cuda: "call cuEventCreate(ptr %out, i32 2)", // CU_EVENT_DISABLE_TIMING
		hip:  "call hipEventCreateWithFlags(ptr %out, i32 2)"},
	"mgpuEventDestroy": {ret: "void", params: "ptr %e",
		cuda: "call cuEventDestroy_v2(ptr %e)", hip: "call hipEventDestroy(ptr %e)"},
	"mgpuEventSynchronize": {ret: "void", params: "ptr %e",
		cuda: "call cuEventSynchronize(ptr %e)", hip: "call hipEventSynchronize(ptr %e)"},
	"mgpuEventRecord": {ret: "void", params: "ptr %e, ptr %s",
		cuda: "call cuEventRecord(ptr %e, ptr %s)", hip: "call hipEventRecord(ptr %e, ptr %s)"},
	// A zero-byte buffer is null, as in MLIR's own runtimes. Host-shared
	// memory is managed memory.
	"mgpuMemAlloc": {ret: "ptr", params: "i64 %n, ptr %s, i8 %shared",
		cuda: "%empty = icmp eq i64 %n, 0\n  br i1 %empty, label %done, label %alloc\nalloc:\n  %sh = icmp ne i8 %shared, 0\n  br i1 %sh, label %managed, label %device\nmanaged:\n" +
			"  call cuMemAllocManaged(ptr %out, i64 %n, i32 1)\n  br label %done\ndevice:\n  call cuMemAlloc_v2(ptr %out, i64 %n)\n  br label %done\ndone:",
		hip: "%empty = icmp eq i64 %n, 0\n  br i1 %empty, label %done, label %alloc\nalloc:\n  %sh = icmp ne i8 %shared, 0\n  br i1 %sh, label %managed, label %device\nmanaged:\n" +
			"  call hipMallocManaged(ptr %out, i64 %n, i32 1)\n  br label %done\ndevice:\n  call hipMalloc(ptr %out, i64 %n)\n  br label %done\ndone:"},
	// Freeing waits for the stream, so no queued work still uses the buffer.
	"mgpuMemFree": {ret: "void", params: "ptr %p, ptr %s",
		cuda: "call cuStreamSynchronize(ptr %s)\n  call cuMemFree_v2(ptr %p)",
		hip:  "call hipStreamSynchronize(ptr %s)\n  call hipFree(ptr %p)"},
	// Unified addressing: either side may be host or device memory.
	"mgpuMemcpy": {ret: "void", params: "ptr %dst, ptr %src, i64 %n, ptr %s",
		cuda: "call cuMemcpyAsync(ptr %dst, ptr %src, i64 %n, ptr %s)",
		hip:  "call hipMemcpyAsync(ptr %dst, ptr %src, i64 %n, i32 4, ptr %s)"}, // hipMemcpyDefault
	"mgpuMemset32": {ret: "void", params: "ptr %dst, i32 %v, i64 %n, ptr %s",
		cuda: "call cuMemsetD32Async(ptr %dst, i32 %v, i64 %n, ptr %s)",
		hip:  "call hipMemsetD32Async(ptr %dst, i32 %v, i64 %n, ptr %s)"},
	"mgpuMemset16": {ret: "void", params: "ptr %dst, i16 %v, i64 %n, ptr %s",
		cuda: "call cuMemsetD16Async(ptr %dst, i16 %v, i64 %n, ptr %s)",
		hip:  "call hipMemsetD16Async(ptr %dst, i16 %v, i64 %n, ptr %s)"},
	// PTX text, compiled by the driver at the given optimization level
	// (CU_JIT_OPTIMIZATION_LEVEL = 7). HIP has no PTX JIT.
	"mgpuModuleLoadJIT": {ret: "ptr", params: "ptr %data, i32 %opt",
		cuda: "%optv = zext i32 %opt to i64\n  %optp = inttoptr i64 %optv to ptr\n  %keys = alloca i32\n  store i32 7, ptr %keys\n  %vals = alloca ptr\n  store ptr %optp, ptr %vals\n" +
			"  call cuModuleLoadDataEx(ptr %out, ptr %data, i32 1, ptr %keys, ptr %vals)"},
	"mgpuModuleLoad": {ret: "ptr", params: "ptr %data, i64 %size",
		cuda: "call cuModuleLoadData(ptr %out, ptr %data)", hip: "call hipModuleLoadData(ptr %out, ptr %data)"},
	"mgpuModuleUnload": {ret: "void", params: "ptr %m",
		cuda: "call cuModuleUnload(ptr %m)", hip: "call hipModuleUnload(ptr %m)"},
	"mgpuModuleGetFunction": {ret: "ptr", params: "ptr %m, ptr %name",
		cuda: "call cuModuleGetFunction(ptr %out, ptr %m, ptr %name)", hip: "call hipModuleGetFunction(ptr %out, ptr %m, ptr %name)"},
	"mgpuLaunchKernel": {ret: "void", params: "ptr %f, i64 %gx, i64 %gy, i64 %gz, i64 %bx, i64 %by, i64 %bz, i32 %smem, ptr %s, ptr %params, ptr %extra, i64 %nparams",
		cuda: launchBody("cuLaunchKernel"), hip: launchBody("hipModuleLaunchKernel")},
}

func launchBody(fn string) string {
	var b strings.Builder
	for _, d := range []string{"gx", "gy", "gz", "bx", "by", "bz"} {
		fmt.Fprintf(&b, "%%%s32 = trunc i64 %%%s to i32\n  ", d, d)
	}
	fmt.Fprintf(&b, "call %s(ptr %%f, i32 %%gx32, i32 %%gy32, i32 %%gz32, i32 %%bx32, i32 %%by32, i32 %%bz32, i32 %%smem, ptr %%s, ptr %%params, ptr %%extra)", fn)
	return b.String()
}

// RuntimeFunctions returns the mgpu* functions GPURuntime can define for
// vendor, sorted.
func RuntimeFunctions(vendor GPUVendor) []string {
	var out []string
	for name, f := range runtimeFuncs {
		if f.body(vendor) != "" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (f runtimeFunc) body(vendor GPUVendor) string {
	if vendor == AMD {
		return f.hip
	}
	return f.cuda
}

// GPURuntime returns LLVM IR defining exactly the mgpu* functions funcs
// (the ones a launcher declares, LauncherRuntimeCalls) over the CUDA
// driver API (NVIDIA, libcuda.so.1) or HIP (AMD, libamdhip64.so), plus
// int32_t niro_gpu_status(void) and void niro_gpu_clear_status(void).
func GPURuntime(vendor GPUVendor, funcs []string) (string, error) {
	lib, triple := "libcuda.so.1", hostTriple()
	if vendor == AMD {
		lib = "libamdhip64.so"
	}
	var bodies strings.Builder
	used := map[string]bool{}
	init := []string{}
	if vendor == AMD {
		init = []string{"call hipInit(i32 0)", "call hipSetDevice(i32 0)"}
	} else {
		init = []string{"call cuInit(i32 0)", "%dev = alloca i32", "call cuDeviceGet(ptr %dev, i32 0)", "%d = load i32, ptr %dev",
			"call cuDevicePrimaryCtxRetain(ptr @niro_rt_ctx, i32 %d)"}
		used["cuCtxSetCurrent"] = true
	}
	seen := map[string]bool{}
	for _, name := range funcs {
		if seen[name] {
			continue
		}
		seen[name] = true
		f, ok := runtimeFuncs[name]
		if !ok || f.body(vendor) == "" {
			return "", fmt.Errorf("gpu runtime: %s has no %s implementation (the runtime defines %s)", name, vendor, strings.Join(RuntimeFunctions(vendor), ", "))
		}
		fmt.Fprintf(&bodies, "define %s @%s(%s) {\nentry:\n  %%out = alloca ptr\n  store ptr null, ptr %%out\n  %%ok = call i1 @niro_rt_enter()\n  br i1 %%ok, label %%go, label %%ret\ngo:\n", f.ret, name, f.params)
		bodies.WriteString(expandCalls(f.body(vendor), used, "ret"))
		bodies.WriteString("  br label %ret\nret:\n")
		if f.ret == "ptr" {
			bodies.WriteString("  %v = load ptr, ptr %out\n  ret ptr %v\n}\n\n")
		} else {
			bodies.WriteString("  ret void\n}\n\n")
		}
	}
	initBody := expandCallsFatal(init, used)
	var b strings.Builder
	fmt.Fprintf(&b, "; The GPU runtime niro generates for %s: MLIR's mgpu* runtime ABI over %s,\n", vendor, lib)
	b.WriteString("; loaded with dlopen at the first call. docs/gpu.md, \"The runtime\".\n")
	if triple != "" {
		fmt.Fprintf(&b, "target triple = %q\n", triple)
	}
	b.WriteString("\n@niro_rt_once = internal global i32 0\n@niro_rt_status = internal global i32 0\n@niro_rt_dead = internal global i8 0\n@niro_rt_ctx = internal global ptr null\n")
	fmt.Fprintf(&b, "@niro_rt_lib = private constant [%d x i8] c\"%s\\00\"\n", len(lib)+1, lib)
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "@niro_rt_fn.%s = internal global ptr null\n@niro_rt_name.%s = private constant [%d x i8] c\"%s\\00\"\n", n, n, len(n)+1, n)
	}
	b.WriteString(`
declare ptr @dlopen(ptr, i32)
declare ptr @dlsym(ptr, ptr)
declare i32 @pthread_once(ptr, ptr)

; The first nonzero status since the last clear: a driver error code, or -1
; (the driver library could not be loaded), -2 (it lacks a function).
define i32 @niro_gpu_status() {
  %s = load atomic i32, ptr @niro_rt_status seq_cst, align 4
  ret i32 %s
}

; Clears the status. A driver that could not be loaded stays unloaded.
define void @niro_gpu_clear_status() {
  store atomic i32 0, ptr @niro_rt_status seq_cst, align 4
  ret void
}

define internal void @niro_rt_fail(i32 %code) {
  %x = cmpxchg ptr @niro_rt_status, i32 0, i32 %code seq_cst seq_cst
  ret void
}

; Records a failed driver call; true when it succeeded.
define internal i1 @niro_rt_check(i32 %r) {
  %ok = icmp eq i32 %r, 0
  br i1 %ok, label %yes, label %no
yes:
  ret i1 true
no:
  call void @niro_rt_fail(i32 %r)
  ret i1 false
}

define internal void @niro_rt_die(i32 %code) {
  store atomic i8 1, ptr @niro_rt_dead seq_cst, align 1
  call void @niro_rt_fail(i32 %code)
  ret void
}

; Loads the library and its functions, and initializes the driver.
define internal void @niro_rt_init() {
entry:
  %h = call ptr @dlopen(ptr @niro_rt_lib, i32 2)
  %nolib = icmp eq ptr %h, null
  br i1 %nolib, label %fail_lib, label %sym0
fail_lib:
  call void @niro_rt_die(i32 -1)
  ret void
fail_sym:
  call void @niro_rt_die(i32 -2)
  ret void
`)
	for i, n := range names {
		fmt.Fprintf(&b, "sym%d:\n  %%p%d = call ptr @dlsym(ptr %%h, ptr @niro_rt_name.%s)\n  store ptr %%p%d, ptr @niro_rt_fn.%s\n  %%z%d = icmp eq ptr %%p%d, null\n  br i1 %%z%d, label %%fail_sym, label %%sym%d\n",
			i, i, n, i, n, i, i, i, i+1)
	}
	fmt.Fprintf(&b, "sym%d:\n", len(names))
	b.WriteString(initBody)
	b.WriteString("  ret void\n}\n\n")
	b.WriteString(`; Initializes once; false when the driver is unusable. CUDA makes the
; primary context current on the calling thread.
define internal i1 @niro_rt_enter() {
entry:
  %o = call i32 @pthread_once(ptr @niro_rt_once, ptr @niro_rt_init)
  %d8 = load atomic i8, ptr @niro_rt_dead seq_cst, align 1
  %dead = icmp ne i8 %d8, 0
  br i1 %dead, label %no, label %live
no:
  ret i1 false
live:
`)
	if vendor == AMD {
		b.WriteString("  ret i1 true\n}\n\n")
	} else {
		b.WriteString("  %ctx = load ptr, ptr @niro_rt_ctx\n  %f = load ptr, ptr @niro_rt_fn.cuCtxSetCurrent\n  %r = call i32 %f(ptr %ctx)\n  %ok = call i1 @niro_rt_check(i32 %r)\n  ret i1 %ok\n}\n\n")
	}
	b.WriteString(bodies.String())
	return b.String(), nil
}

// expandCalls turns each `call NAME(ARGS)` line of body into a call through
// the driver function's pointer whose failure is recorded and jumps to
// label fail; used collects the driver functions.
func expandCalls(body string, used map[string]bool, fail string) string {
	var b strings.Builder
	for i, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		name, args, ok := cutCall(line)
		if !ok {
			if strings.HasSuffix(line, ":") {
				b.WriteString(line + "\n")
			} else {
				b.WriteString("  " + line + "\n")
			}
			continue
		}
		used[name] = true
		fmt.Fprintf(&b, "  %%f%d = load ptr, ptr @niro_rt_fn.%s\n  %%r%d = call i32 %%f%d(%s)\n  %%ok%d = call i1 @niro_rt_check(i32 %%r%d)\n  br i1 %%ok%d, label %%next%d, label %%%s\nnext%d:\n",
			i, name, i, i, args, i, i, i, i, fail, i)
	}
	return b.String()
}

// expandCallsFatal is expandCalls for the initialization: a failure makes
// the driver unusable.
func expandCallsFatal(lines []string, used map[string]bool) string {
	var b strings.Builder
	for i, line := range lines {
		name, args, ok := cutCall(line)
		if !ok {
			b.WriteString("  " + line + "\n")
			continue
		}
		used[name] = true
		fmt.Fprintf(&b, "  %%if%d = load ptr, ptr @niro_rt_fn.%s\n  %%ir%d = call i32 %%if%d(%s)\n  %%iok%d = icmp eq i32 %%ir%d, 0\n  br i1 %%iok%d, label %%inext%d, label %%idie%d\nidie%d:\n  call void @niro_rt_die(i32 %%ir%d)\n  ret void\ninext%d:\n",
			i, name, i, i, args, i, i, i, i, i, i, i, i)
	}
	return b.String()
}

// cutCall splits "call NAME(ARGS)".
func cutCall(line string) (name, args string, ok bool) {
	rest, ok := strings.CutPrefix(line, "call ")
	if !ok || strings.HasPrefix(rest, "void @") || strings.HasPrefix(rest, "i1 @") {
		return "", "", false
	}
	i := strings.IndexByte(rest, '(')
	if i < 0 || !strings.HasSuffix(rest, ")") {
		return "", "", false
	}
	return rest[:i], rest[i+1 : len(rest)-1], true
}
