package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// InputFlags are the --input flags of run and bench.
type InputFlags struct {
	Input []string `help:"An input: NAME=PATH (NAME must be an input of the model), or PATH alone (a .pb's stored name, else the next input in order). .npy or ONNX TensorProto .pb." placeholder:"NAME=PATH"`
}

// read loads the --input files.
func (f InputFlags) read() ([]namedTensor, error) {
	var out []namedTensor
	for _, spec := range f.Input {
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = "", spec
		}
		if path == "" {
			return nil, usagef("--input %q: missing PATH", spec)
		}
		var nt namedTensor
		if strings.EqualFold(filepath.Ext(path), ".pb") {
			// A .pb file may hold a sequence or an optional.
			v, err := tensorio.ReadAnyPB(path)
			if err != nil {
				return nil, err
			}
			nt = namedValue(v)
		} else {
			t, err := tensorio.ReadFile(path)
			if err != nil {
				return nil, err
			}
			nt = namedTensor{name: t.Name, t: t}
		}
		if name != "" {
			nt.name, nt.explicit = name, true
		}
		out = append(out, nt)
	}
	return out, nil
}

// hostRun is the one path that run, test and bench share: the model opened
// under the shape flags, the tools found, and the model compiled for the
// host once per input signature. execute is where the compiled model runs
// (under mlir-runner); another executor hooks in there.
type hostRun struct {
	env      *Env
	ctx      context.Context
	mf       *modelFile
	tc       *toolchain.Toolchain
	pipeline string
	built    map[string]*hostModel
	failed   map[string]error // signatures that did not compile
}

// startHost opens the model and finds the tools.
func (env *Env) startHost(ctx context.Context, file string, flags ShapeFlags, pf PipelineFlag) (*hostRun, error) {
	pipeline := pf.Pipeline
	if _, err := lookupPipeline(pipeline); err != nil {
		return nil, err
	}
	if err := env.usePasses(pf.Passes); err != nil {
		return nil, err
	}
	mf, err := openModel(file, flags)
	if err != nil {
		return nil, err
	}
	env.reportWarningsTo(mf)
	tc, err := env.findTools(ctx)
	if err != nil {
		mf.close()
		return nil, err
	}
	return &hostRun{env: env, ctx: ctx, mf: mf, tc: tc, pipeline: pipeline,
		built: map[string]*hostModel{}, failed: map[string]error{}}, nil
}

// close removes the compiled models' work directories.
func (h *hostRun) close() {
	for _, hm := range h.built {
		hm.cleanup()
	}
}

// compileError is a model that does not compile for the inputs given (as
// opposed to one that runs and gives a wrong result).
type compileError struct{ err error }

func (e *compileError) Error() string { return e.err.Error() }
func (e *compileError) Unwrap() error { return e.err }

// prepare binds the model to the given inputs and compiles it for them
// (once per input signature). It returns the compiled model and the inputs
// in entry order. A failure to compile is a *compileError.
func (h *hostRun) prepare(given []namedTensor) (*hostModel, []tensorio.Tensor, error) {
	var m *niro.Module
	var inputs []tensorio.Tensor
	err := h.env.timed("import "+h.mf.path, func() (err error) { m, inputs, err = h.mf.forInputs(given); return err })
	if err != nil {
		return nil, nil, err
	}
	hm, err := h.build(m, signature(inputs)+h.mf.bound)
	return hm, inputs, err
}

// prepareRandom compiles the model for its own (static) input shapes and
// makes random inputs for it from seed.
func (h *hostRun) prepareRandom(seed uint64) (*hostModel, []tensorio.Tensor, error) {
	var m *niro.Module
	err := h.env.timed("import "+h.mf.path, func() (err error) { m, err = h.mf.module(nil); return err })
	h.mf.reportWarnings()
	if err != nil {
		return nil, nil, err
	}
	hm, err := h.build(m, "")
	if err != nil {
		return nil, nil, err
	}
	var inputs []tensorio.Tensor
	for i, in := range hm.out.Entry.Inputs {
		t := in.Type.(niro.TensorType)
		r, err := tensorio.Random(t.Elem, t.Dims, seed+uint64(i))
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", paramName(in, i, "input"), err)
		}
		inputs = append(inputs, r)
	}
	return hm, inputs, nil
}

