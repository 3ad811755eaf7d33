package toolchain

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/niro-dev/niro/internal/cleanup"
)

// Kind is an output the toolchain can produce. The names are those of
// `niro compile --emit`.
type Kind string

// The outputs of the host path.
const (
	KindLLVMDialect Kind = "llvm-dialect" // MLIR in the llvm dialect (Lower)
	KindLL          Kind = "ll"           // LLVM IR text (Translate)
	KindObj         Kind = "obj"          // relocatable object (Compile)
	KindAsm         Kind = "asm"          // assembly (Compile)
)

// Files a stage writes into its directory. With KeepTemps they are what the
// directory ends up holding.
const (
	fileInput    = "input.mlir"   // MLIR given to Lower
	fileLowered  = "lowered.mlir" // Lower's output, Translate's input
	fileLL       = "module.ll"    // Translate's output, Compile's input
	fileOptLL    = "module.opt.ll"
	fileObj      = "module.o"
	fileAsm      = "module.s"
	fileLinked   = "linked.o"
	fileRunInput = "run.mlir"
)

// workspace is the directory one stage works in.
type workspace struct {
	dir     string
	keep    bool
	release func() // removes dir; registered with package cleanup
}

// workspace returns KeepTemps (created if needed) or a new temporary
// directory for stage.
func (tc *Toolchain) workspace(stage string) (*workspace, error) {
	if tc.KeepTemps != "" {
		if err := os.MkdirAll(tc.KeepTemps, 0o755); err != nil {
			return nil, fmt.Errorf("%s: keep-temps directory: %w", stage, err)
		}
		dir, err := filepath.Abs(tc.KeepTemps)
		if err != nil {
			return nil, fmt.Errorf("%s: keep-temps directory: %w", stage, err)
		}
		return &workspace{dir: dir, keep: true}, nil
	}
	dir, err := os.MkdirTemp("", "niro-"+stage+"-")
	if err != nil {
		return nil, fmt.Errorf("%s: temporary directory: %w", stage, err)
	}
	return &workspace{dir: dir, release: cleanup.Path(dir)}, nil
}

// close removes the directory unless it is kept.
func (w *workspace) close() {
	if !w.keep {
		w.release()
	}
}

func (w *workspace) path(name string) string { return filepath.Join(w.dir, name) }

func (w *workspace) write(stage, name string, data []byte) error {
	if err := os.WriteFile(w.path(name), data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", stage, err)
	}
	return nil
}

// writeFrom writes the file name with what fn writes to it, through a
// buffer. An error from fn itself is returned as it is (it is the
// producer's, such as emit's); failing to create or write the file is
// stage's.
func (w *workspace) writeFrom(stage, name string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(w.path(name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", stage, err)
	}
	bw := &errWriter{w: bufio.NewWriterSize(f, 256<<10)}
	if err := fn(bw); err != nil {
		f.Close()
		if bw.err != nil {
			return fmt.Errorf("%s: writing %s: %w", stage, name, bw.err)
		}
		return err
	}
	if err := bw.w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: writing %s: %w", stage, name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: writing %s: %w", stage, name, err)
	}
	return nil
}

