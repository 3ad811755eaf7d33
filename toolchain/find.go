package toolchain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/term"
)

// The tools niro drives.
const (
	MLIROpt       = "mlir-opt"
	MLIRTranslate = "mlir-translate"
	LLC           = "llc"
	MLIRRunner    = "mlir-runner"
	LLVMObjcopy   = "llvm-objcopy"
	Opt           = "opt"    // optional: the LLVM IR optimizer, run before llc when present
	LLD           = "ld.lld" // optional: needed only to merge objects (Link)
)

// The runner support libraries mlir-runner loads with -shared-libs.
const (
	RunnerUtils  = "libmlir_runner_utils"
	CRunnerUtils = "libmlir_c_runner_utils"
)

// toolSpecs lists the tools in report order.
var toolSpecs = []struct {
	name     string
	required bool
}{
	{MLIROpt, true},
	{MLIRTranslate, true},
	{LLC, true},
	{MLIRRunner, true},
	{LLVMObjcopy, true},
	{Opt, false},
	{LLD, false},
}

// EnvPrefix is the environment variable naming an LLVM prefix.
const EnvPrefix = "NIRO_LLVM_PREFIX"

// FindOptions configures tool discovery.
type FindOptions struct {
	// Prefix is an explicit LLVM installation (the --llvm-prefix flag):
	// either a bin directory or a directory with a bin subdirectory. When
	// set, tools are looked for there only.
	Prefix string
	// SystemDirs lists the directories searched after PATH. Nil means the
	// /usr/lib/llvm-NN/bin directories, newest NN first.
	SystemDirs []string
}

// ToolInfo describes what discovery found for one tool or runner library.
type ToolInfo struct {
	Name     string
	Required bool
	// Path is the tool's file; empty when it was not found.
	Path    string
	Version Version
	// Source says where Path came from: "--llvm-prefix", "$NIRO_LLVM_PREFIX",
	// "PATH", a system directory, or for a runner library the directory of
	// mlir-runner's installation.
	Source string
	// Skipped lists candidates that were passed over, with the reason
	// (for example an LLVM 14 llc in PATH).
	Skipped []string
	// Err says why the tool is unusable; nil when it was found.
	Err error
}

// Found reports whether the tool is usable.
func (ti ToolInfo) Found() bool { return ti.Err == nil && ti.Path != "" }

// Toolchain is a set of discovered LLVM/MLIR tools plus the settings used to
// run them. The exported fields may be changed after Find and before use;
// the methods are safe for concurrent use once the fields are no longer
// changed.
type Toolchain struct {
	// KeepTemps, when not empty, is a directory that receives every
	// intermediate file (it is created if needed and files in it are
	// overwritten). When empty each stage works in a temporary directory that
	// is removed afterwards.
	KeepTemps string
	// CPU is the target CPU for opt and llc (-mcpu): a CPU name such as
	// "x86-64-v2", or "native". Empty means the host CPU ("native"), which
	// is what mlir-runner's JIT uses too.
	CPU string
	// Features are extra target features for opt and llc (-mattr), such as
	// "+avx2,-avx512f"; empty means the CPU's own.
	Features string
	// PrintIR, when not nil, receives the MLIR after each pass of Lower
	// (mlir-opt --mlir-print-ir-after-all).
	PrintIR io.Writer
	// ToolTimeout bounds each tool invocation; zero means
	// DefaultToolTimeout. A tool past it is killed with its process group
	// and the stage fails with a *ToolError wrapping a *TimeoutError.
	ToolTimeout time.Duration
	// Progress receives one line per stage when not nil. Find sets it to
	// os.Stderr when standard error is a terminal.
	Progress io.Writer
	// MaxMemory bounds the memory each tool run may allocate, in bytes
	// (RLIMIT_DATA on the tool's process, Linux only); zero means no
	// limit. The niro command sets it from --max-memory (default half the
	// physical memory). The --version probes of Find run without it.
	MaxMemory int64
	// ScheduleBudget is the CPU time a scheduled Lower may spend before it
	// falls back to plain loops (see "When a schedule fails" in
	// docs/toolchain.md); zero means DefaultScheduleBudget for the module.
	ScheduleBudget time.Duration
	// StrictSchedule makes a failed scheduled attempt an error instead of
	// a fallback.
	StrictSchedule bool
	// Warnings receives the one line Lower prints when it falls back; nil
	// discards it.
	Warnings io.Writer

	tools  map[string]ToolInfo
	report []ToolInfo
}

