package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// InterpFlag is the --interp flag of run and test.
type InterpFlag struct {
	Interp bool `name:"interp" help:"Evaluate the model with niro's reference interpreter instead of compiling it (no LLVM tool needed)."`
}

// interpOptions returns the interpreter options the global flags choose.
func (g *Globals) interpOptions() interp.Options { return interp.Options{Math: g.Math} }

// interpret evaluates m on inputs (in entry order) with the interpreter.
// A runtime error names the node it happened at; an op the interpreter
// does not cover is refused the same way before anything runs (exit 1).
func (env *Env) interpret(m *niro.Module, inputs []tensorio.Tensor) ([]tensorio.Tensor, error) {
	return interp.Run(m, inputs, env.interpOptions())
}

// outputName names output i of the entry function for files and reports.
func outputName(m *niro.Module, i int) string {
	if f := m.Entry(); f != nil && i < len(f.OutputNames) && f.OutputNames[i] != nil && *f.OutputNames[i] != "" {
		return *f.OutputNames[i]
	}
	return fmt.Sprintf("output_%d", i)
}

// runInterp is `niro run --interp`.
func (c *RunCmd) runInterp(env *Env) error {
	given, err := c.read()
	if err != nil {
		return err
	}
	mf, err := openModel(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	env.reportWarningsTo(mf)
	defer mf.close()
	m, inputs, err := mf.forInputs(given)
	if err != nil {
		return err
	}
	outs, err := env.interpret(m, inputs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.OutputDir, 0o755); err != nil {
		return err
	}
	for i, out := range outs {
		path := filepath.Join(c.OutputDir, fileName(outputName(m, i))+".npy")
		if err := tensorio.WriteNPY(path, out); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: %s\n", path, out.Type())
	}
	return nil
}

// testInterp is `niro test --interp`.
func (c *TestCmd) testInterp(env *Env) error {
	mf, err := openModel(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	env.reportWarningsTo(mf)
	defer mf.close()
	failed := 0
	for _, dir := range c.Data {
		ins, err := readNumbered(dir, "input")
		if err != nil {
			return err
		}
		wants, err := readNumbered(dir, "output")
		if err != nil {
			return err
		}
		if len(wants) == 0 {
			return fmt.Errorf("%s: no output_K.pb files", dir)
		}
		m, inputs, err := mf.forInputs(ins)
		if err != nil {
			return err
		}
		outs, err := env.interpret(m, inputs)
		if err != nil {
			return err
		}
		if len(wants) != len(outs) {
			return fmt.Errorf("%s: %d expected outputs, but the model has %d", dir, len(wants), len(outs))
		}
		failed += reportOutputs(env.Stdout, dir, m, outs, wants, c.Rtol, c.Atol)
	}
	if failed > 0 {
		return &silentError{code: exitInput}
	}
	return nil
}

// reportOutputs compares outputs with the expected ones, one line each,
// and returns how many failed.
func reportOutputs(w io.Writer, dir string, m *niro.Module, outs []tensorio.Tensor, wants []namedTensor, rtol, atol float64) int {
	failed := 0
	for i, want := range wants {
		name := outputName(m, i)
		r, err := tensorio.Compare(outs[i], want.t, rtol, atol)
		if err != nil {
			fmt.Fprintf(w, "%s: output %d (%s): %v: FAIL\n", dir, i, name, err)
			failed++
			continue
		}
		verdict := "PASS"
		if !r.OK {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%s: output %d (%s): max abs %s, max rel %s: %s\n", dir, i, name, fmtErr(r.MaxAbs), fmtErr(r.MaxRel), verdict)
		if !r.OK {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
	return failed
}

// interpStatus is niro doctor's line about the interpreter, which is
// built in and needs no tool.
const interpStatus = "interpreter: available (niro run --interp, niro test --interp; no LLVM tool needed)"