// errWriter remembers the first error of the writer it wraps, so that
// writeFrom can tell a failed write from its producer's own error.
type errWriter struct {
	w   *bufio.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// read returns the output file name that tool wrote. A tool that exited 0
// without writing it failed: that is a *ToolError, as any tool failure.
func (w *workspace) read(stage, tool, name string) ([]byte, error) {
	data, err := os.ReadFile(w.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, toolErrorf(stage, tool, "exited 0 without writing its output %s", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: reading output: %w", stage, err)
	}
	return data, nil
}

// command describes one tool invocation.
type command struct {
	stage, tool string
	args        []string
	stdin       io.Reader
	stdout      io.Writer // nil: discarded
	stderr      io.Writer // besides the copy kept for errors; may be nil
	// cpu is a CPU-time budget (a scheduled attempt's); 0: none.
	cpu time.Duration
	// cmdFile names the command line file under KeepTemps; empty means
	// STAGE.TOOL.cmd.
	cmdFile string
	// used, when not nil, receives the CPU time the tool used.
	used *time.Duration
}

// run runs c in ws's directory under ctx. A failure is a *ToolError that
// carries the tool's standard error.
func (tc *Toolchain) run(ctx context.Context, ws *workspace, c command) error {
	path, err := tc.path(c.stage, c.tool)
	if err != nil {
		return err
	}
	if ws.keep {
		// Leave the command line beside the files, for rerunning by hand.
		line := shellQuote(append([]string{path}, c.args...))
		name := c.cmdFile
		if name == "" {
			name = c.stage + "." + c.tool + ".cmd"
		}
		_ = os.WriteFile(ws.path(name), []byte(line+"\n"), 0o644)
	}
	cmd := exec.Command(path, c.args...)
	cmd.Dir = ws.dir
	cmd.Stdin = c.stdin
	cmd.Stdout = c.stdout
	stderr := &limitedBuffer{max: maxStderr}
	cmd.Stderr = stderr
	if c.stderr != nil {
		cmd.Stderr = io.MultiWriter(stderr, &cappedWriter{w: c.stderr, max: maxStderr})
	}
	start := time.Now()
	tc.progressf("%s: %s", c.stage, c.tool)
	err = runLimited(ctx, cmd, tc.ToolTimeout, limits{cpu: c.cpu, data: tc.MaxMemory})
	err = classifyExit(err, cmd.ProcessState, stderr.String(), tc.MaxMemory)
	if c.used != nil && cmd.ProcessState != nil {
		*c.used = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		if ws.keep {
			err = fmt.Errorf("%w (files in %s)", err, ws.dir)
		}
		return &ToolError{Stage: c.stage, Tool: c.tool, Path: path, Stderr: stderr.String(), Err: err}
	}
	tc.progressf("%s: %s done in %.2fs", c.stage, c.tool, time.Since(start).Seconds())
	return nil
}

func (tc *Toolchain) progressf(format string, args ...any) {
	if tc.Progress != nil {
		fmt.Fprintf(tc.Progress, "niro: "+format+"\n", args...)
	}
}

// Lower runs mlir-opt over mlir with the pipeline's steps: each pass, and
// at each schedule step the transform interpreter from the schedule's entry
// point (the schedules' libraries are preloaded first). It returns the
// result, normally MLIR in the llvm dialect.
func (tc *Toolchain) Lower(ctx context.Context, mlir string, p Pipeline) (string, error) {
	return tc.LowerFrom(ctx, func(w io.Writer) error {
		_, err := io.WriteString(w, mlir)
		return err
	}, p)
}

// LowerFrom is Lower with the MLIR written by write, which streams it into
// mlir-opt's input file (emit.Output.WriteMLIR has this form): the module
// is never held in memory whole. An error write returns is returned as it
// is, and no tool runs. A pipeline with schedule steps runs under a
// compile-time budget and falls back to plain loops when mlir-opt fails
// (lowerScheduled, fallback.go).
func (tc *Toolchain) LowerFrom(ctx context.Context, write func(io.Writer) error, p Pipeline) (string, error) {
	const stage = "lower"
	if len(p.Steps) == 0 {
		return "", fmt.Errorf("%s: pipeline %q has no steps", stage, p.Name)
	}
	ws, err := tc.workspace(stage)
	if err != nil {
		return "", err
	}
	defer ws.close()
	if err := ws.writeFrom(stage, fileInput, write); err != nil {
		return "", err
	}
	if len(p.Schedules()) == 0 {
		return tc.lowerOnce(ctx, ws, p, lowerAttempt{input: fileInput})
	}
	return tc.lowerScheduled(ctx, ws, p)
}

// lowerAttempt is one mlir-opt run of Lower.
type lowerAttempt struct {
	input   string        // the input file in the workspace
	cpu     time.Duration // CPU-time budget; 0: none
	cmdFile string        // command line file under KeepTemps; "" for the default
	used    *time.Duration
}

// lowerOnce runs mlir-opt once over a.input with p's steps.
func (tc *Toolchain) lowerOnce(ctx context.Context, ws *workspace, p Pipeline, a lowerAttempt) (string, error) {
	const stage = "lower"
	var libs, elems []string
	written := make(map[string]bool)
	for _, step := range p.Steps {
		if step.Schedule == "" {
			elems = append(elems, step.Pass)
			continue
		}
		s, ok := ScheduleByName(step.Schedule)
		if !ok {
			return "", fmt.Errorf("%s: pipeline %s: unknown schedule %q", stage, p.Name, step.Schedule)
		}
		// A relative path: mlir-opt runs in ws.dir, and pass options cannot
		// quote a path holding commas or spaces.
		file := "schedule-" + s.Library + ".mlir"
		if !written[file] {
			if err := ws.write(stage, file, []byte(s.Text)); err != nil {
				return "", err
			}
			written[file] = true
			libs = append(libs, file)
		}
		elems = append(elems, "transform-interpreter{entry-point="+s.EntryPoint+"}")
	}
	if len(libs) > 0 {
		elems = append([]string{"transform-preload-library{transform-library-paths=" + strings.Join(libs, ",") + "}"}, elems...)
	}
	args := []string{a.input, "--pass-pipeline=builtin.module(" + strings.Join(elems, ",") + ")", "-o", fileLowered}
	if p.Verify {
		args = append(args, "--verify-each", "--verify-roundtrip")
	}
	c := command{stage: stage, tool: MLIROpt, args: args, cpu: a.cpu, cmdFile: a.cmdFile, used: a.used}
	if tc.PrintIR != nil {
		c.args = append(c.args, "--mlir-print-ir-after-all")
		c.stderr = tc.PrintIR
	}
	_ = os.Remove(ws.path(fileLowered))
	if err := tc.run(ctx, ws, c); err != nil {
		var te *ToolError
		if errors.As(err, &te) {
			te.noteInput(ws.path(fileInput), fileInput) // before ws.close removes it
		}
		return "", err
	}
	out, err := ws.read(stage, MLIROpt, fileLowered)
	return string(out), err
}

// Translate turns MLIR in the llvm dialect into LLVM IR text with
// mlir-translate --mlir-to-llvmir.
func (tc *Toolchain) Translate(ctx context.Context, llvmDialect string) (string, error) {
	const stage = "translate"
	ws, err := tc.workspace(stage)
	if err != nil {
		return "", err
	}
	defer ws.close()
	if err := ws.write(stage, fileLowered, []byte(llvmDialect)); err != nil {
		return "", err
	}
	err = tc.run(ctx, ws, command{stage: stage, tool: MLIRTranslate,
		args: []string{"--mlir-to-llvmir", fileLowered, "-o", fileLL}})
	if err != nil {
		return "", err
	}
	out, err := ws.read(stage, MLIRTranslate, fileLL)
	return string(out), err
}

// CompileOptions configures Compile.
type CompileOptions struct {
	// Kind is KindObj or KindAsm.
	Kind Kind
	// OptLevel is the LLVM optimization level, 0 to 3 (a Pipeline's
	// OptLevel). Above 0, opt runs first when it was found.
	OptLevel int
	// Verify adds opt --verify-each and llc --verify-machineinstrs.
	Verify bool
}

// Compile compiles LLVM IR text into a relocatable object or assembly for
// the host (position-independent code, CPU Toolchain.CPU). LLVM IR from
// Translate carries no fast-math flags, so neither opt nor llc fuses a
// multiply and an add into an FMA: the result is bit-for-bit that of the
// MLIR operations.
func (tc *Toolchain) Compile(ctx context.Context, ll string, o CompileOptions) ([]byte, error) {
	if o.Kind != KindObj && o.Kind != KindAsm {
		return nil, fmt.Errorf("compile: output kind %q is not %q or %q", o.Kind, KindObj, KindAsm)
	}
	ws, err := tc.workspace("compile")
	if err != nil {
		return nil, err
	}
	defer ws.close()
	if err := ws.write("compile", fileLL, []byte(ll)); err != nil {
		return nil, err
	}
	in, err := tc.optimize(ctx, ws, o)
	if err != nil {
		return nil, err
	}
	return tc.llc(ctx, ws, in, o)
}

// optimize runs opt over ws's module.ll when it is worth it and opt exists,
// returning the file llc should read.
func (tc *Toolchain) optimize(ctx context.Context, ws *workspace, o CompileOptions) (string, error) {
	if o.OptLevel < 1 || o.OptLevel > 3 {
		return fileLL, nil
	}
	if ti, ok := tc.tools[Opt]; !ok || !ti.Found() {
		return fileLL, nil
	}
	args := []string{"-O" + strconv.Itoa(o.OptLevel), "-S", fileLL, "-o", fileOptLL}
	// The module names no target; without one opt's cost model has no
	// vector registers and the loop vectorizer leaves every loop scalar.
	if triple := hostTriple(); triple != "" {
		args = append(append(args, "-mtriple="+triple), tc.targetArgs()...)
	}
	if o.Verify {
		args = append(args, "--verify-each")
	}
	if err := tc.run(ctx, ws, command{stage: "optimize", tool: Opt, args: args}); err != nil {
		return "", err
	}
	return fileOptLL, nil
}

// llc compiles the file in to an object or assembly file and returns it.
func (tc *Toolchain) llc(ctx context.Context, ws *workspace, in string, o CompileOptions) ([]byte, error) {
	level := o.OptLevel
	if level < 0 || level > 3 {
		return nil, fmt.Errorf("compile: optimization level %d is not 0 to 3", level)
	}
	out, filetype := fileObj, "obj"
	if o.Kind == KindAsm {
		out, filetype = fileAsm, "asm"
	}
	args := append([]string{"-O" + strconv.Itoa(level)}, tc.targetArgs()...)
	args = append(args, "-relocation-model=pic", "-filetype="+filetype, in, "-o", out)
	if o.Verify {
		args = append(args, "--verify-machineinstrs")
	}
	if err := tc.run(ctx, ws, command{stage: "compile", tool: LLC, args: args}); err != nil {
		return nil, err
	}
	return ws.read("compile", LLC, out)
}

// BlobOptions configures EmbedBlob.
type BlobOptions struct {
	// Symbol names the blob's first byte; it must be a C identifier. The
	// object also defines Symbol_end (one past the last byte) and
	// Symbol_size (an absolute symbol whose address is the size).
	Symbol string
	// Align is the section alignment in bytes, a power of two; 0 means 64.
	Align int
	// Format is llvm-objcopy's output format; empty means the host's ELF
	// format (elf64-x86-64 or elf64-littleaarch64).
	Format string
}

var cIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// EmbedBlob wraps blob in a relocatable object with llvm-objcopy: a
// read-only section .rodata.SYMBOL holding the bytes, aligned to o.Align,
// and the symbols described at BlobOptions. Linking the object beside the
// model's is the caller's job (or use Link to merge them into one).
func (tc *Toolchain) EmbedBlob(ctx context.Context, blob []byte, o BlobOptions) ([]byte, error) {
	const stage = "embed"
	if !cIdentRE.MatchString(o.Symbol) {
		return nil, fmt.Errorf("%s: blob symbol %q is not a C identifier", stage, o.Symbol)
	}
	align := o.Align
	if align == 0 {
		align = 64
	}
	if align < 1 || align&(align-1) != 0 {
		return nil, fmt.Errorf("%s: alignment %d is not a power of two", stage, align)
	}
	format := o.Format
	if format == "" {
		var err error
		if format, err = hostObjectFormat(); err != nil {
			return nil, fmt.Errorf("%s: %w", stage, err)
		}
	}
	ws, err := tc.workspace(stage)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	// llvm-objcopy names the symbols after the input file: _binary_NAME_bin_*.
	in, out := o.Symbol+".bin", o.Symbol+".o"
	if err := ws.write(stage, in, blob); err != nil {
		return nil, err
	}
	section := ".rodata." + o.Symbol
	sym := "_binary_" + o.Symbol + "_bin_"
	args := []string{"-I", "binary", "-O", format,
		"--rename-section=.data=" + section + ",alloc,load,readonly,data,contents",
		// Alignment applies to the section's name before the rename.
		"--set-section-alignment=.data=" + strconv.Itoa(align),
		"--redefine-sym=" + sym + "start=" + o.Symbol,
		"--redefine-sym=" + sym + "end=" + o.Symbol + "_end",
		"--redefine-sym=" + sym + "size=" + o.Symbol + "_size",
		in, out}
	if err := tc.run(ctx, ws, command{stage: stage, tool: LLVMObjcopy, args: args}); err != nil {
		return nil, err
	}
	return ws.read(stage, LLVMObjcopy, out)
}

// hostObjectFormat returns llvm-objcopy's name for the host's object format.
func hostObjectFormat() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("no default object format for %s; set BlobOptions.Format", runtime.GOOS)
	}
	switch runtime.GOARCH {
	case "amd64":
		return "elf64-x86-64", nil
	case "arm64":
		return "elf64-littleaarch64", nil
	}
	return "", fmt.Errorf("no default object format for %s; set BlobOptions.Format", runtime.GOARCH)
}