func (h *hostRun) build(m *niro.Module, key string) (*hostModel, error) {
	if hm := h.built[key]; hm != nil {
		return hm, nil
	}
	if err := h.failed[key]; err != nil {
		return nil, err
	}
	err := h.mf.requireStatic(m)
	var hm *hostModel
	if err == nil {
		hm, err = h.env.buildHost(h.ctx, h.tc, m, h.pipeline)
	}
	if err != nil {
		err = &compileError{err}
		h.failed[key] = err
		return nil, err
	}
	h.built[key] = hm
	return hm, nil
}

// execute runs the compiled model: warmup untimed calls, then runs timed
// ones (runs 0: one untimed call).
func (h *hostRun) execute(hm *hostModel, inputs []tensorio.Tensor, warmup, runs int) (*execResult, error) {
	return h.env.execute(h.ctx, h.tc, hm, inputs, warmup, runs)
}

// RunCmd is `niro run`.
type RunCmd struct {
	File      string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	OutputDir string `name:"output-dir" help:"Directory for the outputs, one NAME.npy each (names made file-safe and unique; the mapping is printed) (default: ${default}, the current directory)." default:"." placeholder:"DIR"`
	Print     bool   `help:"Also print each output's values to standard output, numpy-like (large tensors shortened with ...)."`
	InputFlags
	ShapeFlags
	PipelineFlag
	InterpFlag
}

// Run compiles the model for the host, runs it once and writes the outputs.
func (c *RunCmd) Run(env *Env) error {
	if c.Interp {
		return c.runInterp(env)
	}
	given, err := c.read()
	if err != nil {
		return err
	}
	h, err := env.startHost(env.context(), c.File, c.ShapeFlags, c.PipelineFlag)
	if err != nil {
		return err
	}
	defer h.close()
	hm, inputs, err := h.prepare(given)
	if err != nil {
		return err
	}
	if err := claimOutputs(outputPaths(c.OutputDir, hm)...); err != nil {
		return err
	}
	res, err := h.execute(hm, inputs, 0, 0)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.OutputDir, 0o755); err != nil {
		return err
	}
	names := make([]string, len(res.Outputs))
	for i := range res.Outputs {
		names[i] = paramName(hm.out.Entry.Outputs[i], i, "output")
	}
	files := outputFiles(names)
	for i, out := range res.Outputs {
		path := filepath.Join(c.OutputDir, files[i])
		if err := tensorio.WriteNPY(path, out); err != nil {
			return err
		}
		if files[i] != names[i]+".npy" {
			fmt.Fprintf(env.Stdout, "%s: %s (output %s)\n", path, out.Type(), strconv.Quote(names[i]))
		} else {
			fmt.Fprintf(env.Stdout, "%s: %s\n", path, out.Type())
		}
		if c.Print {
			fmt.Fprintf(env.Stdout, "%s = %s\n", names[i], formatTensor(out, printEdge))
		}
	}
	return nil
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// fileName makes an output name safe as a file name.
func fileName(name string) string {
	s := unsafeFileChars.ReplaceAllString(name, "_")
	if s == "" || s == "." || s == ".." {
		s = "output"
	}
	return s
}

// outputFiles returns the .npy file name of each output: the name made
// file-safe, with _2, _3, ... added in output order to a name an earlier
// output already took (a/b and a:b both become a_b), comparing names without
// case so that case-insensitive file systems keep them apart too.
func outputFiles(names []string) []string {
	taken := map[string]bool{}
	for _, n := range names {
		if fileName(n) == n {
			taken[strings.ToLower(n)] = false // reserved for itself
		}
	}
	out := make([]string, len(names))
	for i, n := range names {
		base := fileName(n)
		f := base
		for k := 2; ; k++ {
			used, reserved := taken[strings.ToLower(f)]
			if !used && (!reserved || f == n) {
				break
			}
			f = base + "_" + strconv.Itoa(k)
		}
		taken[strings.ToLower(f)] = true
		out[i] = f + ".npy"
	}
	return out
}

