package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/harness"
	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/opt"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// checker compiles models with the host pipeline and compares their
// outputs with the interpreter's.
type checker struct {
	tc   *toolchain.Toolchain
	host toolchain.Pipeline
	// Timeout bounds each tool run (mlir-opt, mlir-runner): a schedule
	// that does not terminate is a failure, not a hang.
	Timeout time.Duration
	// BudgetTime and BudgetRSS bound the lowering (mlir-opt): a compile
	// over either is a failure.
	BudgetTime time.Duration
	BudgetRSS  int64 // bytes
	// Tags, when not nil, counts the schedule tags (niro.* unit
	// attributes of linalg ops) of every module compiled: which forms
	// the draws reached.
	Tags map[string]int
}

// countTags adds the schedule tags of the MLIR text to tags.
func countTags(tags map[string]int, text []byte) {
	for _, line := range strings.Split(string(text), "\n") {
		for _, tag := range toolchain.ScheduleTags(line) {
			tags[tag]++
		}
	}
}

// newChecker finds the tools under prefix and reads the host pipeline
// from the passes.txt at passesPath.
func newChecker(ctx context.Context, prefix, passesPath string) (*checker, error) {
	tc, err := toolchain.Find(ctx, toolchain.FindOptions{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	tc.Progress = nil
	text, err := os.ReadFile(passesPath)
	if err != nil {
		return nil, err
	}
	ps, err := toolchain.ParsePipelines(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", passesPath, err)
	}
	host, ok := ps.Lookup("host")
	if !ok {
		return nil, fmt.Errorf("%s has no host pipeline", passesPath)
	}
	return &checker{tc: tc, host: host, Timeout: 60 * time.Second, BudgetTime: 20 * time.Second, BudgetRSS: 2 << 30}, nil
}

// outcome is what checking one model gave.
type outcome struct {
	// Kind is "" when the model passed, else the failure mode: import,
	// passes, interp, emit, compile, timeout, budget, run, mismatch or
	// panic.
	Kind   string
	Detail string
	// Bad holds the indices of the outputs that differ (Kind mismatch).
	Bad []int
	// Lower is mlir-opt's CPU time (user and system), Wall its wall-clock
	// time; RSS the largest resident set of any tool run so far (bytes;
	// monotone over the process: it is this compile's peak only when the
	// compile raised it, see docs).
	Lower, Wall time.Duration
	RSS         int64
}

func (o outcome) String() string {
	if o.Kind == "" {
		return "ok"
	}
	return o.Kind + ": " + o.Detail
}

// inputsFor returns the entry's inputs: random data seeded by each
// input's name, so that a draw gets the same data alone and batched.
func inputsFor(f *niro.Function) ([]tensorio.Tensor, error) {
	var ins []tensorio.Tensor
	for i, t := range f.Type.Inputs {
		tt, ok := t.(niro.TensorType)
		if !ok || !tt.HasStaticShape() {
			return nil, fmt.Errorf("input %d has type %s; want a static tensor", i, t)
		}
		name := ""
		if i < len(f.InputNames) && f.InputNames[i] != nil {
			name = *f.InputNames[i]
		}
		h := fnv.New64a()
		io.WriteString(h, name)
		x, err := tensorio.Random(tt.Elem, tt.Dims, h.Sum64())
		if err != nil {
			return nil, err
		}
		x.Name = name
		ins = append(ins, x)
	}
	return ins, nil
}

// check imports the ONNX model data, runs niro's default passes,
// interprets it, compiles it with the host pipeline (scheduled), runs it
// and compares every output bit for bit (any NaN equal to any NaN).
func (c *checker) check(ctx context.Context, data []byte) (res outcome) {
	defer func() {
		if p := recover(); p != nil {
			res = outcome{Kind: "panic", Detail: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	mod, _, err := importer.ImportBytes(data, importer.Options{})
	if err != nil {
		return outcome{Kind: "import", Detail: oneLine(err)}
	}
	ps, err := opt.Parse(opt.DefaultPipeline)
	if err == nil {
		err = opt.Run(mod, ps, opt.Options{})
	}
	if err != nil {
		return outcome{Kind: "passes", Detail: oneLine(err)}
	}
	inputs, err := inputsFor(mod.Entry())
	if err != nil {
		return outcome{Kind: "import", Detail: err.Error()}
	}
	want, err := interp.Run(mod, inputs, interp.Options{})
	if err != nil {
		return outcome{Kind: "interp", Detail: oneLine(err)}
	}
	got, res := c.build(ctx, mod, inputs)
	if res.Kind != "" {
		return res
	}
	for i := range want {
		if at := firstDiff(got[i], want[i]); at >= 0 {
			res.Bad = append(res.Bad, i)
			if res.Kind == "" {
				res.Kind = "mismatch"
				res.Detail = fmt.Sprintf("output %d (%s) at %d: compiled %s, interpreter %s", i, want[i].Name, at,
					tensorio.FormatElem(got[i], at), tensorio.FormatElem(want[i], at))
			}
		}
	}
	if res.Kind == "mismatch" && len(res.Bad) > 1 {
		res.Detail += fmt.Sprintf(" (%d outputs differ)", len(res.Bad))
	}
	return res
}

// build emits, lowers (timed, bounded) and runs mod on inputs.
func (c *checker) build(ctx context.Context, mod *niro.Module, inputs []tensorio.Tensor) ([]tensorio.Tensor, outcome) {
	var res outcome
	out, err := emit.Prepare(mod, emit.Options{})
	if err != nil {
		return nil, outcome{Kind: "emit", Detail: oneLine(err)}
	}
	dir, err := os.MkdirTemp("", "shapefuzz-")
	if err != nil {
		return nil, outcome{Kind: "run", Detail: err.Error()}
	}
	defer os.RemoveAll(dir)
	tc := *c.tc
	tc.ToolTimeout = c.Timeout
	// Strict: a schedule that fails is a failure here, not a fallback to
	// plain loops (which would hide it); its budget is the fuzzer's.
	tc.StrictSchedule = true
	tc.ScheduleBudget = c.BudgetTime
	lctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cpu0, rss0 := children()
	start := time.Now()
	lowered, err := c.lower(lctx, &tc, out)
	res.Wall = time.Since(start)
	cpu1, rss1 := children()
	res.Lower, res.RSS = cpu1-cpu0, rss1
	// The peak is the process's children's: it tells this compile's only
	// when the compile raised it, so a compile is over the budget when it
	// took the peak past it (a later one is not blamed for an earlier one).
	overRSS := rss1 > c.BudgetRSS && rss1 > rss0
	if err != nil {
		var te *toolchain.TimeoutError
		if errors.As(err, &te) || lctx.Err() != nil {
			res.Kind, res.Detail = "timeout", fmt.Sprintf("mlir-opt ran past %v and was killed", c.Timeout)
			return nil, res
		}
		res.Kind, res.Detail = "compile", oneLine(err)
		return nil, res
	}
	if res.Lower > c.BudgetTime {
		res.Kind, res.Detail = "budget", fmt.Sprintf("mlir-opt took %.1fs of CPU (budget %v)", res.Lower.Seconds(), c.BudgetTime)
		return nil, res
	}
	if overRSS {
		res.Kind, res.Detail = "budget", fmt.Sprintf("a tool's peak RSS %d MB (budget %d MB)", res.RSS>>20, c.BudgetRSS>>20)
		return nil, res
	}
	e := out.Entry
	spec := harness.Spec{Func: e.Name, Runs: 1}
	if out.Blob != nil {
		path := filepath.Join(dir, "weights.bin")
		f, err := os.Create(path)
		if err == nil {
			_, err = out.Blob.WriteTo(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return nil, outcome{Kind: "run", Detail: err.Error()}
		}
		spec.Weights = harness.Buffer{Path: path, Bytes: out.Blob.Size}
	}
	for i, in := range inputs {
		path := filepath.Join(dir, fmt.Sprintf("input_%d.bin", i))
		if err := tensorio.WriteRaw(path, in); err != nil {
			return nil, outcome{Kind: "run", Detail: err.Error()}
		}
		spec.Inputs = append(spec.Inputs, harness.Buffer{Path: path, Bytes: int64(len(in.Data))})
	}
	for i, o := range e.Outputs {
		t := o.Type.(niro.TensorType)
		spec.Outputs = append(spec.Outputs, harness.Buffer{Path: filepath.Join(dir, fmt.Sprintf("output_%d.bin", i)),
			Bytes: niro.PackedBytes(t.Elem, t.NumElements())})
	}
	prog, err := harness.Build(lowered, spec)
	if err != nil {
		return nil, outcome{Kind: "run", Detail: oneLine(err)}
	}
	rctx, rcancel := context.WithTimeout(ctx, c.Timeout)
	defer rcancel()
	if _, err := tc.Run(rctx, prog, toolchain.RunOptions{OptLevel: c.host.OptLevel, Stderr: io.Discard}); err != nil {
		kind := "run"
		var te *toolchain.TimeoutError
		if errors.As(err, &te) || rctx.Err() != nil {
			kind = "timeout"
		}
		res.Kind, res.Detail = kind, oneLine(err)
		return nil, res
	}
	var got []tensorio.Tensor
	for i, o := range e.Outputs {
		t := o.Type.(niro.TensorType)
		x, err := tensorio.ReadRaw(spec.Outputs[i].Path, t.Elem, t.Dims)
		if err != nil {
			return nil, outcome{Kind: "run", Detail: err.Error()}
		}
		got = append(got, x)
	}
	return got, res
}

// lower runs the host pipeline on the emitted module. This is where a
// strict-schedule option (a schedule failure an error rather than a
// recompile without schedule tags) belongs once the toolchain has one.
func (c *checker) lower(ctx context.Context, tc *toolchain.Toolchain, out *emit.Output) (string, error) {
	if c.Tags == nil {
		return tc.LowerFrom(ctx, out.WriteMLIR, c.host)
	}
	var text bytes.Buffer
	lowered, err := tc.LowerFrom(ctx, func(w io.Writer) error {
		return out.WriteMLIR(io.MultiWriter(w, &text))
	}, c.host)
	countTags(c.Tags, text.Bytes())
	return lowered, err
}

// children returns the CPU time (user and system) of the child processes
// waited for so far and the largest resident set of any of them, in bytes
// (getrusage RUSAGE_CHILDREN).
func children() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, 0
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, ru.Maxrss * 1024
}

// firstDiff returns the first element where got and want differ in their
// bits (any NaN equals any NaN), or -1.
func firstDiff(got, want tensorio.Tensor) int64 {
	if got.Elem != want.Elem || len(got.Data) != len(want.Data) {
		return 0
	}
	n := want.NumElements()
	for i := int64(0); i < n; i++ {
		g, w := elemBits(got, i), elemBits(want, i)
		if g != w && !(isNaN(want.Elem, g) && isNaN(want.Elem, w)) {
			return i
		}
	}
	return -1
}

func elemBits(t tensorio.Tensor, i int64) uint64 {
	switch t.Elem.Bits() {
	case 8:
		return uint64(t.Data[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(t.Data[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return binary.LittleEndian.Uint64(t.Data[8*i:])
}

func isNaN(elem niro.ScalarType, b uint64) bool {
	switch elem {
	case niro.F64:
		return math.IsNaN(math.Float64frombits(b))
	case niro.F32:
		return math.IsNaN(float64(math.Float32frombits(uint32(b))))
	case niro.F16:
		return b>>10&0x1f == 0x1f && b&0x3ff != 0
	case niro.BF16:
		return b>>7&0xff == 0xff && b&0x7f != 0
	}
	return false
}

// oneLine is err's first line, with the first line of a tool's output
// that says "error:", at most 400 characters.
func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first, rest := s[:i], s[i:]
		s = first
		for _, l := range strings.Split(rest, "\n") {
			if strings.Contains(l, "error:") {
				s += " | " + strings.TrimSpace(l)
				break
			}
		}
	}
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}
