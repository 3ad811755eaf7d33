package opt

import (
	"math"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// splat reports whether v is a constant whose every element has the
// value want (compared by bits for floats: -0 and +0 differ).
func splat(consts map[niro.ValueID]*niro.Const, v niro.Value, want float64) bool {
	c := consts[v.ID]
	if c == nil {
		return false
	}
	t, ok := constOf(c)
	if !ok || t.Elem == niro.Bool {
		return false
	}
	n := int(tensorio.NumElements(t.Dims))
	size := t.Elem.Bits() / 8
	if size == 0 || n == 0 {
		return false
	}
	var wantBits uint64
	if t.Elem.IsFloat() {
		wantBits = niro.FloatBits(t.Elem, want)
	} else {
		wantBits = uint64(int64(want))
		if size < 8 {
			wantBits &= 1<<(8*size) - 1
		}
	}
	for i := 0; i < n; i++ {
		var b uint64
		for j := 0; j < size; j++ {
			b |= uint64(t.Data[i*size+j]) << (8 * j)
		}
		if b != wantBits {
			return false
		}
	}
	return true
}

// simplify applies identities that are exact in IEEE arithmetic (and on
// wrapping integers), replacing an op's result by an existing value or a
// simpler op; dce then removes what became unused:
//
//   - x·1 and 1·x → x;
//   - x + 0, 0 + x and x − 0 on integers; on floats x + (−0), (−0) + x
//     and x − (+0) (x + (+0) is not x for x = −0);
//   - cast to the operand's own type → x;
//   - reshape or broadcast to the operand's own type → x; reshape of
//     reshape → one reshape;
//   - transpose of transpose → one transpose (none when the permutations
//     cancel).
//
// A replacement is made only when the value's type equals the result's
// (no broadcasting is dropped).
func simplify(f *niro.Function) error {
	uses := niro.Users(f)
	consts := map[niro.ValueID]*niro.Const{}
	defs := map[niro.ValueID]niro.Op{}
	eachBlock(f.Body, func(b *niro.Block) {
		for i, op := range b.Ops {
			for _, r := range op.Results() {
				defs[r.ID] = op
			}
			if c, ok := op.(*niro.Const); ok {
				consts[c.Result.ID] = c
				continue
			}
			var res, with niro.Value
			found := false
			same := func(v niro.Value) {
				if !found && niro.TypesEqual(v.Type, res.Type) {
					with, found = v, true
				}
			}
			switch op := op.(type) {
			case *niro.Binary:
				res = op.Result
				isF := niro.ElemOf(res.Type).IsFloat()
				negZero := math.Copysign(0, -1)
				switch op.Kind {
				case niro.Mul:
					if splat(consts, op.RHS, 1) {
						same(op.LHS)
					}
					if splat(consts, op.LHS, 1) {
						same(op.RHS)
					}
				case niro.Add:
					z := 0.0
					if isF {
						z = negZero
					}
					if splat(consts, op.RHS, z) {
						same(op.LHS)
					}
					if splat(consts, op.LHS, z) {
						same(op.RHS)
					}
				case niro.Sub:
					if splat(consts, op.RHS, 0) {
						same(op.LHS)
					}
				}
			case *niro.Cast:
				res = op.Result
				if niro.ElemOf(op.X.Type) == op.To {
					same(op.X)
				}
			case *niro.Reshape:
				res = op.Result
				same(op.X)
				if inner, ok := defs[op.X.ID].(*niro.Reshape); ok && !found {
					op.X = inner.X
					if u := uses[inner.Result.ID]; len(u) > 0 {
						uses[inner.X.ID] = append(uses[inner.X.ID], niro.Use{Op: op, Index: 0})
					}
					same(op.X)
				}
			case *niro.Broadcast:
				res = op.Result
				same(op.X)
			case *niro.Transpose:
				res = op.Result
				if inner, ok := defs[op.X.ID].(*niro.Transpose); ok {
					perm := make([]int, len(op.Perm))
					ident := true
					for j, p := range op.Perm {
						perm[j] = inner.Perm[p]
						ident = ident && perm[j] == j
					}
					if ident {
						same(inner.X)
					} else {
						nt := &niro.Transpose{Result: op.Result, X: inner.X, Perm: perm}
						nt.SetLocation(op.Location())
						b.Ops[i] = nt
						defs[op.Result.ID] = nt
					}
				}
			}
			if found {
				replaceAll(f, uses, res, with)
			}
		}
	})
	return dce(f)
}