// Find discovers the tools (see the package documentation for the order)
// and returns a Toolchain, or a *ToolError naming every required tool that
// is missing or too old.
func Find(ctx context.Context, opts FindOptions) (*Toolchain, error) {
	report := Probe(ctx, opts)
	var missing []string
	tc := &Toolchain{tools: make(map[string]ToolInfo), report: report}
	runnerFound := false
	for _, ti := range report {
		tc.tools[ti.Name] = ti
		if ti.Name == MLIRRunner {
			runnerFound = ti.Found()
		}
		isLib := ti.Name == RunnerUtils || ti.Name == CRunnerUtils
		if ti.Required && !ti.Found() && (!isLib || runnerFound) {
			missing = append(missing, ti.Err.Error())
		}
	}
	if len(missing) == 1 {
		return nil, &ToolError{Stage: "find", Err: errors.New(missing[0])}
	}
	if len(missing) > 1 {
		return nil, &ToolError{Stage: "find", Err: fmt.Errorf("%d required LLVM/MLIR tools are missing or unusable:\n  %s",
			len(missing), strings.Join(missing, "\n  "))}
	}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		tc.Progress = os.Stderr
	}
	return tc, nil
}

// Report returns what discovery found, one entry per tool and runner
// library, in a fixed order.
func (tc *Toolchain) Report() []ToolInfo {
	return append([]ToolInfo(nil), tc.report...)
}

// Tool returns the discovery result for the named tool or library.
func (tc *Toolchain) Tool(name string) (ToolInfo, bool) {
	ti, ok := tc.tools[name]
	return ti, ok
}

// path returns the file of a tool, or a *ToolError for stage when the tool
// was not found.
func (tc *Toolchain) path(stage, name string) (string, error) {
	ti, ok := tc.tools[name]
	if !ok {
		return "", toolErrorf(stage, name, "not looked for")
	}
	if !ti.Found() {
		return "", &ToolError{Stage: stage, Tool: name, Err: ti.Err}
	}
	return ti.Path, nil
}

// Probe looks for every tool and runner library and reports what it found,
// never failing: a missing or unusable entry carries its reason in Err.
func Probe(ctx context.Context, opts FindOptions) []ToolInfo {
	src := searchOrder(opts)
	report := make([]ToolInfo, len(toolSpecs))
	var g errgroup.Group
	for i, spec := range toolSpecs {
		g.Go(func() error {
			report[i] = probeTool(ctx, spec.name, spec.required, src)
			return nil
		})
	}
	_ = g.Wait() // the probes report into report, never through errors
	var runner ToolInfo
	for _, ti := range report {
		if ti.Name == MLIRRunner {
			runner = ti
		}
	}
	for _, lib := range []string{RunnerUtils, CRunnerUtils} {
		report = append(report, probeLib(lib, runner))
	}
	return report
}

// place is one directory to search, with a label for messages.
type place struct {
	dir, label string
}

// sources is the search order for one discovery.
type sources struct {
	// explicit, when set, is the only place searched and a miss is an error.
	explicit *place
	// explicitErr reports an explicit prefix that is not a directory.
	explicitErr error
	// path then system are searched in order, skipping unusable candidates.
	path, system []place
}

// searchOrder resolves the options and the environment into a search order.
func searchOrder(opts FindOptions) sources {
	var s sources
	prefix, label := opts.Prefix, "--llvm-prefix"
	if prefix == "" {
		prefix, label = os.Getenv(EnvPrefix), "$"+EnvPrefix
	}
	if prefix != "" {
		dir := prefix
		if fi, err := os.Stat(filepath.Join(prefix, "bin")); err == nil && fi.IsDir() {
			dir = filepath.Join(prefix, "bin")
		}
		if fi, err := os.Stat(prefix); err != nil || !fi.IsDir() {
			s.explicitErr = fmt.Errorf("LLVM prefix %s (from %s) is not a directory", prefix, label)
		}
		s.explicit = &place{dir: dir, label: label}
		return s
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		s.path = append(s.path, place{dir: dir, label: "PATH"})
	}
	dirs := opts.SystemDirs
	if dirs == nil {
		dirs = systemLLVMDirs("/usr/lib")
	}
	for _, dir := range dirs {
		s.system = append(s.system, place{dir: dir, label: dir})
	}
	return s
}

