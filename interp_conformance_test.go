package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/tensorio"
)

// TestConformanceInterp runs every ONNX backend test listed as passing in
// testdata/conformance/host.txt under the interpreter (no LLVM tool
// needed) and checks it against the expected outputs with the same
// tolerances: every test that passes compiled passes interpreted.
// -conformance-match selects a subset.
func TestConformanceInterp(t *testing.T) {
	root := onnxTestsDir(t)
	listed, err := readConformance(filepath.Join("testdata", "conformance", "host.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var match *regexp.Regexp
	if *conformanceMatch != "" {
		if match, err = regexp.Compile(*conformanceMatch); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for name, e := range listed {
		if e.verdict == "PASS" && (match == nil || match.MatchString(name)) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	statistical, err := readStatistical(filepath.Join("testdata", "conformance", "statistical.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		failed []string
		work   = make(chan string)
		wg     sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				e := listed[name]
				if v := runInterpConformance(filepath.Join(root, name), e.rtol, e.atol, statistical[name]); v != "PASS" {
					mu.Lock()
					failed = append(failed, name+": "+v)
					mu.Unlock()
				}
			}
		}()
	}
	for _, name := range names {
		work <- name
	}
	close(work)
	wg.Wait()
	sort.Strings(failed)
	for _, f := range failed {
		t.Error(f)
	}
	t.Logf("%d of %d conformance tests that pass compiled pass under the interpreter", len(names)-len(failed), len(names))
}

// runInterpConformance runs one test's data sets under the interpreter.
// check, when not "", names the statistical check (statistical.txt) that
// replaces the element-wise comparison for a test with random outputs, as
// in TestConformanceHost.
func runInterpConformance(dir string, rtol, atol float64, check string) (verdict string) {
	defer func() {
		if r := recover(); r != nil {
			verdict = fmt.Sprintf("panic: %v", r)
		}
	}()
	mf, err := openModel(filepath.Join(dir, "model.onnx"), ShapeFlags{})
	if err != nil {
		return oneLine(err)
	}
	defer mf.close()
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
			return oneLine(err)
		}
		outs, err := interp.Run(m, inputs, interp.Options{})
		if err != nil {
			return oneLine(err)
		}
		if len(outs) != len(wants) {
			return fmt.Sprintf("%d outputs, want %d", len(outs), len(wants))
		}
		if check != "" {
			if err := checkStatistical(check, inputs, outs, tensorsOf(wants)); err != nil {
				return fmt.Sprintf("%s: %s check: %v", filepath.Base(set), check, err)
			}
			continue
		}
		for i, w := range wants {
			r, err := tensorio.Compare(outs[i], w.t, rtol, atol)
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
