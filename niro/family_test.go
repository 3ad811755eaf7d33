package niro_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// familyOps returns one op of every kind of every family, on operands of
// element type e where the kind is defined on it.
func familyOps() []struct {
	name  string
	info  niro.KindInfo
	build func(b *niro.Builder, x, y niro.Value) niro.Value
} {
	type row = struct {
		name  string
		info  niro.KindInfo
		build func(b *niro.Builder, x, y niro.Value) niro.Value
	}
	var rows []row
	for _, k := range niro.BinaryKinds() {
		rows = append(rows, row{k.String(), k.Info(), func(b *niro.Builder, x, y niro.Value) niro.Value { return b.Binary(k, x, y) }})
	}
	for _, k := range niro.UnaryKinds() {
		rows = append(rows, row{k.String(), k.Info(), func(b *niro.Builder, x, _ niro.Value) niro.Value { return b.Unary(k, x) }})
	}
	for _, p := range niro.Predicates() {
		rows = append(rows, row{"cmp_" + p.String(), p.Info(), func(b *niro.Builder, x, y niro.Value) niro.Value { return b.Compare(p, x, y) }})
	}
	for _, k := range niro.ReduceKinds() {
		rows = append(rows, row{k.String(), k.Info(), func(b *niro.Builder, x, _ niro.Value) niro.Value {
			return b.Insert(&niro.Reduce{Kind: k, Axes: []int{0}, X: x})[0]
		}})
	}
	return rows
}

var elementTypes = []niro.ScalarType{niro.Bool, niro.I8, niro.I16, niro.I32, niro.I64, niro.U8, niro.U16, niro.U32, niro.U64, niro.F16, niro.BF16, niro.F32, niro.F64}

// TestFamilyTables checks every row of every family table: a unique
// mnemonic, some element types, an MLIR spelling for each class where the
// emitter has no composed lowering, and that every kind builds, verifies,
// prints and parses back on every element type it is defined on, and is
// refused by the verifier on every other.
func TestFamilyTables(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range familyOps() {
		if r.info.Name == "" || r.info.Name != r.name && "cmp_"+r.info.Name != r.name {
			t.Errorf("%s: table name %q", r.name, r.info.Name)
		}
		if seen[r.name] {
			t.Errorf("mnemonic %s appears twice", r.name)
		}
		seen[r.name] = true
		if r.info.Types == 0 {
			t.Errorf("%s: defined on no element type", r.name)
		}
		for _, e := range elementTypes {
			defined := niro.ClassOf(e)&r.info.Types != 0
			m := niro.NewModule()
			tt := niro.Tensor(e, 3)
			f := m.AddFunction("f", niro.FunctionType{Inputs: []niro.Type{tt, tt}})
			b := f.Builder()
			if !defined {
				// Built by hand: the builder panics on a rule violation.
				if _, err := niro.InferResults(buildRaw(r.name, f.Args()[0], f.Args()[1])); err == nil {
					t.Errorf("%s on %s: inferred, but the table excludes it", r.name, e)
				}
				continue
			}
			v := r.build(b, f.Args()[0], f.Args()[1])
			f.Type.Outputs = []niro.Type{v.Type}
			b.Return(v)
			if err := niro.Verify(m); err != nil {
				t.Errorf("%s on %s: %v", r.name, e, err)
				continue
			}
			text := m.String()
			back, err := niro.Parse("t.niro", []byte(text))
			if err != nil {
				t.Errorf("%s on %s: %v\n%s", r.name, e, err, text)
				continue
			}
			if back.String() != text {
				t.Errorf("%s on %s: round trip differs:\n%s\n%s", r.name, e, text, back.String())
			}
			if !strings.Contains(text, " = "+r.name+" ") {
				t.Errorf("%s on %s: printed form lacks the mnemonic:\n%s", r.name, e, text)
			}
		}
	}
	for _, name := range niro.GenericMnemonics() {
		if !seen[name] && !map[string]bool{"cast": true, "select": true, "reshape": true, "broadcast": true}[name] {
			if testing.Verbose() {
				fmt.Println("generic op without a family row test:", name)
			}
		}
	}
}

// buildRaw makes an op of the named kind without inference.
func buildRaw(name string, x, y niro.Value) niro.Op {
	for _, k := range niro.BinaryKinds() {
		if k.String() == name {
			return &niro.Binary{Kind: k, LHS: x, RHS: y}
		}
	}
	for _, k := range niro.UnaryKinds() {
		if k.String() == name {
			return &niro.Unary{Kind: k, X: x}
		}
	}
	for _, p := range niro.Predicates() {
		if "cmp_"+p.String() == name {
			return &niro.Compare{Pred: p, LHS: x, RHS: y}
		}
	}
	for _, k := range niro.ReduceKinds() {
		if k.String() == name {
			return &niro.Reduce{Kind: k, Axes: []int{0}, X: x}
		}
	}
	panic("no kind " + name)
}

// TestSetOperandAndUsers edits an operand through SetOperand and checks
// the users query before and after.
func TestSetOperandAndUsers(t *testing.T) {
	m := niro.NewModule()
	tt := niro.Tensor(niro.F32, 3)
	f := m.AddFunction("f", niro.FunctionType{Inputs: []niro.Type{tt, tt}, Outputs: []niro.Type{tt}})
	b := f.Builder()
	x, y := f.Args()[0], f.Args()[1]
	s := b.Add(x, x)
	b.Return(b.Unary(niro.Exp, s))
	add := f.Entry().Ops[0]
	if got := len(niro.Users(f)[x.ID]); got != 2 {
		t.Fatalf("x has %d uses, want 2", got)
	}
	if !niro.SetOperand(add, 1, y) {
		t.Fatal("SetOperand refused operand 1 of add")
	}
	if niro.SetOperand(add, 2, y) {
		t.Fatal("SetOperand accepted operand 2 of add")
	}
	u := niro.Users(f)
	if len(u[x.ID]) != 1 || len(u[y.ID]) != 1 || u[y.ID][0].Op != add || u[y.ID][0].Index != 1 {
		t.Fatalf("uses after SetOperand: x %v, y %v", u[x.ID], u[y.ID])
	}
	if err := niro.Verify(m); err != nil {
		t.Fatal(err)
	}
}
