package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// randomGraph builds a random small graph of element-wise, reduction,
// select, cast and matmul ops on one element type from seed, with its
// inputs. It has one output (so no two outputs can fold into one value).
// Every op in it is exact in niro's semantics (no libm function), so the
// compiled and the interpreted results must agree bit for bit.
func randomGraph(seed uint64) (oracleCase, string) {
	r := rand.New(rand.NewPCG(seed, 0x6e69726f))
	elems := []niro.ScalarType{niro.F32, niro.F32, niro.F16, niro.BF16, niro.F64, niro.I32, niro.I64, niro.I8, niro.U8}
	elem := elems[r.IntN(len(elems))]
	isF := elem.IsFloat()
	A, B := int64(1+r.IntN(5)), int64(1+r.IntN(7))
	shapes := [][]int64{{A, B}, {A, B}, {B}, {1, B}, {A, 1}}
	nIn := 2 + r.IntN(3)
	var types []niro.Type
	var inputs []tensorio.Tensor
	for i := 0; i < nIn; i++ {
		d := shapes[i%len(shapes)]
		if i >= 2 {
			d = shapes[2+r.IntN(3)]
		}
		types = append(types, niro.Tensor(elem, d...))
		if isF {
			inputs = append(inputs, floatInput(r, elem, d, r.IntN(2) == 0))
		} else {
			inputs = append(inputs, intInput(r, elem, d, -50, 50, false))
		}
	}
	cb := newCase(fmt.Sprintf("fuzz_%d", seed), types...)
	pool := append([]niro.Value(nil), cb.f.Args()...)
	var desc []string
	pick := func() niro.Value {
		// Prefer recent values, so the graph is deep rather than wide.
		n := len(pool)
		return pool[max(0, n-1-r.IntN(min(n, 4)))]
	}
	dims := func(v niro.Value) []int64 { return v.Type.(niro.TensorType).Dims }
	compatible := func(x niro.Value) niro.Value {
		for tries := 0; tries < 8; tries++ {
			y := pool[r.IntN(len(pool))]
			if _, err := niro.BroadcastShape(dims(x), dims(y)); err == nil {
				return y
			}
		}
		return x
	}
	binKinds := []niro.BinaryKind{niro.Add, niro.Sub, niro.Mul, niro.Max, niro.Min}
	if isF {
		binKinds = append(binKinds, niro.Div, niro.Rem, niro.Mod)
	} else {
		binKinds = append(binKinds, niro.And, niro.Or, niro.Xor)
	}
	unKinds := []niro.UnaryKind{niro.Abs, niro.Sign}
	if isF {
		unKinds = append(unKinds, niro.Neg, niro.Sqrt, niro.Floor, niro.Ceil, niro.Round)
		if elem != niro.F64 {
			unKinds = append(unKinds, niro.Exp, niro.Log, niro.Tanh, niro.Erf) // niro's polynomials
		}
	} else if elem.IsSigned() {
		unKinds = append(unKinds, niro.Neg, niro.BitNot)
	}
	nOps := 3 + r.IntN(6)
	for i := 0; i < nOps; i++ {
		x := pick()
		var v niro.Value
		switch c := r.IntN(10); {
		case c < 4:
			k := binKinds[r.IntN(len(binKinds))]
			y := compatible(x)
			if r.IntN(2) == 0 {
				x, y = y, x
			}
			v = cb.tmp(&niro.Binary{Kind: k, LHS: x, RHS: y})
			desc = append(desc, k.String())
		case c < 6:
			k := unKinds[r.IntN(len(unKinds))]
			v = cb.tmp(&niro.Unary{Kind: k, X: x})
			desc = append(desc, k.String())
		case c < 7:
			rank := len(dims(x))
			if rank == 0 {
				continue
			}
			var axes []int
			for a := 0; a < rank; a++ {
				if r.IntN(2) == 0 {
					axes = append(axes, a)
				}
			}
			if len(axes) == 0 {
				axes = []int{r.IntN(rank)}
			}
			k := niro.ReduceKinds()[r.IntN(4)]
			v = cb.tmp(&niro.Reduce{Kind: k, Axes: axes, KeepDims: r.IntN(2) == 0, X: x})
			desc = append(desc, fmt.Sprintf("%s%v", k, axes))
		case c < 8:
			y := compatible(x)
			p := niro.Predicates()[r.IntN(6)]
			cond := cb.tmp(&niro.Compare{Pred: p, LHS: x, RHS: y})
			v = cb.tmp(&niro.Select{Cond: cond, X: x, Y: y})
			desc = append(desc, "select(cmp_"+p.String()+")")
		case c < 9:
			d := dims(x)
			if len(d) != 2 {
				continue
			}
			N := int64(1 + r.IntN(4))
			w := niro.Tensor(elem, d[1], N)
			// A new input of the right shape.
			arg := cb.f.NewValue(w)
			cb.f.Body.Blocks[0].Args = append(cb.f.Body.Blocks[0].Args, arg)
			cb.f.Type.Inputs = append(cb.f.Type.Inputs, w)
			if isF {
				inputs = append(inputs, floatInput(r, elem, w.Dims, true))
			} else {
				inputs = append(inputs, intInput(r, elem, w.Dims, -9, 9, false))
			}
			v = cb.b.MatMul(x, arg)
			desc = append(desc, "matmul")
		default:
			// A cast to another type and back: rounding and wrapping.
			to := []niro.ScalarType{niro.F16, niro.BF16, niro.F32, niro.I32, niro.I8}[r.IntN(5)]
			if to == elem || isF && !to.IsFloat() {
				continue // float to int is undefined outside the range
			}
			mid := cb.tmp(&niro.Cast{To: to, X: x})
			v = cb.tmp(&niro.Cast{To: elem, X: mid})
			desc = append(desc, "cast "+to.String()+" and back")
		}
		pool = append(pool, v)
	}
	cb.out("result", "", pool[len(pool)-1])
	return cb.finish(inputs), elem.String() + ": " + strings.Join(desc, ", ")
}

// FuzzInterpVsCompiled compiles random graphs (randomGraph) and compares
// them with the interpreter bit for bit. Without -fuzz it runs the seed
// corpus: the f.Add seeds and testdata/fuzz/FuzzInterpVsCompiled.
// fuzzcount: 24
func FuzzInterpVsCompiled(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 5, 8, 13} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		requireTools(t)
		c, desc := randomGraph(seed)
		if len(c.m.Entry().Type.Outputs) == 0 {
			return
		}
		if err := niro.Verify(c.m); err != nil {
			t.Fatalf("seed %d (%s): invalid graph: %v", seed, desc, err)
		}
		t.Logf("seed %d: %s", seed, desc)
		checkOracle(t, c, map[string]float64{})
	})
}

// TestRandomGraphsInterpret checks, without any tool, that the random
// graphs are valid and the interpreter evaluates them.
func TestRandomGraphsInterpret(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		c, desc := randomGraph(seed)
		if err := niro.Verify(c.m); err != nil {
			t.Fatalf("seed %d (%s): invalid graph: %v", seed, desc, err)
		}
		if _, err := interpRun(c); err != nil {
			t.Fatalf("seed %d (%s): %v", seed, desc, err)
		}
	}
}

func interpRun(c oracleCase) ([]tensorio.Tensor, error) {
	return interp.Run(c.m, c.inputs, interp.Options{})
}
