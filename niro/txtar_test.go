package niro_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// update rewrites the want sections of the txtar cases under
// ../testdata/niro (and regenerates the FuzzParse seed corpus) instead of
// comparing against them.
var update = flag.Bool("update", false, "rewrite want sections of testdata/niro/**/*.txtar and the FuzzParse seed corpus")

// testdataDir is the directory of the IR's txtar cases, relative to the
// package directory.
const testdataDir = "../testdata/niro"

// txtarCase is one txtar file of a case directory.
type txtarCase struct {
	name string // file name without .txtar
	path string
	ar   *txtar.Archive
}

// loadCases reads every testdata/niro/<dir>/*.txtar file.
func loadCases(t testing.TB, dir string) []txtarCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(testdataDir, dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no txtar cases in %s", filepath.Join(testdataDir, dir))
	}
	cases := make([]txtarCase, 0, len(paths))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, txtarCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p, ar: ar})
	}
	return cases
}

// section returns the named file of the archive.
func (c txtarCase) section(name string) ([]byte, bool) {
	for _, f := range c.ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// mustSection returns the named file of the archive or fails the test.
func (c txtarCase) mustSection(t testing.TB, name string) []byte {
	t.Helper()
	data, ok := c.section(name)
	if !ok {
		t.Fatalf("%s: missing section -- %s --", c.path, name)
	}
	return data
}

// setSection replaces the named file of the archive (appending it if it is
// missing), or removes it when data is nil, and writes the archive back if
// it changed.
func (c txtarCase) setSection(t testing.TB, name string, data []byte) {
	t.Helper()
	old := txtar.Format(c.ar)
	var files []txtar.File
	found := false
	for _, f := range c.ar.Files {
		if f.Name != name {
			files = append(files, f)
			continue
		}
		found = true
		if data != nil {
			files = append(files, txtar.File{Name: name, Data: data})
		}
	}
	if !found && data != nil {
		files = append(files, txtar.File{Name: name, Data: data})
	}
	c.ar.Files = files
	if formatted := txtar.Format(c.ar); !bytes.Equal(old, formatted) {
		if err := os.WriteFile(c.path, formatted, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// withNewline returns s with exactly one trailing newline, or nil for "".
func withNewline(s string) []byte {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return []byte(s + "\n")
}
