package tensorio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/niro"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// npyAlign is the alignment numpy gives the start of the data (format
// 1.0 and later pad the header to a multiple of it).
const npyAlign = 64

// npyTypes maps numpy's dtype kind and size ("f4") to niro's element types.
var npyTypes = map[string]niro.ScalarType{
	"b1": niro.Bool,
	"i1": niro.I8, "u1": niro.U8,
	"i2": niro.I16, "u2": niro.U16,
	"i4": niro.I32, "u4": niro.U32,
	"i8": niro.I64, "u8": niro.U64,
	"f2": niro.F16, "f4": niro.F32, "f8": niro.F64,
	"c8": niro.C64, "c16": niro.C128,
}

// NPYDescr returns the numpy dtype string a .npy file uses for elem
// ("<f4", "|b1"), and false for types numpy has no dtype for (bf16, the
// float8 and 4-bit types).
func NPYDescr(elem niro.ScalarType) (string, bool) {
	for code, t := range npyTypes {
		if t == elem {
			if elem.Bits() == 8 {
				return "|" + code, true
			}
			return "<" + code, true
		}
	}
	return "", false
}

// ReadNPY reads a .npy file.
func ReadNPY(path string) (Tensor, error) {
	data, err := safefile.ReadFile(path)
	if err != nil {
		return Tensor{}, err
	}
	t, err := DecodeNPY(data)
	if err != nil {
		return Tensor{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// DecodeNPY decodes the contents of a .npy file. Big-endian data is
// converted to little-endian and Fortran-order data to C order. The
// returned Data may share memory with data.
func DecodeNPY(data []byte) (Tensor, error) {
	if len(data) < 10 || string(data[:6]) != npyMagic {
		return Tensor{}, errors.New("not a .npy file (bad magic)")
	}
	major, minor := data[6], data[7]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return Tensor{}, errors.New("truncated .npy header")
		}
		h := binary.LittleEndian.Uint32(data[8:])
		if uint64(h) > uint64(len(data)) {
			return Tensor{}, fmt.Errorf(".npy header length %d exceeds the file size %d", h, len(data))
		}
		hlen, start = int(h), 12
	default:
		return Tensor{}, fmt.Errorf("unsupported .npy format version %d.%d", major, minor)
	}
	end := start + hlen
	if end > len(data) {
		return Tensor{}, fmt.Errorf(".npy header length %d exceeds the file size %d", hlen, len(data))
	}
	h, err := parseNPYHeader(string(data[start:end]))
	if err != nil {
		return Tensor{}, fmt.Errorf("bad .npy header: %w", err)
	}
	elem, swap, err := parseDescr(h.descr)
	if err != nil {
		return Tensor{}, err
	}
	t := Tensor{Elem: elem, Dims: h.shape}
	n := NumElements(h.shape)
	if n < 0 {
		return Tensor{}, fmt.Errorf("shape %s is too large", FormatDims(h.shape))
	}
	size := niro.PackedBytes(elem, n)
	if size < 0 {
		return Tensor{}, fmt.Errorf("shape %s of %s is too large", FormatDims(h.shape), h.descr)
	}
	payload := data[end:]
	if int64(len(payload)) != size {
		return Tensor{}, fmt.Errorf("data is %d bytes, shape %s of %s needs %d", len(payload), FormatDims(h.shape), h.descr, size)
	}
	item := elem.Bits() / 8
	fortran := h.fortran && len(h.shape) > 1 && n > 1
	switch {
	case fortran:
		t.Data = fortranToC(payload, h.shape, item)
	case swap && item > 1:
		t.Data = bytes.Clone(payload)
	default:
		t.Data = payload
	}
	if swap && item > 1 {
		unit := item
		if elem.IsComplex() {
			unit /= 2
		}
		swapBytes(t.Data, unit)
	}
	if elem == niro.Bool {
		if err := checkBools(t.Data); err != nil {
			return Tensor{}, err
		}
	}
	return t, nil
}

// checkBools reports an element of a bool tensor that is not 0 or 1.
func checkBools(data []byte) error {
	for i, b := range data {
		if b > 1 {
			return fmt.Errorf("bool element %d has byte value %d, want 0 or 1", i, b)
		}
	}
	return nil
}

// parseDescr maps a numpy dtype string to an element type and whether its
// bytes must be swapped.
func parseDescr(descr string) (niro.ScalarType, bool, error) {
	code, order := descr, byte('=')
	if code != "" && strings.IndexByte("<>|=", code[0]) >= 0 {
		order, code = code[0], code[1:]
	}
	elem, ok := npyTypes[code]
	if !ok {
		return 0, false, fmt.Errorf("unsupported .npy dtype %q", descr)
	}
	if order == '|' && elem.Bits() > 8 {
		return 0, false, fmt.Errorf("unsupported .npy dtype %q: multi-byte type without a byte order", descr)
	}
	return elem, order == '>', nil
}

// swapBytes reverses the bytes of each unit-byte group of b.
func swapBytes(b []byte, unit int) {
	for i := 0; i+unit <= len(b); i += unit {
		for j, k := i, i+unit-1; j < k; j, k = j+1, k-1 {
			b[j], b[k] = b[k], b[j]
		}
	}
}

// fortranToC copies column-major data of the given shape into row-major
// order; item is the element size in bytes.
func fortranToC(src []byte, dims []int64, item int) []byte {
	r := len(dims)
	strides := make([]int64, r) // Fortran strides in elements
	s := int64(1)
	for k := range dims {
		strides[k] = s
		s *= dims[k]
	}
	dst := make([]byte, len(src))
	idx := make([]int64, r)
	var off int64
	for c := 0; c < len(dst); c += item {
		copy(dst[c:c+item], src[off*int64(item):])
		for k := r - 1; k >= 0; k-- {
			idx[k]++
			off += strides[k]
			if idx[k] < dims[k] {
				break
			}
			off -= dims[k] * strides[k]
			idx[k] = 0
		}
	}
	return dst
}

// npyHeader is the content of the header dictionary.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int64
}

