// Command conformance runs `niro test` over every ONNX backend test and
// writes the scoreboard, docs/conformance.md. scripts/conformance.sh
// builds niro and runs it; see README.md.
//
// Each test is run in its own process, as many at once as there are
// cores, and classified: PASS, unsupported op (it imports, but an
// UnknownOp remains), unsupported type, wrong result, compile failure (an
// emit or LLVM/MLIR tool error) or import error. The ops a test uses come
// from its model, imported here.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/importer"
)

// Result classes, in the order the scoreboard lists them.
const (
	classPass        = "PASS"
	classUnsupported = "unsupported op"
	classType        = "unsupported type"
	classWrong       = "wrong result"
	classCompile     = "compile failure"
	classImport      = "import error"
)

var classes = []string{classPass, classUnsupported, classType, classWrong, classCompile, classImport}

var classDoc = map[string]string{
	classPass:        "every output matches within the tolerances",
	classUnsupported: "the model imports, but an ONNX op stays an UnknownOp: not converted yet, or not compilable in this instance",
	classType:        "an element type or a value kind (string, complex, sequence, optional) niro does not lower or read",
	classWrong:       "the model compiles and runs, but an output differs from the expected one",
	classCompile:     "emit or an LLVM/MLIR tool fails, or the run crashes or times out",
	classImport:      "the importer rejects the model, or a data file cannot be read",
}

// statisticalTest is a test whose outputs are random draws: niro test
// checks it with its check mode (--check) instead of element by element.
type statisticalTest struct {
	check, reason string
}

// statistical holds the tests of testdata/conformance/statistical.txt.
var statistical map[string]statisticalTest

// readStatistical parses the list of tests with random outputs:
// SUITE/TEST CHECK # reason, one a line.
func readStatistical(path string) (map[string]statisticalTest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]statisticalTest{}
	for i, line := range strings.Split(string(data), "\n") {
		body, comment, _ := strings.Cut(line, "#")
		f := strings.Fields(body)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || strings.TrimSpace(comment) == "" {
			return nil, fmt.Errorf("%s:%d: want SUITE/TEST CHECK # reason", path, i+1)
		}
		out[f[0]] = statisticalTest{check: f[1], reason: strings.TrimSpace(comment)}
	}
	return out, nil
}

// tolerance is a test's tolerance override from testdata/conformance/host.txt
// (SUITE/TEST PASS [rtol=R] [atol=A] # reason), for tests whose expected
// outputs carry the generator's own rounding beyond the ONNX runner's
// tolerances.
type tolerance struct {
	rtol, atol string // as written; "" keeps the default
	reason     string
}

// tolerances holds the overrides of host.txt.
var tolerances map[string]tolerance

// readTolerances returns the lines of host.txt that set rtol or atol.
func readTolerances(path string) (map[string]tolerance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]tolerance{}
	for i, line := range strings.Split(string(data), "\n") {
		body, comment, _ := strings.Cut(line, "#")
		f := strings.Fields(body)
		if len(f) <= 2 {
			continue
		}
		var t tolerance
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			if _, err := strconv.ParseFloat(v, 64); err != nil || (k != "rtol" && k != "atol") {
				return nil, fmt.Errorf("%s:%d: %q: want rtol=R or atol=A", path, i+1, kv)
			}
			if k == "rtol" {
				t.rtol = v
			} else {
				t.atol = v
			}
		}
		if t.reason = strings.TrimSpace(comment); t.reason == "" {
			return nil, fmt.Errorf("%s:%d: a tolerance override needs a reason after #", path, i+1)
		}
		out[f[0]] = t
	}
	return out, nil
}

// result is what one test gave.
type result struct {
	name   string // suite/test
	class  string
	reason string   // one line, "" for PASS
	ops    []string // op types the model uses, sorted
	// missing are the op types left unknown when the model is imported
	// without binding input shapes.
	missing []string
	took    time.Duration
}

