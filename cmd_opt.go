package main

import (
	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/opt"
)

// OptCmd is `niro opt`.
type OptCmd struct {
	File   string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Passes string `short:"p" name:"passes" help:"Comma-separated passes to run in order: dce, cse, fold, simplify." default:"simplify,fold,cse,dce" placeholder:"LIST"`
	Output string `short:"o" help:"Write to FILE instead of standard output." placeholder:"FILE"`
	ShapeFlags
}

// Run loads and verifies the model, runs the passes (verifying after
// each) and prints the resulting Niro IR.
func (c *OptCmd) Run(env *Env) error {
	ps, err := opt.Parse(c.Passes)
	if err != nil {
		return usagef("-p: %v", err)
	}
	m, err := loadModule(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	if err := opt.Run(m, ps, opt.Options{}); err != nil {
		return diagnostics(c.File, err)
	}
	return writeOutput(env, c.Output, []byte(m.String()))
}

// emitModelPasses loads a model, runs the passes named in list and emits
// it.
func emitModelPasses(path string, flags ShapeFlags, opts emit.Options, list string) (*emit.Output, error) {
	ps, err := opt.Parse(list)
	if err != nil {
		return nil, usagef("--passes: %v", err)
	}
	m, err := loadModule(path, flags)
	if err != nil {
		return nil, err
	}
	if err := opt.Run(m, ps, opt.Options{}); err != nil {
		return nil, diagnostics(path, err)
	}
	return emit.Module(m, opts)
}
