package toolchain

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// GPU outputs, besides KindLLVMDialect, KindLL and KindObj.
const (
	KindMLIR    Kind = "mlir"    // the GPU-dialect module: kernels outlined, device copies placed
	KindPTX     Kind = "ptx"     // NVIDIA: the kernels' PTX text
	KindISA     Kind = "isa"     // AMD: the kernels' AMDGCN assembly
	KindHSACO   Kind = "hsaco"   // AMD: the kernels' code object (needs ld.lld)
	KindRuntime Kind = "runtime" // the mgpu* runtime niro generates (see runtime.go)
)

// GPUVendor is the vendor half of a GPU target string.
type GPUVendor string

// The GPU vendors niro compiles for.
const (
	NVIDIA GPUVendor = "nvidia"
	AMD    GPUVendor = "amd"
)

// GPUTarget is a parsed `--target nvidia:sm_NN` or `amd:gfxNNN`.
type GPUTarget struct {
	Vendor GPUVendor
	// Chip is the chip as LLVM names it: sm_90, sm_90a, gfx942, gfx1100.
	Chip string
}

// String returns the target as the command line spells it.
func (t GPUTarget) String() string { return string(t.Vendor) + ":" + t.Chip }

// Pipeline returns the name of the passes.txt pipeline that finishes the
// lowering for the target's vendor ("nvidia" or "amd"); the chip-independent
// first half is [GPUKernelsPipeline].
func (t GPUTarget) Pipeline() string { return string(t.Vendor) }

// The chip-independent passes.txt pipelines, in the order BuildGPU runs
// them (docs/gpu.md, "Pipelines"): gpu-fuse fuses element-wise chains,
// gpu-loops schedules the contractions, bufferizes and makes parallel
// loops, gpu-kernels turns the mapped loops into outlined kernels.
const (
	GPUFusePipeline    = "gpu-fuse"
	GPULoopsPipeline   = "gpu-loops"
	GPUKernelsPipeline = "gpu-kernels"
)

// GPUPipelines are the pipelines one GPU build runs: the three
// chip-independent ones and the vendor's.
type GPUPipelines struct {
	Fuse, Loops, Kernels, Device Pipeline
}

// GPUPipelineNames returns the passes.txt pipelines a target's build runs,
// in order.
func GPUPipelineNames(t GPUTarget) []string {
	return []string{GPUFusePipeline, GPULoopsPipeline, GPUKernelsPipeline, t.Pipeline()}
}

// LookupGPUPipelines finds a target's pipelines in ps.
func LookupGPUPipelines(ps Pipelines, t GPUTarget) (GPUPipelines, error) {
	var got []Pipeline
	for _, n := range GPUPipelineNames(t) {
		p, ok := ps.Lookup(n)
		if !ok {
			return GPUPipelines{}, fmt.Errorf("passes.txt has no %s pipeline (GPU targets need %v)", n, GPUPipelineNames(t))
		}
		got = append(got, p)
	}
	return GPUPipelines{Fuse: got[0], Loops: got[1], Kernels: got[2], Device: got[3]}, nil
}

// Chips LLVM 22's NVPTX and AMDGPU backends know (llc -mcpu=help), in the
// order llc lists them.
var (
	nvidiaChips = strings.Fields(`sm_20 sm_21 sm_30 sm_32 sm_35 sm_37 sm_50 sm_52 sm_53 sm_60 sm_61 sm_62
		sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_101 sm_101a
		sm_101f sm_103 sm_103a sm_103f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f`)
	amdChips = strings.Fields(`gfx600 gfx601 gfx602 gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801
		gfx802 gfx803 gfx805 gfx810 gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c gfx942 gfx950
		gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 gfx1100
		gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 gfx1201 gfx1250 gfx1251`)
)

// ParseGPUTarget parses "nvidia:sm_NN" or "amd:gfxNNN". The chip must be
// one LLVM 22 knows; the error says what was wrong and lists the choices.
func ParseGPUTarget(s string) (GPUTarget, error) {
	vendor, chip, ok := strings.Cut(s, ":")
	if !ok {
		return GPUTarget{}, fmt.Errorf("target %q: want host, nvidia:sm_NN (such as nvidia:sm_90) or amd:gfxNNN (such as amd:gfx942)", s)
	}
	var known []string
	switch GPUVendor(vendor) {
	case NVIDIA:
		known = nvidiaChips
		if !strings.HasPrefix(chip, "sm_") {
			return GPUTarget{}, fmt.Errorf("target %q: an NVIDIA chip is sm_NN, such as sm_90", s)
		}
	case AMD:
		known = amdChips
		if !strings.HasPrefix(chip, "gfx") {
			return GPUTarget{}, fmt.Errorf("target %q: an AMD chip is gfxNNN, such as gfx942", s)
		}
	default:
		return GPUTarget{}, fmt.Errorf("target %q: unknown vendor %q (want nvidia or amd)", s, vendor)
	}
	for _, k := range known {
		if k == chip {
			return GPUTarget{Vendor: GPUVendor(vendor), Chip: chip}, nil
		}
	}
	return GPUTarget{}, fmt.Errorf("target %q: LLVM 22 does not know the %s chip %q (known: %s)", s, vendor, chip, strings.Join(known, " "))
}

