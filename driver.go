package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/harness"
	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/opt"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// PipelineFlag selects the named pipeline of passes.txt.
type PipelineFlag struct {
	Pipeline string `help:"Pipeline of passes.txt to run: host (optimized, scheduled) or host-O0 (naive loops, no LLVM optimization, every tool verifying) (default: ${default})." default:"host" placeholder:"NAME"`
	PassesFlag
}

// PassesFlag is --passes: the Niro IR passes (docs/passes.md) every verb
// that emits runs on the module first. Its default is opt.DefaultPipeline
// (a test keeps them equal).
type PassesFlag struct {
	Passes string `name:"passes" help:"Niro IR passes run before emitting, in order: dce, cse, fold, simplify (docs/passes.md); an empty list runs none (default: ${default})." default:"simplify,fold,cse,dce" placeholder:"LIST"`
}

// usePasses sets the Niro IR passes of this invocation from a --passes
// list; a name that is no pass is bad usage.
func (env *Env) usePasses(list string) error {
	ps, err := opt.Parse(list)
	if err != nil {
		return usagef("--passes: %v", err)
	}
	env.passes, env.passesSet = ps, true
	return nil
}

// runPasses runs this invocation's Niro IR passes on m (opt.DefaultPipeline
// unless usePasses chose others), verifying after each.
func (env *Env) runPasses(path string, m *niro.Module) error {
	ps := env.passes
	if !env.passesSet {
		var err error
		if ps, err = opt.Parse(opt.DefaultPipeline); err != nil {
			return err
		}
	}
	if len(ps) == 0 {
		return nil
	}
	if err := opt.Run(m, ps, opt.Options{}); err != nil {
		return diagnostics(path, err)
	}
	return nil
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
	if tc.KeepTemps, err = env.keepTemps(); err != nil {
		return nil, err
	}
	tc.ToolTimeout = env.ToolTimeout
	tc.Progress = env.progress()
	// Each tool's memory is bounded as the largest tensor is (--max-memory),
	// a scheduled Lower falls back to plain loops on failure.
	tc.MaxMemory = tensorio.MaxBytes()
	tc.ScheduleBudget, tc.StrictSchedule = env.ScheduleBudget, env.StrictSchedule
	tc.Warnings = env.Stderr
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

// workDir returns the directory for run files: this run's own directory
// under --keep-temps or a fresh temporary directory, and its cleanup.
func (env *Env) workDir() (string, func(), error) {
	if keep, err := env.keepTemps(); keep != "" || err != nil {
		if err != nil {
			return "", nil, err
		}
		// Each model built in the run gets its own directory.
		dir, err := os.MkdirTemp(keep, "model-")
		return dir, func() {}, err
	}
	return tempDir("niro-run-")
}

// buildHost emits, lowers and prepares m for running on the host.
func (env *Env) buildHost(ctx context.Context, tc *toolchain.Toolchain, m *niro.Module, pipeline string) (*hostModel, error) {
	p, err := lookupPipeline(pipeline)
	if err != nil {
		return nil, err
	}
	if err := env.runPasses(m.Entry().Name, m); err != nil {
		return nil, err
	}
	if err := harness.CheckMemory(m); err != nil {
		return nil, err
	}
	out, err := emit.Prepare(m, env.emitOptions())
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
		env.progressf("weights: writing %d bytes for the run", out.Blob.Size)
		if err := writeBlob(hm.blobPath, out.Blob); err != nil {
			cleanup()
			return nil, err
		}
	}
	// The MLIR streams into mlir-opt's input file.
	if hm.lowered, err = tc.LowerFrom(ctx, out.WriteMLIR, p); err != nil {
		cleanup()
		return nil, err
	}
	return hm, nil
}

// writeBlob streams the weights blob to path, atomically (safefile).
func writeBlob(path string, b *emit.Blob) error {
	return safefile.Write(path, func(w io.Writer) error {
		if _, err := b.WriteTo(w); err != nil {
			return fmt.Errorf("writing weights %s: %w", path, err)
		}
		return nil
	})
}

// execResult is what one execution of a host model produced.
type execResult struct {
	Outputs []tensorio.Tensor
	Timings []float64 // seconds per call, one per timed sample
	Batch   int64     // calls per timed sample
}

// execute runs the model on inputs (in entry order) under mlir-runner:
// warmup untimed calls, then runs timed calls (runs 0: one untimed call).
func (env *Env) execute(ctx context.Context, tc *toolchain.Toolchain, hm *hostModel, inputs []tensorio.Tensor, warmup, runs int) (*execResult, error) {
	return env.executeTimed(ctx, tc, hm, inputs, timing{warmup: warmup, runs: runs})
}

// timing says how a host model's calls are timed.
type timing struct {
	warmup, runs int
	// minSampleNs batches calls so that each timed sample lasts at least
	// this long (harness.Spec.MinSampleNs); 0 times each call alone.
	minSampleNs int64
}