// systemLLVMDirs returns root/llvm-NN/bin for every NN present, newest
// first.
func systemLLVMDirs(root string) []string {
	matches, _ := filepath.Glob(filepath.Join(root, "llvm-*", "bin"))
	type cand struct {
		dir string
		n   int
	}
	var cands []cand
	for _, m := range matches {
		base := filepath.Base(filepath.Dir(m))
		n, err := strconv.Atoi(strings.TrimPrefix(base, "llvm-"))
		if err != nil {
			continue
		}
		cands = append(cands, cand{m, n})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].n > cands[j].n })
	dirs := make([]string, len(cands))
	for i, c := range cands {
		dirs[i] = c.dir
	}
	return dirs
}

// probeTool finds one tool along the search order.
func probeTool(ctx context.Context, name string, required bool, src sources) ToolInfo {
	ti := ToolInfo{Name: name, Required: required}
	if src.explicit != nil {
		ti.Source = src.explicit.label
		if src.explicitErr != nil {
			ti.Err = src.explicitErr
			return ti
		}
		file := filepath.Join(src.explicit.dir, name)
		if !isExecutable(file) {
			ti.Err = fmt.Errorf("%s not found in %s (from %s); niro does not fall back to PATH when a prefix is given",
				name, src.explicit.dir, src.explicit.label)
			return ti
		}
		v, err := toolVersion(ctx, file)
		switch {
		case err != nil:
			ti.Err = err
		case v.Major < MinVersion:
			ti.Err = fmt.Errorf("%s is LLVM %s; niro needs LLVM %d or newer", file, v, MinVersion)
		default:
			ti.Path, ti.Version = file, v
		}
		return ti
	}
	seen := make(map[string]bool)
	for _, p := range append(append([]place(nil), src.path...), src.system...) {
		file := filepath.Join(p.dir, name)
		if !isExecutable(file) {
			continue
		}
		key := file
		if r, err := filepath.EvalSymlinks(file); err == nil {
			key = r
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		v, err := toolVersion(ctx, file)
		if err != nil {
			ti.Skipped = append(ti.Skipped, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		if v.Major < MinVersion {
			ti.Skipped = append(ti.Skipped, fmt.Sprintf("%s: LLVM %s is older than %d", file, v, MinVersion))
			continue
		}
		ti.Path, ti.Version, ti.Source = file, v, p.label
		return ti
	}
	msg := fmt.Sprintf("%s (LLVM %d or newer) not found in PATH or /usr/lib/llvm-NN/bin", name, MinVersion)
	if len(ti.Skipped) > 0 {
		msg += "; skipped " + strings.Join(ti.Skipped, "; ")
	}
	if required {
		msg += "; install mlir-22-tools and llvm-22, or pass --llvm-prefix"
	}
	ti.Err = errors.New(msg)
	return ti
}

// probeLib finds a runner library in the lib directory beside mlir-runner's
// bin directory: NAME.so, or else the newest NAME.so.* file.
func probeLib(name string, runner ToolInfo) ToolInfo {
	ti := ToolInfo{Name: name, Required: true, Source: runner.Source}
	if !runner.Found() {
		ti.Err = fmt.Errorf("%s not looked for: mlir-runner was not found", name)
		return ti
	}
	bin := runner.Path
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	lib := filepath.Join(filepath.Dir(filepath.Dir(bin)), "lib")
	ti.Version = runner.Version
	if file := filepath.Join(lib, name+".so"); isFile(file) {
		ti.Path = file
		return ti
	}
	matches, _ := filepath.Glob(filepath.Join(lib, name+".so.*"))
	if len(matches) == 0 {
		ti.Err = fmt.Errorf("%s.so not found in %s (beside %s)", name, lib, runner.Path)
		return ti
	}
	sort.Strings(matches)
	ti.Path = matches[len(matches)-1]
	return ti
}

// toolVersion runs `file --version` and parses the LLVM version.
func toolVersion(ctx context.Context, file string) (Version, error) {
	cmd := exec.Command(file, "--version")
	var buf limitedBuffer
	buf.max = maxStderr
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := runProcess(ctx, cmd, ProbeTimeout)
	out := buf.buf
	if err != nil {
		return Version{}, fmt.Errorf("%s --version failed: %w (%s)", file, err, firstLine(string(out)))
	}
	v, err := ParseVersion(string(out))
	if err != nil {
		return Version{}, fmt.Errorf("%s: %w", file, err)
	}
	return v, nil
}

func isExecutable(file string) bool {
	fi, err := os.Stat(file)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func isFile(file string) bool {
	fi, err := os.Stat(file)
	return err == nil && fi.Mode().IsRegular()
}
