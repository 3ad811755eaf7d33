package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

var updateConformance = flag.Bool("update-conformance", false, "rewrite testdata/conformance/host.txt")

// onnxTestsDir is the ONNX backend test data shared beside the repository.
func onnxTestsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "shared", "onnx-tests"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "INDEX.tsv")); err != nil {
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
			t.Fatalf("ONNX test data missing at %s", dir)
		}
		t.Skipf("ONNX test data not found at %s", dir)
	}
	return dir
}

// TestConformanceHost runs every ONNX backend test whose model niro can
// compile (it imports and every op lowers) on the host, with the ONNX
// runner's tolerances, and checks the list of such tests against
// testdata/conformance/host.txt. Every listed test must pass.
func TestConformanceHost(t *testing.T) {
	requireTools(t)
	root := onnxTestsDir(t)
	idx, err := os.Open(filepath.Join(root, "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var tests []string
	sc := bufio.NewScanner(idx)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 2 || f[0] == "suite" {
			continue
		}
		tests = append(tests, f[0]+"/"+f[1])
	}
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		results = map[string]string{}
		sem     = make(chan struct{}, 2)
		wg      sync.WaitGroup
	)
	for _, name := range tests {
		dir := filepath.Join(root, name)
		model := filepath.Join(dir, "model.onnx")
		mf := openCompilable(model)
		if mf == nil {
			continue // an op or type niro does not compile yet
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer mf.close()
			verdict := runConformance(ctx, env, tc, mf, dir)
			mu.Lock()
			results[name] = verdict
			mu.Unlock()
		}()
	}
	wg.Wait()
	var lines []string
	for name, v := range results {
		lines = append(lines, name+" "+v)
		if v != "PASS" {
			t.Errorf("%s: %s", name, v)
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "conformance", "host.txt")
	if *updateConformance {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("compiled tests differ from %s (run go test -run TestConformanceHost -update-conformance):\ngot:\n%s", golden, got)
	}
	t.Logf("%d of %d ONNX backend tests compile and run on the host", len(results), len(tests))
}

// openCompilable opens a model and returns it if it imports and emits;
// otherwise it releases it and returns nil.
func openCompilable(model string) *modelFile {
	mf, err := openModel(model, ShapeFlags{})
	if err != nil {
		return nil
	}
	m, err := mf.module(nil)
	if err == nil && needsValues(m) {
		// Compile as run and test do: for the first data set's inputs,
		// with the small integer inputs that shapes depend on bound.
		var ins []namedTensor
		if ins, err = readNumbered(filepath.Join(filepath.Dir(model), "test_data_set_0"), "input"); err == nil {
			m, _, err = mf.forInputs(ins)
		}
	}
	if err == nil {
		var out *emit.Output
		if out, err = emit.Module(m, emit.Options{}); err == nil {
			used := emptyInputsRead(m)
			for k, p := range append(out.Entry.Inputs, out.Entry.Outputs...) {
				if t, ok := p.Type.(niro.TensorType); ok && t.NumElements() == 0 && (k >= len(out.Entry.Inputs) || used[k]) {
					err = fmt.Errorf("empty tensor %q", p.Name) // not run yet (see buildHost)
				}
			}
		}
	}
	if err != nil {
		mf.close()
		return nil
	}
	return mf
}

// runConformance runs one test's data sets and returns PASS or why not.
func runConformance(ctx context.Context, env *Env, tc *toolchain.Toolchain, mf *modelFile, dir string) string {
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		return "no data sets"
	}
	for _, set := range sets {
		ins, err := readNumbered(set, "input")
		if err != nil {
			return err.Error()
		}
		wants, err := readNumbered(set, "output")
		if err != nil {
			return err.Error()
		}
		m, inputs, err := mf.forInputs(ins)
		if err != nil {
			return err.Error()
		}
		hm, err := env.buildHost(ctx, tc, m, "host")
		if err != nil {
			return oneLine(err)
		}
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		hm.cleanup()
		if err != nil {
			return oneLine(err)
		}
		if len(res.Outputs) != len(wants) {
			return fmt.Sprintf("%d outputs, want %d", len(res.Outputs), len(wants))
		}
		for i, w := range wants {
			r, err := tensorio.Compare(res.Outputs[i], w.t, 1e-3, 1e-7)
			if err != nil {
				return oneLine(err)
			}
			if !r.OK {
				return fmt.Sprintf("%s output %d: %s", filepath.Base(set), i, r)
			}
		}
	}
	return "PASS"
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
