package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/toolchain"
)

// EmitCmd is `niro emit`.
type EmitCmd struct {
	File   string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Output string `short:"o" help:"Write the MLIR to FILE (and the weights blob, if any, to FILE's stem + .weights)." placeholder:"FILE"`
	ShapeFlags
	PassesFlag
}

// emitModel loads a .onnx or .niro file, checks that its interface has
// static shapes and lowers it to MLIR text, held in Output.MLIR.
func emitModel(path string, flags ShapeFlags, opts emit.Options) (*emit.Output, error) {
	out, err := prepareModel(path, flags, opts)
	if err != nil {
		return nil, err
	}
	if out.MLIR, err = out.Text(); err != nil {
		return nil, err
	}
	return out, nil
}

// prepareModel is emitModel with the text left to Output.WriteMLIR (see
// emitNamed).
func prepareModel(path string, flags ShapeFlags, opts emit.Options) (*emit.Output, error) {
	return (&Env{Globals: &Globals{}, Stderr: io.Discard}).emitNamed(path, flags, "", opts)
}

// emitNamed loads a .onnx or .niro file, checks that its interface has
// static shapes, names the entry function name (when not empty), runs this
// invocation's Niro IR passes (docs/passes.md; env.runPasses) and prepares
// the module for emitting (emit.Prepare): the Output's MLIR is empty, and
// the caller streams the text with Output.WriteMLIR (writeMLIR, or
// toolchain.LowerFrom) so that it is never held in memory whole.
func (env *Env) emitNamed(path string, flags ShapeFlags, name string, opts emit.Options) (*emit.Output, error) {
	mf, err := openModel(path, flags)
	if err != nil {
		return nil, err
	}
	env.reportWarningsTo(mf)
	var m *niro.Module
	if err := env.timed("import "+path, func() (err error) { m, err = mf.moduleOnce(); return err }); err != nil {
		return nil, err
	}
	if err := mf.requireStatic(m); err != nil {
		return nil, err
	}
	mf.dropGraph()
	if name != "" {
		if err := renameEntry(m, name); err != nil {
			return nil, err
		}
	}
	if err := env.runPasses(path, m); err != nil {
		return nil, err
	}
	return emit.Prepare(m, opts)
}

// renameEntry gives m's entry function the symbol name.
func renameEntry(m *niro.Module, name string) error {
	if !niro.IsCIdent(name) {
		return usagef("--name %q: want a C identifier (letters, digits and _, not starting with a digit, not a C keyword)", name)
	}
	f := m.Entry()
	if f == nil {
		return fmt.Errorf("no entry function to name %s", name)
	}
	if f.Name == name {
		return nil
	}
	if g, other := m.Lookup(name); g != nil || other != nil {
		return usagef("--name %s: the model already has a function or global named %s", name, name)
	}
	old := f.Name
	f.Name = name
	if _, ok := m.Attrs["entry"].(niro.StringAttr); ok {
		m.Attrs["entry"] = niro.StringAttr(name)
	}
	for _, fn := range m.Functions {
		if fn.Body == nil {
			continue
		}
		fn.Body.Walk(func(op niro.Op) bool {
			if c, ok := op.(*niro.Call); ok && c.Callee == old {
				c.Callee = name
			}
			return true
		})
	}
	return nil
}

// Run prints the model as MLIR text on tensors. It needs no LLVM tools.
func (c *EmitCmd) Run(env *Env) error {
	if err := env.usePasses(c.Passes); err != nil {
		return err
	}
	out, err := env.emitNamed(c.File, c.ShapeFlags, "", env.emitOptions())
	if err != nil {
		return err
	}
	if out.Blob != nil && c.Output != "" && c.Output != "-" {
		// Every output is claimed before the first is written.
		if err := claimOutputs(c.Output, stem(c.Output)+".weights"); err != nil {
			return err
		}
	}
	if err := writeMLIR(env, c.Output, out); err != nil {
		return err
	}
	if out.Blob != nil {
		if c.Output == "" || c.Output == "-" {
			fmt.Fprintf(env.Stderr, "niro: note: %d bytes of weights are not in the MLIR text; use -o FILE to write them to FILE's stem + .weights\n", out.Blob.Size)
			return nil
		}
		return writeBlob(stem(c.Output)+".weights", out.Blob)
	}
	return nil
}

