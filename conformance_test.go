package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

var (
	updateConformance = flag.Bool("update-conformance", false, "rewrite testdata/conformance/host.txt")
	conformanceInterp = flag.Bool("conformance-interp", true, "compare every compiled output with the interpreter's: integers bit for bit, floats within 2 ulp (f64: 4), as compareInterp in interp_oracle_test.go")
	conformanceMatch  = flag.String("conformance-match", "", "run only the ONNX backend tests whose name matches this regular expression (a report, never with -update-conformance)")
)

// onnxTestsRoot is the ONNX backend test data: $NIRO_ONNX_TESTS, by
// default ../shared/onnx-tests beside the repository.
func onnxTestsRoot() string {
	dir := os.Getenv("NIRO_ONNX_TESTS")
	if dir == "" {
		dir = filepath.Join("..", "shared", "onnx-tests")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// onnxTestsDir returns the ONNX backend test data, or skips the test
// without it; with NIRO_REQUIRE_TOOLS set (as in CI) it fails instead.
func onnxTestsDir(t *testing.T) string {
	t.Helper()
	dir := onnxTestsRoot()
	if _, err := os.Stat(filepath.Join(dir, "INDEX.tsv")); err != nil {
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
			t.Fatalf("ONNX test data missing at %s (set NIRO_ONNX_TESTS)", dir)
		}
		t.Skipf("ONNX test data not found at %s (set NIRO_ONNX_TESTS)", dir)
	}
	return dir
}

// conformanceEntry is one line of testdata/conformance/host.txt:
//
//	SUITE/TEST PASS [rtol=R] [atol=A] [# reason]
//
// A tolerance given on the line replaces the ONNX runner's default for
// that test; the reason says why it needs one.
type conformanceEntry struct {
	name, verdict string
	rtol, atol    float64
	suffix        string // the tolerances and the comment, as written
}

// Default tolerances of the ONNX backend test runner.
const (
	conformanceRtol = 1e-3
	conformanceAtol = 1e-7
)

// readConformance parses host.txt.
func readConformance(path string) (map[string]conformanceEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]conformanceEntry{}
	for i, line := range strings.Split(string(data), "\n") {
		body, comment, hasComment := strings.Cut(line, "#")
		f := strings.Fields(body)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("%s:%d: want NAME VERDICT [rtol=R] [atol=A] [# reason]", path, i+1)
		}
		e := conformanceEntry{name: f[0], verdict: f[1], rtol: conformanceRtol, atol: conformanceAtol}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || (k != "rtol" && k != "atol") {
				return nil, fmt.Errorf("%s:%d: %q: want rtol=R or atol=A", path, i+1, kv)
			}
			if k == "rtol" {
				e.rtol = x
			} else {
				e.atol = x
			}
		}
		if len(f) > 2 {
			if !hasComment || strings.TrimSpace(comment) == "" {
				return nil, fmt.Errorf("%s:%d: a tolerance override needs a reason after #", path, i+1)
			}
			e.suffix = " " + strings.Join(f[2:], " ")
		}
		if hasComment {
			e.suffix += " # " + strings.TrimSpace(comment)
		}
		if _, dup := out[e.name]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, i+1, e.name)
		}
		out[e.name] = e
	}
	return out, nil
}