// Link merges relocatable objects into one (ld.lld -r). It needs ld.lld,
// which LLVM ships in a package of its own (lld-22); without it the caller
// links the objects separately.
func (tc *Toolchain) Link(ctx context.Context, objs ...[]byte) ([]byte, error) {
	const stage = "link"
	if len(objs) == 0 {
		return nil, errors.New("link: no objects")
	}
	if _, err := tc.path(stage, LLD); err != nil {
		return nil, err
	}
	ws, err := tc.workspace(stage)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	args := []string{"-r", "-o", fileLinked}
	for i, obj := range objs {
		name := fmt.Sprintf("link-input-%d.o", i)
		if err := ws.write(stage, name, obj); err != nil {
			return nil, err
		}
		args = append(args, name)
	}
	if err := tc.run(ctx, ws, command{stage: stage, tool: LLD, args: args}); err != nil {
		return nil, err
	}
	return ws.read(stage, LLD, fileLinked)
}

// RunOptions configures Run.
type RunOptions struct {
	// Entry is the function to call; empty means "main".
	Entry string
	// EntryResult is its result type for mlir-runner: "void" (the default),
	// "i32", "i64" or "f32"; mlir-runner prints a non-void result.
	EntryResult string
	// OptLevel is the JIT's optimization level, 0 to 3 (a Pipeline's
	// OptLevel).
	OptLevel int
	// SharedLibs are loaded besides the MLIR runner libraries.
	SharedLibs []string
	// Stdin is the program's standard input; nil means none.
	Stdin io.Reader
	// Stdout receives the program's standard output; nil means Run
	// returns it.
	Stdout io.Writer
	// Stderr, when not nil, receives a copy of the program's standard
	// error (a failure's error carries it in any case).
	Stderr io.Writer
}

