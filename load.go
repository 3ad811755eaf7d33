package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/niro"
)

// ShapeFlags are the flags that bind dynamic dimensions at import.
type ShapeFlags struct {
	Dim   []string `name:"dim" help:"Bind a symbolic ONNX dimension: NAME=VALUE (repeatable)." placeholder:"NAME=VALUE"`
	Shape []string `name:"shape" help:"Fix an input's shape: INPUT=DIMS, e.g. x=1x3x224x224 (repeatable)." placeholder:"INPUT=DIMS"`
	Seq   []string `name:"seq" help:"Give a sequence input's element count, INPUT=N (its elements are the inputs INPUT.0 ... INPUT.N-1, shaped with --shape INPUT.K=DIMS), or say that an optional input holds no value, INPUT=none (repeatable; run and test take both from the data)." placeholder:"INPUT=N"`
}

// options parses --dim and --shape into importer options.
func (s ShapeFlags) options() (importer.Options, error) {
	var opts importer.Options
	for _, d := range s.Dim {
		name, val, ok := strings.Cut(d, "=")
		n, err := strconv.ParseInt(val, 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return opts, usagef("--dim %q: want NAME=VALUE with a non-negative integer VALUE", d)
		}
		if opts.Dims == nil {
			opts.Dims = map[string]int64{}
		}
		opts.Dims[name] = n
	}
	for _, sq := range s.Seq {
		name, val, ok := strings.Cut(sq, "=")
		var l importer.Layout
		if val == "none" {
			l.None = true
		} else {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				ok = false
			}
			l.Len = n
		}
		if !ok || name == "" {
			return opts, usagef("--seq %q: want INPUT=N with a non-negative integer N, or INPUT=none", sq)
		}
		if opts.Sequences == nil {
			opts.Sequences = map[string]importer.Layout{}
		}
		opts.Sequences[name] = l
	}
	for _, sh := range s.Shape {
		name, val, ok := strings.Cut(sh, "=")
		if !ok || name == "" {
			return opts, usagef("--shape %q: want INPUT=DIMS such as x=1x3x224x224", sh)
		}
		dims, err := parseDims(val)
		if err != nil {
			return opts, usagef("--shape %q: %v", sh, err)
		}
		if opts.Shapes == nil {
			opts.Shapes = map[string][]int64{}
		}
		opts.Shapes[name] = dims
	}
	return opts, nil
}

// parseDims parses "1x3x224x224"; an empty string is rank 0.
func parseDims(s string) ([]int64, error) {
	dims := []int64{}
	if s == "" {
		return dims, nil
	}
	for _, part := range strings.Split(s, "x") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("dimension %q is not a non-negative integer", part)
		}
		dims = append(dims, n)
	}
	return dims, nil
}

// isONNX reports whether path names an ONNX model (by extension).
func isONNX(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".onnx")
}

// modelFile is a model opened once and converted to verified Niro IR on
// demand, under the --dim and --shape flags and, when a command runs the
// model, with its input shapes bound from the actual inputs.
type modelFile struct {
	path string
	opts importer.Options
	onnx *importer.Model // an ONNX model, memory-mapped while open
	base *niro.Module    // the module under the flags alone, once made
	// bound describes the input values and sequence layouts the module
	// moduleWith made last was specialized to ("" for none), so that a
	// model compiled for one position or sequence length is not reused for
	// another with the same input types.
	bound string
	// nodes is the main graph's node count, taken before moduleOnce
	// released the nodes.
	nodes int
	// warn, when set, is given each warning of the importer
	// (importer.Model.Warnings) about the module a command uses, once
	// however many modules are made (reportWarnings).
	warn   func(string)
	warned map[string]bool
}

// reportWarnings hands the warnings of the last module made (the one the
// command uses: forInputs may make several on its way), those not
// reported yet, to warn.
func (mf *modelFile) reportWarnings() {
	if mf.warn == nil || mf.onnx == nil {
		return
	}
	for _, w := range mf.onnx.Warnings() {
		if !mf.warned[w] {
			if mf.warned == nil {
				mf.warned = map[string]bool{}
			}
			mf.warned[w] = true
			mf.warn(w)
		}
	}
}

// reportWarningsTo makes mf print the importer's warnings with the
// progress lines (-v): "niro: warning: model.onnx: ...".
func (env *Env) reportWarningsTo(mf *modelFile) {
	mf.warn = func(w string) { env.progressf("warning: %s: %s", mf.path, w) }
}

