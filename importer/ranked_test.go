package importer

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// unrankedValues lists the values of mod, block arguments and results in
// regions included, whose tensor type has no rank although every operand
// of their op, every value its regions yield and every argument of the
// function are ranked.
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
			ins := op.Operands()
			for _, reg := range op.Regions() {
				// What a region yields types the op's results too.
				for _, b := range reg.Blocks {
					if len(b.Ops) > 0 {
						ins = append(ins, b.Ops[len(b.Ops)-1].Operands()...)
					}
				}
			}
			for _, in := range ins {
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
// run time; a shape operand of Expand, Reshape or ConstantOfShape of
// unknown length; a reduction dropping run-time axes of unknown count.
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
	dynLength := func(i int) bool {
		if i >= len(op.Operands()) {
			return false
		}
		t, ok := op.Operands()[i].Type.(niro.TensorType)
		return ok && t.Rank() == 1 && t.Dims[0] < 0
	}
	switch op.Name() {
	case "onnx.Expand", "onnx.Reshape":
		return dynLength(1) // a shape of unknown length
	case "onnx.ConstantOfShape":
		return dynLength(0)
	case "onnx.ReduceSum", "onnx.ReduceMean", "onnx.ReduceMax", "onnx.ReduceMin", "onnx.ReduceProd",
		"onnx.ReduceL1", "onnx.ReduceL2", "onnx.ReduceLogSum", "onnx.ReduceLogSumExp", "onnx.ReduceSumSquare":
		// Run-time axes of unknown count, the reduced axes dropped.
		u, _ := op.(*niro.UnknownOp)
		return u != nil && u.Attrs["keepdims"] == niro.Attribute(niro.IntAttr(0)) && dynLength(1)
	}
	if op.Name() != "onnx.Squeeze" || len(op.Operands()) != 1 {
		return false
	}
	t, ok := op.Operands()[0].Type.(niro.TensorType)
	return ok && !t.HasStaticShape()
}

// TestONNXTestsRanked imports every model of shared/onnx-tests at its own
// opset, as it is and with every extent of its inputs made dynamic, and
// checks that shape inference gives every value a rank wherever the
// model's inputs have one (and that dynamic extents make nodes not
// compilable rather than the import fail). Models that do not import (unsupported
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
				m.Close()
				if err != nil {
					continue
				}
				mu.Lock()
				imported++
				mu.Unlock()
				report := func(variant string, vs []string) {
					mu.Lock()
					for _, v := range vs {
						bad = append(bad, tc.Suite+"/"+tc.Name+variant+": "+v)
					}
					mu.Unlock()
				}
				report("", unrankedValues(mod))
				// Again with every extent of every graph input dynamic:
				// the ranks must still follow, and nothing may fail
				// but for data needed at compile time.
				m, err = Load(tc.Path, Options{})
				if err != nil {
					continue
				}
				for _, in := range m.Graph.Inputs {
					if in.Type != nil && in.Type.Ranked {
						for i := range in.Type.Dims {
							in.Type.Dims[i] = Dim{Value: -1}
						}
					}
				}
				mod, err = Convert(m, Options{})
				var nd *NeedsDataError
				switch {
				case err == nil:
					report(" (dynamic inputs)", unrankedValues(mod))
				case !errors.As(err, &nd):
					report(" (dynamic inputs)", []string{err.Error()})
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