// GPURequest asks BuildGPU for one output of a module for a GPU.
type GPURequest struct {
	// MLIR is the module as niro emits it (linalg on tensors).
	MLIR string
	// WriteMLIR, when not nil, writes the module instead of MLIR,
	// streamed into mlir-opt's input file (see LowerFrom).
	WriteMLIR func(io.Writer) error
	Target    GPUTarget
	// Entry is the entry function's name; NumOutputs how many results it
	// has (after bufferization they are its last NumOutputs parameters).
	Entry      string
	NumOutputs int
	// DeviceBuffers leaves the entry taking device pointers: no copies in
	// or out (docs/gpu.md, "The ABI").
	DeviceBuffers bool
	// Pipelines are the passes.txt pipelines to run; BuildGPU fills in the
	// vendor pipeline's placeholders ($chip, $format, $toolkit, $libs).
	Pipelines GPUPipelines
	// MathLib is where the device math library is (--gpu-math-lib): see
	// FindMathLib; "" searches $NIRO_GPU_MATH_LIB and the standard places.
	MathLib string
	// Fallback keeps a loop nest whose math needs a device library that
	// was not found on the host (--gpu-fallback) instead of failing.
	Fallback bool
	// Emit is the one output wanted: KindMLIR, KindLLVMDialect, KindLL,
	// KindObj, KindPTX (NVIDIA), KindISA or KindHSACO (AMD).
	Emit Kind
}

// GPUResult holds BuildGPU's outputs: the one asked for and the stages
// before it.
type GPUResult struct {
	// MLIR is the GPU-dialect module: kernels in one gpu.module, the entry
	// copying its operands to device memory and back.
	MLIR string
	// LLVMDialect is the host code in the llvm dialect with the kernels
	// serialized into a gpu.binary.
	LLVMDialect string
	// Kernels is the gpu.binary's payload: PTX or AMDGCN assembly text, or
	// an AMD code object.
	Kernels []byte
	LL      string
	Obj     []byte
	// MathLib is the device math library linked into the kernels, if any.
	MathLib *MathLib
}

// Placeholders in the vendor pipelines of passes.txt.
const (
	chipPlaceholder    = "$chip"
	formatPlaceholder  = "$format"
	toolkitPlaceholder = "$toolkit"
	libsPlaceholder    = "$libs"
)

