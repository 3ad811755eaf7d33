package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/harness"
	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// PipelineFlag selects the named pipeline of passes.txt.
type PipelineFlag struct {
	Pipeline string `help:"Pipeline of passes.txt to run: host (optimized, scheduled) or host-O0 (naive loops, no LLVM optimization, every tool verifying)." default:"host" placeholder:"NAME"`
}

var (
	pipelinesOnce sync.Once
	pipelinesVal  toolchain.Pipelines
	pipelinesErr  error
)

// pipelines parses the embedded passes.txt once.
func pipelines() (toolchain.Pipelines, error) {
	pipelinesOnce.Do(func() {
		pipelinesVal, pipelinesErr = toolchain.ParsePipelines(passesText)
	})
	return pipelinesVal, pipelinesErr
}

func lookupPipeline(name string) (toolchain.Pipeline, error) {
	ps, err := pipelines()
	if err != nil {
		return toolchain.Pipeline{}, fmt.Errorf("passes.txt: %w", err)
	}
	p, ok := ps.Lookup(name)
	if !ok {
		return p, usagef("unknown pipeline %q (passes.txt has %v)", name, ps.Names())
	}
	return p, nil
}

// findTools discovers the LLVM/MLIR tools under the global flags.
func (env *Env) findTools(ctx context.Context) (*toolchain.Toolchain, error) {
	tc, err := toolchain.Find(ctx, toolchain.FindOptions{Prefix: env.LLVMPrefix})
	if err != nil {
		return nil, err
	}
	tc.KeepTemps = env.KeepTemps
	return tc, nil
}

// hostModel is a model lowered to the llvm dialect for the host, with its
// weights blob written to a file, ready to run under mlir-runner.
type hostModel struct {
	out      *emit.Output
	lowered  string
	dir      string // work directory for the blob, inputs and outputs
	blobPath string
	pipeline toolchain.Pipeline
	cleanup  func()
}

// workDir returns the directory for run files: --keep-temps or a fresh
// temporary directory, and its cleanup.
func (env *Env) workDir() (string, func(), error) {
	if env.KeepTemps != "" {
		if err := os.MkdirAll(env.KeepTemps, 0o755); err != nil {
			return "", nil, err
		}
		return env.KeepTemps, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "niro-run-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// buildHost emits, lowers and prepares m for running on the host.
func (env *Env) buildHost(ctx context.Context, tc *toolchain.Toolchain, m *niro.Module, pipeline string) (*hostModel, error) {
	p, err := lookupPipeline(pipeline)
	if err != nil {
		return nil, err
	}
	out, err := emit.Module(m, env.emitOptions())
	if err != nil {
		return nil, err
	}
	for _, prm := range append(append([]emit.Param(nil), out.Entry.Inputs...), out.Entry.Outputs...) {
		t, ok := prm.Type.(niro.TensorType)
		if !ok {
			return nil, fmt.Errorf("%s: running a model needs tensor inputs and outputs; %q has type %s", out.Entry.Name, prm.Name, prm.Type)
		}
		if !t.HasStaticShape() {
			return nil, fmt.Errorf("%s: %q has dynamic shape %s; bind it with --dim or --shape, or give inputs of the shape to run", out.Entry.Name, prm.Name, t)
		}
	}
	dir, cleanup, err := env.workDir()
	if err != nil {
		return nil, err
	}
	hm := &hostModel{out: out, dir: dir, pipeline: p, cleanup: cleanup}
	if out.Blob != nil {
		hm.blobPath = filepath.Join(dir, out.Entry.Name+".weights")
		if err := writeBlob(hm.blobPath, out.Blob); err != nil {
			cleanup()
			return nil, err
		}
	}
	if hm.lowered, err = tc.Lower(ctx, out.MLIR, p); err != nil {
		cleanup()
		return nil, err
	}
	return hm, nil
}

// writeBlob streams the weights blob to path.
func writeBlob(path string, b *emit.Blob) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := b.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing weights %s: %w", path, err)
	}
	return f.Close()
}

// execResult is what one execution of a host model produced.
type execResult struct {
	Outputs []tensorio.Tensor
	Timings []float64 // seconds per timed run
}

