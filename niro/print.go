package niro

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Print writes the textual form of m to w. Printing never modifies the IR
// and never fails on invalid IR; it only returns write errors.
func Print(w io.Writer, m *Module) error {
	bw := bufio.NewWriter(w)
	p := &printer{w: bw}
	p.module(m)
	return bw.Flush()
}

// String returns the textual form of the module.
func (m *Module) String() string {
	var sb strings.Builder
	_ = Print(&sb, m)
	return sb.String()
}

// FunctionString returns the textual form of one function, as it appears in
// a module.
func FunctionString(f *Function) string {
	var sb strings.Builder
	bw := bufio.NewWriter(&sb)
	p := &printer{w: bw}
	p.function(f)
	_ = bw.Flush()
	return sb.String()
}

type printer struct {
	w      *bufio.Writer
	indent int
	blocks map[*Block]int // function-wide block numbers
	nextBB int
	// targeted holds the blocks that some op of the function branches to;
	// such an entry block (invalid IR) prints with its label so that the
	// text parses back.
	targeted map[*Block]bool
	// open holds the regions being numbered or printed, so that a region
	// that (invalidly) contains itself prints as a placeholder instead of
	// recursing forever.
	open map[*Region]bool
}

func (p *printer) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }
func (p *printer) str(s string)                      { p.w.WriteString(s) }

func (p *printer) newline() {
	p.w.WriteByte('\n')
	for i := 0; i < p.indent; i++ {
		p.w.WriteString("  ")
	}
}

func (p *printer) module(m *Module) {
	if m == nil {
		return
	}
	sep := false
	if len(m.Attrs) > 0 {
		p.str("module attributes ")
		p.attrDict(m.Attrs)
		p.str("\n")
		sep = true
	}
	for _, g := range m.Globals {
		if sep {
			p.str("\n")
		}
		sep = true
		p.global(g)
	}
	for _, f := range m.Functions {
		if sep {
			p.str("\n")
		}
		sep = true
		p.function(f)
	}
}

func (p *printer) global(g *Global) {
	if g == nil {
		p.str("// <nil global>\n")
		return
	}
	p.str("global ")
	p.symbol(g.Name)
	p.str(" : ")
	p.str(typeString(g.Type))
	if g.Init != nil {
		p.str(" = ")
		p.typedLiteral(g.Init, g.Type)
	}
	p.str("\n")
}

func (p *printer) function(f *Function) {
	if f == nil {
		p.str("// <nil function>\n")
		return
	}
	p.str("func ")
	p.symbol(f.Name)
	p.str("(")
	p.str(typeList(f.Type.Inputs))
	p.str(") -> (")
	p.str(typeList(f.Type.Outputs))
	p.str(")")
	if f.InputNames != nil {
		p.str(" inputs ")
		p.nameList(f.InputNames)
	}
	if f.OutputNames != nil {
		p.str(" outputs ")
		p.nameList(f.OutputNames)
	}
	if len(f.Attrs) > 0 {
		p.str(" attributes ")
		p.attrDict(f.Attrs)
	}
	if f.Body != nil {
		p.blocks = map[*Block]int{}
		p.nextBB = 0
		p.targeted = map[*Block]bool{}
		p.numberRegion(f.Body)
		p.str(" ")
		p.region(f.Body)
	}
	p.str("\n")
}

func (p *printer) nameList(names []*string) {
	p.str("[")
	for i, n := range names {
		if i > 0 {
			p.str(", ")
		}
		if n == nil {
			p.str("none")
		} else {
			p.str(strconv.Quote(*n))
		}
	}
	p.str("]")
}

// numberRegion gives every block of the region a number, then the blocks
// of nested regions, so labels are unique across the function. It also
// records the blocks that ops branch to.
func (p *printer) numberRegion(r *Region) {
	if r == nil || p.open[r] {
		return
	}
	p.enter(r)
	defer delete(p.open, r)
	if p.targeted == nil {
		p.targeted = map[*Block]bool{}
	}
	for _, b := range r.Blocks {
		p.blockNum(b)
	}
	for _, b := range r.Blocks {
		if b == nil {
			continue
		}
		for _, op := range b.Ops {
			if op == nil {
				continue
			}
			for _, s := range op.Successors() {
				p.targeted[s] = true
			}
			for _, sub := range op.Regions() {
				p.numberRegion(sub)
			}
		}
	}
}

