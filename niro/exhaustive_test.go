package niro_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// opTypeName returns the Go name of an op's type, such as "*niro.Add".
func opTypeName(op niro.Op) string { return fmt.Sprintf("%T", op) }

// TestOpKindsComplete parses the package source and checks that every type
// with an isOp method is listed by niro.OpKinds, and nothing else is.
func TestOpKindsComplete(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != "isOp" || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			recv := fd.Recv.List[0].Type
			prefix := ""
			if star, ok := recv.(*ast.StarExpr); ok {
				prefix, recv = "*", star.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok {
				t.Fatalf("%s: isOp on unexpected receiver %T", fset.Position(fd.Pos()), recv)
			}
			declared = append(declared, prefix+"niro."+id.Name)
		}
	}
	var listed []string
	for _, op := range niro.OpKinds() {
		listed = append(listed, opTypeName(op))
	}
	sort.Strings(declared)
	sort.Strings(listed)
	if len(declared) < 14 {
		t.Errorf("found only %d isOp methods in the source: %v", len(declared), declared)
	}
	if diff := cmp.Diff(declared, listed); diff != "" {
		t.Errorf("OpKinds() does not list exactly the types with an isOp method (-source +OpKinds):\n%s", diff)
	}
}

// opSamples returns, for every op kind, a valid builder-made module that
// contains an op of that kind, keyed by the op's Go type name.
func opSamples() map[string]func() *niro.Module {
	unary := func(in []niro.Type, out []niro.Type, body func(b *niro.Builder, args []niro.Value)) func() *niro.Module {
		return func() *niro.Module {
			m := niro.NewModule()
			f := m.AddFunction("f", sig(in, out))
			body(f.Builder(), f.Args())
			return m
		}
	}
	mat := niro.Tensor(niro.F32, 2, 3)
	return map[string]func() *niro.Module{
		"*niro.Const": unary(nil, types(niro.I32), func(b *niro.Builder, _ []niro.Value) {
			b.Return(b.Const(niro.I32, niro.IntLit(-7)))
		}),
		"*niro.GetGlobal": func() *niro.Module {
			m := niro.NewModule()
			g := m.AddGlobal("g", niro.Tensor(niro.I8, 2), niro.BytesLit{1, 2})
			f := m.AddFunction("f", sig(nil, types(g.Type)))
			b := f.Builder()
			b.Return(b.GetGlobal(g))
			return m
		},
		"*niro.Transpose": unary(types(mat), types(niro.Tensor(niro.F32, 3, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Transpose(a[0], 1, 0))
		}),
		"*niro.TensorExtract": unary(types(mat, niro.I32, niro.I64), types(niro.F32), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.TensorExtract(a[0], a[1], a[2]))
		}),
		"*niro.Binary": unary(types(mat, niro.Tensor(niro.F32, 3)), types(mat), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Add(a[0], a[1]))
		}),
		"*niro.Unary": unary(types(niro.F64), types(niro.F64), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Unary(niro.Exp, a[0]))
		}),
		"*niro.Compare": unary(types(mat, niro.Tensor(niro.F32, 2, 1)), types(niro.Tensor(niro.Bool, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Compare(niro.Lt, a[0], a[1]))
		}),
		"*niro.Cast": unary(types(mat), types(niro.Tensor(niro.I64, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Cast(a[0], niro.I64))
		}),
		"*niro.Select": unary(types(niro.Tensor(niro.Bool, 3), mat, niro.Tensor(niro.F32)), types(mat), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Select(a[0], a[1], a[2]))
		}),
		"*niro.Reduce": unary(types(mat), types(niro.Tensor(niro.F32, 2, 1)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Reduce{Kind: niro.ReduceMax, Axes: []int{1}, KeepDims: true, X: a[0]})...)
		}),
		"*niro.Reshape": unary(types(mat), types(niro.Tensor(niro.F32, 6)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Reshape{Shape: []int64{6}, X: a[0]})...)
		}),
		"*niro.Broadcast": unary(types(niro.Tensor(niro.F32, 3)), types(niro.Tensor(niro.F32, 4, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Broadcast{Shape: []int64{4, 3}, X: a[0]})...)
		}),
		"*niro.Iota": unary(nil, types(niro.Tensor(niro.I64, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Iota{Axis: 1, Type: niro.Tensor(niro.I64, 2, 3)})...)
		}),
		"*niro.Concat": unary(types(mat, niro.Tensor(niro.F32, 1, 3)), types(niro.Tensor(niro.F32, 3, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Concat{Axis: 0, Inputs: []niro.Value{a[0], a[1]}})...)
		}),
		"*niro.Slice": unary(types(mat), types(niro.Tensor(niro.F32, 2, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Slice{Starts: []int64{1, 2}, Steps: []int64{-1, -2}, Shape: []int64{2, 2}, X: a[0]})...)
		}),
		"*niro.CumSum": unary(types(mat), types(mat), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.CumSum{Axis: 1, Exclusive: true, Reverse: true, X: a[0]})...)
		}),
		"*niro.Pad": unary(types(mat, niro.Tensor(niro.F32)), types(niro.Tensor(niro.F32, 3, 4)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Pad{Mode: "reflect", Low: []int64{1, 2}, High: []int64{0, -1}, X: a[0], Value: a[1]})...)
		}),
		"*niro.Gather": unary(types(niro.Tensor(niro.F32, 3, 2), niro.Tensor(niro.I64, 2, 2)), types(niro.Tensor(niro.F32, 2, 2, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Gather{Axis: 0, X: a[0], Indices: a[1]})...)
		}),
		"*niro.GatherElements": unary(types(niro.Tensor(niro.F32, 2, 2), niro.Tensor(niro.I32, 2, 2)), types(niro.Tensor(niro.F32, 2, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.GatherElements{Axis: 1, X: a[0], Indices: a[1]})...)
		}),
		"*niro.GatherND": unary(types(niro.Tensor(niro.F32, 2, 2), niro.Tensor(niro.I64, 2, 2)), types(niro.Tensor(niro.F32, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.GatherND{X: a[0], Indices: a[1]})...)
		}),
		"*niro.Scatter": unary(types(niro.Tensor(niro.F32, 4, 4), niro.Tensor(niro.I64, 2, 1), niro.Tensor(niro.F32, 2, 4)), types(niro.Tensor(niro.F32, 4, 4)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Scatter{Kind: niro.ScatterND, Reduction: niro.ScatterAdd, X: a[0], Indices: a[1], Updates: a[2]})...)
		}),
		"*niro.ArgReduce": unary(types(mat), types(niro.Tensor(niro.I64, 2, 1)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.ArgReduce{Kind: niro.ArgMin, Axis: 1, KeepDims: true, SelectLast: true, X: a[0]})...)
		}),
		"*niro.TopK": unary(types(mat), types(niro.Tensor(niro.F32, 2, 2), niro.Tensor(niro.I64, 2, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.TopK{Axis: 1, K: 2, Largest: true, Sorted: true, X: a[0]})...)
		}),
		"*niro.Recurrent": unary(types(niro.Tensor(niro.F32, 3, 2, 3), niro.Tensor(niro.F32, 2, 3, 8), niro.Tensor(niro.F32, 2, 2, 8), niro.Tensor(niro.F32, 2, 16), niro.Tensor(niro.I32, 2), niro.Tensor(niro.F32, 2, 2, 2), niro.Tensor(niro.F32, 2, 2, 2), niro.Tensor(niro.F32, 2, 6)),
			types(niro.Tensor(niro.F32, 3, 2, 2, 2), niro.Tensor(niro.F32, 2, 2, 2), niro.Tensor(niro.F32, 2, 2, 2)), func(b *niro.Builder, a []niro.Value) {
				b.Return(b.Insert(&niro.Recurrent{Kind: niro.LSTM, Direction: "bidirectional", HiddenSize: 2,
					Activations: []string{"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Elu", "ScaledTanh"}, Alpha: []float64{0, 0, 0, 0.2, 1, 1}, Beta: []float64{0, 0, 0, 0.5, 0, 1},
					HasClip: true, Clip: 3, InputForget: true, X: a[0], W: a[1], R: a[2], B: a[3], SeqLens: a[4], H0: a[5], C0: a[6], P: a[7]})...)
			}),
		"*niro.MatMul": unary(types(mat, niro.Tensor(niro.F32, 3, niro.Dynamic)), types(niro.Tensor(niro.F32, 2, niro.Dynamic)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.MatMul(a[0], a[1]))
		}),
		"*niro.Conv": unary(types(niro.Tensor(niro.F32, 1, 4, 5, 5), niro.Tensor(niro.F32, 6, 2, 3, 2), niro.Tensor(niro.F32, 6)), types(niro.Tensor(niro.F32, 1, 6, 2, 4)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Conv{Strides: []int64{2, 1}, Dilations: []int64{1, 2}, Pads: []int64{0, 1, 0, 0}, Groups: 2, X: a[0], W: a[1], B: a[2]})...)
		}),
		"*niro.Pool": unary(types(niro.Tensor(niro.F32, 1, 2, 5)), types(niro.Tensor(niro.F32, 1, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.Pool{Kind: niro.PoolAvg, Kernel: []int64{2}, Strides: []int64{2}, Dilations: []int64{1}, Pads: []int64{1, 0}, CountIncludePad: true, X: a[0]})...)
		}),
		"*niro.MaxPoolIndices": unary(types(niro.Tensor(niro.F32, 1, 2, 5)), types(niro.Tensor(niro.I64, 1, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.MaxPoolIndices{Kernel: []int64{2}, Strides: []int64{2}, Dilations: []int64{1}, Pads: []int64{1, 0}, StorageOrder: 1, X: a[0]})...)
		}),
		"*niro.Call": func() *niro.Module {
			m := niro.NewModule()
			callee := m.DeclareFunction("callee", sig(types(niro.F32), types(niro.F32, niro.Bool)))
			f := m.AddFunction("f", sig(types(niro.F32), types(niro.F32)))
			b := f.Builder()
			b.Return(b.Call(callee, f.Args()[0])[0])
			return m
		},
		"*niro.Branch": unary(types(niro.F32), types(niro.F32), func(b *niro.Builder, a []niro.Value) {
			next := b.NewBlock(niro.F32)
			b.Br(next, a[0])
			b.SetBlock(next)
			b.Return(next.Args[0])
		}),
		"*niro.CondBranch": unary(types(niro.Bool), nil, func(b *niro.Builder, a []niro.Value) {
			yes, no := b.NewBlock(niro.Bool), b.NewBlock()
			b.CondBr(a[0], yes, a, no, nil)
			b.SetBlock(yes)
			b.Return()
			b.SetBlock(no)
			b.Return()
		}),
		"*niro.Return": unary(nil, nil, func(b *niro.Builder, _ []niro.Value) { b.Return() }),
		"*niro.Yield": unary(types(niro.Bool), nil, func(b *niro.Builder, a []niro.Value) {
			u := b.Unknown("test.region", nil, nil, nil)
			b.AddRegion(u).Yield(a[0])
			b.Return()
		}),
		"*niro.If": unary(types(niro.Bool, niro.F32), types(niro.F32), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.If(a[0], types(niro.F32),
				func(b *niro.Builder) { b.Yield(a[1]) },
				func(b *niro.Builder) { b.Yield(b.Add(a[1], a[1])) })...)
		}),
		"*niro.DynSlice": unary(types(niro.Tensor(niro.F32, 5, 2), niro.Tensor(niro.I64, 1), niro.Tensor(niro.I64, 1)), types(niro.Tensor(niro.F32, niro.Dynamic, 2)), func(b *niro.Builder, a []niro.Value) {
			b.Return(b.Insert(&niro.DynSlice{Axes: []int{0}, X: a[0], Starts: a[1], Ends: a[2]})...)
		}),
		"*niro.Loop": unary(types(niro.Tensor(niro.I64), niro.Tensor(niro.F32, 2), niro.Tensor(niro.F32, 3, 2)), types(niro.Tensor(niro.F32, 2), niro.Tensor(niro.F32, 2, 3)), func(b *niro.Builder, a []niro.Value) {
			op := &niro.Loop{Trip: a[0], HasTrip: true, Init: a[1:2], Scans: a[2:3], ScanInAxes: []int{0}, ScanInReverse: []bool{true}, ScanOutAxes: []int{1}, ScanOutReverse: []bool{false}}
			b.Return(b.Loop(op, types(niro.Tensor(niro.F32, 2), niro.Tensor(niro.F32, 2, 3)), func(b *niro.Builder, args []niro.Value) {
				s := b.Add(args[1], args[2])
				b.Yield(s, s)
			})...)
		}),
		"*niro.UnknownOp": unary(types(niro.F32), types(niro.F32), func(b *niro.Builder, a []niro.Value) {
			u := b.Unknown("onnx.Relu", a, types(niro.F32), niro.Attrs{"k": niro.ListAttr{niro.BytesAttr{1}, niro.BoolAttr(false)}})
			b.Return(u.Res...)
		}),
	}
}