// boundKey describes the values and layouts a module is specialized to.
func boundKey(values map[string][]byte, layouts map[string]importer.Layout) string {
	if len(values) == 0 && len(layouts) == 0 {
		return ""
	}
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(values)) {
		fmt.Fprintf(h, "%q=%x;", k, values[k])
	}
	for _, k := range slices.Sorted(maps.Keys(layouts)) {
		fmt.Fprintf(h, "%q:%v;", k, layouts[k])
	}
	return fmt.Sprintf("|%x", h.Sum64())
}

// openModel opens a .onnx file, or parses and verifies a .niro file.
func openModel(path string, flags ShapeFlags) (*modelFile, error) {
	opts, err := flags.options()
	if err != nil {
		return nil, err
	}
	mf := &modelFile{path: path, opts: opts}
	if isONNX(path) {
		if mf.onnx, err = importer.Load(path, opts); err != nil {
			return nil, err
		}
		if err := importer.CheckOptions(mf.onnx, opts); err != nil {
			mf.close()
			return nil, usagef("%s: %v", path, err)
		}
		return mf, nil
	}
	if len(opts.Dims) > 0 || len(opts.Shapes) > 0 || len(opts.Sequences) > 0 {
		return nil, usagef("--dim, --shape and --seq apply to .onnx models only")
	}
	src, err := safefile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if mf.base, err = niro.Parse(path, src); err != nil {
		return nil, err
	}
	if err := niro.Verify(mf.base); err != nil {
		return nil, diagnostics(path, err)
	}
	return mf, nil
}

// close releases an ONNX model's mappings; modules made from it must no
// longer be used.
func (mf *modelFile) close() {
	if mf.onnx != nil {
		_ = mf.onnx.Close()
	}
}

// dropGraph releases the decoded ONNX graph once the module is made and
// checked, when mf makes no other module. The module's tensor data
// aliases the model's mapped files, which stay open; nothing else of the
// graph is needed, and for a large graph it is the largest thing in
// memory (docs/performance.md, "Emit on a long chain"); after moduleOnce
// only its inputs, outputs and initializers are left.
//
// For a graph of largeGraph nodes or more it also collects the garbage
// the import left and returns it to the system: the import's transient
// peak would otherwise stay resident (and set the collector's next goal)
// while emit and the LLVM tools run.
func (mf *modelFile) dropGraph() {
	if mf.onnx == nil || mf.onnx.Graph == nil {
		return
	}
	big := max(len(mf.onnx.Graph.Nodes), mf.nodes) >= largeGraph
	mf.onnx.Graph, mf.onnx.Functions = nil, nil
	if big {
		debug.FreeOSMemory()
	}
}

// largeGraph is the node count from which dropGraph returns memory to the
// system and moduleOnce sets a memory limit (limitToLoaded): one
// collection costs about a millisecond per 10,000 nodes.
const largeGraph = 10_000

// limitToLoaded sets the collector's soft memory limit (debug.SetMemoryLimit)
// from the live heap once a large ONNX graph is loaded, before it is
// converted, for the rest of the process: limitHeadroom times the live
// heap, plus what the runtime holds besides the heap, plus limitSlack.
//
// What makes it a sound bound: from here on the live heap does not, as a
// rule, grow past its size now. ConvertReleasing lets the graph go as it
// builds the Niro IR, which is about half the graph's size (on the long
// chain of TestChainMemory 392 bytes a node after loading, 306 at most
// while converting, 194 of IR after; docs/performance.md, "Emit on a long
// chain"), and emit streams its text. (An import that computes large
// constants can exceed it; the limit is soft, see below.)
// Left to GOGC=100, though, the collector lets the heap grow to twice
// what it found live at its last cycle, and while it marks a heap of
// hundreds of megabytes the conversion and emit allocate as fast as they
// can, so the process would hold about twice the live data. The limit
// makes the collector run more often instead when the heap nears it: more
// collections, never more than the limit's headroom of memory. It is soft:
// the runtime exceeds it rather than spend more than about half the CPU
// on collecting. A limit the user set (GOMEMLIMIT) is left alone.
//
// The limit lasts until restoreMemoryLimit, which runContext calls when
// the command ends, so that commands run in one process (the tests) do not
// inherit it.
func limitToLoaded() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	other := ms.Sys - ms.HeapSys // stacks, the collector's metadata, buffers
	prev := debug.SetMemoryLimit(int64(float64(ms.HeapAlloc)*limitHeadroom) + int64(other) + limitSlack)
	limitMu.Lock()
	if !limitSet {
		limitPrev, limitSet = prev, true
	}
	limitMu.Unlock()
}

