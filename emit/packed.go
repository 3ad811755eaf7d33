package emit

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The 4- and 2-bit integers (i4, ui4, i2, ui2) compute as one element per
// i8 inside a function: a signed one sign-extended, an unsigned one
// zero-extended. At the entry function's boundary they are packed as ONNX
// and the Niro IR spec pack them: row-major, two (4-bit) or four (2-bit)
// elements a byte, low bits first, an odd count leaving the high bits of
// the last byte zero. The entry function takes and returns them as
// tensor<Bxi8>, B = niro.PackedBytes, unpacks each argument at the start
// and packs each result before the return. Cast is the one op that
// computes on them; Cast to one wraps (keeps the low bits of the integer,
// a float converting toward zero first), Cast from one reads its value.

// isPacked reports whether s is a sub-byte integer emit unpacks.
func isPacked(s niro.ScalarType) bool {
	switch s {
	case niro.I4, niro.U4, niro.I2, niro.U2, niro.F4E2M1FN:
		return true
	}
	return false
}

// packedType reports whether t is a tensor of a packed element type.
func packedType(t niro.Type) (niro.TensorType, bool) {
	tt, ok := t.(niro.TensorType)
	return tt, ok && !tt.Unranked && isPacked(tt.Elem)
}

// packedBoundary returns the MLIR type of a packed tensor at the entry
// function's boundary: its packed bytes.
func packedBoundary(t niro.TensorType) (string, error) {
	if !t.HasStaticShape() {
		return "", fmt.Errorf("%s at the function boundary needs a static shape", t)
	}
	return fmt.Sprintf("tensor<%dxi8>", niro.PackedBytes(t.Elem, t.NumElements())), nil
}

// normalizePacked returns the i8 v with its low bits of s kept, sign- or
// zero-extended.
func (fe *funcEmitter) normalizePacked(s niro.ScalarType, v string) string {
	r := fe.tmp()
	if s.IsSigned() {
		sh := fe.iconst("i8", int64(8-s.Bits()))
		l := fe.tmp()
		fe.line("%s = arith.shli %s, %s : i8", l, v, sh)
		fe.line("%s = arith.shrsi %s, %s : i8", r, l, sh)
		return r
	}
	fe.line("%s = arith.andi %s, %s : i8", r, v, fe.iconst("i8", 1<<s.Bits()-1))
	return r
}

// castPacked converts a between from and to, at least one of them packed.
func (fe *funcEmitter) castPacked(from, to niro.ScalarType, a string) (string, error) {
	store := func(s niro.ScalarType) niro.ScalarType {
		if !isPacked(s) {
			return s
		}
		if s.IsSigned() {
			return niro.I8
		}
		return niro.U8
	}
	if from == niro.F4E2M1FN {
		f := fe.decodeMini(f4Format, fe.f4To8(a))
		return fe.castScalar(niro.F32, to, f)
	}
	if to == niro.F4E2M1FN {
		w, wt := wideF32, niro.F32
		if from == niro.F64 || (from.IsInt() && from.Bits() > 16) {
			w, wt = wideF64, niro.F64
		}
		x, err := fe.castScalar(store(from), wt, a)
		if err != nil {
			return "", err
		}
		return fe.f8To4(fe.encodeMini(f4Format, w, x, false)), nil
	}
	if !isPacked(to) {
		return fe.castScalar(store(from), to, a)
	}
	var v string
	var err error
	if from.IsFloat() || isMini(from) || from == niro.F8E8M0FNU {
		w, err := fe.castScalar(from, niro.I64, a)
		if err != nil {
			return "", err
		}
		v = fe.tmp()
		fe.line("%s = arith.trunci %s : i64 to i8", v, w)
	} else if v, err = fe.castScalar(store(from), niro.I8, a); err != nil {
		return "", err
	}
	return fe.normalizePacked(to, v), nil
}

// loopIndices writes linalg.index for each of rank loops and returns the
// row-major linear index over dims.
func (fe *funcEmitter) linearIndex(dims []int64) string {
	lin := fe.index(0)
	for i, d := range dims {
		ix := fe.tmp()
		fe.line("%s = linalg.index %d : index", ix, i)
		m, s := fe.tmp(), fe.tmp()
		fe.line("%s = arith.muli %s, %s : index", m, lin, fe.index(d))
		fe.line("%s = arith.addi %s, %s : index", s, m, ix)
		lin = s
	}
	return lin
}

func identityGeneric(rank int) (string, string) {
	ds := make([]string, rank)
	its := make([]string, rank)
	for i := range ds {
		ds[i] = fmt.Sprintf("d%d", i)
		its[i] = `"parallel"`
	}
	d := strings.Join(ds, ", ")
	return fmt.Sprintf("affine_map<(%s) -> (%s)>", d, d), strings.Join(its, ", ")
}

// unpack writes dst, of the packed type t, from the packed bytes p.
func (fe *funcEmitter) unpack(dst, p string, t niro.TensorType) {
	bt, _ := packedBoundary(t)
	tt := fe.typeOf(t)
	bits := int64(t.Elem.Bits())
	per := 8 / bits
	e := fe.tmp()
	fe.line("%s = tensor.empty() : %s", e, tt)
	m, its := identityGeneric(len(t.Dims))
	fe.line("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} outs(%s : %s) {", dst, m, its, e, tt)
	fe.line("^bb0(%s: i8):", fe.tmp())
	lin := fe.linearIndex(t.Dims)
	b, j := fe.tmp(), fe.tmp()
	fe.line("%s = arith.divui %s, %s : index", b, lin, fe.index(per))
	fe.line("%s = arith.remui %s, %s : index", j, lin, fe.index(per))
	byt := fe.tmp()
	fe.line("%s = tensor.extract %s[%s] : %s", byt, p, b, bt)
	ji, sh, v := fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.index_castui %s : index to i8", ji, j)
	fe.line("%s = arith.muli %s, %s : i8", sh, ji, fe.iconst("i8", bits))
	fe.line("%s = arith.shrui %s, %s : i8", v, byt, sh)
	fe.line("linalg.yield %s : i8", fe.normalizePacked(t.Elem, v))
	fe.line("} -> %s", tt)
}

