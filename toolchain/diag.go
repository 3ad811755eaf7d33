package toolchain

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// NodeLoc is what an MLIR location says about the model: the ONNX node
// an op was emitted for and the Niro op it lowers. package emit writes
// loc("NODE"("OP")) on every op (docs/emit.md, "Locations").
type NodeLoc struct {
	Node string // the node's name (niro.Op.Location)
	Op   string // the Niro op's name, such as "conv" or "add"; "" when the location has none
}

// String returns `node "NODE" (OP)`, or `node "NODE"` without an op.
func (n NodeLoc) String() string {
	s := "node " + strconv.Quote(n.Node)
	if n.Op != "" {
		s += " (" + n.Op + ")"
	}
	return s
}

// Diagnostic is one diagnostic an MLIR tool printed on standard error.
type Diagnostic struct {
	// Where is the position mlir-opt printed: "FILE:LINE:COL", or
	// "<unknown>:0" when the location holds no file position.
	Where string
	// Severity is "error", "warning", "note" or "remark".
	Severity string
	// Loc is the location as printed after the severity ("loc(...)"), or
	// "" when the diagnostic has a file position instead.
	Loc string
	// Message is the rest of the diagnostic's first line.
	Message string
	// Nodes are the model's nodes Loc names, in order, each once.
	Nodes []NodeLoc
}

// diagLineRE matches the first line of an MLIR diagnostic as mlir-opt's
// source manager prints it: "WHERE: SEVERITY: MESSAGE". A location
// without a file position (a NameLoc, a FusedLoc of NameLocs) is printed
// as "<unknown>:0: error: loc(...): MESSAGE"; one that holds a file
// position anywhere (FileLineColLoc, or a NameLoc, CallSiteLoc or
// FusedLoc around one) as "FILE:LINE:COL: error: MESSAGE".
var diagLineRE = regexp.MustCompile(`^(.*?): (error|warning|note|remark): (.*)$`)

