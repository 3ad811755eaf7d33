package toolchain

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Device math (docs/gpu.md, "Device math"). A kernel's math function
// (math.exp, math.erf, ...) becomes a call into the vendor's device math
// library: libdevice (libdevice.10.bc, shipped with the CUDA toolkit) on
// NVIDIA, ocml (ocml.bc and the oclc_* control libraries, ROCm's device
// libraries) on AMD. niro links it into the kernels when it finds it;
// without it a loop nest calling one stays on the host (--gpu-fallback) or
// the compile fails naming the functions.

// MathLibEnv names the environment variable that points at the device math
// library (like --gpu-math-lib): libdevice's .bc file or a directory
// holding it (NVIDIA), the directory holding ocml.bc (AMD), or "none" to
// use no library.
const MathLibEnv = "NIRO_GPU_MATH_LIB"

// MathLibNone as a library path means: use no device math library.
const MathLibNone = "none"

// mathLibSearch lists where FindMathLib looks when it is given no path, in
// order; $VAR is the environment variable's value (the entry is skipped when
// it is unset) and a * is a glob.
var mathLibSearch = map[GPUVendor][]string{
	NVIDIA: {
		"$CUDA_HOME/nvvm/libdevice", "$CUDA_PATH/nvvm/libdevice", "$CUDA_ROOT/nvvm/libdevice",
		"/usr/local/cuda/nvvm/libdevice", "/usr/local/cuda-*/nvvm/libdevice", "/opt/cuda/nvvm/libdevice",
		"/usr/lib/nvidia-cuda-toolkit/libdevice", "/usr/lib/cuda/nvvm/libdevice",
	},
	AMD: {
		"$ROCM_PATH/amdgcn/bitcode", "$HIP_PATH/amdgcn/bitcode", "$HIP_DEVICE_LIB_PATH",
		"/opt/rocm/amdgcn/bitcode", "/opt/rocm-*/amdgcn/bitcode", "/opt/rocm/lib/llvm/lib/clang/*/lib/amdgcn/bitcode",
		"/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode", "/usr/lib/llvm-*/lib/clang/*/lib/amdgcn/bitcode",
	},
}

// mathLibFile is the file that marks a vendor's library: the libdevice
// bitcode, or ocml in ROCm's bitcode directory.
var mathLibFile = map[GPUVendor]string{NVIDIA: "libdevice.10.bc", AMD: "ocml.bc"}

// MathLib is a device math library found on this machine.
type MathLib struct {
	// Path is libdevice's .bc file (NVIDIA) or the directory holding
	// ocml.bc and the oclc_* libraries (AMD).
	Path string
}

// FindMathLib finds the vendor's device math library. path is what the
// user gave (--gpu-math-lib, else $NIRO_GPU_MATH_LIB): a file or directory
// that must hold the library, "none" for no library, or "" to search the
// standard places. It returns nil, nil when there is none, and an error
// when path names a place that does not hold it.
func FindMathLib(vendor GPUVendor, path string) (*MathLib, error) {
	if path == "" {
		path = os.Getenv(MathLibEnv)
	}
	want := mathLibFile[vendor]
	if path == MathLibNone {
		return nil, nil
	}
	if path != "" {
		if lib := mathLibAt(vendor, path); lib != nil {
			return lib, nil
		}
		return nil, fmt.Errorf("gpu: %s holds no %s (the %s device math library)", path, want, mathLibName(vendor))
	}
	for _, pat := range mathLibSearch[vendor] {
		if strings.HasPrefix(pat, "$") {
			v, rest, _ := strings.Cut(pat[1:], "/")
			val := os.Getenv(v)
			if val == "" {
				continue
			}
			pat = filepath.Join(val, rest)
		}
		dirs, _ := filepath.Glob(pat)
		sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // the newest version first
		for _, d := range dirs {
			if lib := mathLibAt(vendor, d); lib != nil {
				return lib, nil
			}
		}
	}
	return nil, nil
}

// mathLibAt returns the library at path (a file or a directory), or nil.
func mathLibAt(vendor GPUVendor, path string) *MathLib {
	want := mathLibFile[vendor]
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		if vendor == NVIDIA && strings.HasSuffix(path, ".bc") {
			return &MathLib{Path: path}
		}
		if vendor == AMD && filepath.Base(path) == want {
			return &MathLib{Path: filepath.Dir(path)}
		}
		return nil
	}
	if f, err := os.Stat(filepath.Join(path, want)); err == nil && !f.IsDir() {
		if vendor == NVIDIA {
			return &MathLib{Path: filepath.Join(path, want)}
		}
		return &MathLib{Path: path}
	}
	return nil
}

func mathLibName(v GPUVendor) string {
	if v == AMD {
		return "ocml (ROCm device libraries)"
	}
	return "libdevice (CUDA)"
}

// exactMathOps are the math ops a kernel computes without a device library:
// absf, copysign and fma lower to instructions, and exactIntrinsics turns
// the others into LLVM intrinsics the backends expand exactly.
var exactMathOps = map[string]bool{
	"absf": true, "copysign": true, "fma": true,
	"sqrt": true, "floor": true, "ceil": true, "trunc": true, "roundeven": true, "round": true,
}

var mathUseRE = regexp.MustCompile(`\bmath\.(\w+)\b[^\n]*: (f16|bf16|f32|f64|vector<[^>]*>)`)

// libraryMath returns the math ops in text that need the device math
// library, as "math.NAME", in order of first use.
func libraryMath(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mathUseRE.FindAllStringSubmatch(text, -1) {
		op := m[1]
		if exactMathOps[op] && (m[2] == "f32" || m[2] == "f64") {
			continue
		}
		if !seen[op] {
			seen[op] = true
			out = append(out, "math."+op)
		}
	}
	return out
}

var exactMathRE = regexp.MustCompile(`(?m)^(\s*%[\w]+ = )math\.(sqrt|floor|ceil|trunc|roundeven|round) (%[\w]+) : (f32|f64)$`)

// exactIntrinsics turns the kernels' scalar sqrt, floor, ceil, trunc,
// roundeven and round into calls of LLVM intrinsics that need no device
// library (convert-gpu-to-nvvm and -rocdl would call libdevice's __nv_sqrtf
// or ocml's __ocml_sqrt_f32, and they turn llvm.intr.sqrt into those calls
// too). sqrt is llvm.nvvm.sqrt.rn.f/.d, PTX's correctly rounded sqrt.rn, on
// NVIDIA, and llvm.sqrt on AMD, which the AMDGPU backend expands correctly
// rounded when no fast-math flag allows less: the host's sqrt, bit for bit.
// The rounding functions are exact (their result is an integer the input
// determines), and both backends lower the llvm.floor/ceil/trunc/roundeven
// /round intrinsics to instructions (PTX cvt.rmi/rpi/rzi/rni; AMD
// v_floor/v_ceil/v_trunc/v_rndne) or exact sequences of them.
func exactIntrinsics(kernel string, vendor GPUVendor) string {
	return exactMathRE.ReplaceAllStringFunc(kernel, func(m string) string {
		g := exactMathRE.FindStringSubmatch(m)
		var name string
		switch {
		case g[2] == "sqrt" && vendor != AMD && g[4] == "f32":
			name = "llvm.nvvm.sqrt.rn.f"
		case g[2] == "sqrt" && vendor != AMD:
			name = "llvm.nvvm.sqrt.rn.d"
		default:
			name = "llvm." + g[2] + "." + g[4]
		}
		return fmt.Sprintf("%sllvm.call_intrinsic %q(%s) : (%s) -> %s", g[1], name, g[3], g[4], g[4])
	})
}
