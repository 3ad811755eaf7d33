package niro_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/niro-dev/niro/niro"
)

// sameFloat reports whether two floats print the same: equal bits, or both
// NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// irOpts compares the modules a and b structurally: exported fields only (a
// function's ID counter and the ops' embedded markers are unexported), nil
// and empty slices and maps alike, floats by bits with any NaN equal to any
// NaN. Blocks are compared in full where their regions hold them; where an
// op names a successor, only the blocks' numbers (their order in a walk of
// their function) are compared, so that IR where many edges meet is not
// walked once per path.
func irOpts(a, b *niro.Module) cmp.Options {
	structs := []any{niro.Function{}}
	for _, op := range niro.OpKinds() {
		structs = append(structs, reflect.ValueOf(op).Elem().Interface())
	}
	num := map[*niro.Block]int{}
	for _, m := range []*niro.Module{a, b} {
		if m == nil {
			continue
		}
		for _, f := range m.Functions {
			if f != nil {
				numberBlocks(f.Body, num, new(int))
			}
		}
	}
	isSuccessor := func(p cmp.Path) bool {
		for i := len(p) - 1; i >= 0; i-- {
			if sf, ok := p[i].(cmp.StructField); ok {
				switch sf.Name() {
				case "Target", "True", "False", "Targets":
					return true
				}
				return false
			}
		}
		return false
	}
	return cmp.Options{
		cmpopts.IgnoreUnexported(structs...),
		cmpopts.EquateEmpty(),
		cmp.Comparer(func(a, b niro.FloatLit) bool { return sameFloat(float64(a), float64(b)) }),
		cmp.Comparer(func(a, b niro.FloatAttr) bool { return sameFloat(float64(a), float64(b)) }),
		cmp.FilterPath(isSuccessor, cmp.Comparer(func(x, y *niro.Block) bool {
			nx, okx := num[x]
			ny, oky := num[y]
			if x == nil || y == nil || !okx || !oky {
				return x == nil && y == nil
			}
			return nx == ny
		})),
	}
}

// numberBlocks numbers the blocks of r and its nested regions in walk
// order, continuing from *next.
func numberBlocks(r *niro.Region, num map[*niro.Block]int, next *int) {
	if r == nil {
		return
	}
	for _, b := range r.Blocks {
		if b == nil {
			continue
		}
		if _, seen := num[b]; !seen {
			num[b] = *next
			*next++
		}
		for _, op := range b.Ops {
			if op == nil {
				continue
			}
			for _, sub := range op.Regions() {
				numberBlocks(sub, num, next)
			}
		}
	}
}

// checkRoundTrip prints m, parses the text back and checks that the parsed
// module prints the same text and equals m structurally. It returns the
// parsed module.
func checkRoundTrip(t *testing.T, m *niro.Module) *niro.Module {
	t.Helper()
	text := m.String()
	back, err := niro.Parse("printed.niro", []byte(text))
	if err != nil {
		t.Fatalf("printed module does not parse: %v\n%s", err, text)
	}
	if diff := cmp.Diff(text, back.String()); diff != "" {
		t.Errorf("print(parse(print(m))) != print(m) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(m, back, irOpts(m, back)); diff != "" {
		t.Errorf("parse(print(m)) differs from m (-want +got):\n%s", diff)
	}
	return back
}

// TestRoundTripVerifyCases round-trips every verifier case, valid or not:
// printing is total and the printed text of a parsed module parses back to
// the same module. The inputs are written in printed form, so that the
// block labels in diagnostics are the labels of the input.
func TestRoundTripVerifyCases(t *testing.T) {
	for _, c := range loadCases(t, "verify") {
		t.Run(c.name, func(t *testing.T) {
			src := c.mustSection(t, "in.niro")
			m, err := niro.Parse("in.niro", src)
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			if diff := cmp.Diff(string(src), m.String()); diff != "" {
				t.Errorf("%s: in.niro is not in printed form (-in +printed):\n%s", c.path, diff)
			}
			back := checkRoundTrip(t, m)
			if (niro.Verify(m) == nil) != (niro.Verify(back) == nil) {
				t.Errorf("%s: the round trip changed the verifier's verdict", c.path)
			}
		})
	}
}
