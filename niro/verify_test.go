package niro_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// verifyText returns Verify's diagnostics one per line, or "" when m is
// valid. It fails the test if the error is not a *niro.VerifyError.
func verifyText(t *testing.T, m *niro.Module) string {
	t.Helper()
	err := niro.Verify(m)
	if err == nil {
		return ""
	}
	var ve *niro.VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("Verify returned %T, want *niro.VerifyError: %v", err, err)
	}
	if len(ve.Diags) == 0 {
		t.Fatalf("Verify returned a *VerifyError without diagnostics")
	}
	lines := make([]string, len(ve.Diags))
	for i, d := range ve.Diags {
		lines[i] = d.String()
	}
	if got, want := err.Error(), strings.Join(lines, "\n"); got != want {
		t.Errorf("VerifyError.Error() = %q, want the diagnostics one per line %q", got, want)
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestVerify runs the txtar cases of testdata/niro/verify. A case named
// *_ok must verify; a case named *_bad must produce exactly the lines of
// its want.err section. With -update the want.err sections are rewritten.
func TestVerify(t *testing.T) {
	for _, c := range loadCases(t, "verify") {
		t.Run(c.name, func(t *testing.T) {
			wantOK := strings.HasSuffix(c.name, "_ok")
			if !wantOK && !strings.HasSuffix(c.name, "_bad") {
				t.Fatalf("%s: case names end in _ok (valid IR) or _bad (invalid IR)", c.path)
			}
			m, err := niro.Parse("in.niro", c.mustSection(t, "in.niro"))
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			got := verifyText(t, m)
			if *update {
				c.setSection(t, "want.err", withNewline(got))
			}
			want, hasWant := c.section("want.err")
			switch {
			case wantOK && got != "":
				t.Fatalf("%s: valid case does not verify:\n%s", c.path, got)
			case wantOK && hasWant:
				t.Fatalf("%s: valid case has a want.err section", c.path)
			case !wantOK && got == "":
				t.Fatalf("%s: invalid case verifies", c.path)
			case !wantOK && !hasWant:
				t.Fatalf("%s: invalid case has no want.err section (run with -update)", c.path)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s: diagnostics mismatch (-want +got):\n%s", c.path, diff)
			}
		})
	}
}

// goCase is a verifier case the text form cannot express: shared
// ownership, nil pieces, dangling references.
type goCase struct {
	name  string
	build func() *niro.Module
	want  string // diagnostics, one per line; "" for valid IR
}

// emptyFunc returns a module with one function f() -> () whose entry block
// is empty, and that function.
func emptyFunc() (*niro.Module, *niro.Function) {
	m := niro.NewModule()
	return m, m.AddFunction("f", niro.FunctionType{})
}

func goCases() []goCase {
	return []goCase{
		{
			name:  "nil_module",
			build: func() *niro.Module { return nil },
			want:  "module is nil\n",
		},
		{
			name: "nil_global_and_function",
			build: func() *niro.Module {
				return &niro.Module{Globals: []*niro.Global{nil}, Functions: []*niro.Function{nil}}
			},
			want: "module: global #0 is nil\nmodule: function #0 is nil\n",
		},
		{
			name: "nil_types_and_literals",
			build: func() *niro.Module {
				m := niro.NewModule()
				m.AddGlobal("g", nil, niro.IntLit(1))
				m.AddGlobal("h", niro.F32, nil)
				m.AddGlobal("s", niro.ScalarType(200), niro.IntLit(1))
				m.DeclareFunction("d", sig(types(nil), types(niro.TensorType{Elem: niro.InvalidScalar})))
				f := m.AddFunction("f", niro.FunctionType{})
				b := f.Builder()
				b.Const(niro.F32, nil)
				b.Const(nil, niro.IntLit(1))
				b.Return()
				return m
			},
			want: `global @g: missing type
global @h: global has no initializer
global @s: invalid scalar type 200
func @d: input #0: missing type
func @d: output #0: invalid element type 0
func @f: ^bb0: op 1 (const): %1: missing type
func @f: ^bb0: op 0 (const): literal does not match the result type: missing literal
func @f: ^bb0: op 1 (const): literal does not match the result type: missing type
`,
		},
		{
			name: "nil_block_op_region_attr",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				u := b.Unknown("test.op", nil, nil, niro.Attrs{"a": nil})
				u.Bodies = []*niro.Region{nil, {Blocks: []*niro.Block{nil}}}
				f.Entry().Ops = append(f.Entry().Ops, nil)
				b.Return()
				f.Body.Blocks = append(f.Body.Blocks, nil)
				return m
			},
			want: `func @f: ^bb0: op 0 (test.op): region #0 is nil
func @f: region holds a nil block
func @f: ^bb0: op 1 is nil
func @f: region holds a nil block
func @f: ^bb0: op 0 (test.op): attribute "a" is nil
`,
		},
		{
			name: "nil_if_arms",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("f", sig(types(niro.Bool), nil))
				b := f.Builder()
				f.Entry().Ops = append(f.Entry().Ops, &niro.If{Cond: f.Args()[0]})
				b.Return()
				return m
			},
			want: `func @f: ^bb0: op 0 (if): region #0 is nil
func @f: ^bb0: op 0 (if): region #1 is nil
func @f: ^bb0: op 0 (if): then region is missing
func @f: ^bb0: op 0 (if): else region is missing
`,
		},
		{
			name: "dangling_and_nil_targets",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("f", sig(types(niro.Bool), nil))
				b := f.Builder()
				outside := &niro.Block{Ops: []niro.Op{&niro.Return{}}}
				b.CondBr(f.Args()[0], outside, nil, nil, nil)
				return m
			},
			want: `func @f: ^bb0: op 0 (cond_br): true target ^bb1 is not a block of the same region
func @f: ^bb0: op 0 (cond_br): false target is missing
`,
		},
		{
			name: "block_shared_by_two_regions",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("f", sig(types(niro.Bool), nil))
				b := f.Builder()
				shared := b.NewBlock()
				b.Br(shared)
				b.SetBlock(shared)
				b.Return()
				op := &niro.UnknownOp{OpName: "test.region", Bodies: []*niro.Region{{Blocks: []*niro.Block{shared}}}}
				f.Entry().Ops = append([]niro.Op{op}, f.Entry().Ops...)
				return m
			},
			// The op's region, walked first, keeps the block.
			want: `func @f: block ^bb1 is owned by more than one region
func @f: ^bb1: op 0 (return): return is not allowed in a nested region; use yield
func @f: ^bb0: op 1 (br): branch target ^bb1 is not a block of the same region
`,
		},
		{
			name: "block_twice_in_a_region",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				next := b.NewBlock()
				b.Br(next)
				b.SetBlock(next)
				b.Return()
				f.Body.Blocks = append(f.Body.Blocks, next)
				return m
			},
			want: "func @f: block ^bb1 is owned by more than one region\n",
		},
		{
			name: "region_shared_by_two_ops",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				u := b.Unknown("test.a", nil, nil, nil)
				b.AddRegion(u).Yield()
				v := b.Unknown("test.b", nil, nil, nil)
				v.Bodies = u.Bodies
				b.Return()
				return m
			},
			want: "func @f: ^bb0: op 1 (test.b): region #0 is owned by more than one op\n",
		},
		{
			name: "if_arms_share_a_region",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("f", sig(types(niro.Bool), nil))
				b := f.Builder()
				b.If(f.Args()[0], nil, func(b *niro.Builder) { b.Yield() }, func(b *niro.Builder) { b.Yield() })
				op := f.Entry().Ops[0].(*niro.If)
				op.Else = op.Then
				b.Return()
				return m
			},
			want: "func @f: ^bb0: op 0 (if): region #1 is owned by more than one op\n",
		},
		{
			name: "op_owns_the_function_body",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				u := b.Unknown("test.a", nil, nil, nil)
				u.Bodies = []*niro.Region{f.Body}
				b.Return()
				return m
			},
			want: "func @f: ^bb0: op 0 (test.a): region #0 is owned by more than one op\n",
		},
		{
			name: "region_contains_itself",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				u := b.Unknown("test.a", nil, nil, nil)
				inner := b.AddRegion(u)
				w := inner.Unknown("test.b", nil, nil, nil)
				w.Bodies = u.Bodies
				inner.Yield()
				b.Return()
				return m
			},
			want: "func @f: ^bb1: op 0 (test.b): region #0 is owned by more than one op\n",
		},
		{
			name: "unknown_op_empty_regions_ok",
			build: func() *niro.Module {
				m, f := emptyFunc()
				b := f.Builder()
				u := b.Unknown("test.a", nil, nil, nil)
				u.Bodies = []*niro.Region{{}, {}}
				b.Return()
				return m
			},
		},
		{
			name: "value_type_differs_from_definition",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("f", sig(types(niro.F32), types(niro.F32)))
				b := f.Builder()
				x := f.Args()[0]
				b.Return(niro.Value{ID: x.ID, Type: niro.F64})
				return m
			},
			want: `func @f: ^bb0: op 0 (return): returned value #0 (%0) has type f64, but output #0 is f32
func @f: ^bb0: op 0 (return): operand #0 (%0) has type f64, but it is defined with type f32
`,
		},
	}
}

// TestVerifyGoBuilt checks the verifier on IR that only Go code can build,
// and that such IR prints without panicking.
func TestVerifyGoBuilt(t *testing.T) {
	for _, c := range goCases() {
		t.Run(c.name, func(t *testing.T) {
			m := c.build()
			got := verifyText(t, m)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
			}
			_ = m.String()
		})
	}
}