// restoreMemoryLimit puts back the memory limit limitToLoaded replaced.
func restoreMemoryLimit() {
	limitMu.Lock()
	defer limitMu.Unlock()
	if limitSet {
		debug.SetMemoryLimit(limitPrev)
		limitSet = false
	}
}

var (
	limitMu   sync.Mutex
	limitPrev int64 // the limit before limitToLoaded, while limitSet
	limitSet  bool
)

// limitHeadroom and limitSlack shape limitToLoaded's limit: half the live
// heap again for the collector to work in, and 64 MiB for the buffers emit
// writes through and a small graph's fixed costs.
const (
	limitHeadroom = 1.5
	limitSlack    = 64 << 20
)

// module returns the model under the flags, with the input shapes in
// shapes (by input name) fixed as well when shapes is not nil.
func (mf *modelFile) module(shapes map[string][]int64) (*niro.Module, error) {
	return mf.moduleWith(shapes, nil)
}

// moduleWith is module with the given graph inputs' values known at
// compile time (importer.Options.Values).
func (mf *modelFile) moduleWith(shapes map[string][]int64, values map[string][]byte) (*niro.Module, error) {
	if shapes == nil && values == nil && mf.base != nil {
		mf.bound = boundKey(nil, mf.opts.Sequences)
		return mf.base, nil
	}
	mf.bound = boundKey(values, mf.opts.Sequences)
	opts := mf.opts
	opts.Values = values
	if shapes != nil {
		opts.Shapes = maps.Clone(mf.opts.Shapes)
		if opts.Shapes == nil {
			opts.Shapes = map[string][]int64{}
		}
		maps.Copy(opts.Shapes, shapes)
	}
	m, err := importer.Convert(mf.onnx, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	if shapes == nil && values == nil {
		mf.base = m
	}
	return m, nil
}

// moduleOnce is module(nil) for a caller that makes no other module from
// mf and drops the graph afterwards (dropGraph): an ONNX model's graph is
// released as it is converted (importer.ConvertReleasing), so that the
// decoded graph and the module are not both held whole.
func (mf *modelFile) moduleOnce() (*niro.Module, error) {
	if mf.base != nil || mf.onnx == nil {
		return mf.module(nil)
	}
	mf.bound = boundKey(nil, mf.opts.Sequences)
	if mf.onnx.Graph != nil {
		mf.nodes = len(mf.onnx.Graph.Nodes)
	}
	if mf.nodes >= largeGraph {
		limitToLoaded()
	}
	m, err := importer.ConvertReleasing(mf.onnx, mf.opts)
	mf.reportWarnings()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mf.path, err)
	}
	mf.base = m
	return m, nil
}

// loadModule reads a .onnx or .niro file into a verified module. It makes
// no other module from the file, so the graph is released as it is
// converted (moduleOnce).
func loadModule(path string, flags ShapeFlags) (*niro.Module, error) {
	mf, err := openModel(path, flags)
	if err != nil {
		return nil, err
	}
	m, err := mf.moduleOnce()
	if err != nil {
		return nil, err
	}
	mf.dropGraph()
	return m, nil
}

// diagnosticsError reports a module's verifier diagnostics one per line,
// each prefixed with the file, as compilers do.
type diagnosticsError struct {
	path string
	err  *niro.VerifyError
}

func (e *diagnosticsError) Error() string {
	var sb strings.Builder
	for i, d := range e.err.Diags {
		if i > 0 {
			sb.WriteString("\nniro: ")
		}
		sb.WriteString(e.path + ": " + d.String())
	}
	return sb.String()
}

func (e *diagnosticsError) Unwrap() error { return e.err }

// diagnostics wraps a verifier error with the file it came from.
func diagnostics(path string, err error) error {
	var ve *niro.VerifyError
	if errors.As(err, &ve) && len(ve.Diags) > 0 {
		return &diagnosticsError{path: path, err: ve}
	}
	return fmt.Errorf("%s: %w", path, err)
}
