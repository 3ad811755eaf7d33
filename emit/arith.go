package emit

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// arithKind is the element-wise operation of an Add or Mul.
type arithKind int

const (
	opAdd arithKind = iota
	opMul
)

func (k arithKind) String() string {
	if k == opAdd {
		return "add"
	}
	return "mul"
}

// isHalf reports whether s is a 16-bit float, computed in f32 and rounded
// back once.
func isHalf(s niro.ScalarType) bool { return s == niro.F16 || s == niro.BF16 }

// arith writes dst = a k b on scalars of type elem and returns dst; an
// empty dst gets a fresh name. Half-precision operands are widened to f32
// and the result rounded back once, which gives the correctly rounded
// half-precision result. It returns an error for element types the
// operation is not defined on.
func (fe *funcEmitter) arith(k arithKind, elem niro.ScalarType, dst, a, b string) (string, error) {
	st, err := scalarType(elem)
	if err != nil {
		return "", err
	}
	if !elem.IsFloat() && !elem.IsInt() {
		return "", fmt.Errorf("%s is not defined on element type %s", k, elem)
	}
	var wa, wb, w string
	if isHalf(elem) {
		wa, wb, w = fe.tmp(), fe.tmp(), fe.tmp()
	}
	if dst == "" {
		dst = fe.tmp()
	}
	switch {
	case isHalf(elem):
		fe.line("%s = arith.extf %s : %s to f32", wa, a, st)
		fe.line("%s = arith.extf %s : %s to f32", wb, b, st)
		fe.line("%s = arith.%sf %s, %s : f32", w, k, wa, wb)
		fe.line("%s = arith.truncf %s : f32 to %s", dst, w, st)
	case elem.IsFloat():
		fe.line("%s = arith.%sf %s, %s : %s", dst, k, a, b, st)
	default:
		fe.line("%s = arith.%si %s, %s : %s", dst, k, a, b, st)
	}
	return dst, nil
}

// scalarBinary lowers Add or Mul on scalars to one arith op.
func (fe *funcEmitter) scalarBinary(op niro.Op, k arithKind, res, lhs, rhs niro.Value) {
	elem := res.Type.(niro.ScalarType)
	if lt, ok := lhs.Type.(niro.ScalarType); !ok || lt != elem || !niro.TypesEqual(lhs.Type, rhs.Type) {
		fe.opErrorf(op, "%s %s: operand types %s and %s do not match result type %s",
			k, name(res), typeName(lhs.Type), typeName(rhs.Type), elem)
		return
	}
	if _, err := mlirType(elem); err != nil {
		fe.typ(res)
		return
	}
	if _, err := fe.arith(k, elem, name(res), name(lhs), name(rhs)); err != nil {
		fe.opErrorf(op, "%s %s: %v", k, name(res), err)
	}
}

// constOp lowers Const to arith.constant, or to a view of the weights
// blob for a large tensor.
func (fe *funcEmitter) constOp(op *niro.Const) {
	res := op.Result
	t := fe.typ(res)
	if fe.badValue[res.ID] {
		return
	}
	switch rt := res.Type.(type) {
	case niro.ScalarType:
		attr, err := scalarAttr(rt, op.Lit)
		if err != nil {
			fe.opErrorf(op, "const %s: %v", name(res), err)
			return
		}
		if rt == niro.Bool {
			fe.line("%s = arith.constant %s", name(res), attr)
			return
		}
		fe.line("%s = arith.constant %s : %s", name(res), attr, t)
	case niro.TensorType:
		if i, ok := fe.e.blobIndex[constKey(fe.f, res)]; ok {
			fe.blobView(name(res), fe.e.blob.Entries[i], rt)
			return
		}
		data, ok := op.Lit.(niro.BytesLit)
		if !ok {
			fe.opErrorf(op, "const %s: a tensor constant needs packed bytes, got %s", name(res), litName(op.Lit))
			return
		}
		attr, err := denseAttr(rt, data)
		if err != nil {
			fe.opErrorf(op, "const %s: %v", name(res), err)
			return
		}
		fe.line("%s = arith.constant %s : %s", name(res), attr, t)
	case nil:
		fe.typ(res)
	default:
		panic(fmt.Sprintf("emit: unhandled type %T", rt))
	}
}

// scalarAttr returns the MLIR attribute text of a scalar literal of type
// s: true/false for i1, a decimal for integers (signless: the bit pattern
// read as signed) and the exact bit pattern in hex for floats, which keeps
// NaN payloads, infinities and signed zeros.
func scalarAttr(s niro.ScalarType, lit niro.Literal) (string, error) {
	if _, err := scalarType(s); err != nil {
		return "", err
	}
	switch {
	case s == niro.Bool:
		if b, ok := lit.(niro.BoolLit); ok {
			return strconv.FormatBool(bool(b)), nil
		}
	case s.IsInt():
		if v, ok := lit.(niro.IntLit); ok {
			bits := uint(s.Bits())
			x := int64(v) << (64 - bits) >> (64 - bits) // sign-extend the low bits
			return strconv.FormatInt(x, 10), nil
		}
	case s.IsFloat():
		if v, ok := lit.(niro.FloatLit); ok {
			bits, digits := floatBits(s, float64(v))
			return fmt.Sprintf("0x%0*X", digits, bits), nil
		}
	}
	return "", fmt.Errorf("literal %s does not fit type %s", litName(lit), s)
}