// BuildGPU lowers req.MLIR for a GPU: the gpu-kernels pipeline, the device
// memory rewrite ([DeviceMemory]), then the vendor pipeline with the chip
// filled in, as far as req.Emit needs. NVIDIA kernels are embedded as PTX
// (the driver compiles it for the GPU it runs on); AMD kernels as a code
// object, which needs ld.lld (a *ToolError, exit 3, without it) except for
// KindISA.
func (tc *Toolchain) BuildGPU(ctx context.Context, req GPURequest) (*GPUResult, error) {
	switch req.Emit {
	case KindMLIR, KindLLVMDialect, KindLL, KindObj:
	case KindPTX:
		if req.Target.Vendor != NVIDIA {
			return nil, fmt.Errorf("gpu: --emit ptx is for NVIDIA targets, not %s", req.Target)
		}
	case KindISA, KindHSACO:
		if req.Target.Vendor != AMD {
			return nil, fmt.Errorf("gpu: --emit %s is for AMD targets, not %s", req.Emit, req.Target)
		}
	default:
		return nil, fmt.Errorf("gpu: unknown output kind %q", req.Emit)
	}
	format := "isa"
	toolkit := ""
	if req.Target.Vendor == AMD && req.Emit != KindISA && req.Emit != KindMLIR {
		// A code object: gpu-module-to-binary links it with ld.lld, which
		// it looks for as TOOLKIT/llvm/bin/ld.lld (ROCm's layout).
		lld, err := tc.path("gpu", LLD)
		if err != nil {
			return nil, &ToolError{Stage: "gpu", Tool: LLD, Err: fmt.Errorf("an AMD code object (--emit %s for %s) needs ld.lld (Debian: apt-get install -y lld-22); --emit isa writes the assembly without it", req.Emit, req.Target)}
		}
		dir, err := os.MkdirTemp("", "niro-rocm-")
		if err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		defer os.RemoveAll(dir)
		if err := os.MkdirAll(filepath.Join(dir, "llvm", "bin"), 0o755); err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		if err := os.Symlink(lld, filepath.Join(dir, "llvm", "bin", "ld.lld")); err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		format, toolkit = "bin", dir
	}
	res := &GPUResult{}
	write := req.WriteMLIR
	if write == nil {
		write = func(w io.Writer) error {
			_, err := io.WriteString(w, req.MLIR)
			return err
		}
	}
	fused, err := tc.LowerFrom(ctx, write, req.Pipelines.Fuse)
	if err != nil {
		return nil, err
	}
	loops, err := tc.Lower(ctx, TagGPUContractions(fused), req.Pipelines.Loops)
	if err != nil {
		return nil, err
	}
	// Device math: link the vendor's library if it is found; otherwise
	// keep the loop nests that need it on the host, or fail.
	var lib *MathLib
	var keep func(string) bool
	if need := libraryMath(loops); len(need) > 0 {
		if lib, err = FindMathLib(req.Target.Vendor, req.MathLib); err != nil {
			return nil, err
		}
		if lib == nil && !req.Fallback {
			return nil, &DeviceLibraryError{Target: req.Target, Functions: need, Library: mathLibName(req.Target.Vendor)}
		}
		if lib == nil {
			keep = func(body string) bool { return len(libraryMath(body)) > 0 }
		}
	}
	res.MathLib = lib
	mapped, err := TileGPULoops(loops, keep)
	if err != nil {
		return nil, err
	}
	kernels, err := tc.Lower(ctx, mapped, req.Pipelines.Kernels)
	if err != nil {
		return nil, err
	}
	if res.MLIR, err = DeviceMemory(kernels, DeviceMemoryOptions{Entry: req.Entry, NumOutputs: req.NumOutputs,
		DeviceBuffers: req.DeviceBuffers, Vendor: req.Target.Vendor, HostLoops: keep != nil}); err != nil {
		return nil, err
	}
	if req.Emit == KindMLIR {
		return res, nil
	}
	libs := ""
	if lib != nil && req.Target.Vendor == NVIDIA {
		libs = lib.Path
	}
	if lib != nil && req.Target.Vendor == AMD {
		// ROCDL serialization links ocml from TOOLKIT/amdgcn/bitcode.
		if toolkit == "" {
			dir, err := os.MkdirTemp("", "niro-rocm-")
			if err != nil {
				return nil, fmt.Errorf("gpu: %w", err)
			}
			defer os.RemoveAll(dir)
			toolkit = dir
		}
		if err := os.MkdirAll(filepath.Join(toolkit, "amdgcn"), 0o755); err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		abs, err := filepath.Abs(lib.Path)
		if err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		if err := os.Symlink(abs, filepath.Join(toolkit, "amdgcn", "bitcode")); err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
	}
	if lib == nil && req.Target.Vendor == AMD {
		// ROCDL serialization fails outright on a call into ocml when the
		// ROCm device libraries are absent: name the math ops instead.
		if err := checkKernelMath(req.Target, res.MLIR); err != nil {
			return nil, err
		}
	}
	dev := req.Pipelines.Device.withPlaceholders(map[string]string{
		chipPlaceholder: req.Target.Chip, formatPlaceholder: format, toolkitPlaceholder: toolkit, libsPlaceholder: libs,
	})
	if res.LLVMDialect, err = tc.Lower(ctx, res.MLIR, dev); err != nil {
		return nil, err
	}
	if res.Kernels, err = GPUBinaryPayload(res.LLVMDialect); err != nil {
		return nil, err
	}
	if format == "isa" && (lib == nil || req.Target.Vendor == NVIDIA) {
		if err := checkDeviceCalls(req.Target, string(res.Kernels)); err != nil {
			return nil, err
		}
	}
	switch req.Emit {
	case KindLL, KindObj:
		if res.LL, err = tc.Translate(ctx, res.LLVMDialect); err != nil {
			return nil, err
		}
	}
	if req.Emit == KindObj {
		res.Obj, err = tc.Compile(ctx, res.LL, CompileOptions{Kind: KindObj, OptLevel: dev.OptLevel, Verify: dev.Verify})
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// withPlaceholders returns p with each placeholder in its passes replaced.
// An option whose value is empty ("toolkit=$toolkit" with no toolkit) is
// dropped.
func (p Pipeline) withPlaceholders(vals map[string]string) Pipeline {
	q := p
	q.Steps = make([]Step, len(p.Steps))
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, s := range p.Steps {
		for _, k := range keys {
			if vals[k] == "" {
				s.Pass = regexp.MustCompile(` ?[A-Za-z0-9_-]+=`+regexp.QuoteMeta(k)).ReplaceAllString(s.Pass, "")
			}
			s.Pass = strings.ReplaceAll(s.Pass, k, vals[k])
		}
		s.Pass = strings.Replace(s.Pass, "{ ", "{", 1)
		q.Steps[i] = s
	}
	return q
}

// GPUBinaryPayload returns the object of the one gpu.binary op in a lowered
// module: the string of its #gpu.object, unescaped (PTX or AMDGCN assembly
// for format=isa, a code object for format=bin).
func GPUBinaryPayload(mlir string) ([]byte, error) {
	i := strings.Index(mlir, "gpu.binary @")
	if i < 0 {
		return nil, fmt.Errorf("gpu: the lowered module has no gpu.binary (no kernels?)")
	}
	if strings.Contains(mlir[i+1:], "gpu.binary @") {
		return nil, fmt.Errorf("gpu: the lowered module has more than one gpu.binary")
	}
	rest := mlir[i:]
	j := strings.Index(rest, "#gpu.object<")
	if j < 0 {
		return nil, fmt.Errorf("gpu: gpu.binary without a #gpu.object")
	}
	rest = rest[j:]
	// The object's string follows its format keyword (assembly, bin) or
	// stands alone; the target and properties before it hold no strings
	// but the chip's.
	k := -1
	for _, kw := range []string{`assembly = "`, `bin = "`} {
		if at := strings.Index(rest, kw); at >= 0 && (k < 0 || at < k) {
			k = at + len(kw) - 1
		}
	}
	if k < 0 {
		return nil, fmt.Errorf("gpu: #gpu.object holds neither assembly nor bin")
	}
	s, err := unquoteMLIR(rest[k:])
	if err != nil {
		return nil, fmt.Errorf("gpu: gpu.binary: %w", err)
	}
	return s, nil
}

// unquoteMLIR decodes the MLIR string literal s starts with: \\ \" \n \t
// and \XX hex escapes.
func unquoteMLIR(s string) ([]byte, error) {
	if s == "" || s[0] != '"' {
		return nil, fmt.Errorf("want a string literal")
	}
	var out []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return out, nil
		case c != '\\':
			out = append(out, c)
		case i+1 >= len(s):
			return nil, fmt.Errorf("unterminated string")
		default:
			i++
			switch s[i] {
			case '\\', '"':
				out = append(out, s[i])
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			default:
				if i+1 >= len(s) || !isHex(s[i]) || !isHex(s[i+1]) {
					return nil, fmt.Errorf("bad escape at offset %d", i)
				}
				out = append(out, unhex(s[i])<<4|unhex(s[i+1]))
				i++
			}
		}
	}
	return nil, fmt.Errorf("unterminated string")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

var (
	ptxExternRE = regexp.MustCompile(`(?m)^\.extern \.func\s+(?:\([^)]*\)\s*)?(\w+)`)
	amdCallRE   = regexp.MustCompile(`\b(__ocml_\w+|__ockl_\w+)\b`)
)

// checkDeviceCalls fails when the kernels call a device library function
// (libdevice's __nv_*, ocml's __ocml_*) that was not linked in: the driver
// would refuse the module when it is loaded.
func checkDeviceCalls(t GPUTarget, asm string) error {
	var missing []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			missing = append(missing, n)
		}
	}
	if t.Vendor == NVIDIA {
		for _, m := range ptxExternRE.FindAllStringSubmatch(asm, -1) {
			add(m[1])
		}
	} else {
		for _, m := range amdCallRE.FindAllStringSubmatch(asm, -1) {
			add(m[1])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &DeviceLibraryError{Target: t, Functions: missing, Library: mathLibName(t.Vendor)}
}

// checkKernelMath fails when the kernels of a GPU-dialect module use math
// ops that need the vendor's device library.
func checkKernelMath(t GPUTarget, mlir string) error {
	i := strings.Index(mlir, "\n  gpu.module @")
	if i < 0 {
		return nil
	}
	if ops := libraryMath(mlir[i:]); len(ops) > 0 {
		return &DeviceLibraryError{Target: t, Functions: ops, Library: mathLibName(t.Vendor)}
	}
	return nil
}

// DeviceLibraryError reports kernels that call device math functions from
// a library that was not found (and no --gpu-fallback).
type DeviceLibraryError struct {
	Target    GPUTarget
	Functions []string
	Library   string
}

func (e *DeviceLibraryError) Error() string {
	return fmt.Sprintf("%s: the kernels call %s from %s, which was not found (point --gpu-math-lib or $%s at it), or pass --gpu-fallback to run those loop nests on the host",
		e.Target, strings.Join(e.Functions, ", "), e.Library, MathLibEnv)
}

var mgpuDeclRE = regexp.MustCompile(`(?m)^declare [^@\n]*@(mgpu\w+)\(`)

// LauncherRuntimeCalls returns the mgpu* functions a launcher's LLVM IR
// declares (the runtime ABI it calls), sorted.
func LauncherRuntimeCalls(ll string) []string {
	var out []string
	for _, m := range mgpuDeclRE.FindAllStringSubmatch(ll, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}
