package emit

import (
	"bytes"
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// This file lowers the element-wise families (Binary, Unary, Compare,
// Cast, Select) through one path: [funcEmitter.elementwise] writes either
// one scalar computation or a tensor.empty plus one broadcasting
// linalg.generic, and each family supplies only its scalar body. The
// scalar bodies are also the building blocks of other lowerings
// (reductions, decompositions).

// scalarBody computes one result element from the operand elements (SSA
// names of scalars of the operands' element types).
type scalarBody func(args []string) (string, error)

// elementwise lowers an element-wise op whose operands broadcast to res.
func (fe *funcEmitter) elementwise(op niro.Op, res niro.Value, operands []niro.Value, body scalarBody) {
	if _, scalar := res.Type.(niro.ScalarType); scalar {
		args := make([]string, len(operands))
		for i, v := range operands {
			if _, ok := v.Type.(niro.ScalarType); !ok {
				fe.opErrorf(op, "%s %s: operand %s is not a scalar", op.Name(), name(res), name(v))
				return
			}
			args[i] = name(v)
		}
		if _, err := mlirType(res.Type); err != nil {
			fe.typ(res)
			return
		}
		y, err := body(args)
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return
		}
		fe.rename(y, name(res))
		return
	}
	rt, ok := rankedTensor(res)
	if !ok {
		fe.opErrorf(op, "%s %s: the result must be a ranked tensor, has %s", op.Name(), name(res), typeName(res.Type))
		return
	}
	if s := fe.epiSplit[res.ID]; s != nil {
		// A per-group convolution's epilogue (conv_pergroup_epi.go).
		fe.elementwiseSplit(s, op, res, operands, body)
		return
	}
	if fe.channelsLast(res) {
		fe.elementwiseNHWC(op, res, operands, body)
		return
	}
	relem, err := scalarType(rt.Elem)
	if err != nil {
		fe.typ(res)
		return
	}
	R := len(rt.Dims)
	var typesBuf [3]niro.TensorType
	var insBuf [3]genericOperand
	types, ins := typesBuf[:0], insBuf[:0]
	if len(operands) > len(insBuf) {
		types, ins = make([]niro.TensorType, 0, len(operands)), make([]genericOperand, 0, len(operands))
	}
	types, ins = types[:len(operands)], ins[:len(operands)]
	for i, v := range operands {
		t, elem, ok := fe.operandTensor(op, res, i, v)
		if !ok {
			return
		}
		m, err := broadcastMap(t.Dims, rt.Dims)
		if err != nil {
			fe.opErrorf(op, "%s %s: operand #%d %s does not broadcast to %s: %v", op.Name(), name(res), i, t, rt, err)
			return
		}
		types[i] = t
		ins[i] = genericOperand{name: name(v), typ: fe.typ(v), elem: elem, amap: m}
	}
	dst := fe.empty(rt.Dims, relem, func(j int) string { return fe.broadcastExtent(operands, types, R, j) })
	out := genericOperand{name: dst, typ: fe.typ(res), elem: relem, amap: identityMap(R)}
	fe.generic(name(res), parallel(R), ins, out, "", func(args []string) string {
		y, err := body(args[:len(operands)])
		if err != nil {
			fe.opErrorf(op, "%s %s: %v", op.Name(), name(res), err)
			return args[len(operands)]
		}
		return y
	})
}

// rename gives the value y, defined by the last line written, the name
// dst. When y was not defined by that line (the body returned an operand
// unchanged), it binds dst to y with a select that canonicalization folds.
func (fe *funcEmitter) rename(y, dst string) {
	last := fe.body.lastLine()
	trimmed := bytes.TrimLeft(last, " ")
	if bytes.HasPrefix(trimmed, []byte(y+" = ")) {
		line := make([]byte, 0, len(last)-len(y)+len(dst))
		line = append(line, last[:len(last)-len(trimmed)]...)
		line = append(line, dst...)
		line = append(line, trimmed[len(y):]...)
		fe.body.rewriteLast(line)
		return
	}
	c := fe.boolConst(true)
	ty := "?"
	if t, err := mlirType(fe.cur.Results()[0].Type); err == nil {
		ty = t
	}
	fe.line("%s = arith.select %s, %s, %s : %s", dst, c, y, y, ty)
}