// Run JIT-compiles and runs a module in the llvm dialect with mlir-runner,
// which loads the MLIR runner libraries (rtclock, printF64, ...) and the
// C library. It returns the program's standard output unless o.Stdout is
// set. A non-zero exit is a *ToolError for stage "run".
func (tc *Toolchain) Run(ctx context.Context, llvmDialect string, o RunOptions) ([]byte, error) {
	const stage = "run"
	libs := make([]string, 0, 2+len(o.SharedLibs))
	for _, name := range []string{RunnerUtils, CRunnerUtils} {
		p, err := tc.path(stage, name)
		if err != nil {
			return nil, err
		}
		libs = append(libs, p)
	}
	for _, l := range o.SharedLibs {
		if strings.Contains(l, ",") {
			return nil, fmt.Errorf("%s: shared library path %q contains a comma", stage, l)
		}
		abs, err := filepath.Abs(l)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", stage, err)
		}
		libs = append(libs, abs)
	}
	entry, result := o.Entry, o.EntryResult
	if entry == "" {
		entry = "main"
	}
	if result == "" {
		result = "void"
	}
	if o.OptLevel < 0 || o.OptLevel > 3 {
		return nil, fmt.Errorf("%s: optimization level %d is not 0 to 3", stage, o.OptLevel)
	}
	ws, err := tc.workspace(stage)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	if err := ws.write(stage, fileRunInput, []byte(llvmDialect)); err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	c := command{stage: stage, tool: MLIRRunner, stdin: o.Stdin, stdout: &stdout, stderr: o.Stderr,
		args: []string{fileRunInput, "-e", entry, "-entry-point-result=" + result,
			"-O" + strconv.Itoa(o.OptLevel), "-shared-libs=" + strings.Join(libs, ",")}}
	if o.Stdout != nil {
		c.stdout = o.Stdout
	}
	if err := tc.run(ctx, ws, c); err != nil {
		return nil, err
	}
	if o.Stdout != nil {
		return nil, nil
	}
	return stdout.Bytes(), nil
}

// shellQuote joins args into one POSIX shell command line.
func shellQuote(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// hostTriple returns the LLVM target triple of the host llc compiles for
// (its default target), or "" where niro does not know it.
func hostTriple() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64-unknown-linux-gnu"
	case "arm64":
		return "aarch64-unknown-linux-gnu"
	}
	return ""
}
