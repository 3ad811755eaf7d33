package opt

import (
	"bytes"
	"math"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// foldable reports whether fold may evaluate op at compile time: a pure
// op whose result the compiled code computes with the same bits as the
// interpreter. The functions the compiled code takes from libm (the
// transcendental ones other than niro's f32 polynomials, and pow) are
// left to run time, so folding never changes a result.
func foldable(op niro.Op) bool {
	switch op := op.(type) {
	case *niro.Const, *niro.GetGlobal:
		return false
	case *niro.Unary:
		switch op.Kind {
		case niro.Neg, niro.Abs, niro.Sqrt, niro.Floor, niro.Ceil, niro.Round, niro.Sign, niro.Not, niro.BitNot:
			return true
		case niro.Exp, niro.Log, niro.Tanh, niro.Erf:
			return niro.ElemOf(op.X.Type) != niro.F64
		}
		return false
	case *niro.Binary:
		return op.Kind != niro.Pow
	case *niro.Pool:
		return op.Kind != niro.PoolLp || op.P <= 2
	}
	return pure(op)
}

// constOf returns the packed value of a Const operand.
func constOf(c *niro.Const) (tensorio.Tensor, bool) {
	switch t := c.Result.Type.(type) {
	case niro.TensorType:
		b, ok := c.Lit.(niro.BytesLit)
		if !ok || !t.HasStaticShape() {
			return tensorio.Tensor{}, false
		}
		return tensorio.Tensor{Elem: t.Elem, Dims: t.Dims, Data: b}, true
	case niro.ScalarType:
		data := make([]byte, niro.PackedBytes(t, 1))
		switch l := c.Lit.(type) {
		case niro.BoolLit:
			if l {
				data[0] = 1
			}
		case niro.IntLit:
			if t.IsFloat() {
				putFloat(t, data, float64(l))
			} else {
				for i := range data {
					data[i] = byte(uint64(l) >> (8 * i))
				}
			}
		case niro.FloatLit:
			putFloat(t, data, float64(l))
		default:
			return tensorio.Tensor{}, false
		}
		return tensorio.Tensor{Elem: t, Data: data}, true
	}
	return tensorio.Tensor{}, false
}

func putFloat(t niro.ScalarType, data []byte, v float64) {
	b := niro.FloatBits(t, v)
	for i := range data {
		data[i] = byte(b >> (8 * i))
	}
}

// fold replaces ops whose operands are all constants by constants of
// their results, each at most o.FoldLimit bytes. A result whose bytes
// equal an operand's shares that operand's literal, so folding a reshape
// of a weight copies nothing.
func fold(m *niro.Module, o Options) error {
	limit := o.FoldLimit
	if limit <= 0 {
		limit = DefaultFoldLimit
	}
	return forFuncs(m, func(f *niro.Function) error {
		consts := map[niro.ValueID]*niro.Const{}
		eachBlock(f.Body, func(b *niro.Block) {
			for i, op := range b.Ops {
				if c, ok := op.(*niro.Const); ok {
					consts[c.Result.ID] = c
					continue
				}
				if !foldable(op) || len(op.Results()) != 1 {
					continue
				}
				res := op.Results()[0]
				rt, ok := res.Type.(niro.TensorType)
				if ok && (!rt.HasStaticShape() || niro.PackedBytes(rt.Elem, rt.NumElements()) > limit) {
					continue
				}
				var ins []tensorio.Tensor
				all := true
				for _, v := range op.Operands() {
					c := consts[v.ID]
					if c == nil {
						all = false
						break
					}
					t, ok := constOf(c)
					if !ok {
						all = false
						break
					}
					ins = append(ins, t)
				}
				if !all {
					continue
				}
				outs, err := interp.EvalOp(op, ins, interp.Options{})
				if err != nil {
					continue // undefined (a division by zero): left to run time
				}
				lit := niro.Literal(niro.BytesLit(outs[0].Data))
				for _, in := range ins {
					if bytes.Equal(in.Data, outs[0].Data) {
						lit = niro.BytesLit(in.Data) // shares the operand's bytes
						break
					}
				}
				if st, ok := res.Type.(niro.ScalarType); ok {
					lit = scalarLit(st, outs[0])
				}
				c := &niro.Const{Result: res, Lit: lit}
				c.SetLocation(op.Location())
				b.Ops[i] = c
				consts[res.ID] = c
			}
		})
		return nil
	})
}

// scalarLit returns the literal of a scalar result.
func scalarLit(t niro.ScalarType, v tensorio.Tensor) niro.Literal {
	var bits uint64
	for i, b := range v.Data {
		bits |= uint64(b) << (8 * i)
	}
	switch {
	case t == niro.Bool:
		return niro.BoolLit(bits != 0)
	case t.IsFloat():
		switch t {
		case niro.F64:
			return niro.FloatLit(float64frombits(bits))
		default:
			return niro.FloatLit(tensorioFloat(v))
		}
	case t.IsSigned():
		shift := 64 - uint(t.Bits())
		return niro.IntLit(int64(bits<<shift) >> shift)
	}
	return niro.IntLit(int64(bits))
}

func float64frombits(b uint64) float64 { return math.Float64frombits(b) }

// tensorioFloat reads the one float of a rank-0 tensor exactly.
func tensorioFloat(v tensorio.Tensor) float64 {
	switch v.Elem {
	case niro.F32:
		return float64(math.Float32frombits(uint32(v.Data[0]) | uint32(v.Data[1])<<8 | uint32(v.Data[2])<<16 | uint32(v.Data[3])<<24))
	case niro.F16:
		return tensorio.F16ToFloat64(uint16(v.Data[0]) | uint16(v.Data[1])<<8)
	case niro.BF16:
		return float64(math.Float32frombits(uint32(uint16(v.Data[0])|uint16(v.Data[1])<<8) << 16))
	}
	return math.NaN()
}