// broadcastExtent returns the index value of result axis j of a broadcast
// over operands: a static extent other than 1 if some operand has one,
// else a dynamic operand extent (which is never stretched), else 1.
func (fe *funcEmitter) broadcastExtent(operands []niro.Value, types []niro.TensorType, R, j int) string {
	for pass := 0; pass < 2; pass++ {
		for i, t := range types {
			a := j - (R - len(t.Dims))
			if a < 0 {
				continue
			}
			d := t.Dims[a]
			if pass == 0 && d >= 0 && d != 1 {
				return fe.index(d)
			}
			if pass == 1 && d < 0 {
				return fe.dim(operands[i], t, a)
			}
		}
	}
	return fe.index(1)
}

// boolConst returns an i1 constant.
func (fe *funcEmitter) boolConst(b bool) string {
	c := fe.tmp()
	fe.line("%s = arith.constant %t", c, b)
	return c
}

// scalarConst writes a constant of element type e holding v (converted
// exactly; v must be representable) and returns its name.
func (fe *funcEmitter) scalarConst(e niro.ScalarType, v float64) string {
	st, _ := scalarType(e)
	c := fe.tmp()
	switch {
	case e == niro.Bool:
		fe.line("%s = arith.constant %t", c, v != 0)
	case e.IsFloat():
		bits, digits := floatBits(e, v)
		fe.line("%s = arith.constant 0x%0*X : %s", c, digits, bits, st)
	default:
		fe.line("%s = arith.constant %d : %s", c, int64(v), st)
	}
	return c
}

// widen returns a as f32 when e is a 16-bit float, else a unchanged.
func (fe *funcEmitter) widen(e niro.ScalarType, a string) string {
	if !isHalf(e) {
		return a
	}
	return fe.extHalf(e, a) // bf16 as integers (bf16.go)
}

// narrow rounds an f32 a back to the 16-bit float e once.
func (fe *funcEmitter) narrow(e niro.ScalarType, a string) string {
	if !isHalf(e) {
		return a
	}
	st, _ := scalarType(e)
	r := fe.tmp()
	fe.line("%s = arith.truncf %s : f32 to %s", r, a, st)
	return r
}

// BinaryScalar writes a k b on elements of type e and returns the result.
// 16-bit floats are computed in f32 and rounded once.
func (fe *funcEmitter) binaryScalar(k niro.BinaryKind, e niro.ScalarType, a, b string) (string, error) {
	info := k.Info()
	if niro.ClassOf(e)&info.Types == 0 {
		return "", fmt.Errorf("%s is not defined on element type %s", info.Name, e)
	}
	if isHalf(e) {
		r, err := fe.binaryScalar(k, niro.F32, fe.widen(e, a), fe.widen(e, b))
		if err != nil {
			return "", err
		}
		return fe.narrow(e, r), nil
	}
	st, err := scalarType(e)
	if err != nil {
		return "", err
	}
	if sp := info.MLIR.For(e); sp != "" {
		r := fe.tmp()
		fe.lineOf(r, " = ", sp, " ", a, ", ", b, " : ", st)
		return r, nil
	}
	switch k {
	case niro.Mod:
		// The remainder with the sign of the divisor: rem, plus the
		// divisor when the remainder is nonzero and the signs differ.
		rem, cmp, zero := "arith.remsi", "arith.cmpi", "0"
		lt, ne, add := "slt", "ne", "arith.addi"
		if e.IsFloat() {
			rem, cmp, zero, lt, ne, add = "arith.remf", "arith.cmpf", fe.scalarConst(e, 0), "olt", "une", "arith.addf"
		} else {
			zero = fe.scalarConst(e, 0)
		}
		r, nz, rneg, bneg, diff, adj, rb, out := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
		fe.line("%s = %s %s, %s : %s", r, rem, a, b, st)
		fe.line("%s = %s %s, %s, %s : %s", nz, cmp, ne, r, zero, st)
		fe.line("%s = %s %s, %s, %s : %s", rneg, cmp, lt, r, zero, st)
		fe.line("%s = %s %s, %s, %s : %s", bneg, cmp, lt, b, zero, st)
		fe.line("%s = arith.xori %s, %s : i1", diff, rneg, bneg)
		fe.line("%s = arith.andi %s, %s : i1", adj, nz, diff)
		fe.line("%s = %s %s, %s : %s", rb, add, r, b, st)
		fe.line("%s = arith.select %s, %s, %s : %s", out, adj, rb, r, st)
		return out, nil
	}
	return "", fmt.Errorf("%s has no lowering for element type %s", info.Name, e)
}