func main() {
	niroBin := flag.String("niro", "niro", "the niro binary")
	suite := flag.String("suite", "../shared/onnx-tests", "the ONNX backend test data")
	out := flag.String("o", "docs/conformance.md", "the scoreboard to write")
	jobs := flag.Int("j", runtime.NumCPU(), "tests run at once")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit of one test")
	statFile := flag.String("statistical", "testdata/conformance/statistical.txt", "the tests with random outputs and their checks")
	hostFile := flag.String("host", "testdata/conformance/host.txt", "the passing tests, with their tolerance overrides")
	flag.Parse()
	var err error
	if statistical, err = readStatistical(*statFile); err != nil {
		fatal(err)
	}
	if tolerances, err = readTolerances(*hostFile); err != nil {
		fatal(err)
	}
	root, err := filepath.Abs(*suite)
	if err != nil {
		fatal(err)
	}
	tests, err := readIndex(filepath.Join(root, "INDEX.tsv"))
	if err != nil {
		fatal(err)
	}
	start := time.Now()
	results := make([]*result, len(tests))
	work := make(chan int)
	var wg sync.WaitGroup
	var done sync.Mutex
	finished := 0
	for range max(*jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := runTest(*niroBin, root, tests[i], *timeout)
				results[i] = r
				done.Lock()
				finished++
				if finished%100 == 0 {
					fmt.Fprintf(os.Stderr, "conformance: %d of %d tests (%s)\n", finished, len(tests), time.Since(start).Round(time.Second))
				}
				done.Unlock()
			}
		}()
	}
	for i := range tests {
		work <- i
	}
	close(work)
	wg.Wait()
	md := scoreboard(results)
	if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
		fatal(err)
	}
	pass := 0
	for _, r := range results {
		if r.class == classPass {
			pass++
		}
	}
	fmt.Fprintf(os.Stderr, "conformance: %d of %d tests pass; wrote %s in %s\n", pass, len(results), *out, time.Since(start).Round(time.Second))
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
	os.Exit(1)
}

// readIndex lists the tests of INDEX.tsv as suite/test.
func readIndex(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tests []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 2 || fs[0] == "suite" {
			continue
		}
		tests = append(tests, fs[0]+"/"+fs[1])
	}
	return tests, sc.Err()
}

// runTest imports the model for its ops and runs niro test on it.
func runTest(niroBin, root, name string, timeout time.Duration) *result {
	r := &result{name: name}
	dir := filepath.Join(root, name)
	model := filepath.Join(dir, "model.onnx")
	r.ops, r.missing = modelOps(model)
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		r.class, r.reason = classImport, "no test_data_set_* folders"
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"test", model}
	if st, ok := statistical[name]; ok {
		args = append(args, "--check", st.check)
	}
	if tol, ok := tolerances[name]; ok {
		if tol.rtol != "" {
			args = append(args, "--rtol", tol.rtol)
		}
		if tol.atol != "" {
			args = append(args, "--atol", tol.atol)
		}
	}
	cmd := exec.CommandContext(ctx, niroBin, append(args, sets...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	r.took = time.Since(t0)
	clean := func(s string) string {
		s = strings.ReplaceAll(s, dir+string(filepath.Separator), "")
		s = strings.ReplaceAll(s, dir, name)
		return strings.TrimSpace(s)
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		r.class, r.reason = classCompile, fmt.Sprintf("timed out after %s", timeout)
		return r
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		fatal(err)
	}
	msg := clean(firstLine(strings.TrimPrefix(stderr.String(), "niro: ")))
	switch {
	case code == 0:
		r.class = classPass
	case strings.Contains(stdout.String(), ": FAIL"):
		r.class, r.reason = classWrong, clean(failLine(stdout.String()))
	case strings.Contains(msg, "no MLIR lowering"):
		r.class, r.reason = classType, msg
	case strings.Contains(msg, "not supported yet") || strings.Contains(msg, "not compilable in this instance"):
		r.class, r.reason = classUnsupported, msg
	case typeError.MatchString(msg):
		r.class, r.reason = classType, msg
	case code == 3 || strings.HasPrefix(msg, "emit:"):
		r.class, r.reason = classCompile, msg
	default:
		r.class, r.reason = classImport, msg
	}
	if r.reason == "" && r.class != classPass {
		r.reason = fmt.Sprintf("exit status %d", code)
	}
	return r
}

// typeError matches the messages about types and value kinds niro does not
// handle.
var typeError = regexp.MustCompile(`(?i)element type|string tensor|supports tensors only|sequence type|optional type|SequenceProto|OptionalProto|MapProto|segmented|float8|float4|complex|type \S+ is not supported|unsupported (element |data )?type`)

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// failLine returns the first failing output line of niro test, with the
// line that explains it.
func failLine(stdout string) string {
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, ": FAIL") {
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
				return l + "; " + strings.TrimSpace(lines[i+1])
			}
			return l
		}
	}
	return "FAIL"
}

