package importer

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// findONNXTests locates shared/onnx-tests by walking up from the package
// directory.
func findONNXTests() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		cand := filepath.Join(dir, "shared", "onnx-tests")
		if st, err := os.Stat(filepath.Join(cand, "INDEX.tsv")); err == nil && !st.IsDir() {
			return cand, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// onnxTestsDir returns shared/onnx-tests or skips the test when the data
// set is absent.
func onnxTestsDir(t testing.TB) string {
	t.Helper()
	dir, ok := findONNXTests()
	if !ok {
		t.Skip("shared/onnx-tests not found above the module")
	}
	return dir
}

// onnxTest is one row of INDEX.tsv.
type onnxTest struct {
	Suite, Name string
	Path        string // model.onnx
}

func onnxTests(t testing.TB) []onnxTest {
	t.Helper()
	root := onnxTestsDir(t)
	f, err := os.Open(filepath.Join(root, "INDEX.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []onnxTest
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 || cols[0] == "suite" {
			continue
		}
		out = append(out, onnxTest{Suite: cols[0], Name: cols[1], Path: filepath.Join(root, cols[0], cols[1], "model.onnx")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
