package niro_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// mustVerify fails the test, showing the printed module, if m does not
// verify.
func mustVerify(t *testing.T, m *niro.Module) {
	t.Helper()
	if err := niro.Verify(m); err != nil {
		t.Fatalf("module does not verify:\n%v\nmodule:\n%s", err, m)
	}
}

func sig(ins, outs []niro.Type) niro.FunctionType {
	return niro.FunctionType{Inputs: ins, Outputs: outs}
}

func types(ts ...niro.Type) []niro.Type { return ts }

// specExample is a module from the Niro IR specification, built with the
// Builder, and its printed form.
type specExample struct {
	name  string
	build func() *niro.Module
	want  string
}

// specExamples returns the specification's examples: the add function, the
// CondBranch/join example, If, UnknownOp with attributes, a declaration, and
// the smaller op examples (Const, GetGlobal, Transpose, Call,
// TensorExtract).
func specExamples() []specExample {
	return []specExample{
		{
			name: "add",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("add", sig(types(niro.F32, niro.F32), types(niro.F32)))
				b := f.Builder()
				lhs, rhs := f.Args()[0], f.Args()[1]
				b.Return(b.Add(lhs, rhs))
				return m
			},
			want: `func @add(f32, f32) -> (f32) {
^bb0(%0: f32, %1: f32):
  %2 = add %0, %1 : (f32, f32) -> f32
  return %2 : f32
}
`,
		},
		{
			name: "cond_branch_join",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("select", sig(types(niro.Bool, niro.I32, niro.I32), types(niro.I32)))
				b := f.Builder()
				cond, lhs, rhs := f.Args()[0], f.Args()[1], f.Args()[2]
				left := b.NewBlock()
				right := b.NewBlock()
				join := b.NewBlock(niro.I32)
				b.CondBr(cond, left, nil, right, nil)
				b.SetBlock(left)
				b.Br(join, lhs)
				b.SetBlock(right)
				b.Br(join, rhs)
				b.SetBlock(join)
				b.Return(join.Args[0])
				return m
			},
			want: `func @select(i1, i32, i32) -> (i32) {
^bb0(%0: i1, %1: i32, %2: i32):
  cond_br %0 : i1, ^bb1, ^bb2
^bb1:
  br ^bb3(%1 : i32)
^bb2:
  br ^bb3(%2 : i32)
^bb3(%3: i32):
  return %3 : i32
}
`,
		},
		{
			name: "if",
			build: func() *niro.Module {
				m := niro.NewModule()
				f := m.AddFunction("choose", sig(types(niro.Tensor(niro.Bool), niro.F32, niro.F32), types(niro.F32)))
				b := f.Builder()
				flag, x, y := f.Args()[0], f.Args()[1], f.Args()[2]
				cond := b.TensorExtract(flag)
				res := b.If(cond, types(niro.F32),
					func(then *niro.Builder) { then.Yield(then.Mul(x, y)) },
					func(els *niro.Builder) { els.Yield(y) })
				b.Return(res...)
				return m
			},
			want: `func @choose(tensor<i1>, f32, f32) -> (f32) {
^bb0(%0: tensor<i1>, %1: f32, %2: f32):
  %3 = tensor_extract %0[] : (tensor<i1>) -> i1
  %4 = if %3 : i1 -> (f32) {
    %5 = mul %1, %2 : (f32, f32) -> f32
    yield %5 : f32
  } else {
    yield %2 : f32
  }
  return %4 : f32
}
`,
		},
		{
			name: "unknown_op",
			build: func() *niro.Module {
				m := niro.NewModule()
				t := niro.Tensor(niro.F32, 4)
				f := m.AddFunction("leaky", sig(types(t), types(t)))
				b := f.Builder()
				b.SetLoc("relu_1")
				u := b.Unknown("onnx.LeakyRelu", f.Args(), types(t), niro.Attrs{"alpha": niro.FloatAttr(0.01)})
				b.SetLoc("")
				b.Return(u.Res...)
				return m
			},
			want: `func @leaky(tensor<4xf32>) -> (tensor<4xf32>) {
^bb0(%0: tensor<4xf32>):
  %1 = "onnx.LeakyRelu"(%0) {alpha = 0.01} : (tensor<4xf32>) -> tensor<4xf32> loc("relu_1")
  return %1 : tensor<4xf32>
}
`,
		},
		{
			name: "declaration",
			build: func() *niro.Module {
				m := niro.NewModule()
				m.DeclareFunction("print_f32", sig(types(niro.F32), nil))
				return m
			},
			want: "func @print_f32(f32) -> ()\n",
		},
		{
			name: "const_global_transpose_call",
			build: func() *niro.Module {
				m := niro.NewModule()
				wt := niro.Tensor(niro.F32, 2, 3)
				w := m.AddGlobal("weight", wt, niro.BytesLit(make([]byte, 24)))
				pr := m.DeclareFunction("print_f32", sig(types(niro.F32), nil))
				m.Attrs = niro.Attrs{"entry": niro.StringAttr("main")}
				f := m.AddFunction("main", sig(types(niro.I64), types(niro.Tensor(niro.F32, 3, 2))))
				f.InputNames = []*string{niro.Name("index")}
				f.OutputNames = []*string{nil}
				b := f.Builder()
				two := b.Const(niro.F32, niro.FloatLit(2.0))
				b.Call(pr, two)
				wv := b.GetGlobal(w)
				zero := b.Const(niro.I64, niro.IntLit(0))
				b.Call(pr, b.TensorExtract(wv, zero, f.Args()[0]))
				b.Return(b.Transpose(wv, 1, 0))
				return m
			},
			want: `module attributes {entry = "main"}

global @weight : tensor<2x3xf32> = 0x000000000000000000000000000000000000000000000000

func @print_f32(f32) -> ()

func @main(i64) -> (tensor<3x2xf32>) inputs ["index"] outputs [none] {
^bb0(%0: i64):
  %1 = const 2.0 : f32
  call @print_f32(%1) : (f32) -> ()
  %2 = get_global @weight : tensor<2x3xf32>
  %3 = const 0 : i64
  %4 = tensor_extract %2[%3, %0] : (tensor<2x3xf32>, i64, i64) -> f32
  call @print_f32(%4) : (f32) -> ()
  %5 = transpose %2 [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %5 : tensor<3x2xf32>
}
`,
		},
		{
			name: "loop_matmul_regions",
			build: func() *niro.Module {
				m := niro.NewModule()
				a, bt := niro.Tensor(niro.F32, 2, 3), niro.Tensor(niro.F32, 3, niro.Dynamic)
				f := m.AddFunction("loop", sig(types(a, bt, niro.Bool), types(niro.Tensor(niro.F32, 2, niro.Dynamic))))
				b := f.Builder()
				x, y, c := f.Args()[0], f.Args()[1], f.Args()[2]
				p := b.MatMul(x, y)
				header := b.NewBlock(p.Type)
				exit := b.NewBlock()
				b.Br(header, p)
				b.SetBlock(header)
				acc := header.Args[0]
				sum := b.Add(acc, acc)
				loop := b.Unknown("test.loop", []niro.Value{sum}, nil, niro.Attrs{"unroll": niro.UnitAttr{}, "tags": niro.ListAttr{niro.IntAttr(1), niro.StringAttr("x")}})
				b.AddRegion(loop, niro.I64).Yield()
				loop.Bodies = append(loop.Bodies, &niro.Region{}) // unknown ops may own empty regions
				b.CondBr(c, header, []niro.Value{sum}, exit, nil)
				b.SetBlock(exit)
				b.Return(p)
				return m
			},
			want: `func @loop(tensor<2x3xf32>, tensor<3x?xf32>, i1) -> (tensor<2x?xf32>) {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3x?xf32>, %2: i1):
  %3 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x?xf32>) -> tensor<2x?xf32>
  br ^bb1(%3 : tensor<2x?xf32>)
^bb1(%4: tensor<2x?xf32>):
  %5 = add %4, %4 : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  "test.loop"(%5) ({
  ^bb3(%6: i64):
    yield
  }, {
  }) {tags = [1, "x"], unroll} : (tensor<2x?xf32>) -> ()
  cond_br %2 : i1, ^bb1(%5 : tensor<2x?xf32>), ^bb2
^bb2:
  return %3 : tensor<2x?xf32>
}
`,
		},
	}
}

