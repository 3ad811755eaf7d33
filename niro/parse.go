package niro

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Parse reads the textual form of a module. Errors carry
// filename:line:column. The result is not verified; call [Verify].
func Parse(filename string, src []byte) (*Module, error) {
	p := &parser{lx: &lexer{src: string(src), line: 1, col: 1, filename: filename}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	m, err := p.module()
	if err != nil {
		return nil, err
	}
	return m, nil
}

type parser struct {
	lx  *lexer
	tok token

	// per-function state
	fn      *Function
	labels  map[string]*Block
	defined map[string]bool
	labelAt map[string]token
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errf(format string, args ...any) error {
	return p.lx.errAt(p.tok.line, p.tok.col, format, args...)
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tPunct && p.tok.text == s }
func (p *parser) isIdent(s string) bool { return p.tok.kind == tIdent && p.tok.text == s }

func (p *parser) expectPunct(s string) error {
	if !p.isPunct(s) {
		return p.errf("expected '%s', found %s", s, p.tok)
	}
	return p.advance()
}

func (p *parser) expectArrow() error {
	if p.tok.kind != tArrow {
		return p.errf("expected '->', found %s", p.tok)
	}
	return p.advance()
}

func (p *parser) expectIdent(s string) error {
	if !p.isIdent(s) {
		return p.errf("expected '%s', found %s", s, p.tok)
	}
	return p.advance()
}

func (p *parser) module() (*Module, error) {
	m := NewModule()
	if p.isIdent("module") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectIdent("attributes"); err != nil {
			return nil, err
		}
		a, err := p.attrDict()
		if err != nil {
			return nil, err
		}
		m.Attrs = a
	}
	for p.tok.kind != tEOF {
		switch {
		case p.isIdent("global"):
			g, err := p.global()
			if err != nil {
				return nil, err
			}
			m.Globals = append(m.Globals, g)
		case p.isIdent("func"):
			f, err := p.function()
			if err != nil {
				return nil, err
			}
			m.Functions = append(m.Functions, f)
		default:
			return nil, p.errf("expected 'global' or 'func', found %s", p.tok)
		}
	}
	return m, nil
}

func (p *parser) symbol() (string, error) {
	if p.tok.kind != tSymbol {
		return "", p.errf("expected a symbol (@name), found %s", p.tok)
	}
	s := p.tok.text
	return s, p.advance()
}

func (p *parser) global() (*Global, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	name, err := p.symbol()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(":"); err != nil {
		return nil, err
	}
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	g := &Global{Name: name, Type: t}
	if p.isPunct("=") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		litTok := p.tok
		if g.Init, err = p.literal(); err != nil {
			return nil, err
		}
		if err := p.checkIntText(litTok, t); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (p *parser) function() (*Function, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	name, err := p.symbol()
	if err != nil {
		return nil, err
	}
	f := &Function{Name: name}
	if f.Type.Inputs, err = p.parenTypes(); err != nil {
		return nil, err
	}
	if err := p.expectArrow(); err != nil {
		return nil, err
	}
	if f.Type.Outputs, err = p.parenTypes(); err != nil {
		return nil, err
	}
	if p.isIdent("inputs") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if f.InputNames, err = p.nameList(); err != nil {
			return nil, err
		}
	}
	if p.isIdent("outputs") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if f.OutputNames, err = p.nameList(); err != nil {
			return nil, err
		}
	}
	if p.isIdent("attributes") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if f.Attrs, err = p.attrDict(); err != nil {
			return nil, err
		}
	}
	if p.isPunct("{") {
		p.fn = f
		p.labels = map[string]*Block{}
		p.defined = map[string]bool{}
		p.labelAt = map[string]token{}
		if f.Body, err = p.region(); err != nil {
			return nil, err
		}
		// Report the first use of an undefined label, in source order.
		var first *token
		for l := range p.labels {
			if t := p.labelAt[l]; !p.defined[l] && (first == nil || t.line < first.line || t.line == first.line && t.col < first.col) {
				first = &t
			}
		}
		if first != nil {
			return nil, p.lx.errAt(first.line, first.col, "block ^%s is used but never defined", first.text)
		}
		p.fn = nil
	}
	return f, nil
}