// TestConformanceHost runs every ONNX backend test whose model niro can
// compile (it imports and every op lowers) on the host, on every core,
// with the ONNX runner's tolerances (rtol 1e-3, atol 1e-7) unless
// testdata/conformance/host.txt gives the test its own, and checks the
// tests that compile against that list: a listed test that fails or no
// longer compiles is a regression, and a test that compiles but is not
// listed must be added (run with -update-conformance). Every compiled
// output is also compared with the reference interpreter's
// (-conformance-interp, on by default; -conformance-interp=false skips it).
func TestConformanceHost(t *testing.T) {
	requireTools(t)
	root := onnxTestsDir(t)
	idx, err := os.Open(filepath.Join(root, "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var match *regexp.Regexp
	if *conformanceMatch != "" {
		if *updateConformance {
			t.Fatal("-conformance-match runs a subset; it cannot rewrite the list")
		}
		if match, err = regexp.Compile(*conformanceMatch); err != nil {
			t.Fatal(err)
		}
	}
	var tests []string
	sc := bufio.NewScanner(idx)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 2 || f[0] == "suite" {
			continue
		}
		if name := f[0] + "/" + f[1]; match == nil || match.MatchString(name) {
			tests = append(tests, name)
		}
	}
	golden := filepath.Join("testdata", "conformance", "host.txt")
	listed, err := readConformance(golden)
	if err != nil {
		t.Fatal(err)
	}
	if match != nil {
		for name := range listed {
			if !match.MatchString(name) {
				delete(listed, name)
			}
		}
	}
	statistical, err := readStatistical(filepath.Join("testdata", "conformance", "statistical.txt"))
	if err != nil {
		t.Fatal(err)
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
		work    = make(chan string)
		wg      sync.WaitGroup
	)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				dir := filepath.Join(root, name)
				mf := openCompilable(filepath.Join(dir, "model.onnx"))
				if mf == nil {
					continue // an op or type niro does not compile yet
				}
				rtol, atol := conformanceRtol, conformanceAtol
				if e, ok := listed[name]; ok {
					rtol, atol = e.rtol, e.atol
				}
				verdict := runConformance(ctx, env, tc, mf, dir, rtol, atol, statistical[name])
				mf.close()
				mu.Lock()
				results[name] = verdict
				mu.Unlock()
			}
		}()
	}
	for _, name := range tests {
		work <- name
	}
	close(work)
	wg.Wait()
	var lines []string
	for name, v := range results {
		line := name + " " + v
		if e, ok := listed[name]; ok && v == e.verdict {
			line += e.suffix
		}
		lines = append(lines, line)
		switch e, ok := listed[name]; {
		case v != "PASS":
			t.Errorf("%s: %s", name, v)
		case !ok:
			t.Errorf("%s passes but is not listed in %s", name, golden)
		case e.verdict != v:
			t.Errorf("%s: %s, listed as %s", name, v, e.verdict)
		}
	}
	for name := range listed {
		if _, ok := results[name]; !ok {
			t.Errorf("%s is listed in %s but no longer compiles", name, golden)
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	if *updateConformance {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err == nil && match == nil && !t.Failed() && got != string(want) {
		t.Errorf("%s is not in canonical form (sorted, one test a line); run go test -run TestConformanceHost -update-conformance", golden)
	}
	if t.Failed() && !*updateConformance {
		t.Logf("to accept the tests that now compile: go test -run TestConformanceHost -update-conformance")
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
	var nd *importer.NeedsDataError
	if errors.As(err, &nd) || err == nil && needsValues(m) {
		// Compile as run and test do: for the first data set's inputs,
		// with the small integer (and float) inputs that shapes depend on
		// bound.
		var ins []namedTensor
		if ins, err = readNumbered(filepath.Join(filepath.Dir(model), "test_data_set_0"), "input"); err == nil {
			m, _, err = mf.forInputs(ins)
		}
	}
	if err == nil {
		_, err = emit.Module(m, emit.Options{})
	}
	if err != nil {
		mf.close()
		return nil
	}
	return mf
}

// runConformance runs one test's data sets and returns PASS or why not.
// check, when not "", names the statistical check (niro test --check) that
// replaces the element-wise comparison for a test with random outputs.
func runConformance(ctx context.Context, env *Env, tc *toolchain.Toolchain, mf *modelFile, dir string, rtol, atol float64, check string) string {
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
		if check != "" {
			// Random outputs: a check of the distribution replaces the
			// element-wise comparison (statistical.txt).
			if err := checkStatistical(check, inputs, res.Outputs, tensorsOf(wants)); err != nil {
				return fmt.Sprintf("%s: %s check: %v", filepath.Base(set), check, err)
			}
			// The interpreter draws from the same seeded generator
			// (docs/ops.md, "Random ops"), so its draws match bit for bit.
			if *conformanceInterp {
				if v := compareInterp(m, inputs, res.Outputs); v != "" {
					return fmt.Sprintf("%s: %s", filepath.Base(set), v)
				}
			}
			continue
		}
		for i, w := range wants {
			r, err := tensorio.Compare(res.Outputs[i], w.t, rtol, atol)
			if err != nil {
				return oneLine(err)
			}
			if !r.OK {
				return fmt.Sprintf("%s output %d: %s", filepath.Base(set), i, r)
			}
		}
		if *conformanceInterp {
			if v := compareInterp(m, inputs, res.Outputs); v != "" {
				return fmt.Sprintf("%s: %s", filepath.Base(set), v)
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

// TestReadConformance checks the host.txt format, tolerance overrides
// included.
func TestReadConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host.txt")
	src := "node/test_a PASS\nnode/test_b PASS rtol=1e-2 atol=1e-5 # sums in another order\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readConformance(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := got["node/test_a"], got["node/test_b"]
	if len(got) != 2 || a.rtol != conformanceRtol || a.atol != conformanceAtol || a.suffix != "" ||
		b.rtol != 1e-2 || b.atol != 1e-5 || b.suffix != " rtol=1e-2 atol=1e-5 # sums in another order" {
		t.Errorf("readConformance = %+v", got)
	}
	for _, bad := range []string{"node/test_a\n", "node/test_a PASS rtol=x # r\n", "node/test_a PASS rtol=1e-2\n", "node/test_a PASS\nnode/test_a PASS\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readConformance(path); err == nil {
			t.Errorf("readConformance(%q) did not fail", bad)
		}
	}
}
