package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// The fixed seed set CI runs: seed 1, draws 0 to 299, 12 draws a model.
const (
	ciSeed  = 1
	ciDraws = 300
	ciBatch = 12
)

// casesPath lists the draws the fuzzer found failing (docs/toolchain.md,
// "The shape fuzzer").
var casesPath = filepath.Join("..", "..", "testdata", "shapefuzz", "cases.txt")

var testChecker struct {
	sync.Once
	c   *checker
	err error
}

// requireChecker returns a checker on the installed tools; without them
// it skips the test, unless NIRO_REQUIRE_TOOLS is set.
func requireChecker(t *testing.T) *checker {
	t.Helper()
	testChecker.Do(func() {
		testChecker.c, testChecker.err = newChecker(context.Background(), "", filepath.Join("..", "..", "passes.txt"))
	})
	if err := testChecker.err; err != nil {
		var te *toolchain.ToolError
		if os.Getenv("NIRO_REQUIRE_TOOLS") != "" || !errors.As(err, &te) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	c := *testChecker.c
	// A lowering over the budget is a failure anyway: the time-out only
	// has to exceed it.
	c.Timeout = c.BudgetTime + 2*time.Second
	return &c
}

// regression is one line of cases.txt: a draw (or draws that fail only
// together, in one model), whether it is known to still fail (and how),
// and its description.
type regression struct {
	file  string // a kept model (testdata/shapefuzz/FILE.onnx) instead of draws
	seed  uint64
	draws []int
	known string // "" when it must pass
	desc  string
	line  int
}

// readCases parses cases.txt: "SEED DRAWS pass | DESCRIPTION" or
// "SEED DRAWS known SYMPTOM | DESCRIPTION", DRAWS one draw or K,K,...
// and the description the draws' joined by "; "; or "FILE.onnx pass|known
// ..." for a model kept beside cases.txt; # starts a comment line.
func readCases(path string) ([]regression, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []regression
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, desc, ok := strings.Cut(line, " | ")
		fields := strings.Fields(head)
		if ok && len(fields) >= 2 && strings.HasSuffix(fields[0], ".onnx") {
			// A kept model: shift the fields so the status is third.
			fields = append([]string{fields[0], ""}, fields[1:]...)
		}
		if !ok || len(fields) < 3 || fields[2] != "pass" && fields[2] != "known" {
			return nil, fmt.Errorf("%s:%d: want SEED DRAW pass|known [SYMPTOM] | DESCRIPTION", path, n)
		}
		r := regression{desc: strings.TrimSpace(desc), line: n}
		if fields[2] == "known" {
			r.known = strings.Join(fields[3:], " ")
			if r.known == "" {
				r.known = "fails"
			}
		}
		if strings.HasSuffix(fields[0], ".onnx") {
			r.file = filepath.Join(filepath.Dir(path), fields[0])
			out = append(out, r)
			continue
		}
		seed, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad seed", path, n)
		}
		r.seed = seed
		for _, f := range strings.Split(fields[1], ",") {
			k, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad draw %q", path, n, f)
			}
			r.draws = append(r.draws, k)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// TestFixedSeeds checks the CI seed set: every draw must compile within
// the budgets and match the interpreter, except the draws cases.txt marks
// known (TestRegressions runs those).
func TestFixedSeeds(t *testing.T) {
	c := requireChecker(t)
	cases, err := readCases(casesPath)
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]bool{}
	for _, rc := range cases {
		if rc.file == "" && rc.seed == ciSeed && rc.known != "" {
			for _, k := range rc.draws {
				known[k] = true
			}
		}
	}
	var draws []int
	for k := 0; k < ciDraws; k++ {
		if !known[k] {
			draws = append(draws, k)
		}
	}
	var log strings.Builder
	r := &runner{c: c, seed: ciSeed, log: &log}
	c.Tags = map[string]int{}
	defer func() { c.Tags = nil }()
	st := r.run(context.Background(), draws, ciBatch)
	var sb strings.Builder
	st.print(&sb)
	t.Log(sb.String())
	var seen []string
	for tag, n := range c.Tags {
		seen = append(seen, fmt.Sprintf("%s %d", tag, n))
	}
	sort.Strings(seen)
	t.Logf("schedule tags compiled: %s", strings.Join(seen, ", "))
	// Every scheduled form (docs/emit.md, "The convolution forms' tags and
	// their preconditions", and the contraction schedule) is reached by
	// the seed set: compiled strictly and matched bit for bit, its draws
	// check that emit tags a nest only where the form's sequence holds.
	for form, re := range formTags {
		n := 0
		for tag, k := range c.Tags {
			if re.MatchString(tag) {
				n += k
			}
		}
		if n == 0 {
			t.Errorf("no draw of the seed set reaches the %s (tags %v)", form, re)
		}
	}
	for _, f := range st.failures {
		t.Errorf("%s\n(replay: go run ./scripts/shapefuzz -seed %d -draw %d -keep DIR)", f, f.seed, f.draws[0])
	}
	if len(st.perFamily) != len(families) {
		t.Errorf("the seed set draws %d of the %d families", len(st.perFamily), len(families))
	}
}