// executeTimed is execute with the timing tm.
func (env *Env) executeTimed(ctx context.Context, tc *toolchain.Toolchain, hm *hostModel, inputs []tensorio.Tensor, tm timing) (*execResult, error) {
	warmup, runs := tm.warmup, tm.runs
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
			return nil, fmt.Errorf("input %s is %s, the model wants %s", paramName(e.Inputs[i], i, "input"), in.Type(), want)
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
		spec.MinSampleNs = tm.minSampleNs
		spec.BatchPath = filepath.Join(hm.dir, "batch.bin")
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
		if res.Batch, err = harness.ReadBatch(spec.BatchPath); err != nil {
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
	defer mf.reportWarnings()
	given, layouts, err := mf.expandComposites(given)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	if len(layouts) > 0 {
		// The data's sequences replace --seq.
		mf.opts.Sequences, mf.base = layouts, nil
	}
	m, err := mf.module(nil)
	// A model that needs facts of the data at import (a sequence position
	// or a loop's trip count given as an input) is imported with the small
	// integer inputs given known.
	var nd *importer.NeedsDataError
	var known map[string][]byte
	if errors.As(err, &nd) {
		var shapes map[string][]int64
		known, shapes = mf.smallValues(given)
		if len(mf.opts.Dims) > 0 || len(mf.opts.Shapes) > 0 {
			shapes = nil // the flags fix the shapes
		}
		m, err = mf.moduleWith(shapes, known)
	}
	if err != nil {
		return nil, nil, err
	}
	entry := m.Entry()
	if entry == nil {
		return nil, nil, fmt.Errorf("%s: no entry function", mf.path)
	}
	ordered, err := mf.orderInputs(m, entry, given)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	if err := mf.checkGiven(entry, ordered); err != nil {
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
		if m, err = mf.moduleWith(shapes, known); err != nil {
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
	maps.Copy(values, known)
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
	name     string // "" when positional
	t        tensorio.Tensor
	explicit bool // the user typed the name (--input NAME=PATH): it must exist
	// v is a sequence or optional given (a SequenceProto or OptionalProto
	// .pb file); t is unused then. forInputs flattens it into its tensors.
	v *tensorio.Value
}

// namedValue wraps a value read from a .pb file.
func namedValue(v tensorio.Value) namedTensor {
	if v.Kind == tensorio.TensorValue {
		return namedTensor{name: v.Tensor.Name, t: v.Tensor}
	}
	return namedTensor{name: v.Name, v: &v}
}

// flattenValues replaces each sequence or optional in ts by its tensors, in
// order, as the entry function's outputs flatten them.
func flattenValues(ts []namedTensor) []namedTensor {
	var out []namedTensor
	for _, t := range ts {
		if t.v == nil {
			out = append(out, t)
			continue
		}
		for i, e := range t.v.Flatten() {
			out = append(out, namedTensor{name: fmt.Sprintf("%s.%d", t.name, i), t: e})
		}
	}
	return out
}

// expandComposites flattens the sequences and optionals given into the
// tensors of the entry's parameters (NAME.0, NAME.1, ... for a sequence's
// elements, NAME for an optional's tensor) and returns the layouts the
// importer needs (importer.Options.Sequences). A value binds to the graph
// input of its name, else to the one at its position.
func (mf *modelFile) expandComposites(given []namedTensor) ([]namedTensor, map[string]importer.Layout, error) {
	var ins []*importer.Value
	if mf.onnx != nil {
		ins = mf.onnx.Graph.Inputs
	}
	var out []namedTensor
	layouts := map[string]importer.Layout{}
	for k, g := range given {
		if g.v == nil {
			out = append(out, g)
			continue
		}
		var in *importer.Value
		for _, x := range ins {
			if x.Name == g.name {
				in = x
			}
		}
		if in == nil && k < len(ins) && !g.explicit {
			in = ins[k]
		}
		what := fmt.Sprintf("input %d", k)
		if g.name != "" {
			what = fmt.Sprintf("input %q", g.name)
		}
		if in == nil || in.Type == nil || in.Type.Kind != importer.SequenceKind && in.Type.Kind != importer.OptionalKind {
			return nil, nil, fmt.Errorf("%s is a sequence or optional, but the model has no graph input of sequence or optional type for it", what)
		}
		v := *g.v
		seqOf := func(v tensorio.Value) ([]namedTensor, error) {
			var ts []namedTensor
			for i, e := range v.Elems {
				if e.Kind != tensorio.TensorValue {
					return nil, fmt.Errorf("%s: element %d is a %s; niro takes sequences of tensors", what, i, e.Kind)
				}
				ts = append(ts, namedTensor{name: fmt.Sprintf("%s.%d", in.Name, i), t: e.Tensor})
			}
			return ts, nil
		}
		switch in.Type.Kind {
		case importer.SequenceKind:
			ts, err := seqOf(v)
			if err != nil {
				return nil, nil, err
			}
			layouts[in.Name] = importer.Layout{Len: len(ts)}
			out = append(out, ts...)
		case importer.OptionalKind:
			o, err := v.AsOptional()
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", what, err)
			}
			switch {
			case len(o.Elems) == 0:
				layouts[in.Name] = importer.Layout{None: true}
			case o.Elems[0].Kind == tensorio.TensorValue:
				layouts[in.Name] = importer.Layout{}
				out = append(out, namedTensor{name: in.Name, t: o.Elems[0].Tensor})
			default:
				ts, err := seqOf(o.Elems[0])
				if err != nil {
					return nil, nil, err
				}
				layouts[in.Name] = importer.Layout{Len: len(ts)}
				out = append(out, ts...)
			}
		}
	}
	return out, layouts, nil
}

// smallValues returns the small integer and bool tensors given, by the
// name of the entry parameter they bind to: their own name, else the
// graph input at their position.
// The defaults of the inputs not given (initializers that are also graph
// inputs) are taken as given. It returns the shapes given too, by the same
// names.
func (mf *modelFile) smallValues(given []namedTensor) (map[string][]byte, map[string][]int64) {
	values := map[string][]byte{}
	shapes := map[string][]int64{}
	var ins []*importer.Value
	if mf.onnx != nil {
		ins = mf.onnx.Graph.Inputs
	}
	small := func(e niro.ScalarType, n int64) bool { return (e.IsInt() || e == niro.Bool) && n <= 4096 }
	for k, g := range given {
		name := g.name
		if name == "" && k < len(ins) {
			name = ins[k].Name
		}
		if name == "" {
			continue
		}
		shapes[name] = g.t.Dims
		if small(g.t.Elem, g.t.NumElements()) {
			values[name] = g.t.Data
		}
	}
	for _, in := range ins {
		if _, ok := shapes[in.Name]; ok || in.Initializer == nil {
			continue
		}
		if t, err := in.Initializer.NiroType(); err == nil && t.HasStaticShape() && small(t.Elem, t.NumElements()) {
			values[in.Name] = in.Initializer.Bytes()
		}
	}
	return values, shapes
}

func inputName(f *niro.Function, i int) string {
	if i < len(f.InputNames) && f.InputNames[i] != nil {
		return *f.InputNames[i]
	}
	return ""
}

// orderInputs matches given tensors to the entry's inputs: a name the user
// typed (--input NAME=PATH) must be an input of the model; a name stored in
// a .pb file binds by name when the model has that input, and by position
// otherwise, as do unnamed tensors. An input left out takes its default
// when the importer recorded one ([importer.InputDefault]).
func (mf *modelFile) orderInputs(m *niro.Module, f *niro.Function, given []namedTensor) ([]tensorio.Tensor, error) {
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
		if !found && g.explicit {
			return nil, usagef("--input %s=...: the model has no input %q; its inputs are %s", g.name, g.name, mf.inputList(f))
		}
		if !found {
			// A name stored in a file that the model does not know: take it
			// by position.
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
		return nil, fmt.Errorf("%d inputs given, but the model takes %d (%s)", len(given), n, mf.inputList(f))
	}
	for i := 0; i < n; i++ {
		if set[i] {
			continue
		}
		if t, data, ok := importer.InputDefault(m, f, i); ok {
			out[i], set[i] = tensorio.Tensor{Name: inputName(f, i), Elem: t.Elem, Dims: t.Dims, Data: data}, true
		}
	}
	for i := 0; i < n; i++ {
		if !set[i] {
			return nil, fmt.Errorf("input %s is missing (the model's inputs are %s)", displayName(f.InputNames, i), mf.inputList(f))
		}
	}
	return out, nil
}

// inputList spells the entry's inputs for messages: "x" Nx64, "y" 3.
func (mf *modelFile) inputList(f *niro.Function) string {
	if len(f.Type.Inputs) == 0 {
		return "none"
	}
	parts := make([]string, len(f.Type.Inputs))
	for i := range f.Type.Inputs {
		parts[i] = displayName(f.InputNames, i) + " " + mf.wantShape(f, i)
	}
	return strings.Join(parts, ", ")
}

// checkGiven checks each given input against the shape and element type
// the model declares for it, before the model is bound to the shapes, so
// that a mismatch names the input and both shapes.
func (mf *modelFile) checkGiven(f *niro.Function, ordered []tensorio.Tensor) error {
	for i, in := range ordered {
		want, ok := f.Type.Inputs[i].(niro.TensorType)
		if !ok {
			continue
		}
		got := niroShape(in.Type())
		if in.Elem != want.Elem {
			return fmt.Errorf("input %s has element type %s, the model wants %s", displayName(f.InputNames, i), in.Elem, want.Elem)
		}
		bad := !want.Unranked && len(want.Dims) != len(in.Dims)
		declared := mf.declaredDims(inputName(f, i))
		for j := 0; !bad && !want.Unranked && j < len(in.Dims); j++ {
			d := want.Dims[j]
			if j < len(declared) && declared[j].Value >= 0 {
				d = declared[j].Value
			}
			bad = d != niro.Dynamic && d != in.Dims[j]
		}
		if bad {
			return fmt.Errorf("input %s has shape %s, the model wants %s", displayName(f.InputNames, i), got, mf.wantShape(f, i))
		}
	}
	return nil
}
