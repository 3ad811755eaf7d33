// Command niro compiles ONNX models to native code through MLIR.
//
// It imports a model into Niro IR, verifies it, prints MLIR text, and drives
// the installed LLVM/MLIR tools to produce LLVM IR, objects and executables
// that run on the host. See README.md for the command line and the ABI.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/opt"
	"github.com/niro-dev/niro/toolchain"
)

// Exit codes, as PRODUCT.md fixes them.
const (
	exitOK      = 0
	exitInput   = 1 // the input or the result is wrong
	exitUsage   = 2 // bad usage
	exitToolErr = 3 // a required external tool is missing or failed
)

// Globals are the flags every command accepts.
type Globals struct {
	Verbose    bool        `short:"v" help:"Print a progress line per stage (import, weights, each tool) to standard error; on a terminal they are printed anyway."`
	Version    versionFlag `help:"Print niro's version and commit and the LLVM/MLIR version found, and exit."`
	LLVMPrefix string      `name:"llvm-prefix" help:"Directory holding the LLVM/MLIR tools (overrides $NIRO_LLVM_PREFIX and PATH)." placeholder:"DIR"`
	KeepTemps  string      `name:"keep-temps" help:"Keep intermediate files in DIR." placeholder:"DIR"`
	Math       string      `name:"math" help:"How exp, log, tanh and erf are computed on f32: poly (niro's vectorized polynomials) or libm (one libm call per element)." enum:"poly,libm" default:"poly"`
	faultFlags
}

// emitOptions returns the emitter options the global flags choose.
func (g *Globals) emitOptions() emit.Options { return emit.Options{Math: g.Math} }

// CLI is the niro command line.
type CLI struct {
	Globals

	Import  ImportCmd  `cmd:"" help:"Import an ONNX model and print verified Niro IR."`
	Verify  VerifyCmd  `cmd:"" help:"Verify a .onnx or .niro file."`
	Fmt     FmtCmd     `cmd:"" help:"Print a .niro file in canonical form."`
	Emit    EmitCmd    `cmd:"" help:"Print MLIR text (linalg on tensors) for a model."`
	Opt     OptCmd     `cmd:"" help:"Run Niro IR passes (dce, cse, fold, simplify) on a model and print the result."`
	Compile CompileCmd `cmd:"" help:"Compile a model for a target."`
	Run     RunCmd     `cmd:"" help:"Compile a model for the host and run it."`
	Test    TestCmd    `cmd:"" help:"Run a model on ONNX test-data folders and compare."`
	Bench   BenchCmd   `cmd:"" help:"Compile a model for the host and time it."`
	Doctor  DoctorCmd  `cmd:"" help:"Show which LLVM/MLIR tools were found."`
}

var placeholderRE = regexp.MustCompile(`^<[a-z-]+>: `)

// exitCoder is implemented by errors that choose their exit code.
type exitCoder interface{ ExitCode() int }

// usageError is bad usage: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) ExitCode() int { return exitUsage }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under runCtx, which a signal cancels (see runMain).
func runContext(runCtx context.Context, args []string, stdout, stderr io.Writer) int {
	safefile.Reset()
	var cli CLI
	exitCode := -1
	opts := append(pathMappers(),
		kong.Name("niro"),
		kong.Description("niro compiles ONNX models to native code through MLIR."),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exitCode = code }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"portable_cpu": toolchain.PortableCPU()},
	)
	parser, err := kong.New(&cli, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "niro: %v\n", err)
		return exitUsage
	}
	if len(args) == 0 {
		// A bare niro prints the usage.
		if pctx, err := kong.Trace(parser, nil); err == nil {
			_ = pctx.PrintUsage(false)
		}
		return exitOK
	}
	kctx, err := parser.Parse(args)
	if exitCode >= 0 {
		return exitCode // --help
	}
	if err != nil {
		// kong names an argument by its placeholder (<file>: ...); the
		// message names the path itself.
		fmt.Fprintf(stderr, "niro: %s\n", placeholderRE.ReplaceAllString(err.Error(), ""))
		return exitUsage
	}
	env := &Env{Globals: &cli.Globals, Stdout: stdout, Stderr: stderr, ctx: runCtx}
	defer restoreMemoryLimit() // a command's limit (limitToLoaded) ends with it
	if err := env.applyFaultFlags(); err != nil {
		return report(stderr, err)
	}
	if err := kctx.Run(env); err != nil {
		return report(stderr, err)
	}
	return exitOK
}

// report prints err and returns its exit code.
func report(stderr io.Writer, err error) int {
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(stderr, "niro: %s\n", capMessage(err.Error()))
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitInput
}

// silentError carries an exit code for failures already reported.
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e *silentError) ExitCode() int { return e.code }

// Env is what every command's Run receives.
type Env struct {
	*Globals
	Stdout io.Writer
	Stderr io.Writer

	ctx      context.Context // cancelled by SIGINT and SIGTERM
	keepOnce sync.Once
	keepDir  string
	keepErr  error

	passes    []opt.Pass // the Niro IR passes, when passesSet (usePasses)
	passesSet bool
}
