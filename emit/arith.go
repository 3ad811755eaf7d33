package emit

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// isHalf reports whether s is a 16-bit float, computed in f32 and rounded
// back once.
func isHalf(s niro.ScalarType) bool { return s == niro.F16 || s == niro.BF16 }

// constOp lowers Const to arith.constant, or to a view of the weights
// blob for a large tensor.
func (fe *funcEmitter) constOp(op *niro.Const) {
	res := op.Result
	if fe.e.filters != nil && fe.e.filters.unread[op] {
		return // a convolution filter laid out at compile time (conv_filter.go)
	}
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
// float type s, and its width in hex digits.
func floatBits(s niro.ScalarType, v float64) (uint64, int) {
	return niro.FloatBits(s, v), s.Bits() / 4
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
	if isPacked(t.Elem) {
		data = unpackData(t.Elem, t.NumElements(), data)
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