// ParseDiagnostics returns the diagnostics in an MLIR tool's standard
// error, in order; the lines that continue one (the source line and
// caret, an op dump) are skipped.
func ParseDiagnostics(stderr string) []Diagnostic {
	var ds []Diagnostic
	for _, line := range strings.Split(stderr, "\n") {
		m := diagLineRE.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], " ") {
			continue
		}
		d := Diagnostic{Where: m[1], Severity: m[2], Message: m[3]}
		if strings.HasPrefix(d.Message, "loc(") {
			if n := locEnd(d.Message); n > 0 && strings.HasPrefix(d.Message[n:], ": ") {
				d.Loc, d.Message = d.Message[:n], d.Message[n+2:]
				d.Nodes = ParseLocation(d.Loc)
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// locEnd returns the length of the loc(...) that s starts with, or 0
// when its parentheses do not close.
func locEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// ParseLocation returns the nodes an MLIR location names: s is a
// location as MLIR prints it, loc(...) or what is inside. It reads every
// form mlir-opt prints: a NameLoc "NODE"("OP") (the form package emit
// writes) or "NODE", with or without a child; fused[...] and
// fused<META>[...] (after fusion or folding), each member in order;
// callsite(CALLEE at CALLER) (after inlining), the callee first; file
// positions and unknown, which name nothing. Names are unescaped (\\,
// \", \n, \t and \XX); each node appears once. Text it cannot read ends
// the search: the nodes found so far are returned.
func ParseLocation(s string) []NodeLoc {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "loc(") && strings.HasSuffix(s, ")") {
		s = s[len("loc(") : len(s)-1]
	}
	p := &locParser{s: s, seen: map[NodeLoc]bool{}}
	p.located(p.loc())
	return p.nodes
}

type locParser struct {
	s     string
	i     int
	bad   bool
	nodes []NodeLoc
	seen  map[NodeLoc]bool
}

func (p *locParser) add(n NodeLoc) {
	if !p.seen[n] {
		p.seen[n] = true
		p.nodes = append(p.nodes, n)
	}
}

func (p *locParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *locParser) eat(tok string) bool {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// loc reads one location and records the nodes it names. A bare NameLoc
// "NAME" is returned instead, with kind locName: inside a NameLoc it is
// the op, elsewhere (located) a node without one.
func (p *locParser) loc() (name string, kind locKind) {
	if p.bad {
		return "", locBad
	}
	p.skipSpace()
	switch {
	case p.eat("unknown"):
		return "", locOther
	case p.eat("callsite("):
		p.located(p.loc())
		if !p.eat("at") {
			p.bad = true
			return "", locBad
		}
		p.located(p.loc())
		if !p.eat(")") {
			p.bad = true
		}
		return "", locOther
	case p.eat("fused"):
		if p.eat("<") {
			n := locEnd("<" + p.s[p.i:])
			if n == 0 {
				p.bad = true
				return "", locBad
			}
			p.i += n - 1
		}
		if !p.eat("[") {
			p.bad = true
			return "", locBad
		}
		for !p.bad {
			p.located(p.loc())
			if p.eat("]") {
				break
			}
			if !p.eat(",") {
				p.bad = true
			}
		}
		return "", locOther
	case p.i < len(p.s) && p.s[p.i] == '"':
		str, ok := p.str()
		if !ok {
			p.bad = true
			return "", locBad
		}
		if p.eat(":") { // a file position: "FILE":LINE:COL [to ...]
			for p.i < len(p.s) && strings.IndexByte("0123456789: to", p.s[p.i]) >= 0 {
				p.i++
			}
			return "", locOther
		}
		if p.eat("(") {
			child, ck := p.loc()
			if !p.eat(")") {
				p.bad = true
			}
			if ck == locName { // "NODE"("OP")
				p.add(NodeLoc{Node: str, Op: child})
				return "", locOther
			}
			p.add(NodeLoc{Node: str}) // a name around another location
			return "", locOther
		}
		return str, locName
	}
	p.bad = true
	return "", locBad
}

type locKind int

const (
	locBad   locKind = iota
	locOther         // read; its nodes, if any, are recorded
	locName          // a bare NameLoc "NAME", which its parent decides about
)

// located records a bare NameLoc met as a member of a fused or callsite
// location: a node without an op.
func (p *locParser) located(name string, kind locKind) {
	if kind == locName {
		p.add(NodeLoc{Node: name})
	}
}

// str reads an MLIR string literal at p.i.
func (p *locParser) str() (string, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case '\\', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				if p.i+1 < len(p.s) {
					if v, err := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8); err == nil {
						b.WriteByte(byte(v))
						p.i++
						continue
					}
				}
				return "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// inputLocs returns LineLocs of the file at path; nil when it cannot be
// read.
func inputLocs(path string) map[int][]NodeLoc {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	locs, err := LineLocs(f)
	if err != nil {
		return nil
	}
	return locs
}

// LineLocs reads MLIR text as package emit writes it and returns the
// nodes of its lines, by line number (from 1): each line that ends in
// loc(#locN), through the aliases defined after the module, and each line
// that opens a region op (ends in '{': a linalg.generic's first line,
// where its niro.* tags are, an scf.if or scf.for), which carries no
// location itself, with the location of the line that closes the op (the
// next line at its indentation that starts with '}' and opens nothing).
// Lines without a location are absent. Nil when the text defines no
// location aliases.
func LineLocs(r io.Reader) (map[int][]NodeLoc, error) {
	refs := map[int]string{}       // line -> alias
	aliases := map[string]string{} // alias -> location
	type open struct {
		line   int
		indent int
	}
	var stack []open
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(l, "#loc") {
			if name, body, ok := strings.Cut(l, " = "); ok {
				aliases[name] = body
			}
			continue
		}
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		closes := strings.HasPrefix(trimmed, "}")
		opens := strings.HasSuffix(l, "{")
		ref := ""
		if i := strings.LastIndex(l, " loc(#loc"); i >= 0 && strings.HasSuffix(l, ")") {
			ref = l[i+len(" loc(") : len(l)-1]
			refs[n] = ref
		}
		switch {
		case opens && !closes:
			stack = append(stack, open{n, indent})
		case closes && !opens:
			for len(stack) > 0 && stack[len(stack)-1].indent > indent {
				stack = stack[:len(stack)-1]
			}
			if k := len(stack) - 1; k >= 0 && stack[k].indent == indent {
				if ref != "" {
					refs[stack[k].line] = ref
				}
				stack = stack[:k]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(aliases) == 0 {
		return nil, nil
	}
	out := map[int][]NodeLoc{}
	for n, a := range refs {
		if body, ok := aliases[a]; ok {
			if nodes := ParseLocation(body); len(nodes) > 0 {
				out[n] = nodes
			}
		}
	}
	return out, nil
}