// stem drops a path's extension.
func stem(path string) string { return strings.TrimSuffix(path, filepath.Ext(path)) }

// TargetFlags choose the CPU an object is compiled for.
type TargetFlags struct {
	TargetCPU      string `name:"target-cpu" help:"CPU the code is compiled for: an LLVM CPU name (llc-22 -mcpu=help lists them) or native, this machine's CPU (default: ${default}, a portable baseline; see README)." default:"${portable_cpu}" placeholder:"CPU"`
	TargetFeatures string `name:"target-features" help:"Target features to add or remove, as llc -mattr takes them: +avx2,-avx512f." placeholder:"FEATURES"`
}

// CompileCmd is `niro compile`.
type CompileCmd struct {
	File    string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Target  string `help:"Target: host, nvidia:sm_NN (such as nvidia:sm_90) or amd:gfxNNN (such as amd:gfx942); docs/gpu.md." default:"host"`
	Emit    string `help:"Output kind: mlir, llvm-dialect, ll, obj, asm or header; for GPU targets also ptx (NVIDIA), isa and hsaco (AMD) and runtime." enum:"mlir,llvm-dialect,ll,obj,asm,header,ptx,isa,hsaco,runtime" default:"obj"`
	Output  string `short:"o" help:"Output file; - for standard output. Without -o the output goes beside the model (its stem plus the kind's extension) and niro prints the path it wrote to standard error." placeholder:"FILE"`
	Weights string `help:"Where large weights go for obj: embed (in the object, symbol NAME_weights) or file (a .weights file beside the output)." enum:"embed,file" default:"embed"`
	Name    string `help:"Symbol of the entry function (default: the graph's name made a C identifier); the embedded weights are NAME_weights." placeholder:"NAME"`
	TargetFlags
	PrintIRAfterAll bool `name:"print-ir-after-all" help:"Print the MLIR after each pass of the pipeline to standard error (mlir-opt --mlir-print-ir-after-all)."`
	ShapeFlags
	PipelineFlag
	GPUFlags
}

var kindExt = map[string]string{
	"mlir": ".mlir", "llvm-dialect": ".llvm.mlir", "ll": ".ll", "obj": ".o", "asm": ".s", "header": ".h",
}

// Run compiles the model through the pipeline as far as the kind needs.
func (c *CompileCmd) Run(env *Env) error {
	if err := env.usePasses(c.Passes); err != nil {
		return err
	}
	if c.Target != "host" {
		return c.runGPU(env) // cmd_gpu.go
	}
	if _, ok := kindExt[c.Emit]; !ok {
		return usagef("--emit %s is for GPU targets, not host", c.Emit)
	}
	if c.TargetCPU == "" {
		return usagef("--target-cpu: want a CPU name or native")
	}
	out, err := env.emitNamed(c.File, c.ShapeFlags, c.Name, env.emitOptions())
	if err != nil {
		return err
	}
	dest := c.Output
	announce := dest == "" // say where the outputs went
	if dest == "" {
		dest = stem(c.File) + kindExt[c.Emit]
	}
	written := func(path string) {
		if announce {
			fmt.Fprintf(env.Stderr, "niro: wrote %s\n", path)
		}
	}
	// The blob goes beside the output unless the object embeds it; a
	// header only describes it.
	embed := c.Emit == "obj" && c.Weights == "embed"
	weightsFile := stem(dest) + ".weights"
	if dest == "-" {
		weightsFile = stem(c.File) + ".weights"
	}
	writeWeights := out.Blob != nil && c.Emit != "header" && !embed
	claimed := []string{dest}
	if writeWeights {
		claimed = append(claimed, weightsFile)
	}
	if err := claimOutputs(claimed...); err != nil {
		return err
	}
	switch c.Emit {
	case "mlir":
		if err := writeMLIR(env, dest, out); err != nil {
			return err
		}
	case "header":
		h, err := c.header(env, out, filepath.Base(weightsFile))
		if err != nil {
			return err
		}
		if err := writeOutput(env, dest, []byte(h)); err != nil {
			return err
		}
	default:
		if err := c.build(env, out, dest, embed); err != nil {
			return err
		}
	}
	if dest != "-" {
		written(dest)
	}
	if writeWeights {
		if err := writeBlob(weightsFile, out.Blob); err != nil {
			return err
		}
		written(weightsFile)
	}
	return nil
}