func (p *printer) blockNum(b *Block) int {
	if n, ok := p.blocks[b]; ok {
		return n
	}
	if p.blocks == nil {
		p.blocks = map[*Block]int{}
	}
	n := p.nextBB
	p.nextBB++
	p.blocks[b] = n
	return n
}

func (p *printer) enter(r *Region) {
	if p.open == nil {
		p.open = map[*Region]bool{}
	}
	p.open[r] = true
}

func (p *printer) region(r *Region) {
	if r == nil {
		p.str("{<nil region>}")
		return
	}
	if p.open[r] {
		p.str("{<region contains itself>}")
		return
	}
	p.enter(r)
	defer delete(p.open, r)
	p.str("{")
	p.indent++
	for i, b := range r.Blocks {
		if b == nil {
			p.newline()
			p.str("// <nil block>")
			continue
		}
		if i > 0 || len(b.Args) > 0 || len(b.Ops) == 0 || p.targeted[b] {
			p.indent--
			p.newline()
			p.indent++
			p.printf("^bb%d", p.blockNum(b))
			if len(b.Args) > 0 {
				p.str("(")
				for j, a := range b.Args {
					if j > 0 {
						p.str(", ")
					}
					p.printf("%s: %s", a, typeString(a.Type))
				}
				p.str(")")
			}
			p.str(":")
		}
		for _, op := range b.Ops {
			p.newline()
			if op == nil {
				p.str("// <nil op>")
				continue
			}
			op.print(p)
			if l := op.Location(); l != "" {
				p.str(" loc(")
				p.str(strconv.Quote(l))
				p.str(")")
			}
		}
	}
	p.indent--
	p.newline()
	p.str("}")
}

func (p *printer) symbol(name string) { p.str(symRef(name)) }

// isIdent reports whether s can print bare as a symbol or attribute name:
// whether the lexer reads it back as one identifier (isIdentStart, then
// isIdentChar), the one identifier rule of the Niro text format.
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

func (p *printer) values(vs []Value) {
	for i, v := range vs {
		if i > 0 {
			p.str(", ")
		}
		p.str(v.String())
	}
}

func valueTypes(vs []Value) []Type {
	ts := make([]Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	return ts
}

// results prints "%a, %b = " for a non-empty result list.
func (p *printer) results(vs []Value) {
	if len(vs) == 0 {
		return
	}
	p.values(vs)
	p.str(" = ")
}

// funcType prints "(operand types) -> result types", parenthesizing the
// results unless there is exactly one.
func (p *printer) funcType(ins, outs []Value, parenOuts bool) {
	p.str("(")
	p.str(typeList(valueTypes(ins)))
	p.str(") -> ")
	if len(outs) == 1 && !parenOuts {
		p.str(typeString(outs[0].Type))
		return
	}
	p.str("(")
	p.str(typeList(valueTypes(outs)))
	p.str(")")
}

// typedLiteral prints a literal of type t: like literal, except that a
// ui64 integer prints unsigned (IntLit holds its bit pattern).
func (p *printer) typedLiteral(l Literal, t Type) {
	if i, ok := l.(IntLit); ok && t == Type(U64) {
		p.str(strconv.FormatUint(uint64(i), 10))
		return
	}
	p.literal(l)
}

func (p *printer) literal(l Literal) {
	switch l := l.(type) {
	case BoolLit:
		p.str(strconv.FormatBool(bool(l)))
	case IntLit:
		p.str(strconv.FormatInt(int64(l), 10))
	case FloatLit:
		p.str(formatFloat(float64(l)))
	case BytesLit:
		p.str("0x")
		p.str(strings.ToUpper(hex.EncodeToString(l)))
	case nil:
		p.str("<nil literal>")
	default:
		panic(fmt.Sprintf("niro: unhandled literal %T", l))
	}
}

// formatFloat prints f so that it parses back to the same float64 and
// never looks like an integer.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func (p *printer) attrDict(a Attrs) {
	p.str("{")
	for i, name := range a.Names() {
		if i > 0 {
			p.str(", ")
		}
		if isIdent(name) {
			p.str(name)
		} else {
			p.str(strconv.Quote(name))
		}
		if _, unit := a[name].(UnitAttr); unit {
			continue
		}
		p.str(" = ")
		p.attr(a[name])
	}
	p.str("}")
}