func (p *parser) nameList() ([]*string, error) {
	if err := p.expectPunct("["); err != nil {
		return nil, err
	}
	names := []*string{}
	for !p.isPunct("]") {
		if len(names) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		switch {
		case p.isIdent("none"):
			names = append(names, nil)
		case p.tok.kind == tString:
			names = append(names, Name(p.tok.text))
		default:
			return nil, p.errf("expected a quoted name or none, found %s", p.tok)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return names, p.advance()
}

// parenTypes parses "(T, T, …)".
func (p *parser) parenTypes() ([]Type, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var ts []Type
	for !p.isPunct(")") {
		if len(ts) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, p.advance()
}

func (p *parser) typ() (Type, error) {
	if p.tok.kind != tIdent {
		return nil, p.errf("expected a type, found %s", p.tok)
	}
	switch p.tok.text {
	case "tensor":
		body, line, col, err := p.lx.rawAngle()
		if err != nil {
			return nil, err
		}
		t, msg := parseTensorBody(body)
		if msg != "" {
			return nil, p.lx.errAt(line, col, "%s", msg)
		}
		return t, p.advance()
	case "complex":
		body, line, col, err := p.lx.rawAngle()
		if err != nil {
			return nil, err
		}
		s, ok := ParseScalarType("complex<" + strings.TrimSpace(body) + ">")
		if !ok {
			return nil, p.lx.errAt(line, col, "unknown type complex<%s>", body)
		}
		return s, p.advance()
	}
	s, ok := ParseScalarType(p.tok.text)
	if !ok {
		return nil, p.errf("unknown type %q", p.tok.text)
	}
	return s, p.advance()
}

// parseTensorBody parses "?x4xf32", "*xf32" or "f32".
func parseTensorBody(body string) (TensorType, string) {
	s := strings.TrimSpace(body)
	if rest, ok := strings.CutPrefix(s, "*x"); ok {
		e, ok := ParseScalarType(rest)
		if !ok {
			return TensorType{}, fmt.Sprintf("unknown element type %q", rest)
		}
		return UnrankedTensor(e), ""
	}
	t := TensorType{}
	for {
		i := strings.IndexByte(s, 'x')
		if i < 0 || s == "" || !(s[0] == '?' || s[0] == '-' || isDigit(s[0])) {
			break
		}
		dim := s[:i]
		if dim == "?" {
			t.Dims = append(t.Dims, Dynamic)
		} else {
			d, err := strconv.ParseInt(dim, 10, 64)
			if err != nil {
				return t, fmt.Sprintf("malformed dimension %q", dim)
			}
			t.Dims = append(t.Dims, d)
		}
		s = s[i+1:]
	}
	e, ok := ParseScalarType(s)
	if !ok {
		return t, fmt.Sprintf("unknown element type %q", s)
	}
	t.Elem = e
	return t, ""
}

func (p *parser) literal() (Literal, error) {
	t := p.tok
	var lit Literal
	switch {
	case t.kind == tIdent && (t.text == "true" || t.text == "false"):
		lit = BoolLit(t.text == "true")
	case t.kind == tIdent && (t.text == "nan" || t.text == "inf"):
		f := math.Inf(1)
		if t.text == "nan" {
			f = math.NaN()
		}
		lit = FloatLit(f)
	case t.kind == tInt:
		v, err := parseInt(t.text)
		if err != nil {
			return nil, p.errf("integer %s out of range", t.text)
		}
		lit = IntLit(v)
	case t.kind == tFloat:
		f, err := parseFloat(t.text)
		if err != nil {
			return nil, p.errf("malformed float %s", t.text)
		}
		lit = FloatLit(f)
	case t.kind == tHex:
		b, err := hex.DecodeString(t.text)
		if err != nil {
			return nil, p.errf("malformed hex bytes: odd number of digits")
		}
		lit = BytesLit(b)
	default:
		return nil, p.errf("expected a literal, found %s", t)
	}
	return lit, p.advance()
}

// parseInt accepts int64 values and, for unsigned 64-bit data, values up to
// 2^64-1, stored by bit pattern.
func parseInt(s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return v, nil
	}
	u, uerr := strconv.ParseUint(s, 10, 64)
	if uerr != nil {
		return 0, err
	}
	return int64(u), nil
}

// checkIntText rejects integer literal text that an IntLit of scalar type
// t cannot hold faithfully: a value above the int64 range is only the bit
// pattern of a ui64, and a negative value is never a ui64. The verifier
// cannot tell these apart once the text is parsed.
func (p *parser) checkIntText(lit token, t Type) error {
	st, ok := t.(ScalarType)
	if lit.kind != tInt || !ok || !st.IsInt() {
		return nil
	}
	v, err := strconv.ParseInt(lit.text, 10, 64)
	if st == U64 && err == nil && v < 0 || st != U64 && err != nil {
		return p.lx.errAt(lit.line, lit.col, "integer %s is out of range for %s", lit.text, st)
	}
	return nil
}

func parseFloat(s string) (float64, error) {
	if s == "-inf" {
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

func (p *parser) attrDict() (Attrs, error) {
	if err := p.expectPunct("{"); err != nil {
		return nil, err
	}
	a := Attrs{}
	for !p.isPunct("}") {
		if len(a) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		if p.tok.kind != tIdent && p.tok.kind != tString {
			return nil, p.errf("expected an attribute name, found %s", p.tok)
		}
		name := p.tok.text
		if _, dup := a[name]; dup {
			return nil, p.errf("duplicate attribute %q", name)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.isPunct("=") {
			a[name] = UnitAttr{}
			continue
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		v, err := p.attr(0)
		if err != nil {
			return nil, err
		}
		a[name] = v
	}
	return a, p.advance()
}

const maxAttrDepth = 64

func (p *parser) attr(depth int) (Attribute, error) {
	if depth > maxAttrDepth {
		return nil, p.errf("attribute nested too deeply")
	}
	t := p.tok
	switch {
	case p.isPunct("["):
		if err := p.advance(); err != nil {
			return nil, err
		}
		list := ListAttr{}
		for !p.isPunct("]") {
			if len(list) > 0 {
				if err := p.expectPunct(","); err != nil {
					return nil, err
				}
			}
			e, err := p.attr(depth + 1)
			if err != nil {
				return nil, err
			}
			list = append(list, e)
		}
		return list, p.advance()
	case t.kind == tIdent && t.text == "unit":
		return UnitAttr{}, p.advance()
	case t.kind == tString:
		return StringAttr(t.text), p.advance()
	}
	lit, err := p.literal()
	if err != nil {
		return nil, p.lx.errAt(t.line, t.col, "expected an attribute value, found %s", t)
	}
	switch lit := lit.(type) {
	case BoolLit:
		return BoolAttr(lit), nil
	case IntLit:
		return IntAttr(lit), nil
	case FloatLit:
		return FloatAttr(lit), nil
	case BytesLit:
		return BytesAttr(lit), nil
	default:
		panic(fmt.Sprintf("niro: unhandled literal %T", lit))
	}
}

// Regions and blocks.

func (p *parser) block(label string, t token) (*Block, error) {
	if p.defined[label] {
		return nil, p.lx.errAt(t.line, t.col, "block ^%s is defined twice", label)
	}
	p.defined[label] = true
	if b, ok := p.labels[label]; ok {
		return b, nil
	}
	b := &Block{}
	p.labels[label] = b
	return b, nil
}

func (p *parser) ref(label string, t token) *Block {
	if b, ok := p.labels[label]; ok {
		return b
	}
	b := &Block{}
	p.labels[label] = b
	p.labelAt[label] = t
	return b
}

const maxRegionDepth = 256

func (p *parser) region() (*Region, error) {
	return p.regionDepth(0)
}

func (p *parser) regionDepth(depth int) (*Region, error) {
	if depth > maxRegionDepth {
		return nil, p.errf("regions nested too deeply")
	}
	if err := p.expectPunct("{"); err != nil {
		return nil, err
	}
	r := &Region{}
	var cur *Block
	for !p.isPunct("}") {
		if p.tok.kind == tEOF {
			return nil, p.errf("unexpected end of file: missing '}'")
		}
		if p.tok.kind == tLabel {
			t := p.tok
			b, err := p.block(t.text, t)
			if err != nil {
				return nil, err
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.isPunct("(") {
				if err := p.advance(); err != nil {
					return nil, err
				}
				for !p.isPunct(")") {
					if len(b.Args) > 0 {
						if err := p.expectPunct(","); err != nil {
							return nil, err
						}
					}
					v, err := p.valueDef()
					if err != nil {
						return nil, err
					}
					if err := p.expectPunct(":"); err != nil {
						return nil, err
					}
					if v.Type, err = p.typ(); err != nil {
						return nil, err
					}
					b.Args = append(b.Args, v)
				}
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
			if err := p.expectPunct(":"); err != nil {
				return nil, err
			}
			r.Blocks = append(r.Blocks, b)
			cur = b
			continue
		}
		if cur == nil {
			cur = &Block{}
			r.Blocks = append(r.Blocks, cur)
		}
		op, err := p.op(depth)
		if err != nil {
			return nil, err
		}
		cur.Ops = append(cur.Ops, op)
	}
	return r, p.advance()
}

// valueDef parses %N and reserves N in the function's ID space.
func (p *parser) valueDef() (Value, error) {
	v, err := p.valueRef()
	if err == nil && p.fn != nil {
		p.fn.reserveID(v.ID)
	}
	return v, err
}

func (p *parser) valueRef() (Value, error) {
	if p.tok.kind != tValue {
		return Value{}, p.errf("expected a value (%%N), found %s", p.tok)
	}
	n, err := strconv.ParseUint(p.tok.text, 10, 32)
	if err != nil {
		return Value{}, p.errf("value number %%%s out of range", p.tok.text)
	}
	return Value{ID: ValueID(n)}, p.advance()
}

// valueList parses "%a, %b, …" (possibly empty when the next token is not
// a value).
func (p *parser) valueList() ([]Value, error) {
	var vs []Value
	for p.tok.kind == tValue {
		v, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
		if !p.isPunct(",") {
			break
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// typeListInline parses "T, T, …" of exactly n types.
func (p *parser) typeListN(n int) ([]Type, error) {
	ts := make([]Type, 0, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			if !p.isPunct(",") {
				return nil, p.errf("%d types for %d values", i, n)
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func setTypes(vs []Value, ts []Type) {
	for i := range vs {
		vs[i].Type = ts[i]
	}
}

// signature parses ": (T, …) -> T" or "-> (T, …)" and assigns the types to
// operands and results, checking the counts.
func (p *parser) signature(ins, outs []Value) error {
	if err := p.expectPunct(":"); err != nil {
		return err
	}
	t := p.tok
	inTypes, err := p.parenTypes()
	if err != nil {
		return err
	}
	if len(inTypes) != len(ins) {
		return p.lx.errAt(t.line, t.col, "%d operand types for %d operands", len(inTypes), len(ins))
	}
	setTypes(ins, inTypes)
	if err := p.expectArrow(); err != nil {
		return err
	}
	t = p.tok
	var outTypes []Type
	if p.isPunct("(") {
		if outTypes, err = p.parenTypes(); err != nil {
			return err
		}
	} else {
		ty, err := p.typ()
		if err != nil {
			return err
		}
		outTypes = []Type{ty}
	}
	if len(outTypes) != len(outs) {
		return p.lx.errAt(t.line, t.col, "%d result types for %d results", len(outTypes), len(outs))
	}
	setTypes(outs, outTypes)
	return nil
}

func (p *parser) successor() (*Block, []Value, error) {
	if p.tok.kind != tLabel {
		return nil, nil, p.errf("expected a block label (^bbN), found %s", p.tok)
	}
	b := p.ref(p.tok.text, p.tok)
	if err := p.advance(); err != nil {
		return nil, nil, err
	}
	if !p.isPunct("(") {
		return b, nil, nil
	}
	if err := p.advance(); err != nil {
		return nil, nil, err
	}
	args, err := p.valueList()
	if err != nil {
		return nil, nil, err
	}
	if err := p.expectPunct(":"); err != nil {
		return nil, nil, err
	}
	ts, err := p.typeListN(len(args))
	if err != nil {
		return nil, nil, err
	}
	setTypes(args, ts)
	return b, args, p.expectPunct(")")
}

func (p *parser) op(depth int) (Op, error) {
	var results []Value
	if p.tok.kind == tValue {
		for {
			v, err := p.valueDef()
			if err != nil {
				return nil, err
			}
			results = append(results, v)
			if !p.isPunct(",") {
				break
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		if err := p.expectPunct("="); err != nil {
			return nil, err
		}
	}
	start := p.tok
	op, err := p.opBody(start, results, depth)
	if err != nil {
		return nil, err
	}
	if p.isIdent("loc") && !p.tok.lineBeg {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		if p.tok.kind != tString {
			return nil, p.errf("expected a quoted location, found %s", p.tok)
		}
		setLoc(op, p.tok.text)
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func (p *parser) wantResults(start token, results []Value, n int) error {
	if len(results) != n {
		return p.lx.errAt(start.line, start.col, "%s has %d results, found %d", start.text, n, len(results))
	}
	return nil
}

func (p *parser) opBody(start token, results []Value, depth int) (Op, error) {
	if start.kind == tString {
		return p.unknownOp(start, results, depth)
	}
	if start.kind != tIdent {
		return nil, p.errf("expected an operation, found %s", start)
	}
	name := start.text
	switch name {
	case "const", "get_global", "transpose", "tensor_extract", "matmul":
		if err := p.wantResults(start, results, 1); err != nil {
			return nil, err
		}
	case "br", "cond_br", "return", "yield":
		if err := p.wantResults(start, results, 0); err != nil {
			return nil, err
		}
	}
	if def, ok := opDefs[name]; ok {
		return p.genericOp(start, name, def, results)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	switch name {
	case "const":
		litTok := p.tok
		lit, err := p.literal()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		if err := p.checkIntText(litTok, t); err != nil {
			return nil, err
		}
		results[0].Type = t
		return &Const{Result: results[0], Lit: lit}, nil
	case "get_global":
		sym, err := p.symbol()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		t, err := p.typ()
		if err != nil {
			return nil, err
		}
		results[0].Type = t
		return &GetGlobal{Result: results[0], Global: sym}, nil
	case "transpose":
		x, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct("["); err != nil {
			return nil, err
		}
		perm := []int{}
		for !p.isPunct("]") {
			if len(perm) > 0 {
				if err := p.expectPunct(","); err != nil {
					return nil, err
				}
			}
			if p.tok.kind != tInt {
				return nil, p.errf("expected an integer, found %s", p.tok)
			}
			d, err := strconv.ParseInt(p.tok.text, 10, 32)
			if err != nil {
				return nil, p.errf("permutation entry %s out of range", p.tok.text)
			}
			perm = append(perm, int(d))
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		ins := []Value{x}
		if err := p.signature(ins, results); err != nil {
			return nil, err
		}
		return &Transpose{Result: results[0], X: ins[0], Perm: perm}, nil
	case "tensor_extract":
		x, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct("["); err != nil {
			return nil, err
		}
		idx, err := p.valueList()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct("]"); err != nil {
			return nil, err
		}
		ins := append([]Value{x}, idx...)
		if err := p.signature(ins, results); err != nil {
			return nil, err
		}
		return &TensorExtract{Result: results[0], X: ins[0], Indices: ins[1:]}, nil
	case "matmul":
		lhs, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		rhs, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		ins := []Value{lhs, rhs}
		if err := p.signature(ins, results); err != nil {
			return nil, err
		}
		return &MatMul{Result: results[0], LHS: ins[0], RHS: ins[1]}, nil
	case "call":
		callee, err := p.symbol()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		args, err := p.valueList()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(")"); err != nil {
			return nil, err
		}
		if err := p.signature(args, results); err != nil {
			return nil, err
		}
		return &Call{Callee: callee, Args: args, Res: results}, nil
	case "br":
		b, args, err := p.successor()
		if err != nil {
			return nil, err
		}
		return &Branch{Target: b, Args: args}, nil
	case "cond_br":
		c, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		if c.Type, err = p.typ(); err != nil {
			return nil, err
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		tb, targs, err := p.successor()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		fb, fargs, err := p.successor()
		if err != nil {
			return nil, err
		}
		return &CondBranch{Cond: c, True: tb, TrueArgs: targs, False: fb, FalseArgs: fargs}, nil
	case "return", "yield":
		var vals []Value
		if p.tok.kind == tValue && !p.tok.lineBeg {
			var err error
			if vals, err = p.valueList(); err != nil {
				return nil, err
			}
			if err := p.expectPunct(":"); err != nil {
				return nil, err
			}
			ts, err := p.typeListN(len(vals))
			if err != nil {
				return nil, err
			}
			setTypes(vals, ts)
		}
		if name == "return" {
			return &Return{Values: vals}, nil
		}
		return &Yield{Values: vals}, nil
	case "loop":
		return p.parseLoop(results, depth)
	case "if":
		c, err := p.valueRef()
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		if c.Type, err = p.typ(); err != nil {
			return nil, err
		}
		if err := p.expectArrow(); err != nil {
			return nil, err
		}
		t := p.tok
		ts, err := p.parenTypes()
		if err != nil {
			return nil, err
		}
		if len(ts) != len(results) {
			return nil, p.lx.errAt(t.line, t.col, "%d result types for %d results", len(ts), len(results))
		}
		setTypes(results, ts)
		then, err := p.regionDepth(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expectIdent("else"); err != nil {
			return nil, err
		}
		els, err := p.regionDepth(depth + 1)
		if err != nil {
			return nil, err
		}
		return &If{Res: results, Cond: c, Then: then, Else: els}, nil
	}
	return nil, p.lx.errAt(start.line, start.col, "unknown operation %q (write unknown operations in the generic form \"name\"(...))", name)
}

func (p *parser) unknownOp(start token, results []Value, depth int) (Op, error) {
	op := &UnknownOp{OpName: start.text, Res: results}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	args, err := p.valueList()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	op.Args = args
	if p.isPunct("[") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		for !p.isPunct("]") {
			if len(op.Targets) > 0 {
				if err := p.expectPunct(","); err != nil {
					return nil, err
				}
			}
			if p.tok.kind != tLabel {
				return nil, p.errf("expected a block label, found %s", p.tok)
			}
			op.Targets = append(op.Targets, p.ref(p.tok.text, p.tok))
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if p.isPunct("(") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		for !p.isPunct(")") {
			if len(op.Bodies) > 0 {
				if err := p.expectPunct(","); err != nil {
					return nil, err
				}
			}
			r, err := p.regionDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			op.Bodies = append(op.Bodies, r)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if p.isPunct("{") {
		if op.Attrs, err = p.attrDict(); err != nil {
			return nil, err
		}
	}
	if err := p.signature(op.Args, op.Res); err != nil {
		return nil, err
	}
	return op, nil
}

// genericOp parses the generic form after the result list:
// "name %a, %b {attrs} : (T, T) -> T".
func (p *parser) genericOp(start token, name string, def *opDef, results []Value) (Op, error) {
	if err := p.wantResults(start, results, def.results); err != nil {
		return nil, err
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var ins []Value
	if p.tok.kind == tValue && !p.tok.lineBeg {
		var err error
		if ins, err = p.valueList(); err != nil {
			return nil, err
		}
	}
	if def.operands >= 0 && len(ins) != def.operands || def.operands < 0 && len(ins) == 0 {
		return nil, p.lx.errAt(start.line, start.col, "%s takes %s, has %d", name, operandCount(def.operands), len(ins))
	}
	var attrs Attrs
	if p.isPunct("{") {
		var err error
		if attrs, err = p.attrDict(); err != nil {
			return nil, err
		}
	}
	if err := p.signature(ins, results); err != nil {
		return nil, err
	}
	op, err := def.make(ins, results, attrs)
	if err != nil {
		return nil, p.lx.errAt(start.line, start.col, "%v", err)
	}
	op.setResults(results)
	return op, nil
}

func operandCount(n int) string {
	switch n {
	case -1:
		return "one or more operands"
	case 1:
		return "1 operand"
	}
	return fmt.Sprintf("%d operands", n)
}

func setLoc(op Op, loc string) { op.SetLocation(loc) }