// parseNPYHeader parses the Python dict literal of a .npy header, such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func parseNPYHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyParser{s: s}
	if !p.eat('{') {
		return h, errors.New("header is not a dictionary")
	}
	seen := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, fmt.Errorf("dictionary key: %w", err)
		}
		if seen[key] {
			return h, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return h, fmt.Errorf("missing ':' after key %q", key)
		}
		switch key {
		case "descr":
			if p.peek() == '[' {
				return h, errors.New("structured dtypes are not supported")
			}
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %w", err)
			}
		case "fortran_order":
			if h.fortran, err = p.boolean(); err != nil {
				return h, fmt.Errorf("fortran_order: %w", err)
			}
		case "shape":
			if h.shape, err = p.intTuple(); err != nil {
				return h, fmt.Errorf("shape: %w", err)
			}
		default:
			return h, fmt.Errorf("unexpected key %q", key)
		}
		if p.eat(',') {
			continue
		}
		if !p.eat('}') {
			return h, fmt.Errorf("expected ',' or '}' at offset %d", p.i)
		}
		break
	}
	if rest := strings.TrimSpace(s[p.i:]); rest != "" {
		return h, fmt.Errorf("unexpected text after the dictionary: %.20q", rest)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	if h.shape == nil {
		h.shape = []int64{}
	}
	return h, nil
}

// pyParser reads the few Python literals a .npy header uses.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// str reads a quoted string without escapes (the only kind numpy writes).
func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", fmt.Errorf("expected a string at offset %d", p.i)
	}
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(v, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += j + 2
	return v, nil
}

func (p *pyParser) boolean() (bool, error) {
	p.skipSpace()
	switch {
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return false, fmt.Errorf("expected True or False at offset %d", p.i)
}

// intTuple reads a tuple of non-negative integers: (), (3,), (2, 3).
func (p *pyParser) intTuple() ([]int64, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("expected a tuple at offset %d", p.i)
	}
	dims := []int64{}
	for {
		if p.eat(')') {
			return dims, nil
		}
		p.skipSpace()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, fmt.Errorf("expected a non-negative integer at offset %d", p.i)
		}
		d, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("dimension %s is out of range", p.s[p.i:j])
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2 long
			j++
		}
		p.i = j
		dims = append(dims, d)
		if p.eat(',') {
			continue
		}
		if !p.eat(')') {
			return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.i)
		}
		if len(dims) == 1 {
			// "(3)" is an int in Python, not a tuple; numpy always writes "(3,)".
			return nil, errors.New("one-element shape must be written (N,)")
		}
		return dims, nil
	}
}

// EncodeNPY returns t as the contents of a .npy file (format 1.0, or 2.0
// when the header does not fit 1.0), C order, little-endian.
func EncodeNPY(t Tensor) ([]byte, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	descr, ok := NPYDescr(t.Elem)
	if !ok {
		return nil, fmt.Errorf("numpy has no dtype for %s; .npy cannot hold this tensor", t.Elem)
	}
	var shape strings.Builder
	shape.WriteByte('(')
	for i, d := range t.Dims {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.FormatInt(d, 10))
	}
	if len(t.Dims) == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape.String())

	pre := 10
	if pad(pre+len(dict)+1) > 0xffff {
		pre = 12
	}
	hlen := pad(pre+len(dict)+1) - pre
	out := make([]byte, 0, pre+hlen+len(t.Data))
	out = append(out, npyMagic...)
	if pre == 10 {
		out = append(out, 1, 0)
		out = binary.LittleEndian.AppendUint16(out, uint16(hlen))
	} else {
		out = append(out, 2, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(hlen))
	}
	out = append(out, dict...)
	for len(out) < pre+hlen-1 {
		out = append(out, ' ')
	}
	out = append(out, '\n')
	out = append(out, t.Data...)
	return out, nil
}

func pad(n int) int { return (n + npyAlign - 1) / npyAlign * npyAlign }

// WriteNPY writes t to path as a .npy file.
func WriteNPY(path string, t Tensor) error {
	data, err := EncodeNPY(t)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return safefile.WriteFile(path, data)
}