// pack writes and returns the packed bytes of v, of the packed type t.
func (fe *funcEmitter) pack(v string, t niro.TensorType) string {
	bt, _ := packedBoundary(t)
	tt := fe.typeOf(t)
	bits := int64(t.Elem.Bits())
	per := 8 / bits
	n := t.NumElements()
	e, dst := fe.tmp(), fe.tmp()
	fe.line("%s = tensor.empty() : %s", e, bt)
	if n == 0 {
		return e
	}
	fe.line("%s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} outs(%s : %s) {", dst, e, bt)
	fe.line("^bb0(%s: i8):", fe.tmp())
	b := fe.tmp()
	fe.line("%s = linalg.index 0 : index", b)
	acc := fe.iconst("i8", 0)
	for j := int64(0); j < per; j++ {
		k0, k := fe.tmp(), fe.tmp()
		fe.line("%s = arith.muli %s, %s : index", k0, b, fe.index(per))
		fe.line("%s = arith.addi %s, %s : index", k, k0, fe.index(j))
		valid, kc := fe.tmp(), fe.tmp()
		fe.line("%s = arith.cmpi ult, %s, %s : index", valid, k, fe.index(n))
		fe.line("%s = arith.minui %s, %s : index", kc, k, fe.index(n-1))
		// kc's indices, row-major.
		idx := make([]string, len(t.Dims))
		rest := kc
		for i := len(t.Dims) - 1; i >= 0; i-- {
			q, r := fe.tmp(), fe.tmp()
			fe.line("%s = arith.remui %s, %s : index", r, rest, fe.index(t.Dims[i]))
			fe.line("%s = arith.divui %s, %s : index", q, rest, fe.index(t.Dims[i]))
			idx[i], rest = r, q
		}
		x := fe.tmp()
		fe.line("%s = tensor.extract %s[%s] : %s", x, v, strings.Join(idx, ", "), tt)
		mk, sh, sel, o := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
		fe.line("%s = arith.andi %s, %s : i8", mk, x, fe.iconst("i8", 1<<bits-1))
		fe.line("%s = arith.shli %s, %s : i8", sh, mk, fe.iconst("i8", j*bits))
		fe.line("%s = arith.select %s, %s, %s : i8", sel, valid, sh, fe.iconst("i8", 0))
		fe.line("%s = arith.ori %s, %s : i8", o, acc, sel)
		acc = o
	}
	fe.line("linalg.yield %s : i8", acc)
	fe.line("} -> %s", bt)
	return dst
}

// typeOf returns the MLIR type of t (checked by the caller).
func (fe *funcEmitter) typeOf(t niro.Type) string {
	s, _ := mlirType(t)
	return s
}

// unpackData returns n elements of the packed type s, packed in data, one
// a byte (sign- or zero-extended), as emit stores them in constants and in
// the weights blob.
func unpackData(s niro.ScalarType, n int64, data []byte) []byte {
	bits := s.Bits()
	per := int64(8 / bits)
	out := make([]byte, n)
	for k := int64(0); k < n; k++ {
		v := data[k/per] >> (uint(k%per) * uint(bits)) & (1<<bits - 1)
		if s.IsSigned() && v>>(bits-1) != 0 {
			v |= ^byte(0) << bits
		}
		out[k] = v
	}
	return out
}

// f4E2M1FN (sign, 2 exponent bits with bias 1, 1 mantissa bit; largest
// 6, no infinity or NaN) is packed like the 4-bit integers and converted
// by the 8-bit float code (narrow.go) on its code widened to an 8-bit
// layout: the sign moved from bit 3 to bit 7. Encoding rounds to nearest
// even and always saturates (infinity gives ±6); NaN gives 0b1000 (−0),
// as ONNX's test data has it.
var f4Format = miniFormat{man: 1, bias: 1, max: 0x07, nan: 0x80, inf: -1, maxValue: 6}

// f4To8 moves a 4-bit code's sign (bit 3) to bit 7.
func (fe *funcEmitter) f4To8(c string) string {
	m, s, h, r := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.andi %s, %s : i8", m, c, fe.iconst("i8", 7))
	fe.line("%s = arith.andi %s, %s : i8", s, c, fe.iconst("i8", 8))
	fe.line("%s = arith.shli %s, %s : i8", h, s, fe.iconst("i8", 4))
	fe.line("%s = arith.ori %s, %s : i8", r, m, h)
	return r
}

// f8To4 moves an 8-bit layout code's sign (bit 7) to bit 3.
func (fe *funcEmitter) f8To4(c string) string {
	m, s, h, r := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.andi %s, %s : i8", m, c, fe.iconst("i8", 7))
	fe.line("%s = arith.shrui %s, %s : i8", s, c, fe.iconst("i8", 4))
	fe.line("%s = arith.andi %s, %s : i8", h, s, fe.iconst("i8", 8))
	fe.line("%s = arith.ori %s, %s : i8", r, m, h)
	return r
}
