package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/toolchain"
)

// EmitCmd is `niro emit`.
type EmitCmd struct {
	File   string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Output string `short:"o" help:"Write the MLIR to FILE (and the weights blob, if any, to FILE's stem + .weights)." placeholder:"FILE"`
	ShapeFlags
}

// emitModel loads a .onnx or .niro file and lowers it to MLIR text.
func emitModel(path string, flags ShapeFlags, opts emit.Options) (*emit.Output, error) {
	m, err := loadModule(path, flags)
	if err != nil {
		return nil, err
	}
	return emit.Module(m, opts)
}

// Run prints the model as MLIR text on tensors. It needs no LLVM tools.
func (c *EmitCmd) Run(env *Env) error {
	out, err := emitModel(c.File, c.ShapeFlags, env.emitOptions())
	if err != nil {
		return err
	}
	if err := writeOutput(env, c.Output, []byte(out.MLIR)); err != nil {
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

// CompileCmd is `niro compile`.
type CompileCmd struct {
	File    string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Target  string `help:"Target: host. (nvidia:sm_NN and amd:gfxNNN are planned.)" default:"host"`
	Emit    string `help:"Output kind: mlir, llvm-dialect, ll, obj, asm or header." enum:"mlir,llvm-dialect,ll,obj,asm,header,ptx,isa,hsaco,runtime" default:"obj"`
	Output  string `short:"o" help:"Output file (default: the model's stem plus the kind's extension; - for standard output)." placeholder:"FILE"`
	Weights string `help:"Where large weights go for obj: embed (in the object, symbol NAME_weights) or file (a .weights file beside the output)." enum:"embed,file" default:"embed"`
	Passes  string `name:"passes" help:"Niro IR passes to run before emitting (dce, cse, fold, simplify; docs/passes.md)." default:"dce" placeholder:"LIST"`
	ShapeFlags
	PipelineFlag
}

var kindExt = map[string]string{
	"mlir": ".mlir", "llvm-dialect": ".llvm.mlir", "ll": ".ll", "obj": ".o", "asm": ".s", "header": ".h",
}

// Run compiles the model through the pipeline as far as the kind needs.
func (c *CompileCmd) Run(env *Env) error {
	if c.Target != "host" {
		if strings.HasPrefix(c.Target, "nvidia:") || strings.HasPrefix(c.Target, "amd:") {
			return usagef("target %s: GPU targets are not implemented yet", c.Target)
		}
		return usagef("unknown target %q (want host, nvidia:sm_NN or amd:gfxNNN)", c.Target)
	}
	if _, ok := kindExt[c.Emit]; !ok {
		return usagef("--emit %s is for GPU targets, not host", c.Emit)
	}
	out, err := emitModelPasses(c.File, c.ShapeFlags, env.emitOptions(), c.Passes)
	if err != nil {
		return err
	}
	dest := c.Output
	if dest == "" {
		dest = stem(c.File) + kindExt[c.Emit]
	}
	// The blob goes beside the output unless the object embeds it; a
	// header only describes it.
	embed := c.Emit == "obj" && c.Weights == "embed"
	weightsFile := ""
	if out.Blob != nil && c.Emit != "header" && !embed {
		weightsFile = stem(dest) + ".weights"
		if dest == "-" {
			weightsFile = stem(c.File) + ".weights"
		}
	}
	switch c.Emit {
	case "mlir":
		if err := writeOutput(env, dest, []byte(out.MLIR)); err != nil {
			return err
		}
	case "header":
		h, err := emit.Header(out)
		if err != nil {
			return err
		}
		return writeOutput(env, dest, []byte(h))
	default:
		if err := c.build(env, out, dest, embed); err != nil {
			return err
		}
	}
	if weightsFile != "" {
		return writeBlob(weightsFile, out.Blob)
	}
	return nil
}

// build runs the pipeline as far as c.Emit and writes the result to dest;
// with embed, the weights blob goes into the object.
func (c *CompileCmd) build(env *Env, out *emit.Output, dest string, embed bool) error {
	ctx := context.Background()
	p, err := lookupPipeline(c.Pipeline)
	if err != nil {
		return err
	}
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	kind := toolchain.Kind(c.Emit) // the kinds are spelled as --emit spells them
	res, err := tc.Build(ctx, toolchain.BuildRequest{MLIR: out.MLIR, Pipeline: p, Emit: []toolchain.Kind{kind}})
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
// in memory; when writing fails the partial file is removed.
func writeEmbedded(env *Env, path string, obj []byte, symbol string, blob *emit.Blob) error {
	if path == "" || path == "-" {
		return toolchain.AppendBlobSection(env.Stdout, obj, symbol, blob, blob.Size)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = toolchain.AppendBlobSection(f, obj, symbol, blob, blob.Size)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", path, cerr)
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// DoctorCmd is `niro doctor`.
type DoctorCmd struct{}

// Run prints what tool discovery found. It exits 3 when a required tool is
// missing.
func (c *DoctorCmd) Run(env *Env) error {
	ctx := context.Background()
	report := toolchain.Probe(ctx, toolchain.FindOptions{Prefix: env.LLVMPrefix})
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tVERSION\tPATH\tFROM")
	missing := 0
	for _, ti := range report {
		if !ti.Found() {
			req := "optional"
			if ti.Required {
				req = "required"
				missing++
			}
			fmt.Fprintf(tw, "%s\t-\tmissing (%s): %v\t\n", ti.Name, req, ti.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ti.Name, ti.Version, ti.Path, ti.Source)
		for _, s := range ti.Skipped {
			fmt.Fprintf(tw, "\t\t  skipped %s\t\n", s)
		}
	}
	tw.Flush()
	ps, err := pipelines()
	if err != nil {
		return fmt.Errorf("passes.txt: %w", err)
	}
	fmt.Fprintf(env.Stdout, "pipelines: %s\n", strings.Join(ps.Names(), ", "))
	fmt.Fprintln(env.Stdout, interpStatus)
	if missing > 0 {
		fmt.Fprintf(env.Stdout, "%d required tools missing: install LLVM/MLIR 22 (Debian 12: apt-get install -y mlir-22-tools llvm-22)\n", missing)
		return &silentError{code: exitToolErr}
	}
	fmt.Fprintln(env.Stdout, "all required tools found")
	return nil
}