// execute runs the model on inputs (in entry order) under mlir-runner.
func (env *Env) execute(ctx context.Context, tc *toolchain.Toolchain, hm *hostModel, inputs []tensorio.Tensor, warmup, runs int) (*execResult, error) {
	e := hm.out.Entry
	if len(inputs) != len(e.Inputs) {
		return nil, fmt.Errorf("%s takes %d inputs, got %d", e.Name, len(e.Inputs), len(inputs))
	}
	// runs == 0 means one untimed run.
	spec := harness.Spec{Func: e.Name, Warmup: warmup, Runs: max(runs, 1)}
	if hm.blobPath != "" {
		spec.Weights = harness.Buffer{Path: hm.blobPath, Bytes: hm.out.Blob.Size}
	}
	for i, in := range inputs {
		want := e.Inputs[i].Type.(niro.TensorType)
		if !niro.TypesEqual(in.Type(), want) {
			return nil, fmt.Errorf("input %d (%s): got %s, the model takes %s", i, paramName(e.Inputs[i], i, "input"), in.Type(), want)
		}
		path := filepath.Join(hm.dir, fmt.Sprintf("input_%d.bin", i))
		if err := tensorio.WriteRaw(path, in); err != nil {
			return nil, err
		}
		spec.Inputs = append(spec.Inputs, harness.Buffer{Path: path, Bytes: int64(len(in.Data))})
	}
	for i, o := range e.Outputs {
		t := o.Type.(niro.TensorType)
		path := filepath.Join(hm.dir, fmt.Sprintf("output_%d.bin", i))
		spec.Outputs = append(spec.Outputs, harness.Buffer{Path: path, Bytes: niro.PackedBytes(t.Elem, t.NumElements())})
	}
	if runs > 0 {
		spec.TimingsPath = filepath.Join(hm.dir, "timings.bin")
	}
	prog, err := harness.Build(hm.lowered, spec)
	if err != nil {
		return nil, err
	}
	if _, err := tc.Run(ctx, prog, toolchain.RunOptions{OptLevel: hm.pipeline.OptLevel, Stderr: env.Stderr}); err != nil {
		return nil, err
	}
	res := &execResult{}
	for i, o := range e.Outputs {
		t := o.Type.(niro.TensorType)
		out, err := tensorio.ReadRaw(spec.Outputs[i].Path, t.Elem, t.Dims)
		if err != nil {
			return nil, err
		}
		out.Name = o.Name
		res.Outputs = append(res.Outputs, out)
	}
	if spec.TimingsPath != "" {
		if res.Timings, err = harness.ReadTimings(spec.TimingsPath, runs); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func paramName(p emit.Param, i int, kind string) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("%s_%d", kind, i)
}

// forInputs returns the model with every input's shape bound to the given
// tensors (matched by name, else by position), so a model with symbolic
// dimensions compiles for the shapes it runs on, and the inputs in entry
// order. Shapes fixed by --dim or --shape are left as they are.
func (mf *modelFile) forInputs(given []namedTensor) (*niro.Module, []tensorio.Tensor, error) {
	m, err := mf.module(nil)
	if err != nil {
		return nil, nil, err
	}
	entry := m.Entry()
	if entry == nil {
		return nil, nil, fmt.Errorf("%s: no entry function", mf.path)
	}
	ordered, err := orderInputs(m, entry, given)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	if mf.onnx == nil || len(mf.opts.Dims) > 0 || len(mf.opts.Shapes) > 0 {
		return m, ordered, nil
	}
	shapes := map[string][]int64{}
	rebind := false
	for i, in := range ordered {
		shapes[inputName(entry, i)] = in.Dims
		rebind = rebind || !niro.TypesEqual(entry.Type.Inputs[i], in.Type())
	}
	if rebind {
		if m, err = mf.module(shapes); err != nil {
			return nil, nil, err
		}
	}
	if !needsValues(m) && !dynamicOutputs(m.Entry()) {
		return m, ordered, nil
	}
	// A shape depends on an input's value (an axes list or a target shape
	// fed as an input, an If on an input whose arms differ in shape): compile
	// for the small integer and bool inputs given, as for their shapes (and
	// small float inputs, such as Resize's scales).
	values := map[string][]byte{}
	for i, in := range ordered {
		t := entry.Type.Inputs[i].(niro.TensorType)
		small := (t.Elem.IsInt() || t.Elem == niro.Bool) && in.Type().NumElements() <= 4096
		// Small float inputs too, when a reason names them (Resize's scales
		// and roi, RoiAlign's rois), so that float data stay run-time
		// inputs.
		small = small || (t.Elem == niro.F32 || t.Elem == niro.F64) && in.Type().NumElements() <= 16 && named(m, inputName(entry, i))
		if small {
			values[inputName(entry, i)] = in.Data
		}
	}
	if len(values) == 0 {
		return m, ordered, nil
	}
	m, err = mf.moduleWith(shapes, values)
	return m, ordered, err
}

// dynamicOutputs reports whether an output of f has a dynamic shape after
// the input shapes are bound: it depends on an input's value.
func dynamicOutputs(f *niro.Function) bool {
	for _, t := range f.Type.Outputs {
		if tt, ok := t.(niro.TensorType); ok && !tt.HasStaticShape() {
			return true
		}
	}
	return false
}

// needsValues reports whether some op of m stays uncompiled because a
// value it needs at compile time is computed at run time.
func needsValues(m *niro.Module) bool { return len(valueReasons(m)) > 0 }

// valueReasons returns the reasons of the ops of m that stay uncompiled
// because a value they need at compile time is computed at run time.
func valueReasons(m *niro.Module) []string {
	var out []string
	for _, f := range m.Functions {
		if f.Body == nil {
			continue
		}
		f.Body.Walk(func(op niro.Op) bool {
			if u, ok := op.(*niro.UnknownOp); ok {
				if r, ok := u.Attrs[importer.ReasonAttr].(niro.StringAttr); ok && strings.Contains(string(r), "known at compile time") {
					out = append(out, string(r))
				}
			}
			return true
		})
	}
	return out
}

// named reports whether a reason of m names the graph input name, quoted.
func named(m *niro.Module, name string) bool {
	if name == "" {
		return false
	}
	q := strconv.Quote(name)
	for _, r := range valueReasons(m) {
		if strings.Contains(r, q) {
			return true
		}
	}
	return false
}

type namedTensor struct {
	name string // "" when positional
	t    tensorio.Tensor
}

func inputName(f *niro.Function, i int) string {
	if i < len(f.InputNames) && f.InputNames[i] != nil {
		return *f.InputNames[i]
	}
	return ""
}

// orderInputs matches given tensors to the entry's inputs by name, falling
// back to position for unnamed ones. An input left out takes its default,
// when the function attribute input_defaults names a global holding one
// (an ONNX initializer that is also a graph input).
func orderInputs(m *niro.Module, f *niro.Function, given []namedTensor) ([]tensorio.Tensor, error) {
	n := len(f.Type.Inputs)
	out := make([]tensorio.Tensor, n)
	set := make([]bool, n)
	var positional []tensorio.Tensor
	for _, g := range given {
		if g.name == "" {
			positional = append(positional, g.t)
			continue
		}
		found := false
		for i := 0; i < n; i++ {
			if inputName(f, i) == g.name {
				if set[i] {
					return nil, fmt.Errorf("input %q is given twice", g.name)
				}
				out[i], set[i], found = g.t, true, true
			}
		}
		if !found {
			// A name the model does not know: take it by position.
			positional = append(positional, g.t)
		}
	}
	for i := 0; i < n && len(positional) > 0; i++ {
		if !set[i] {
			out[i], set[i] = positional[0], true
			positional = positional[1:]
		}
	}
	if len(positional) > 0 {
		return nil, fmt.Errorf("%d inputs given, but the model takes %d", len(given), n)
	}
	defaults, _ := f.Attrs["input_defaults"].(niro.ListAttr)
	for i := 0; i < n; i++ {
		if set[i] || i >= len(defaults) {
			continue
		}
		gname, _ := defaults[i].(niro.StringAttr)
		if gname == "" {
			continue
		}
		g, _ := m.Lookup(string(gname))
		if g == nil {
			continue
		}
		gt, ok1 := g.Type.(niro.TensorType)
		data, ok2 := g.Init.(niro.BytesLit)
		if ok1 && ok2 {
			out[i], set[i] = tensorio.Tensor{Name: inputName(f, i), Elem: gt.Elem, Dims: gt.Dims, Data: data}, true
		}
	}
	for i := 0; i < n; i++ {
		if !set[i] {
			name := inputName(f, i)
			if name == "" {
				name = fmt.Sprintf("#%d", i)
			}
			return nil, fmt.Errorf("input %s is missing", name)
		}
	}
	return out, nil
}
