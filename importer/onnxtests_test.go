package importer

import (
	"errors"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// importOutcome classifies the import of one model of shared/onnx-tests.
func importOutcome(t *testing.T, tc onnxTest) (outcome string, mod *niro.Module, closeFn func()) {
	t.Helper()
	m, err := Load(tc.Path, Options{})
	if err != nil {
		t.Errorf("%s/%s: load: %v", tc.Suite, tc.Name, err)
		return "load error", nil, func() {}
	}
	mod, err = Convert(m, Options{})
	if err != nil {
		m.Close()
		msg := err.Error()
		var nd *NeedsDataError
		switch {
		case errors.As(err, &nd):
			// A sequence input's length, a position or a trip count
			// comes from the data (TestSequenceModelsWithData).
			return "needs data at compile time", nil, func() {}
		case errors.Is(err, errInvalidIR):
			t.Errorf("%s/%s: %v", tc.Suite, tc.Name, err)
			return "importer bug", nil, func() {}
		case strings.Contains(msg, "element type string, which niro does not support"),
			strings.Contains(msg, "niro does not support strings"):
			return "string tensors", nil, func() {}
		case strings.Contains(msg, "niro supports tensors only"):
			return "sequence/optional values", nil, func() {}
		default:
			t.Errorf("%s/%s: unexpected error: %v", tc.Suite, tc.Name, err)
			return "other error", nil, func() {}
		}
	}
	return "imported", mod, func() { m.Close() }
}

// TestONNXTestsImport imports every model of shared/onnx-tests. Each one
// must import to verified IR or fail with a clear error, and the counts
// are fixed so that a change in coverage is noticed.
func TestONNXTestsImport(t *testing.T) {
	tests := onnxTests(t)
	counts := map[string]int{}
	mapped := 0
	for _, tc := range tests {
		outcome, mod, closeFn := importOutcome(t, tc)
		counts[outcome]++
		if mod != nil {
			unknown := false
			for _, f := range mod.Functions {
				f.Body.Walk(func(op niro.Op) bool {
					_, isUnknown := op.(*niro.UnknownOp)
					unknown = unknown || isUnknown
					return !unknown
				})
			}
			if !unknown {
				mapped++
			}
			// The printed form must parse back to the same module.
			text := mod.String()
			back, err := niro.Parse(tc.Name+".niro", []byte(text))
			if err != nil {
				t.Errorf("%s/%s: printed module does not parse: %v", tc.Suite, tc.Name, err)
			} else if got := back.String(); got != text {
				t.Errorf("%s/%s: printed module changes after parsing", tc.Suite, tc.Name)
			}
		}
		closeFn()
	}
	want := map[string]int{
		"imported":                   1878,
		"string tensors":             32,
		"needs data at compile time": 32,
	}
	if len(tests) != 1942 {
		t.Errorf("INDEX.tsv lists %d tests, want 1942", len(tests))
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d models, want %d", k, counts[k], v)
		}
	}
	for k, v := range counts {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %d models, want 0", k, v)
		}
	}
	const wantMapped = 1561
	t.Logf("of %d models: %v; %d import with every op mapped (no UnknownOp)", len(tests), counts, mapped)
	if mapped != wantMapped {
		t.Errorf("%d models import with every op mapped, want %d", mapped, wantMapped)
	}
}
