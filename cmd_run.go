package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// InputFlags are the --input flags of run and bench.
type InputFlags struct {
	Input []string `help:"An input: NAME=PATH, or PATH alone (a .pb's stored name, else the next input in order). .npy or ONNX TensorProto .pb." placeholder:"NAME=PATH"`
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
		t, err := tensorio.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if name == "" {
			name = t.Name
		}
		out = append(out, namedTensor{name: name, t: t})
	}
	return out, nil
}

// RunCmd is `niro run`.
type RunCmd struct {
	File      string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	OutputDir string `name:"output-dir" help:"Directory for the outputs (NAME.npy)." default:"." placeholder:"DIR"`
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
	ctx := context.Background()
	given, err := c.read()
	if err != nil {
		return err
	}
	mf, err := openModel(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	m, inputs, err := mf.forInputs(given)
	if err != nil {
		return err
	}
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	hm, err := env.buildHost(ctx, tc, m, c.Pipeline)
	if err != nil {
		return err
	}
	defer hm.cleanup()
	res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.OutputDir, 0o755); err != nil {
		return err
	}
	for i, out := range res.Outputs {
		path := filepath.Join(c.OutputDir, fileName(paramName(hm.out.Entry.Outputs[i], i, "output"))+".npy")
		if err := tensorio.WriteNPY(path, out); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: %s\n", path, out.Type())
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

// TestCmd is `niro test`.
type TestCmd struct {
	File string   `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Data []string `arg:"" help:"ONNX test-data folders holding input_K.pb and output_K.pb." type:"existingdir"`
	Rtol float64  `help:"Relative tolerance." default:"1e-3"`
	Atol float64  `help:"Absolute tolerance." default:"1e-7"`
	ShapeFlags
	PipelineFlag
	InterpFlag
}

// Run compiles the model for each distinct input signature, runs every
// folder and compares each output, one line per output.
func (c *TestCmd) Run(env *Env) error {
	if c.Interp {
		return c.testInterp(env)
	}
	ctx := context.Background()
	mf, err := openModel(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	failed := 0
	cache := map[string]*hostModel{}
	defer func() {
		for _, hm := range cache {
			hm.cleanup()
		}
	}()
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
		key := signature(inputs)
		hm := cache[key]
		if hm == nil {
			if hm, err = env.buildHost(ctx, tc, m, c.Pipeline); err != nil {
				return err
			}
			cache[key] = hm
		}
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		if err != nil {
			return err
		}
		if len(wants) != len(res.Outputs) {
			return fmt.Errorf("%s: %d expected outputs, but the model has %d", dir, len(wants), len(res.Outputs))
		}
		for i, want := range wants {
			name := paramName(hm.out.Entry.Outputs[i], i, "output")
			r, err := tensorio.Compare(res.Outputs[i], want.t, c.Rtol, c.Atol)
			if err != nil {
				fmt.Fprintf(env.Stdout, "%s: output %d (%s): %v: FAIL\n", dir, i, name, err)
				failed++
				continue
			}
			verdict := "PASS"
			if !r.OK {
				verdict = "FAIL"
				failed++
			}
			fmt.Fprintf(env.Stdout, "%s: output %d (%s): max abs %s, max rel %s: %s\n", dir, i, name, fmtErr(r.MaxAbs), fmtErr(r.MaxRel), verdict)
			if !r.OK {
				fmt.Fprintf(env.Stdout, "  %s\n", r)
			}
		}
	}
	if failed > 0 {
		return &silentError{code: exitInput}
	}
	return nil
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

// readNumbered reads DIR/KIND_0.pb, KIND_1.pb, … in order.
func readNumbered(dir, kind string) ([]namedTensor, error) {
	var out []namedTensor
	for k := 0; ; k++ {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", kind, k))
		if _, err := os.Stat(path); err != nil {
			break
		}
		t, err := tensorio.ReadPB(path)
		if err != nil {
			return nil, err
		}
		out = append(out, namedTensor{name: t.Name, t: t})
	}
	return out, nil
}

// BenchCmd is `niro bench`.
type BenchCmd struct {
	File string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Runs int    `help:"Timed runs after one warm-up run." default:"10"`
	JSON bool   `name:"json" help:"Print {\"median_us\":…,\"min_us\":…,\"runs\":…}."`
	Seed uint64 `help:"Seed for the random inputs." default:"1"`
	InputFlags
	ShapeFlags
	PipelineFlag
}

// Run compiles the model for the host and reports the median latency,
// timed inside the process.
func (c *BenchCmd) Run(env *Env) error {
	if c.Runs < 1 {
		return usagef("--runs must be at least 1")
	}
	ctx := context.Background()
	given, err := c.read()
	if err != nil {
		return err
	}
	mf, err := openModel(c.File, c.ShapeFlags)
	if err != nil {
		return err
	}
	var m *niro.Module
	var inputs []tensorio.Tensor
	if len(given) > 0 {
		m, inputs, err = mf.forInputs(given)
	} else {
		m, err = mf.module(nil)
	}
	if err != nil {
		return err
	}
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	hm, err := env.buildHost(ctx, tc, m, c.Pipeline)
	if err != nil {
		return err
	}
	defer hm.cleanup()
	if inputs == nil {
		for i, in := range hm.out.Entry.Inputs {
			t := in.Type.(niro.TensorType)
			r, err := tensorio.Random(t.Elem, t.Dims, c.Seed+uint64(i))
			if err != nil {
				return fmt.Errorf("input %s: %w", paramName(in, i, "input"), err)
			}
			inputs = append(inputs, r)
		}
	}
	res, err := env.execute(ctx, tc, hm, inputs, 1, c.Runs)
	if err != nil {
		return err
	}
	ts := append([]float64(nil), res.Timings...)
	sort.Float64s(ts)
	median := ts[len(ts)/2]
	if len(ts)%2 == 0 {
		median = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
	us := func(s float64) float64 { return float64(time.Duration(s*1e9).Nanoseconds()) / 1e3 }
	if c.JSON {
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"median_us": us(median), "min_us": us(ts[0]), "runs": len(ts)})
	}
	fmt.Fprintf(env.Stdout, "%s: median %.1f µs, min %.1f µs over %d runs\n", c.File, us(median), us(ts[0]), len(ts))
	return nil
}
