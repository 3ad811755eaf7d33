package harness

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RunnerLibs are the MLIR runtime libraries mlir-runner loads for the
// harness: rtclock comes from libmlir_c_runner_utils; libmlir_runner_utils
// (which depends on it) provides the printing helpers lowered code may call.
var RunnerLibs = []string{"libmlir_c_runner_utils", "libmlir_runner_utils"}

// RunnerArgs returns the mlir-runner arguments (without the program name)
// that JIT-compile file, a module holding a harness, and run its @main.
// libDir is the directory holding the runner libraries, for example
// /usr/lib/llvm-22/lib; Debian ships them only as versioned files
// (libmlir_c_runner_utils.so.22.1), which are found too.
//
// The flags are -O3 without -mattr: LLVM keeps a separate fmul and fadd
// unfused at every optimization level (the JIT's floating-point fusion mode
// is "standard"), so the numerics of the lowered code are preserved as long
// as it contains no llvm.intr.fmuladd and no "contract" fast-math flag; see
// [FusedOps].
func RunnerArgs(file, libDir string) ([]string, error) {
	var libs []string
	for _, name := range RunnerLibs {
		p, err := FindLib(libDir, name)
		if err != nil {
			return nil, err
		}
		libs = append(libs, p)
	}
	return []string{
		file,
		"-e", "main",
		"-entry-point-result=void",
		"-O3",
		"-shared-libs=" + strings.Join(libs, ","),
	}, nil
}

// FindLib returns the path of the shared library name (without suffix) in
// dir: name.so when it exists, otherwise the newest versioned name.so.N...
func FindLib(dir, name string) (string, error) {
	p := filepath.Join(dir, name+".so")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, name+".so.*"))
	if len(matches) == 0 {
		return "", fmt.Errorf("harness: %s.so not found in %s (it comes with mlir-runner, e.g. Debian's mlir-22-tools)", name, dir)
	}
	slices.SortFunc(matches, compareVersioned)
	return matches[len(matches)-1], nil
}

// compareVersioned orders library paths by their numeric version suffix.
func compareVersioned(a, b string) int {
	va, vb := versionParts(a), versionParts(b)
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] - vb[i]
		}
	}
	if len(va) != len(vb) {
		return len(va) - len(vb)
	}
	return strings.Compare(a, b)
}

func versionParts(p string) []int {
	_, v, _ := strings.Cut(filepath.Base(p), ".so.")
	var parts []int
	for _, f := range strings.Split(v, ".") {
		n := 0
		for _, c := range f {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		parts = append(parts, n)
	}
	return parts
}

// FusedOps returns the lines of an LLVM-dialect module that allow a
// multiply and an add to be fused into one FMA when compiled for a CPU that
// has one: llvm.intr.fmuladd (which vector.fma, and so vector.outerproduct
// with an accumulator, lowers to), and operations carrying the "contract"
// or "fast" fast-math flag. A plain
// llvm.fmul followed by llvm.fadd is never fused. Explicit llvm.intr.fma is
// an exact single-rounding operation and is not reported.
func FusedOps(module string) []string {
	var out []string
	for _, line := range strings.Split(module, "\n") {
		if strings.Contains(line, "llvm.intr.fmuladd") || hasContractFlag(line) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

func hasContractFlag(line string) bool {
	i := strings.Index(line, "fastmath<")
	if i < 0 {
		return false
	}
	flags, _, _ := strings.Cut(line[i+len("fastmath<"):], ">")
	for _, f := range strings.Split(flags, ",") {
		switch strings.TrimSpace(f) {
		case "contract", "fast":
			return true
		}
	}
	return false
}

// ReadTimings reads the timings file a harness wrote: runs little-endian
// f64 values, the seconds of each timed call.
func ReadTimings(path string, runs int) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) != 8*runs {
		return nil, fmt.Errorf("%s: has %d bytes, %d timings need %d", path, len(data), runs, 8*runs)
	}
	out := make([]float64, runs)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out, nil
}