// TestSpecExamples builds the specification's examples, verifies them,
// checks their printed form and round-trips them through the parser.
func TestSpecExamples(t *testing.T) {
	for _, ex := range specExamples() {
		t.Run(ex.name, func(t *testing.T) {
			m := ex.build()
			mustVerify(t, m)
			if diff := cmp.Diff(ex.want, m.String()); diff != "" {
				t.Errorf("printed form mismatch (-want +got):\n%s", diff)
			}
			back := checkRoundTrip(t, m)
			mustVerify(t, back)
		})
	}
}

// TestBuilderAfterParse checks that a parsed function hands out fresh IDs
// above every parsed ID, so builders can extend parsed IR.
func TestBuilderAfterParse(t *testing.T) {
	m, err := niro.Parse("in.niro", []byte("func @f(f32) -> (f32) {\n^bb0(%7: f32):\n  %12 = add %7, %7 : (f32, f32) -> f32\n  return %12 : f32\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Functions[0]
	if v := f.NewValue(niro.F32); v.ID != 13 {
		t.Errorf("first fresh ID after parsing %%12 is %d, want 13", v.ID)
	}
}

// TestBuilderMisuse checks that programmer errors panic with the "niro:
// BUG:" prefix.
func TestBuilderMisuse(t *testing.T) {
	newF := func() (*niro.Module, *niro.Function) {
		m := niro.NewModule()
		return m, m.AddFunction("f", sig(types(niro.F32, niro.Tensor(niro.F32, 3)), nil))
	}
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"nil block", func() { niro.NewBuilder(&niro.Function{}, nil) }},
		{"declaration builder", func() { niro.NewModule().DeclareFunction("d", niro.FunctionType{}).Builder() }},
		{"after terminator", func() {
			_, f := newF()
			b := f.Builder()
			b.Return()
			b.Const(niro.F32, niro.FloatLit(1))
		}},
		{"matmul rank", func() {
			_, f := newF()
			f.Builder().MatMul(f.Args()[1], f.Args()[1])
		}},
		{"add scalar tensor", func() {
			_, f := newF()
			f.Builder().Add(f.Args()[0], f.Args()[1])
		}},
		{"transpose perm", func() {
			_, f := newF()
			f.Builder().Transpose(f.Args()[1], 0, 0)
		}},
		{"extract from scalar", func() {
			_, f := newF()
			f.Builder().TensorExtract(f.Args()[0])
		}},
		{"new block outside the function", func() {
			_, f := newF()
			niro.NewBuilder(f, &niro.Block{}).NewBlock()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, "niro: BUG: ") {
					t.Errorf("panic value %#v, want a string starting with \"niro: BUG: \"", r)
				}
			}()
			tc.fn()
		})
	}
}