// unaryScalar writes k(a) on elements of type e.
func (fe *funcEmitter) unaryScalar(k niro.UnaryKind, e niro.ScalarType, a string) (string, error) {
	info := k.Info()
	if niro.ClassOf(e)&info.Types == 0 {
		return "", fmt.Errorf("%s is not defined on element type %s", info.Name, e)
	}
	if isHalf(e) {
		r, err := fe.unaryScalar(k, niro.F32, fe.widen(e, a))
		if err != nil {
			return "", err
		}
		return fe.narrow(e, r), nil
	}
	st, err := scalarType(e)
	if err != nil {
		return "", err
	}
	if fe.mathPoly(k, e) {
		return polyF32[string](mlirOps{fe}, k, a), nil
	}
	if sp := info.MLIR.For(e); sp != "" {
		r := fe.tmp()
		fe.line("%s = %s %s : %s", r, sp, a, st)
		return r, nil
	}
	r := fe.tmp()
	switch k {
	case niro.Neg: // signed integers
		fe.line("%s = arith.subi %s, %s : %s", r, fe.scalarConst(e, 0), a, st)
	case niro.Abs: // unsigned integers
		return a, nil
	case niro.Not:
		fe.line("%s = arith.xori %s, %s : i1", r, a, fe.boolConst(true))
	case niro.BitNot:
		fe.line("%s = arith.xori %s, %s : %s", r, a, fe.scalarConst(e, -1), st)
	case niro.Sign:
		zero, one := fe.scalarConst(e, 0), fe.scalarConst(e, 1)
		gt := fe.tmp()
		if e.IsFloat() {
			fe.line("%s = arith.cmpf ogt, %s, %s : %s", gt, a, zero, st)
		} else {
			fe.line("%s = arith.cmpi %s, %s, %s : %s", gt, map[bool]string{true: "sgt", false: "ugt"}[e.IsSigned()], a, zero, st)
		}
		rest := a // 0 stays, NaN stays
		if e.IsFloat() || e.IsSigned() {
			lt, m1 := fe.tmp(), fe.scalarConst(e, -1)
			rest = fe.tmp()
			if e.IsFloat() {
				fe.line("%s = arith.cmpf olt, %s, %s : %s", lt, a, zero, st)
			} else {
				fe.line("%s = arith.cmpi slt, %s, %s : %s", lt, a, zero, st)
			}
			fe.line("%s = arith.select %s, %s, %s : %s", rest, lt, m1, a, st)
		}
		fe.line("%s = arith.select %s, %s, %s : %s", r, gt, one, rest, st)
	default:
		return "", fmt.Errorf("%s has no lowering for element type %s", info.Name, e)
	}
	return r, nil
}

// compareScalar writes the i1 a p b on elements of type e.
func (fe *funcEmitter) compareScalar(p niro.Predicate, e niro.ScalarType, a, b string) (string, error) {
	if isHalf(e) {
		return fe.compareScalar(p, niro.F32, fe.widen(e, a), fe.widen(e, b))
	}
	st, err := scalarType(e)
	if err != nil {
		return "", err
	}
	r := fe.tmp()
	if e.IsFloat() {
		fe.line("%s = arith.cmpf %s, %s, %s : %s", r, p.Info().MLIR.For(e), a, b, st)
	} else {
		fe.line("%s = arith.cmpi %s, %s, %s : %s", r, p.Info().MLIR.For(e), a, b, st)
	}
	return r, nil
}