// TestOpSamples round-trips a sample of every op kind through the printer
// and the parser, and checks that the parser gives back that kind.
func TestOpSamples(t *testing.T) {
	samples := opSamples()
	for _, kind := range niro.OpKinds() {
		name := opTypeName(kind)
		t.Run(name, func(t *testing.T) {
			build, ok := samples[name]
			if !ok {
				t.Fatalf("no sample module for op kind %s in opSamples", name)
			}
			m := build()
			mustVerify(t, m)
			back := checkRoundTrip(t, m)
			found := false
			for _, f := range back.Functions {
				f.Body.Walk(func(op niro.Op) bool {
					found = found || opTypeName(op) == name
					return !found
				})
			}
			if !found {
				t.Errorf("the parsed sample has no %s:\n%s", name, back)
			}
		})
	}
	if len(samples) != len(niro.OpKinds()) {
		t.Errorf("opSamples has %d entries for %d op kinds", len(samples), len(niro.OpKinds()))
	}
}

// TestZeroOps runs every zero-valued op kind through the printer, the
// verifier and the Op methods: none may panic on invalid IR.
func TestZeroOps(t *testing.T) {
	for _, kind := range niro.OpKinds() {
		t.Run(opTypeName(kind), func(t *testing.T) {
			_ = kind.Name()
			_ = kind.Operands()
			_ = kind.Results()
			_ = kind.Regions()
			_ = kind.Successors()
			_ = kind.Location()
			_ = niro.IsTerminator(kind)
			m := niro.NewModule()
			f := m.AddFunction("f", niro.FunctionType{})
			f.Entry().Ops = append(f.Entry().Ops, kind, &niro.Return{})
			text := m.String()
			if !strings.Contains(text, "func @f") {
				t.Errorf("printed module lacks the function:\n%s", text)
			}
			if niro.Verify(m) == nil {
				t.Errorf("a zero-valued %s verifies:\n%s", opTypeName(kind), text)
			}
			_ = niro.FunctionString(f)
		})
	}
}