// header writes the C header. When the tools are found it lowers the model
// to state whether the function allocates scratch memory and whether it may
// be called concurrently; without them it says it did not look.
func (c *CompileCmd) header(env *Env, out *emit.Output, weightsFile string) (string, error) {
	o := emit.HeaderOptions{CPU: c.TargetCPU, Features: c.TargetFeatures, WeightsFile: weightsFile}
	ctx := env.context()
	p, err := lookupPipeline(c.Pipeline)
	if err != nil {
		return "", err
	}
	if tc, err := env.findTools(ctx); err == nil {
		lowered, err := tc.LowerFrom(ctx, out.WriteMLIR, p)
		if err != nil {
			return "", err
		}
		facts := toolchain.Inspect(lowered)
		o.Scratch = emit.ScratchNone
		if facts.Allocates {
			o.Scratch = emit.ScratchMalloc
		}
		o.MutableGlobals = len(facts.MutableGlobals) > 0
	}
	return emit.HeaderWith(out, o)
}

// build runs the pipeline as far as c.Emit and writes the result to dest;
// with embed, the weights blob goes into the object.
func (c *CompileCmd) build(env *Env, out *emit.Output, dest string, embed bool) error {
	ctx := env.context()
	p, err := lookupPipeline(c.Pipeline)
	if err != nil {
		return err
	}
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	tc.CPU, tc.Features = c.TargetCPU, c.TargetFeatures
	if c.PrintIRAfterAll {
		tc.PrintIR = env.Stderr
	}
	if c.Emit == "obj" || c.Emit == "asm" {
		if err := tc.CheckTarget(ctx); err != nil {
			return err
		}
	}
	kind := toolchain.Kind(c.Emit) // the kinds are spelled as --emit spells them
	res, err := tc.Build(ctx, toolchain.BuildRequest{WriteMLIR: out.WriteMLIR, Pipeline: p, Emit: []toolchain.Kind{kind}})
	if err != nil {
		return err
	}
	var data []byte
	switch kind {
	case toolchain.KindLLVMDialect:
		data = []byte(res.LLVMDialect)
	case toolchain.KindLL:
		data = []byte(res.LL)
	case toolchain.KindAsm:
		data = res.Asm
	case toolchain.KindObj:
		if out.Blob != nil && embed {
			// One linkable object: the blob joins the model's object as a
			// read-only section with the symbol NAME_weights.
			return writeEmbedded(env, dest, res.Obj, out.Entry.Name+"_weights", out.Blob)
		}
		data = res.Obj
	}
	return writeOutput(env, dest, data)
}

// writeEmbedded writes obj with the weights blob added as a section (see
// toolchain.AppendBlobSection) to path, or to standard output when path is
// "" or "-". The blob streams from the model to the file, never held whole
// in memory; the file is written atomically (safefile), so a failure
// leaves whatever was at path untouched.
func writeEmbedded(env *Env, path string, obj []byte, symbol string, blob *emit.Blob) error {
	env.progressf("weights: embedding %d bytes as %s", blob.Size, symbol)
	return writeFileOutput(env, path, func(w io.Writer) error {
		return toolchain.AppendBlobSection(w, obj, symbol, blob, blob.Size)
	})
}
