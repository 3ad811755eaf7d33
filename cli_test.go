package main

import (
	"go/parser"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/opt"
	"github.com/niro-dev/niro/tensorio"
)

func TestOutputFiles(t *testing.T) {
	got := outputFiles([]string{"a/b", "a:b", "a_b", "A_B", "", "..", "y"})
	want := []string{"a_b_2.npy", "a_b_3.npy", "a_b.npy", "A_B_4.npy", "output.npy", "output_2.npy", "y.npy"}
	if !slices.Equal(got, want) {
		t.Errorf("outputFiles = %q, want %q", got, want)
	}
	// Deterministic: the same names give the same files.
	if again := outputFiles([]string{"a/b", "a:b", "a_b", "A_B", "", "..", "y"}); !slices.Equal(again, got) {
		t.Errorf("outputFiles is not deterministic: %q then %q", got, again)
	}
}

func TestBenchStats(t *testing.T) {
	s := []float64{5e-6, 1e-6, 3e-6, 2e-6, 4e-6, 10e-6, 6e-6, 7e-6, 8e-6, 9e-6}
	st := stats(s)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(st.Median, 5.5) || !near(st.Min, 1) || !near(st.Max, 10) || !near(st.P90, 9) || !near(st.Mean, 5.5) {
		t.Errorf("stats = %+v", st)
	}
	if want := math.Sqrt(82.5 / 9); !near(st.Stddev, want) {
		t.Errorf("stddev = %v, want %v", st.Stddev, want)
	}
	one := stats([]float64{2e-6})
	if one.Median != 2 || one.P90 != 2 || one.Stddev != 0 {
		t.Errorf("stats of one sample = %+v", one)
	}
}

func TestFormatTensor(t *testing.T) {
	f32 := func(dims []int64, vals ...float32) tensorio.Tensor {
		x := tensorio.Tensor{Elem: niro.F32, Dims: dims, Data: make([]byte, 4*len(vals))}
		for i, v := range vals {
			b := math.Float32bits(v)
			x.Data[4*i], x.Data[4*i+1], x.Data[4*i+2], x.Data[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
		}
		return x
	}
	if got := formatTensor(f32([]int64{2, 2}, 1, 2.5, -3, 4), printEdge); got != "[[1, 2.5],\n [-3, 4]]" {
		t.Errorf("2x2 = %q", got)
	}
	if got := formatTensor(f32(nil, 7), printEdge); got != "7" {
		t.Errorf("scalar = %q", got)
	}
	if got := formatTensor(f32([]int64{0, 3}), printEdge); got != "[]" {
		t.Errorf("empty = %q", got)
	}
	big := make([]float32, 2000)
	for i := range big {
		big[i] = float32(i)
	}
	if got := formatTensor(f32([]int64{2000}, big...), printEdge); got != "[0, 1, 2, ..., 1997, 1998, 1999]" {
		t.Errorf("long = %q", got)
	}
}

// TestGoModDirect checks that go.mod marks every module the repository's
// own code imports as a direct dependency.
func TestGoModDirect(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct := map[string]bool{}
	req := regexp.MustCompile(`^\s*(?:require\s+)?([a-z0-9.\-]+\.[a-z]+/\S+)\s+v\S+(\s*// indirect)?`)
	var mods []string
	for _, line := range strings.Split(string(data), "\n") {
		if m := req.FindStringSubmatch(line); m != nil {
			mods = append(mods, m[1])
			direct[m[1]] = m[2] == ""
		}
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			if !strings.Contains(strings.SplitN(ip, "/", 2)[0], ".") || strings.HasPrefix(ip, "github.com/niro-dev/niro") {
				continue // the standard library, or niro itself
			}
			best := ""
			for _, mod := range mods {
				if (ip == mod || strings.HasPrefix(ip, mod+"/")) && len(mod) > len(best) {
					best = mod
				}
			}
			if best == "" {
				t.Errorf("%s imports %s, which no go.mod requirement provides", path, ip)
			} else if !direct[best] {
				t.Errorf("%s imports %s, but go.mod marks %s // indirect", path, ip, best)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStaticBuildNeedsNoCgo checks that the install instructions' build
// (the osusergo and netgo tags) links no package that needs cgo, so the
// binary is static even where a C compiler is installed; scripts/test.sh
// checks the built binary itself.
func TestStaticBuildNeedsNoCgo(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "osusergo,netgo", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "runtime/cgo" {
			t.Errorf("with -tags osusergo,netgo the niro binary still links runtime/cgo")
		}
	}
}

// TestPassesDefault keeps --passes' default, a literal in a struct tag,
// equal to opt.DefaultPipeline, which `niro opt` and the docs name.
func TestPassesDefault(t *testing.T) {
	f, ok := reflect.TypeOf(PassesFlag{}).FieldByName("Passes")
	if !ok {
		t.Fatal("PassesFlag has no Passes field")
	}
	if got := f.Tag.Get("default"); got != opt.DefaultPipeline {
		t.Errorf("--passes defaults to %q, opt.DefaultPipeline is %q", got, opt.DefaultPipeline)
	}
	if _, err := opt.Parse(opt.DefaultPipeline); err != nil {
		t.Errorf("opt.DefaultPipeline: %v", err)
	}
}