func (p *printer) attr(a Attribute) {
	switch a := a.(type) {
	case UnitAttr:
		p.str("unit")
	case BoolAttr:
		p.str(strconv.FormatBool(bool(a)))
	case IntAttr:
		p.str(strconv.FormatInt(int64(a), 10))
	case FloatAttr:
		p.str(formatFloat(float64(a)))
	case StringAttr:
		p.str(strconv.Quote(string(a)))
	case BytesAttr:
		p.str("0x")
		p.str(strings.ToUpper(hex.EncodeToString(a)))
	case ListAttr:
		p.str("[")
		for i, e := range a {
			if i > 0 {
				p.str(", ")
			}
			p.attr(e)
		}
		p.str("]")
	case nil:
		p.str("<nil attribute>")
	default:
		panic(fmt.Sprintf("niro: unhandled attribute %T", a))
	}
}

func (p *printer) succ(b *Block, args []Value) {
	p.printf("^bb%d", p.blockNum(b))
	if len(args) > 0 {
		p.str("(")
		p.values(args)
		p.str(" : ")
		p.str(typeList(valueTypes(args)))
		p.str(")")
	}
}

// Per-op printed forms.

func (o *Const) print(p *printer) {
	p.results(o.Results())
	p.str("const ")
	p.typedLiteral(o.Lit, o.Result.Type)
	p.str(" : ")
	p.str(typeString(o.Result.Type))
}

func (o *GetGlobal) print(p *printer) {
	p.results(o.Results())
	p.str("get_global ")
	p.symbol(o.Global)
	p.str(" : ")
	p.str(typeString(o.Result.Type))
}

func (o *Transpose) print(p *printer) {
	p.results(o.Results())
	p.printf("transpose %s [", o.X)
	for i, d := range o.Perm {
		if i > 0 {
			p.str(", ")
		}
		p.str(strconv.Itoa(d))
	}
	p.str("] : ")
	p.funcType(o.Operands(), o.Results(), false)
}

func (o *TensorExtract) print(p *printer) {
	p.results(o.Results())
	p.printf("tensor_extract %s[", o.X)
	p.values(o.Indices)
	p.str("] : ")
	p.funcType(o.Operands(), o.Results(), false)
}

func (p *printer) binary(name string, res, lhs, rhs Value) {
	p.printf("%s = %s %s, %s : ", res, name, lhs, rhs)
	p.funcType([]Value{lhs, rhs}, []Value{res}, false)
}

func (o *MatMul) print(p *printer) { p.binary("matmul", o.Result, o.LHS, o.RHS) }

func (o *Call) print(p *printer) {
	p.results(o.Res)
	p.str("call ")
	p.symbol(o.Callee)
	p.str("(")
	p.values(o.Args)
	p.str(") : ")
	p.funcType(o.Args, o.Res, true)
}

func (o *Branch) print(p *printer) {
	p.str("br ")
	p.succ(o.Target, o.Args)
}

func (o *CondBranch) print(p *printer) {
	p.printf("cond_br %s : %s, ", o.Cond, typeString(o.Cond.Type))
	p.succ(o.True, o.TrueArgs)
	p.str(", ")
	p.succ(o.False, o.FalseArgs)
}

func (p *printer) exit(name string, vs []Value) {
	p.str(name)
	if len(vs) > 0 {
		p.str(" ")
		p.values(vs)
		p.str(" : ")
		p.str(typeList(valueTypes(vs)))
	}
}

func (o *Return) print(p *printer) { p.exit("return", o.Values) }
func (o *Yield) print(p *printer)  { p.exit("yield", o.Values) }

func (o *If) print(p *printer) {
	p.results(o.Res)
	p.printf("if %s : %s -> (%s) ", o.Cond, typeString(o.Cond.Type), typeList(valueTypes(o.Res)))
	p.region(o.Then)
	p.str(" else ")
	p.region(o.Else)
}

func (o *UnknownOp) print(p *printer) {
	p.results(o.Res)
	p.str(strconv.Quote(o.OpName))
	p.str("(")
	p.values(o.Args)
	p.str(")")
	if len(o.Targets) > 0 {
		p.str(" [")
		for i, t := range o.Targets {
			if i > 0 {
				p.str(", ")
			}
			p.printf("^bb%d", p.blockNum(t))
		}
		p.str("]")
	}
	if len(o.Bodies) > 0 {
		p.str(" (")
		for i, r := range o.Bodies {
			if i > 0 {
				p.str(", ")
			}
			p.region(r)
		}
		p.str(")")
	}
	if len(o.Attrs) > 0 {
		p.str(" ")
		p.attrDict(o.Attrs)
	}
	p.str(" : ")
	p.funcType(o.Args, o.Res, len(o.Res) != 1)
}