// castScalar converts a from element type from to element type to.
func (fe *funcEmitter) castScalar(from, to niro.ScalarType, a string) (string, error) {
	fs, err := scalarType(from)
	if err != nil {
		return "", err
	}
	ts, err := scalarType(to)
	if err != nil {
		return "", err
	}
	if from == to {
		return a, nil
	}
	if isPacked(from) || isPacked(to) {
		return fe.castPacked(from, to, a)
	}
	if from == niro.F8E8M0FNU || to == niro.F8E8M0FNU {
		return fe.castE8M0(from, to, a, false)
	}
	if isMini(from) || isMini(to) {
		return fe.castMini(from, to, a, false)
	}
	r := fe.tmp()
	switch {
	case to == niro.Bool && from.IsFloat():
		fe.line("%s = arith.cmpf une, %s, %s : %s", r, a, fe.scalarConst(from, 0), fs)
	case to == niro.Bool:
		fe.line("%s = arith.cmpi ne, %s, %s : %s", r, a, fe.scalarConst(from, 0), fs)
	case from.IsFloat() && to.IsFloat():
		switch fb, tb := from.Bits(), to.Bits(); {
		case fb == tb: // f16 <-> bf16, exactly through f32
			w := fe.widen(from, a)
			fe.line("%s = arith.truncf %s : f32 to %s", r, w, ts)
		case fb < tb:
			fe.line("%s = arith.extf %s : %s to %s", r, a, fs, ts)
		case from == niro.F64 && to == niro.BF16:
			fe.line("%s = arith.truncf %s : f32 to bf16", r, fe.truncF64Odd(a))
		default:
			fe.line("%s = arith.truncf %s : %s to %s", r, a, fs, ts)
		}
	case from.IsFloat(): // to an integer: truncate toward zero
		op := "arith.fptosi"
		if !to.IsSigned() {
			op = "arith.fptoui"
		}
		w, wt := a, fs
		if isHalf(from) {
			w, wt = fe.widen(from, a), "f32"
		}
		fe.line("%s = %s %s : %s to %s", r, op, w, wt, ts)
	case to.IsFloat(): // from an integer or bool
		op := "arith.sitofp"
		if !from.IsSigned() {
			op = "arith.uitofp"
		}
		if to == niro.BF16 && intBits(from) > 16 {
			// LLVM converts to bf16 through f32, rounding twice; f64
			// holds the integer exactly (below 2^53), so go through
			// f64 and the round-to-odd f32.
			w := fe.tmp()
			fe.line("%s = %s %s : %s to f64", w, op, a, fs)
			fe.line("%s = arith.truncf %s : f32 to bf16", r, fe.truncF64Odd(w))
			break
		}
		fe.line("%s = %s %s : %s to %s", r, op, a, fs, ts)
	default: // integer or bool to integer
		fb, tb := intBits(from), intBits(to)
		switch {
		case fb == tb:
			return a, nil
		case fb < tb && from.IsSigned():
			fe.line("%s = arith.extsi %s : %s to %s", r, a, fs, ts)
		case fb < tb:
			fe.line("%s = arith.extui %s : %s to %s", r, a, fs, ts)
		default:
			fe.line("%s = arith.trunci %s : %s to %s", r, a, fs, ts)
		}
	}
	return r, nil
}

// truncF64Odd rounds the f64 a to f32 with round-to-odd: the nearest
// f32 when a is exact in f32, else the one of a's two f32 neighbours whose
// significand is odd. Rounding that to a float of at most 22 significand
// bits (bf16) then rounds a once; LLVM's f64 -> bf16 goes through a
// round-to-nearest f32 and rounds twice.
func (fe *funcEmitter) truncF64Odd(a string) string {
	t, back, inexact, bits, lsb, even, fix := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	absBack, absA, away, up, down, step, nb, r := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	one, zero := fe.scalarConst(niro.I32, 1), fe.scalarConst(niro.I32, 0)
	fe.line("%s = arith.truncf %s : f64 to f32", t, a)
	fe.line("%s = arith.extf %s : f32 to f64", back, t)
	fe.line("%s = arith.cmpf one, %s, %s : f64", inexact, back, a)
	fe.line("%s = arith.bitcast %s : f32 to i32", bits, t)
	fe.line("%s = arith.andi %s, %s : i32", lsb, bits, one)
	fe.line("%s = arith.cmpi eq, %s, %s : i32", even, lsb, zero)
	fe.line("%s = arith.andi %s, %s : i1", fix, inexact, even)
	// An even inexact t: step its magnitude toward a, to the odd neighbour.
	fe.line("%s = math.absf %s : f64", absBack, back)
	fe.line("%s = math.absf %s : f64", absA, a)
	fe.line("%s = arith.cmpf olt, %s, %s : f64", away, absBack, absA)
	fe.line("%s = arith.addi %s, %s : i32", up, bits, one)
	fe.line("%s = arith.subi %s, %s : i32", down, bits, one)
	fe.line("%s = arith.select %s, %s, %s : i32", step, away, up, down)
	fe.line("%s = arith.select %s, %s, %s : i32", nb, fix, step, bits)
	fe.line("%s = arith.bitcast %s : i32 to f32", r, nb)
	return r
}

