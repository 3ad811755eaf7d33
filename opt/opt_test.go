package opt

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

var update = flag.Bool("update", false, "rewrite the want.niro sections of testdata/opt/*.txtar")

// TestPasses runs each testdata/opt case: the passes named in its
// "passes" section on "in.niro" must give "want.niro" (or, with an
// "error" section, fail with that text).
func TestPasses(t *testing.T) {
	paths, err := filepath.Glob("../testdata/opt/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, f := range ar.Files {
				sec[f.Name] = f.Data
			}
			m, err := niro.Parse("in.niro", sec["in.niro"])
			if err != nil {
				t.Fatal(err)
			}
			ps, err := Parse(strings.TrimSpace(string(sec["passes"])))
			if err != nil {
				t.Fatal(err)
			}
			before := m.String()
			if err := Run(m, ps, Options{FoldLimit: 64}); err != nil {
				t.Fatal(err)
			}
			got := m.String()
			if *update {
				for i, f := range ar.Files {
					if f.Name == "want.niro" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(sec["want.niro"]); got != want {
				t.Errorf("passes %s:\n--- got\n%s--- want\n%s", sec["passes"], got, want)
			}
			// The passes keep the results: interpret before and after
			// on the case's inputs.
			if spec, ok := sec["inputs"]; ok {
				checkSameResults(t, before, got, spec)
			}
		})
	}
}

// checkSameResults interprets both modules on inputs filled with the
// values listed in spec (one line per input: f32 values separated by
// spaces) and compares the outputs bit for bit.
func checkSameResults(t *testing.T, before, after string, spec []byte) {
	t.Helper()
	mb, err := niro.Parse("before.niro", []byte(before))
	if err != nil {
		t.Fatal(err)
	}
	ma, err := niro.Parse("after.niro", []byte(after))
	if err != nil {
		t.Fatal(err)
	}
	f := mb.Entry()
	var ins []tensorio.Tensor
	for i, line := range strings.Split(strings.TrimSpace(string(spec)), "\n") {
		tt := f.Type.Inputs[i].(niro.TensorType)
		n := tt.NumElements()
		var fs []float32
		for _, w := range strings.Fields(line) {
			var v float32
			if _, err := fmtSscan(w, &v); err != nil {
				t.Fatal(err)
			}
			fs = append(fs, v)
		}
		data := make([]byte, 0, 4*n)
		for j := int64(0); j < n; j++ {
			bits := mathFloat32bits(fs[int(j)%len(fs)])
			data = append(data, byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24))
		}
		ins = append(ins, tensorio.Tensor{Elem: tt.Elem, Dims: tt.Dims, Data: data})
	}
	ob, errb := interp.Run(mb, ins, interp.Options{})
	oa, erra := interp.Run(ma, ins, interp.Options{})
	if errb != nil || erra != nil {
		// An op left to run time because it fails (a division by zero)
		// fails the same way after the passes.
		if errb == nil || erra == nil || errb.Error() != erra.Error() {
			t.Fatalf("before the passes: %v; after: %v", errb, erra)
		}
		return
	}
	for i := range ob {
		if !bytes.Equal(ob[i].Data, oa[i].Data) {
			t.Errorf("output %d differs after the passes", i)
		}
	}
}