// TestMutatedIRNeverPanics takes every valid verifier case and, one
// mutation at a time, replaces an op by the zero value of its kind, or a
// block or region by nil, then verifies and prints the result. Neither may
// panic, and the verifier must reject every mutation that changes the text,
// except an emptied yield, whose signature is opaque in unknown ops' regions.
func TestMutatedIRNeverPanics(t *testing.T) {
	for _, c := range loadCases(t, "verify") {
		if !strings.HasSuffix(c.name, "_ok") {
			continue
		}
		src := c.mustSection(t, "in.niro")
		parse := func() *niro.Module {
			m, err := niro.Parse("in.niro", src)
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			return m
		}
		for i := 0; ; i++ {
			m := parse()
			orig := m.String()
			ok, emptiedYield := mutate(m, i)
			if !ok {
				break
			}
			text := m.String()
			if err := niro.Verify(m); err == nil && text != orig && !emptiedYield {
				t.Errorf("%s: mutation %d verifies:\n%s", c.path, i, text)
			}
		}
	}
}

// mutate applies the n-th mutation of m's op slots, blocks and regions, in
// walk order, and reports whether there was one and whether it replaced a
// yield.
func mutate(m *niro.Module, n int) (ok, emptiedYield bool) {
	k := 0
	hit := func() bool { k++; return k-1 == n }
	var region func(r *niro.Region) bool
	region = func(r *niro.Region) bool {
		for bi, b := range r.Blocks {
			if hit() {
				r.Blocks[bi] = nil
				return true
			}
			for oi, op := range b.Ops {
				if hit() {
					zero := reflect.New(reflect.TypeOf(op).Elem()).Interface().(niro.Op)
					b.Ops[oi] = zero
					_, emptiedYield = op.(*niro.Yield)
					return true
				}
				switch op := op.(type) {
				case *niro.If:
					if hit() {
						op.Then = nil
						return true
					}
				case *niro.Loop:
					if hit() {
						op.Body = nil
						return true
					}
				case *niro.UnknownOp:
					if len(op.Bodies) > 0 && hit() {
						op.Bodies[0] = nil
						return true
					}
				}
				for _, sub := range op.Regions() {
					if sub != nil && region(sub) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, f := range m.Functions {
		if f.Body != nil && region(f.Body) {
			return true, emptiedYield
		}
	}
	return false, false
}
