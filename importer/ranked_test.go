package importer

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// unrankedValues lists the values of mod, block arguments and results in
// regions included, whose tensor type has no rank although every operand
// of their op (and every argument of the function) is ranked.
func unrankedValues(mod *niro.Module) []string {
	var out []string
	unranked := func(v niro.Value) bool {
		t, ok := v.Type.(niro.TensorType)
		return ok && t.Unranked
	}
	for _, f := range mod.Functions {
		for _, a := range f.Args() {
			if unranked(a) {
				return nil // a graph input without rank: nothing to ask of the rest
			}
		}
		f.Body.Walk(func(op niro.Op) bool {
			for _, in := range op.Operands() {
				if unranked(in) {
					return true
				}
			}
			if genuinelyUnranked(op) {
				return true
			}
			for _, r := range op.Results() {
				if unranked(r) {
					out = append(out, fmt.Sprintf("%s (%s): result %s is %s", op.Location(), op.Name(), r, r.Type))
				}
			}
			for _, reg := range op.Regions() {
				for _, b := range reg.Blocks {
					for _, a := range b.Args {
						if unranked(a) {
							out = append(out, fmt.Sprintf("%s (%s): region argument %s is %s", op.Location(), op.Name(), a, a.Type))
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// genuinelyUnranked reports whether op's result rank depends on data no
// import can know: Squeeze without axes of an operand with a dynamic
// extent (which extents are 1 is known only at run time), and an If whose
// branches yield values of different ranks on a condition known only at
// run time.
func genuinelyUnranked(op niro.Op) bool {
	if op.Name() == "onnx.If" && len(op.Regions()) == 2 {
		// Branches yielding different ranks.
		var ranks [2][]int
		for k, r := range op.Regions() {
			ops := r.Blocks[0].Ops
			for _, v := range ops[len(ops)-1].Operands() {
				t, _ := v.Type.(niro.TensorType)
				ranks[k] = append(ranks[k], t.Rank())
			}
		}
		for j := range ranks[0] {
			if j < len(ranks[1]) && ranks[0][j] != ranks[1][j] {
				return true
			}
		}
		return false
	}
	if op.Name() != "onnx.Squeeze" || len(op.Operands()) != 1 {
		return false
	}
	t, ok := op.Operands()[0].Type.(niro.TensorType)
	return ok && !t.HasStaticShape()
}

// TestONNXTestsRanked imports every model of shared/onnx-tests at its own
// opset and checks that shape inference gives every value a rank wherever
// the model's inputs have one. Models that do not import (unsupported
// ops, strings, data needed at compile time) are not its concern.
func TestONNXTestsRanked(t *testing.T) {
	tests := onnxTests(t)
	var mu sync.Mutex
	var bad []string
	imported := 0
	jobs := make(chan onnxTest)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tc := range jobs {
				m, err := Load(tc.Path, Options{})
				if err != nil {
					continue
				}
				mod, err := Convert(m, Options{})
				if err == nil {
					mu.Lock()
					imported++
					mu.Unlock()
					if vs := unrankedValues(mod); len(vs) > 0 {
						mu.Lock()
						for _, v := range vs {
							bad = append(bad, tc.Suite+"/"+tc.Name+": "+v)
						}
						mu.Unlock()
					}
				}
				m.Close()
			}
		}()
	}
	for _, tc := range tests {
		jobs <- tc
	}
	close(jobs)
	wg.Wait()
	if imported < 1500 {
		t.Errorf("only %d models imported", imported)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}
