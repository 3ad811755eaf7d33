package emit

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/niro-dev/niro/niro"
)

// goldenModules parses the in.niro section of every golden file.
func goldenModules(t *testing.T) map[string]*niro.Module {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	ms := map[string]*niro.Module{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "in.niro" {
				m, err := niro.Parse(file, f.Data)
				if err != nil {
					t.Fatal(err)
				}
				ms[filepath.Base(file)] = m
			}
		}
	}
	return ms
}

// TestStreamSameText checks that streaming changes nothing: for every
// golden module, Prepare plus WriteMLIR writes exactly Module's text,
// twice in a row, and so does a body spilled to the temporary file after
// every line (spillLimit 1), renames of the last line included; errors
// are the same too.
func TestStreamSameText(t *testing.T) {
	for name, m := range goldenModules(t) {
		for _, limit := range []int64{0, -1} {
			opts := Options{InlineLimit: limit}
			want, wantErr := Module(m, opts)
			out, err := Prepare(m, opts)
			if err != nil {
				if wantErr == nil || err.Error() != wantErr.Error() {
					t.Errorf("%s: Prepare: %v, Module: %v", name, err, wantErr)
				}
				continue
			}
			for round, spill := range []int{spillLimit, 1, spillLimit} {
				func() {
					saved := spillLimit
					spillLimit = spill
					defer func() { spillLimit = saved }()
					var sb strings.Builder
					err := out.WriteMLIR(&sb)
					switch {
					case (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error():
						t.Errorf("%s: round %d: WriteMLIR error %v, Module's %v", name, round, err, wantErr)
					case err == nil && sb.String() != want.MLIR:
						t.Errorf("%s: round %d (spill limit %d): streamed text differs from Module's", name, round, spill)
					}
				}()
			}
			if wantErr == nil {
				if got, err := out.Text(); err != nil || got != want.MLIR {
					t.Errorf("%s: Text differs from Module's MLIR (err %v)", name, err)
				}
			}
		}
	}
}

// failingWriter fails once more than n bytes were written to it.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// TestStreamWriteError checks that an error of the writer is returned,
// naming the function being written.
func TestStreamWriteError(t *testing.T) {
	out, err := Prepare(chain(t, 20000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = out.WriteMLIR(&failingWriter{n: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "func @chain") {
		t.Fatalf("WriteMLIR to a failing writer: %v", err)
	}
}

// chain returns a function of n chained adds on tensor<4xf32>.
func chain(t testing.TB, n int) *niro.Module {
	var b strings.Builder
	b.WriteString("func @chain(tensor<4xf32>) -> (tensor<4xf32>) {\n^bb0(%0: tensor<4xf32>):\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  %%%d = add %%%d, %%0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n", i, i-1)
	}
	fmt.Fprintf(&b, "  return %%%d : tensor<4xf32>\n}\n", n)
	m, err := niro.Parse("chain.niro", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// heapSampler is a writer that drops the text and samples the live heap
// every megabyte written.
type heapSampler struct {
	n, next int64
	peak    uint64
}

func (h *heapSampler) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.n >= h.next {
		h.next = h.n + 1<<20
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// TestStreamBoundedMemory checks that WriteMLIR holds neither the text nor
// the function body in memory: while the 20 MB of MLIR of a 45,000-op
// function are written, with a spill limit of 1 MiB, the live heap grows
// by less than a quarter of the text (Module, which builds the string,
// grows it by at least the text).
func TestStreamBoundedMemory(t *testing.T) {
	saved := spillLimit
	spillLimit = 1 << 20
	defer func() { spillLimit = saved }()
	m := chain(t, 45000)
	out, err := Prepare(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	h := &heapSampler{}
	if err := out.WriteMLIR(h); err != nil {
		t.Fatal(err)
	}
	grew := int64(h.peak) - int64(base)
	t.Logf("%d bytes of MLIR; live heap grew by at most %d bytes while writing", h.n, grew)
	if h.n < 16<<20 {
		t.Fatalf("only %d bytes of MLIR: the test needs more than the spill limit", h.n)
	}
	if grew > h.n/4 {
		t.Errorf("live heap grew by %d bytes while writing %d bytes of MLIR: the text is held in memory", grew, h.n)
	}
	runtime.KeepAlive(m)
}