// TestCmd is `niro test`.
type TestCmd struct {
	File  string   `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Data  []string `arg:"" help:"ONNX test-data folders holding input_K.pb and output_K.pb." placeholder:"DATA_DIR"`
	Rtol  float64  `help:"Relative tolerance." default:"1e-3"`
	Atol  float64  `help:"Absolute tolerance." default:"1e-7"`
	Tol   []string `sep:"none" help:"Tolerances of one output: NAME=RTOL,ATOL (repeatable; NAME is the output's name, or its index)." placeholder:"NAME=RTOL,ATOL"`
	Check string   `help:"How outputs are checked: allclose (element by element, with --rtol and --atol), or, for random outputs, bernoulli (the model's one output is a Bernoulli draw with its one input's probabilities: the expected type and shape, values 0 or 1, and the count of ones within 4 standard deviations of its expectation), bernoulli-complement (the same with probabilities 1 - input), or dropout (a training Dropout of input 0 with ratio input 1: each output element 0 or input·1/(1 - ratio), agreeing with the mask output, the count kept within 4 standard deviations of its expectation)." enum:"allclose,bernoulli,bernoulli-complement,dropout" default:"allclose"`
	ShapeFlags
	PipelineFlag
	InterpFlag
}

type tolerance struct{ rtol, atol float64 }

// tolerances parses --rtol, --atol and --tol.
func (c *TestCmd) tolerances() (tolerance, map[string]tolerance, error) {
	def := tolerance{c.Rtol, c.Atol}
	if c.Rtol < 0 || c.Atol < 0 {
		return def, nil, usagef("--rtol and --atol must not be negative (got %g and %g)", c.Rtol, c.Atol)
	}
	per := map[string]tolerance{}
	for _, spec := range c.Tol {
		name, vals, ok := strings.Cut(spec, "=")
		r, a, ok2 := strings.Cut(vals, ",")
		rt, err1 := strconv.ParseFloat(r, 64)
		at, err2 := strconv.ParseFloat(a, 64)
		if !ok || !ok2 || name == "" || err1 != nil || err2 != nil || rt < 0 || at < 0 {
			return def, nil, usagef("--tol %q: want NAME=RTOL,ATOL with non-negative numbers", spec)
		}
		per[name] = tolerance{rt, at}
	}
	return def, per, nil
}

// Run compiles the model for each distinct input signature, runs every
// folder (a failing one does not stop the others), compares each output,
// one line per output, and ends with a summary line.
func (c *TestCmd) Run(env *Env) error {
	if c.Interp {
		return c.testInterp(env)
	}
	def, per, err := c.tolerances()
	if err != nil {
		return err
	}
	for _, dir := range c.Data {
		if err := checkExists(dir, true); err != nil {
			return usagef("%v", err)
		}
	}
	h, err := env.startHost(env.context(), c.File, c.ShapeFlags, c.PipelineFlag)
	if err != nil {
		return err
	}
	defer h.close()
	used := map[string]bool{}
	passed, wrong, uncompiled := 0, 0, 0
	var firstErr error // the first folder that could not run
	reported := map[error]bool{}
	for _, dir := range c.Data {
		ok, err := c.runFolder(env, h, dir, def, per, used)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if !reported[err] { // a signature that failed to compile fails once
				reported[err] = true
				fmt.Fprintf(env.Stderr, "niro: %v\n", err)
			}
		}
		var ce *compileError
		switch {
		case errors.As(err, &ce):
			uncompiled++
			fmt.Fprintf(env.Stdout, "%s: cannot compile: %s\n", dir, firstLine(err.Error()))
		case err != nil:
			wrong++
			fmt.Fprintf(env.Stdout, "%s: cannot run: %s\n", dir, firstLine(err.Error()))
		case ok:
			passed++
		default:
			wrong++
		}
	}
	for name := range per {
		if !used[name] {
			return usagef("--tol %s: the model has no output %s", name, name)
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", passed, wrong+uncompiled)
	if uncompiled > 0 {
		summary += fmt.Sprintf(" (%d cannot compile)", uncompiled)
	}
	fmt.Fprintln(env.Stdout, summary)
	if firstErr != nil {
		code := exitInput
		var ec exitCoder
		if errors.As(firstErr, &ec) {
			code = ec.ExitCode()
		}
		return &silentError{code: code}
	}
	if wrong > 0 {
		return &silentError{code: exitInput}
	}
	return nil
}

// checkStatistical checks random outputs got against the distribution
// the check mode names (see TestCmd.Check); want gives the expected types
// and shapes.
func checkStatistical(mode string, ins, got, want []tensorio.Tensor) error {
	switch mode {
	case "bernoulli", "bernoulli-complement":
		if len(ins) != 1 || len(got) != 1 || len(want) != 1 {
			return fmt.Errorf("the %s check needs a model with one input and one output, has %d and %d", mode, len(ins), len(got))
		}
		if err := tensorio.CheckBernoulli(ins[0], got[0], want[0], mode == "bernoulli-complement"); err != nil {
			return fmt.Errorf("output 0: %w", err)
		}
		return nil
	case "dropout":
		if len(ins) < 1 || len(got) < 1 || len(got) != len(want) || len(got) > 2 {
			return fmt.Errorf("the dropout check needs a model with inputs x[, ratio, training_mode] and outputs y[, mask], has %d and %d", len(ins), len(got))
		}
		ratio := 0.5
		if len(ins) > 1 {
			r, err := tensorio.Float64s(ins[1])
			if err != nil || len(r) != 1 {
				return fmt.Errorf("input 1 (the ratio) must hold one float")
			}
			ratio = r[0]
		}
		var mask, wantMask *tensorio.Tensor
		if len(got) == 2 {
			mask, wantMask = &got[1], &want[1]
		}
		return tensorio.CheckDropout(ins[0], ratio, got[0], want[0], mask, wantMask)
	}
	return fmt.Errorf("unknown check mode %q", mode)
}

// tensorsOf returns the tensors of ts.
func tensorsOf(ts []namedTensor) []tensorio.Tensor {
	out := make([]tensorio.Tensor, len(ts))
	for i, t := range ts {
		out[i] = t.t
	}
	return out
}

// runFolder runs one test-data folder and prints a line per output. It
// reports whether every output matched; an error means the folder could not
// be run (a *compileError when the model did not compile).
func (c *TestCmd) runFolder(env *Env, h *hostRun, dir string, def tolerance, per map[string]tolerance, used map[string]bool) (bool, error) {
	ins, err := readNumbered(dir, "input")
	if err != nil {
		return false, err
	}
	wants, err := readNumbered(dir, "output")
	if err != nil {
		return false, err
	}
	if len(wants) == 0 {
		return false, fmt.Errorf("%s: no output_K.pb files", dir)
	}
	hm, inputs, err := h.prepare(ins)
	if err != nil {
		return false, err
	}
	res, err := h.execute(hm, inputs, 0, 0)
	if err != nil {
		return false, err
	}
	if len(wants) != len(res.Outputs) {
		return false, fmt.Errorf("%s: %d expected outputs, but the model has %d", dir, len(wants), len(res.Outputs))
	}
	if c.Check != "allclose" {
		name := paramName(hm.out.Entry.Outputs[0], 0, "output")
		if err := checkStatistical(c.Check, inputs, res.Outputs, tensorsOf(wants)); err != nil {
			fmt.Fprintf(env.Stdout, "%s: output 0 (%s): %s check: FAIL\n  %v\n", dir, name, c.Check, err)
			return false, nil
		}
		fmt.Fprintf(env.Stdout, "%s: output 0 (%s): %s check: PASS\n", dir, name, c.Check)
		return true, nil
	}
	ok := true
	for i, want := range wants {
		name := paramName(hm.out.Entry.Outputs[i], i, "output")
		tol := def
		for _, key := range []string{strconv.Itoa(i), name} {
			if t, found := per[key]; found {
				tol, used[key] = t, true
			}
		}
		r, err := tensorio.Compare(res.Outputs[i], want.t, tol.rtol, tol.atol)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: output %d (%s): %v: FAIL\n", dir, i, name, err)
			ok = false
			continue
		}
		verdict := "PASS"
		if !r.OK {
			verdict = "FAIL"
			ok = false
		}
		fmt.Fprintf(env.Stdout, "%s: output %d (%s): max abs %s, max rel %s: %s\n", dir, i, name, fmtErr(r.MaxAbs), fmtErr(r.MaxRel), verdict)
		if !r.OK {
			fmt.Fprintf(env.Stdout, "  %s\n", r)
		}
	}
	return ok, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func fmtErr(x float64) string { return fmt.Sprintf("%.3g", x) }

func signature(ts []tensorio.Tensor) string {
	var sb strings.Builder
	for _, t := range ts {
		sb.WriteString(t.Type().String())
		sb.WriteString(";")
	}
	return sb.String()
}

// readNumbered reads DIR/KIND_0.pb, KIND_1.pb, … in order. A file may
// hold a sequence or an optional (SequenceProto, OptionalProto): an input
// stays one value, which forInputs flattens into the entry's parameters;
// an output is flattened into its tensors here, as the entry function's
// outputs are (docs/importer.md, "Sequences and optionals").
func readNumbered(dir, kind string) ([]namedTensor, error) {
	var out []namedTensor
	for k := 0; ; k++ {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", kind, k))
		if _, err := os.Stat(path); err != nil {
			break
		}
		v, err := tensorio.ReadAnyPB(path)
		if err != nil {
			return nil, err
		}
		out = append(out, namedValue(v))
	}
	if kind == "output" {
		out = flattenValues(out)
	}
	return out, nil
}