// formTags are the root tags of each scheduled form.
var formTags = map[string]*regexp.Regexp{
	"row form":                  regexp.MustCompile(`^niro\.conv2d_rows(_e)?$`),
	"channels-last block":       regexp.MustCompile(`^niro\.conv2d(16|8)?(_e)?$`),
	"1×1 product with epilogue": regexp.MustCompile(`^niro\.mm_e$`),
	"per-group block":           regexp.MustCompile(`^niro\.conv2dg(16|8)?(_e)?$`),
	"depthwise block":           regexp.MustCompile(`^niro\.dwconv2d(_e)?$`),
	"pool block":                regexp.MustCompile(`^niro\.pool2d$`),
	"contraction":               regexp.MustCompile(`^niro\.contraction$`),
	"1-D and 3-D blocks":        regexp.MustCompile(`^niro\.epi_c(1|3)d(32|16|8)$`),
}

// TestRegressions replays every case of cases.txt on its own: a "pass" one
// must pass; a "known" one (a failure recorded for another part of the
// compiler) is reported with its current outcome. Each line's description
// must still be what the draw gives (the generator is unchanged).
func TestRegressions(t *testing.T) {
	c := requireChecker(t)
	cases, err := readCases(casesPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s lists no cases", casesPath)
	}
	for _, rc := range cases {
		name := strings.TrimSuffix(filepath.Base(rc.file), ".onnx")
		if rc.file == "" {
			name = fmt.Sprintf("seed%d_draw%d", rc.seed, rc.draws[0])
			for _, k := range rc.draws[1:] {
				name += fmt.Sprintf("_%d", k)
			}
		}
		t.Run(name, func(t *testing.T) {
			c := c
			if rc.known != "" {
				// Most known cases hang mlir-opt: a short time-out tells
				// whether they still do; a fixed one compiles in about a
				// second.
				k := *c
				k.Timeout = 8 * time.Second
				c = &k
			}
			var data []byte
			if rc.file != "" {
				if data, err = os.ReadFile(rc.file); err != nil {
					t.Fatal(err)
				}
			} else {
				r := &runner{c: c, seed: rc.seed, log: io.Discard}
				var descs []string
				if data, descs, _, err = r.model(rc.draws); err != nil {
					t.Fatal(err)
				}
				if d := strings.Join(descs, "; "); d != rc.desc {
					t.Fatalf("%s:%d: the draws are now %q, the list says %q", casesPath, rc.line, d, rc.desc)
				}
			}
			res := c.check(context.Background(), data)
			switch {
			case rc.known == "" && res.Kind != "":
				t.Errorf("%s | %s", res, rc.desc)
			case rc.known != "" && res.Kind == "":
				t.Logf("known failure (%s) now passes: mark it pass in %s:%d", rc.known, casesPath, rc.line)
			case rc.known != "":
				t.Logf("still fails as known (%s): %s", rc.known, res)
			}
		})
	}
}

// TestDrawsAreValid checks, without any tool, that a thousand draws of
// every family import as valid ONNX models (the fuzzer draws only valid
// geometries) and that a draw is the same alone and batched.
func TestDrawsAreValid(t *testing.T) {
	r := &runner{seed: 7, log: io.Discard}
	for k := 0; k < 1000; k += 10 {
		ks := []int{k, k + 1, k + 2, k + 3, k + 4, k + 5, k + 6, k + 7, k + 8, k + 9}
		data, descs, _, err := r.model(ks)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := importer.ImportBytes(data, importer.Options{}); err != nil {
			t.Errorf("draws %d-%d: %v\n%s", k, k+9, err, strings.Join(descs, "\n"))
		}
		_, alone, _, _ := r.model([]int{k + 3})
		if alone[0] != descs[3] {
			t.Fatalf("draw %d alone is %q, batched %q", k+3, alone[0], descs[3])
		}
	}
}

// TestFirstDiff checks the comparison: bits, not values (−0 differs from
// +0), any NaN equal to any NaN, f16 NaNs by their bits.
func TestFirstDiff(t *testing.T) {
	f32 := func(v ...float64) tensorio.Tensor {
		return tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(v))}, Data: floatBytes(niro.F32, v)}
	}
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	if at := firstDiff(f32(1, nan, 3), f32(1, -nan, 3)); at != -1 {
		t.Errorf("NaN against NaN: differ at %d", at)
	}
	if at := firstDiff(f32(1, 0, 3), f32(1, negZero, 3)); at != 1 {
		t.Errorf("+0 against −0: firstDiff = %d, want 1", at)
	}
	if at := firstDiff(f32(1, 2, 3), f32(1, 2, float64(math.Nextafter32(3, 4)))); at != 2 {
		t.Errorf("one ulp: firstDiff = %d, want 2", at)
	}
	h := func(bits uint16) tensorio.Tensor {
		return tensorio.Tensor{Elem: niro.F16, Dims: []int64{1}, Data: []byte{byte(bits), byte(bits >> 8)}}
	}
	if at := firstDiff(h(0x7e00), h(0xfe01)); at != -1 {
		t.Errorf("f16 NaNs differ at %d", at)
	}
	if at := firstDiff(h(0x7c00), h(0x7e00)); at != 0 {
		t.Errorf("f16 inf against NaN: firstDiff = %d, want 0", at)
	}
}
