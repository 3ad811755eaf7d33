package niro_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// FuzzParse parses arbitrary text. Parsing either fails with a
// *niro.ParseError or gives a module that verifies and prints without
// panicking, whose printed text parses back to a module that prints the
// same and gets the same diagnostics; a valid module also survives the
// round trip structurally.
//
// Run it with: go test -fuzz=FuzzParse ./niro
func FuzzParse(f *testing.F) {
	f.Add([]byte("func @f() -> () {\n  return\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := niro.Parse("fuzz.niro", src)
		if err != nil {
			var pe *niro.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse returned %T, want *niro.ParseError: %v", err, err)
			}
			return
		}
		verr := niro.Verify(m)
		text := m.String()
		back, err := niro.Parse("printed.niro", []byte(text))
		if err != nil {
			t.Fatalf("printed module does not parse: %v\n%s", err, text)
		}
		if diff := cmp.Diff(text, back.String()); diff != "" {
			t.Fatalf("print(parse(print(m))) != print(m) (-want +got):\n%s", diff)
		}
		berr := niro.Verify(back)
		if fmt.Sprint(verr) != fmt.Sprint(berr) {
			t.Fatalf("diagnostics changed in the round trip:\nbefore:\n%v\nafter:\n%v\nmodule:\n%s", verr, berr, text)
		}
		if verr == nil {
			if diff := cmp.Diff(m, back, irOpts(m, back)); diff != "" {
				t.Fatalf("parse(print(m)) differs from m (-want +got):\n%s", diff)
			}
		}
	})
}

// fuzzCorpusDir holds FuzzParse's seed corpus: the inputs of the txtar
// cases (files named txtar-<dir>-<case>), hand-made tricky inputs
// (tricky-*), and crashers the fuzzer found (named by hash).
const fuzzCorpusDir = "testdata/fuzz/FuzzParse"

// encodeCorpus returns a []byte input in the go test fuzz v1 file format.
func encodeCorpus(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// TestFuzzCorpus checks that the seed corpus holds the current input of
// every txtar case; -update regenerates those files.
func TestFuzzCorpus(t *testing.T) {
	want := map[string][]byte{}
	for _, dir := range []string{"verify", "parse"} {
		for _, c := range loadCases(t, dir) {
			want["txtar-"+dir+"-"+c.name] = encodeCorpus(c.mustSection(t, "in.niro"))
		}
	}
	old, err := filepath.Glob(filepath.Join(fuzzCorpusDir, "txtar-*"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(fuzzCorpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range old {
			if _, ok := want[filepath.Base(p)]; !ok {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		for name, data := range want {
			if err := os.WriteFile(filepath.Join(fuzzCorpusDir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, p := range old {
		if _, ok := want[filepath.Base(p)]; !ok {
			t.Errorf("%s has no txtar case; run go test ./niro -update", p)
		}
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(fuzzCorpusDir, name))
		if err != nil || string(got) != string(data) {
			t.Errorf("seed corpus file %s is missing or stale; run go test ./niro -update", name)
		}
	}
	tricky, _ := filepath.Glob(filepath.Join(fuzzCorpusDir, "tricky-*"))
	if len(tricky) == 0 {
		t.Errorf("no hand-made tricky-* inputs in %s", fuzzCorpusDir)
	}
	for _, p := range tricky {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "go test fuzz v1\n[]byte(") {
			t.Errorf("%s is not in the go test fuzz v1 format", p)
		}
	}
}
