package emit

import (
	"strings"

	"github.com/niro-dev/niro/niro"
)

// pad lowers Pad to a generic over the result that reads the pad value
// (a rank-0 input) and computes, from linalg.index of each axis, the
// source index in the operand: i - low, then per mode clamped (edge),
// reduced modulo the extent (wrap) or reflected with period 2(n-1)
// (reflect). Constant mode extracts at the clamped index and selects the
// pad value where any axis falls outside the operand. An operand with an
// empty axis gives the pad value everywhere.
func (fe *funcEmitter) pad(op *niro.Pad) {
	res, x, v := op.Result, op.X, op.Value
	rt, ok := rankedTensor(res)
	xt, ok1 := rankedTensor(x)
	if !ok || !ok1 || !xt.HasStaticShape() || !rt.HasStaticShape() || len(op.Low) != xt.Rank() {
		fe.opErrorf(op, "pad %s: needs static shapes, got %s -> %s", name(res), typeName(x.Type), typeName(res.Type))
		return
	}
	elem, err := scalarType(xt.Elem)
	if err != nil {
		fe.typ(x)
		return
	}
	R := rt.Rank()
	empty := xt.NumElements() == 0
	low, high, xdims, rdims := op.Low, op.High, xt.Dims, rt.Dims
	if fe.channelsLast(res) { // and x (layout.go): the same padding in channels-last order
		low, high, xdims, rdims = clOrder(low), clOrder(high), nhwcDims(xdims), nhwcDims(rdims)
	}
	dst := fe.empty(rdims, elem, nil)
	fe.generic(name(res), parallel(R),
		[]genericOperand{{name: name(v), typ: fe.typ(v), elem: elem, amap: affineMap(R, nil)}},
		genericOperand{name: dst, typ: fe.typ(res), elem: elem, amap: identityMap(R)},
		"", func(args []string) string {
			if empty {
				return args[0]
			}
			idx := make([]string, R)
			inside := ""
			for j := 0; j < R; j++ {
				n := xdims[j]
				i, src := fe.tmp(), fe.tmp()
				fe.line("%s = linalg.index %d : index", i, j)
				fe.line("%s = arith.subi %s, %s : index", src, i, fe.index(low[j]))
				switch op.Mode {
				case "constant":
					if low[j] > 0 || high[j] > 0 {
						ge, lt, in := fe.tmp(), fe.tmp(), fe.tmp()
						fe.line("%s = arith.cmpi sge, %s, %s : index", ge, src, fe.index(0))
						fe.line("%s = arith.cmpi slt, %s, %s : index", lt, src, fe.index(n))
						fe.line("%s = arith.andi %s, %s : i1", in, ge, lt)
						if inside != "" {
							both := fe.tmp()
							fe.line("%s = arith.andi %s, %s : i1", both, inside, in)
							in = both
						}
						inside = in
					}
					idx[j] = fe.clampIndex(src, n)
				case "edge":
					idx[j] = fe.clampIndex(src, n)
				case "wrap":
					idx[j] = fe.modIndex(src, n)
				case "reflect":
					if n == 1 {
						idx[j] = fe.index(0)
						break
					}
					p := 2 * (n - 1)
					m, ge, back, r := fe.modIndex(src, p), fe.tmp(), fe.tmp(), fe.tmp()
					fe.line("%s = arith.cmpi sge, %s, %s : index", ge, m, fe.index(n))
					fe.line("%s = arith.subi %s, %s : index", back, fe.index(p), m)
					fe.line("%s = arith.select %s, %s, %s : index", r, ge, back, m)
					idx[j] = r
				default:
					fe.opErrorf(op, "pad %s: unknown mode %q", name(res), op.Mode)
					return args[0]
				}
			}
			e := fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", e, name(x), strings.Join(idx, ", "), fe.typ(x))
			if inside == "" {
				return e
			}
			y := fe.tmp()
			fe.line("%s = arith.select %s, %s, %s : %s", y, inside, e, args[0], elem)
			return y
		})
}

// clampIndex returns the index a clamped to [0, n-1].
func (fe *funcEmitter) clampIndex(a string, n int64) string {
	lo, hi := fe.tmp(), fe.tmp()
	fe.line("%s = arith.maxsi %s, %s : index", lo, a, fe.index(0))
	fe.line("%s = arith.minsi %s, %s : index", hi, lo, fe.index(n-1))
	return hi
}

// modIndex returns the index a modulo n, in [0, n).
func (fe *funcEmitter) modIndex(a string, n int64) string {
	r, neg, up, m := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.remsi %s, %s : index", r, a, fe.index(n))
	fe.line("%s = arith.cmpi slt, %s, %s : index", neg, r, fe.index(0))
	fe.line("%s = arith.addi %s, %s : index", up, r, fe.index(n))
	fe.line("%s = arith.select %s, %s, %s : index", m, neg, up, r)
	return m
}