// intBits returns the width of an integer or bool as MLIR sees it.
func intBits(s niro.ScalarType) int {
	if s == niro.Bool {
		return 1
	}
	return s.Bits()
}

func elemOf(v niro.Value) niro.ScalarType { return niro.ElemOf(v.Type) }

func (fe *funcEmitter) binaryOp(op *niro.Binary) {
	e := elemOf(op.LHS)
	fe.elementwise(op, op.Result, op.Operands(), func(a []string) (string, error) {
		return fe.binaryScalar(op.Kind, e, a[0], a[1])
	})
}

func (fe *funcEmitter) unaryOp(op *niro.Unary) {
	e := elemOf(op.X)
	fe.elementwise(op, op.Result, op.Operands(), func(a []string) (string, error) {
		return fe.unaryScalar(op.Kind, e, a[0])
	})
}

func (fe *funcEmitter) compareOp(op *niro.Compare) {
	e := elemOf(op.LHS)
	fe.elementwise(op, op.Result, op.Operands(), func(a []string) (string, error) {
		return fe.compareScalar(op.Pred, e, a[0], a[1])
	})
}

func (fe *funcEmitter) castOp(op *niro.Cast) {
	from := elemOf(op.X)
	fe.elementwise(op, op.Result, op.Operands(), func(a []string) (string, error) {
		if op.Bitcast {
			return fe.bitcastScalar(from, op.To, a[0])
		}
		if (isMini(op.To) || op.To == niro.F8E8M0FNU) && from != op.To {
			if _, err := scalarType(from); err != nil {
				return "", err
			}
			return fe.castScalarSat(from, op.To, a[0], op.NoSaturate)
		}
		return fe.castScalar(from, op.To, a[0])
	})
}

// bitcastScalar reinterprets the bits of a (of element type from) as to,
// of the same width: one arith.bitcast, or nothing where both are the
// same MLIR type (signless integers of one width).
func (fe *funcEmitter) bitcastScalar(from, to niro.ScalarType, a string) (string, error) {
	fs, err := scalarType(from)
	if err != nil {
		return "", err
	}
	ts, err := scalarType(to)
	if err != nil {
		return "", err
	}
	if fs == ts {
		return a, nil
	}
	r := fe.tmp()
	fe.line("%s = arith.bitcast %s : %s to %s", r, a, fs, ts)
	return r, nil
}

func (fe *funcEmitter) selectOp(op *niro.Select) {
	st, err := scalarType(elemOf(op.Result))
	if err != nil {
		fe.typ(op.Result)
		return
	}
	fe.elementwise(op, op.Result, op.Operands(), func(a []string) (string, error) {
		r := fe.tmp()
		fe.line("%s = arith.select %s, %s, %s : %s", r, a[0], a[1], a[2], st)
		return r, nil
	})
}

// operandTensor returns operand #i of op (whose result is res), v, as a
// ranked tensor with its MLIR element type, or reports why it is not one
// and returns false.
func (fe *funcEmitter) operandTensor(op niro.Op, res niro.Value, i int, v niro.Value) (niro.TensorType, string, bool) {
	t, ok := rankedTensor(v)
	if !ok {
		fe.opErrorf(op, "%s %s: operand #%d must be a ranked tensor, has %s", op.Name(), name(res), i, typeName(v.Type))
		return t, "", false
	}
	elem, err := scalarType(t.Elem)
	if err != nil {
		fe.typ(v)
		return t, "", false
	}
	return t, elem, true
}