// modelOps returns the op types a model uses (in every graph), and those
// still unknown after importing it; both nil when it does not load.
func modelOps(path string) (ops, missing []string) {
	m, err := importer.Load(path, importer.Options{})
	if err != nil {
		return nil, nil
	}
	defer m.Close()
	seen := map[string]bool{}
	var walk func(g *importer.Graph)
	walk = func(g *importer.Graph) {
		for _, n := range g.Nodes {
			op := n.OpType
			if n.Domain != "" {
				op = n.Domain + "." + op
			}
			seen[op] = true
			for _, sg := range n.Subgraphs() {
				walk(sg)
			}
		}
	}
	walk(m.Graph)
	for op := range seen {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	mod, err := importer.Convert(m, importer.Options{})
	if err != nil {
		return ops, nil
	}
	var ue *emit.UnsupportedError
	if errors.As(emit.Unsupported(mod), &ue) {
		set := map[string]bool{}
		for _, g := range append(ue.NotYet, ue.NotCompilable...) {
			set[g.Op] = true
		}
		for op := range set {
			missing = append(missing, op)
		}
		sort.Strings(missing)
	}
	return ops, missing
}

// converted reports whether niro converts every op the test uses.
func (r *result) converted() bool {
	if r.ops == nil {
		return false
	}
	for _, op := range r.ops {
		if !importer.Registered(op) {
			return false
		}
	}
	return true
}

var (
	nodeNum  = regexp.MustCompile(`node #\d+`)
	nodeName = regexp.MustCompile(`node "[^"]*"`)
	funcName = regexp.MustCompile(`@\w+`)
)

// general turns a reason into its general form, for grouping: without the
// test's own names.
func general(r *result) string {
	s := strings.ReplaceAll(r.reason, r.name, "TEST")
	s = strings.ReplaceAll(s, filepath.Base(r.name), "TEST")
	s = nodeNum.ReplaceAllString(s, "node #N")
	s = nodeName.ReplaceAllString(s, `node "…"`)
	s = funcName.ReplaceAllString(s, "@TEST")
	return s
}

// scoreboard renders docs/conformance.md.
func scoreboard(results []*result) string {
	var sb strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&sb, format, args...) }
	byClass := map[string][]*result{}
	for _, r := range results {
		byClass[r.class] = append(byClass[r.class], r)
	}
	total := len(results)
	pass := len(byClass[classPass])
	p("# ONNX conformance\n\n")
	p("Generated by `scripts/conformance.sh`; do not edit by hand.\n\n")
	p("**Data.** The ONNX repository's backend test data (https://github.com/onnx/onnx,\n")
	p("`onnx/backend/test/data/{node,simple,pytorch-converted,pytorch-operator}`) at commit\n")
	p("`6be0677fc22e`, the last one that has `data/node/`; the script reads it from\n")
	p("`$NIRO_ONNX_TESTS` (default `../shared/onnx-tests`). Each test is one model and its\n")
	p("data sets, run with `niro test MODEL test_data_set_*` on the host and compared with the\n")
	p("ONNX runner's tolerances (rtol 1e-3, atol 1e-7).\n\n")
	if len(statistical) > 0 {
		p("**Random outputs.** The tests below draw random numbers. The test generator drew their\n")
		p("expected outputs from numpy's generator and niro draws from its own (docs/ops.md, \"Random\n")
		p("ops\"), so the values cannot match element by element; `niro test --check CHECK` checks\n")
		p("instead what the distribution fixes: the type and shape, the range of the values and the\n")
		p("first moment (testdata/conformance/statistical.txt).\n\n")
		p("| test | check | reason |\n|---|---|---|\n")
		var names []string
		for n := range statistical {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p("| %s | %s | %s |\n", n, statistical[n].check, statistical[n].reason)
		}
		p("\n")
	}
	if len(tolerances) > 0 {
		p("**Tolerances.** The tests below are compared with the tolerances given (the others\n")
		p("with the ONNX runner's), as testdata/conformance/host.txt lists them, for the reason given.\n\n")
		p("| test | rtol | atol | reason |\n|---|---|---|---|\n")
		var names []string
		for n := range tolerances {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			t := tolerances[n]
			rt, at := t.rtol, t.atol
			if rt == "" {
				rt = "1e-3"
			}
			if at == "" {
				at = "1e-7"
			}
			p("| %s | %s | %s | %s |\n", n, rt, at, t.reason)
		}
		p("\n")
	}
	p("**%d of %d tests pass (%.1f%%).**\n\n", pass, total, 100*float64(pass)/float64(max(total, 1)))

	p("## By result\n\n| result | tests | meaning |\n|---|---:|---|\n")
	for _, c := range classes {
		p("| %s | %d | %s |\n", c, len(byClass[c]), classDoc[c])
	}
	p("\n## By suite\n\n| suite | pass | tests |\n|---|---:|---:|\n")
	suites := map[string][2]int{}
	var suiteNames []string
	for _, r := range results {
		s, _, _ := strings.Cut(r.name, "/")
		v, ok := suites[s]
		if !ok {
			suiteNames = append(suiteNames, s)
		}
		v[1]++
		if r.class == classPass {
			v[0]++
		}
		suites[s] = v
	}
	for _, s := range suiteNames {
		p("| %s | %d | %d |\n", s, suites[s][0], suites[s][1])
	}

	p("\n## By ONNX op\n\n")
	p("For each op type: the tests that use it (anywhere in the model, subgraphs included)\n")
	p("and how many of them pass; *converted* says whether the importer maps the op at\n")
	p("all (some instances may still stay unknown).\n\n")
	p("| op | passed / tests using it | converted |\n|---|---:|---|\n")
	type opStat struct{ pass, use int }
	ops := map[string]*opStat{}
	for _, r := range results {
		for _, op := range r.ops {
			s := ops[op]
			if s == nil {
				s = &opStat{}
				ops[op] = s
			}
			s.use++
			if r.class == classPass {
				s.pass++
			}
		}
	}
	var opNames []string
	for op := range ops {
		opNames = append(opNames, op)
	}
	sort.Strings(opNames)
	for _, op := range opNames {
		conv := "no"
		if importer.Registered(op) {
			conv = "yes"
		}
		p("| %s | %d / %d | %s |\n", op, ops[op].pass, ops[op].use, conv)
	}

	p("\n## Failures\n")
	for _, c := range classes[1:] {
		rs := byClass[c]
		p("\n### %s: %d tests\n", c, len(rs))
		if len(rs) == 0 {
			continue
		}
		p("\n")
		if c == classUnsupported {
			missing := map[string]int{}
			for _, r := range rs {
				for _, op := range r.missing {
					missing[op]++
				}
			}
			var ms []string
			for op := range missing {
				ms = append(ms, op)
			}
			sort.Slice(ms, func(i, j int) bool {
				if missing[ms[i]] != missing[ms[j]] {
					return missing[ms[i]] > missing[ms[j]]
				}
				return ms[i] < ms[j]
			})
			p("The op types left unknown, by the number of these tests they block:\n\n")
			var parts []string
			for _, op := range ms {
				parts = append(parts, fmt.Sprintf("%s %d", op, missing[op]))
			}
			p("%s.\n\n", strings.Join(parts, ", "))
		}
		reasons := map[string][]*result{}
		var keys []string
		for _, r := range rs {
			k := general(r)
			if _, ok := reasons[k]; !ok {
				keys = append(keys, k)
			}
			reasons[k] = append(reasons[k], r)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(reasons[keys[i]]) != len(reasons[keys[j]]) {
				return len(reasons[keys[i]]) > len(reasons[keys[j]])
			}
			return keys[i] < keys[j]
		})
		const shown = 25
		p("| tests | reason (TEST is the test's name) | first test |\n|---:|---|---|\n")
		for i, k := range keys {
			if i == shown {
				rest := 0
				for _, k := range keys[shown:] {
					rest += len(reasons[k])
				}
				p("| %d | %d other reasons | |\n", rest, len(keys)-shown)
				break
			}
			p("| %d | %s | %s |\n", len(reasons[k]), cell(k), reasons[k][0].name)
		}
	}

	p("\n## Failing tests that use only converted ops\n\n")
	p("Every failing test whose op types the importer all maps, with its reason: the\n")
	p("failures that are not only a matter of a missing op.\n\n")
	p("| test | result | reason |\n|---|---|---|\n")
	n := 0
	for _, r := range sorted(results) {
		if r.class != classPass && r.converted() {
			p("| %s | %s | %s |\n", r.name, r.class, cell(r.reason))
			n++
		}
	}
	if n == 0 {
		p("| none | | |\n")
	}
	// The corpus is not generated: TestCorpus checks it.
	p("\n" +
		"## Real-model corpus\n" +
		"\n" +
		"Beside the backend test data, `testdata/models` holds 20 small models built with the\n" +
		"patterns the real exporters write (paddle2onnx at opsets 9 and 11, torch.onnx with its\n" +
		"dynamic-shape arithmetic, Constant nodes and value_info hints, some of them inconsistent,\n" +
		"keras2onnx/tf2onnx NHWC graphs with Transpose pairs and -1 extents, nested Ifs, Loop and\n" +
		"Scan, float16, duplicated opset_import entries, convolutional, audio and MLP heads), with\n" +
		"outputs written by ONNX Runtime (testdata/models/README.md lists them and how to\n" +
		"regenerate them). `go test -run TestCorpus .` checks each one as `niro test` does, with\n" +
		"the interpreter, the host and host-O0 pipelines, at the ONNX runner's tolerances, each\n" +
		"model in a process of its own under a timeout so that a compile that hangs fails that\n" +
		"model with the stage it reached.\n")
	return sb.String()
}

func sorted(rs []*result) []*result {
	out := append([]*result(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if r := []rune(s); len(r) > 400 {
		s = string(r[:400]) + "…"
	}
	return s
}
