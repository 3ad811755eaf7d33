package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/niro-dev/niro/internal/cleanup"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// corpusModels is the real-model corpus, testdata/models (its README
// says which exporter's patterns each model has; testdata/models/gen
// writes them, ONNX Runtime their expected outputs).
var corpusModels = []string{
	"p2o_ocr_op9",
	"p2o_ocr_op11",
	"torch_dynshape",
	"torch_lora",
	"torch_mlp",
	"wakeword_head",
	"keras_nhwc_cnn",
	"keras_conv1d",
	"nested_if",
	"vad_if",
	"torch_loop",
	"scan_rnn",
	"fp16_cast",
	"fp16_loop",
	"conv_clip_op11",
	"mobilenetv3_fpn",
	"small_cnn",
	"dense_dw3x3",
	"melspec",
	"dup_opset",
}

// corpusTimeout bounds one model's whole check (import, interpreter, two
// compiles and runs per data set), corpusToolTimeout each LLVM tool's run
// in it: a compile that hangs fails its model instead of stalling the
// test.
const (
	corpusTimeout     = 90 * time.Second
	corpusToolTimeout = 30 * time.Second
)

// corpusModelEnv makes the test binary check one corpus model and exit
// (TestMain): TestCorpus runs each model so, in a process of its own that
// a timeout can kill.
const corpusModelEnv = "NIRO_TEST_CORPUS_MODEL"

// TestCorpus runs every model of the real-model corpus as `niro test`
// does, each in its own process under corpusTimeout: it imports the
// model for each data set's inputs, evaluates it with the interpreter,
// compiles it with the host pipeline and with host-O0, runs both,
// compares the host's and the interpreter's outputs with ONNX Runtime's
// at niro test's tolerances (rtol 1e-3, atol 1e-7) and checks that host
// and host-O0 give the same bits. A failure names the model, the data
// set, the stage (import, interp, compile host, run host, compare host,
// compile host-O0, run host-O0, bits) and the error.
func TestCorpus(t *testing.T) {
	requireTools(t)
	for _, name := range corpusModels {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), corpusTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0])
			cmd.Env = append(os.Environ(), corpusModelEnv+"="+name)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			// SIGTERM first: the child kills its tools' process groups.
			cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
			cmd.WaitDelay = 5 * time.Second
			start := time.Now()
			err := cmd.Run()
			stage, failed := "", false
			sc := bufio.NewScanner(&stdout)
			for sc.Scan() {
				kind, rest, _ := strings.Cut(sc.Text(), " ")
				switch kind {
				case "STAGE":
					stage = rest
				case "LOG":
					t.Log(rest)
				case "FAIL":
					failed = true
					t.Errorf("%s: %s", name, rest)
				}
			}
			switch {
			case ctx.Err() != nil:
				t.Errorf("%s: %s: no result in %s (a hang)", name, stage, corpusTimeout)
			case err != nil && !failed:
				t.Errorf("%s: %s: %v\n%s", name, stage, err, tail(stderr.String(), 20))
			}
			t.Logf("%s: %.1f s", name, time.Since(start).Seconds())
		})
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// checkCorpusModel checks one corpus model (see TestCorpus), writing to w
// a line "STAGE DATASET STAGE" as each stage starts, "FAIL DATASET:
// STAGE: ERROR" for each failure and "LOG …" for figures, and returns the
// exit code: 1 if anything failed.
func checkCorpusModel(name string, w io.Writer) int {
	failed := false
	fail := func(format string, args ...any) {
		fmt.Fprintf(w, "FAIL "+format+"\n", args...)
		failed = true
	}
	dir := filepath.Join("testdata", "models", name)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	// Killed by TestCorpus's timeout, stop the tool running.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		cleanup.Run()
		os.Exit(143)
	}()
	fmt.Fprintf(w, "STAGE import\n")
	tc, err := env.findTools(ctx)
	if err != nil {
		fail("tools: %v", err)
		return 1
	}
	tc.ToolTimeout = corpusToolTimeout
	mf, err := openModel(filepath.Join(dir, "model.onnx"), ShapeFlags{})
	if err != nil {
		fail("import: %v", err)
		return 1
	}
	defer mf.close()
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		fail("%s: no test data sets", dir)
	}
	for _, set := range sets {
		base := filepath.Base(set)
		stage := func(s string) { fmt.Fprintf(w, "STAGE %s %s\n", base, s) }
		ins, err := readNumbered(set, "input")
		if err == nil {
			var wants []namedTensor
			if wants, err = readNumbered(set, "output"); err == nil && (len(ins) == 0 || len(wants) == 0) {
				err = errors.New("no inputs or no expected outputs")
			}
			if err == nil {
				logf := func(s string, args ...any) { fmt.Fprintf(w, "LOG "+base+": "+s+"\n", args...) }
				checkCorpusSet(ctx, env, tc, mf, ins, wants, corpusTol, stage, func(s string, args ...any) { fail(base+": "+s, args...) }, logf)
				continue
			}
		}
		fail("%s: reading the data: %v", base, err)
	}
	if failed {
		return 1
	}
	return 0
}