// litName describes a literal in a message.
func litName(l niro.Literal) string {
	switch l := l.(type) {
	case niro.BoolLit:
		return strconv.FormatBool(bool(l))
	case niro.IntLit:
		return strconv.FormatInt(int64(l), 10)
	case niro.FloatLit:
		return strconv.FormatFloat(float64(l), 'g', -1, 64)
	case niro.BytesLit:
		return fmt.Sprintf("of %d bytes", len(l))
	case nil:
		return "<none>"
	default:
		panic(fmt.Sprintf("emit: unhandled literal %T", l))
	}
}

// typeName prints a possibly-nil type.
func typeName(t niro.Type) string {
	if t == nil {
		return "<nil type>"
	}
	return t.String()
}

// floatBits returns the bit pattern of v rounded to nearest-even in the
// float type s (f16, bf16, f32 or f64), and its width in hex digits.
func floatBits(s niro.ScalarType, v float64) (uint64, int) {
	switch s {
	case niro.F16:
		return roundFloat(v, 5, 10), 4
	case niro.BF16:
		return roundFloat(v, 8, 7), 4
	case niro.F32:
		return uint64(math.Float32bits(float32(v))), 8
	default:
		return math.Float64bits(v), 16
	}
}

// roundFloat rounds v to nearest-even in an IEEE-style binary format with
// expBits exponent bits and mantBits stored mantissa bits, and returns its
// bit pattern. NaN becomes the quiet NaN with the sign of v.
func roundFloat(v float64, expBits, mantBits uint) uint64 {
	var sign uint64
	if math.Signbit(v) {
		sign = 1 << (expBits + mantBits)
	}
	expAll := uint64(1)<<expBits - 1
	switch {
	case math.IsNaN(v):
		return sign | expAll<<mantBits | 1<<(mantBits-1)
	case math.IsInf(v, 0):
		return sign | expAll<<mantBits
	case v == 0:
		return sign
	}
	a := math.Abs(v)
	bias := int(1)<<(expBits-1) - 1
	_, e := math.Frexp(a) // a = f * 2^e, f in [0.5, 1)
	e--                   // a = 1.x * 2^e
	if e < 1-bias {
		// Subnormal: count units of the smallest subnormal. A count of
		// 2^mantBits is the smallest normal and has that bit pattern.
		q := math.RoundToEven(math.Ldexp(a, bias-1+int(mantBits)))
		return sign | uint64(q)
	}
	q := math.RoundToEven(math.Ldexp(a, int(mantBits)-e)) // in [2^m, 2^(m+1)]
	if q == math.Ldexp(1, int(mantBits)+1) {
		q /= 2
		e++
	}
	if e > bias {
		return sign | expAll<<mantBits
	}
	return sign | uint64(e+bias)<<mantBits | (uint64(q) - 1<<mantBits)
}

// elemBytes returns the storage size of one element of a supported type.
func elemBytes(s niro.ScalarType) int { return (s.Bits() + 7) / 8 }

// isSplat reports whether every element of data (elements of size n) equals
// the first.
func isSplat(data []byte, n int) bool {
	if n <= 0 || len(data) < n {
		return false
	}
	for i := n; i+n <= len(data); i += n {
		for j := 0; j < n; j++ {
			if data[i+j] != data[j] {
				return false
			}
		}
	}
	return true
}

// checkTensorData checks that data holds exactly the packed bytes of t.
func checkTensorData(t niro.TensorType, data []byte) error {
	if _, err := scalarType(t.Elem); err != nil {
		return err
	}
	n := t.NumElements()
	if n < 0 {
		return fmt.Errorf("tensor data needs a static shape, got %s", t)
	}
	if want := niro.PackedBytes(t.Elem, n); int64(len(data)) != want {
		return fmt.Errorf("%s needs %d bytes of data, got %d", t, want, len(data))
	}
	return nil
}

// denseAttr returns the dense elements attribute of packed tensor data: the
// hex form (raw little-endian bytes) for numbers, a nested list for i1, and
// a single element when all elements are equal.
func denseAttr(t niro.TensorType, data []byte) (string, error) {
	if err := checkTensorData(t, data); err != nil {
		return "", err
	}
	n := elemBytes(t.Elem)
	if t.Elem == niro.Bool {
		if len(data) > 0 && isSplat(data, n) {
			return "dense<" + strconv.FormatBool(data[0] != 0) + ">", nil
		}
		var sb strings.Builder
		sb.WriteString("dense<")
		boolList(&sb, t.Dims, data)
		sb.WriteString(">")
		return sb.String(), nil
	}
	if len(data) > 0 && isSplat(data, n) {
		data = data[:n]
	}
	return `dense<"0x` + strings.ToUpper(hex.EncodeToString(data)) + `">`, nil
}

// boolList writes data (one byte per element) as a nested list of
// true/false shaped like dims.
func boolList(sb *strings.Builder, dims []int64, data []byte) {
	if len(dims) == 0 {
		sb.WriteString(strconv.FormatBool(data[0] != 0))
		return
	}
	stride := int64(1)
	for _, d := range dims[1:] {
		stride *= d
	}
	sb.WriteString("[")
	for i := int64(0); i < dims[0]; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		boolList(sb, dims[1:], data[i*stride:(i+1)*stride])
	}
	sb.WriteString("]")
}