// corpusTol is niro test's tolerance (rtol, atol), which the corpus is
// held to against ONNX Runtime.
var corpusTol = [2]float64{1e-3, 1e-7}

// checkCorpusSet checks one data set of a model against ONNX Runtime's
// outputs wants at tolerance tol (rtol, atol): interpreted and, where tc
// is not nil and the entry's outputs have static shapes (a carried value
// that grows, a scan output of a loop that may stop early, are dynamic:
// the compiled function cannot return them), compiled with host and
// host-O0, whose bits must agree.
func checkCorpusSet(ctx context.Context, env *Env, tc *toolchain.Toolchain, mf *modelFile, ins, wants []namedTensor, tol [2]float64, stage func(string), fail, logf func(string, ...any)) {
	compare := func(what string, got []tensorio.Tensor) {
		if len(got) != len(wants) {
			fail("compare %s: %d outputs, want %d", what, len(got), len(wants))
			return
		}
		for i, want := range wants {
			r, err := tensorio.Compare(got[i], want.t, tol[0], tol[1])
			switch {
			case err != nil:
				fail("compare %s: output %d: %v", what, i, err)
			case !r.OK:
				fail("compare %s: output %d against ONNX Runtime: %s", what, i, r)
			default:
				logf("%s output %d: max abs %.3g, max rel %.3g against ONNX Runtime", what, i, r.MaxAbs, r.MaxRel)
			}
		}
	}
	stage("import")
	m, inputs, err := mf.forInputs(ins)
	if err != nil {
		fail("import: %v", err)
		return
	}
	// The interpreter first: the host build runs the passes on m.
	stage("interp")
	if outs, err := interpretGuarded(env, m, inputs); err != nil {
		fail("interp: %v", err)
	} else {
		compare("interp", outs)
	}
	static := tc != nil
	for _, ty := range m.Entry().Type.Outputs {
		tt, ok := ty.(niro.TensorType)
		static = static && ok && tt.HasStaticShape()
	}
	if !static {
		return
	}
	var first []tensorio.Tensor
	for _, p := range []string{"host", "host-O0"} {
		stage("compile " + p)
		start := time.Now()
		hm, err := env.buildHost(ctx, tc, m, p)
		if err != nil {
			fail("compile %s: %v", p, err)
			return
		}
		logf("compile %s: %.1f s", p, time.Since(start).Seconds())
		stage("run " + p)
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		hm.cleanup()
		if err != nil {
			fail("run %s: %v", p, err)
			return
		}
		if first == nil {
			first = res.Outputs
			compare(p, res.Outputs)
			continue
		}
		for i := range first {
			if i < len(res.Outputs) && string(first[i].Data) != string(res.Outputs[i].Data) {
				fail("bits: output %d differs between host and %s", i, p)
			}
		}
	}
}

// interpretGuarded is env.interpret with a panic reported as an error.
func interpretGuarded(env *Env, m *niro.Module, inputs []tensorio.Tensor) (outs []tensorio.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return env.interpret(m, inputs)
}
