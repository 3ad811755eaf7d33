package niro

import (
	"fmt"
	"strconv"
	"strings"
)

type tokKind int

const (
	tEOF    tokKind = iota
	tIdent          // func, f32, tensor, true, nan …
	tValue          // %12
	tLabel          // ^bb3
	tSymbol         // @name or @"name"
	tInt            // 42, -7
	tFloat          // 1.5, -2e-3
	tHex            // 0xABCD (bytes)
	tString         // "text"
	tPunct          // ( ) [ ] { } < > , : = * ?
	tArrow          // ->
)

type token struct {
	kind    tokKind
	text    string // identifier, punctuation, number text, unquoted string/symbol
	line    int
	col     int
	lineBeg bool // first token on its line
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	case tValue:
		return "%" + t.text
	case tLabel:
		return "^" + t.text
	case tSymbol:
		return "@" + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

type lexer struct {
	src      string
	pos      int
	line     int
	col      int
	sawNL    bool
	filename string
}

// ParseError is a syntax error of the textual form, at a 1-based line and
// byte column of the named file.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: message".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

func (lx *lexer) errAt(line, col int, format string, args ...any) *ParseError {
	return &ParseError{File: lx.filename, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (lx *lexer) advance(n int) {
	for i := 0; i < n && lx.pos < len(lx.src); i++ {
		if lx.src[lx.pos] == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
		lx.pos++
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '.' || c == '$' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipSpace skips blanks and // comments, noting newlines.
func (lx *lexer) skipSpace() {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == '\n':
			lx.sawNL = true
			lx.advance(1)
		case c == ' ' || c == '\t' || c == '\r':
			lx.advance(1)
		case c == '/' && strings.HasPrefix(lx.src[lx.pos:], "//"):
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.advance(1)
			}
		default:
			return
		}
	}
}

func (lx *lexer) next() (token, error) {
	lx.skipSpace()
	tok := token{line: lx.line, col: lx.col, lineBeg: lx.sawNL}
	lx.sawNL = false
	if lx.pos >= len(lx.src) {
		tok.kind = tEOF
		return tok, nil
	}
	c := lx.src[lx.pos]
	rest := lx.src[lx.pos:]
	switch {
	case c == '%':
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return tok, lx.errAt(tok.line, tok.col, "expected a value number after %%")
		}
		tok.kind, tok.text = tValue, rest[1:n]
		lx.advance(n)
	case c == '^':
		n := 1
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		if n == 1 {
			return tok, lx.errAt(tok.line, tok.col, "expected a block label after ^")
		}
		tok.kind, tok.text = tLabel, rest[1:n]
		lx.advance(n)
	case c == '@':
		if len(rest) > 1 && rest[1] == '"' {
			s, n, err := lx.quoted(rest[1:], tok)
			if err != nil {
				return tok, err
			}
			tok.kind, tok.text = tSymbol, s
			lx.advance(1 + n)
			break
		}
		n := 1
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		if n == 1 {
			return tok, lx.errAt(tok.line, tok.col, "expected a symbol name after @")
		}
		tok.kind, tok.text = tSymbol, rest[1:n]
		lx.advance(n)
	case c == '"':
		s, n, err := lx.quoted(rest, tok)
		if err != nil {
			return tok, err
		}
		tok.kind, tok.text = tString, s
		lx.advance(n)
	case c == '-' && len(rest) > 1 && rest[1] == '>':
		tok.kind, tok.text = tArrow, "->"
		lx.advance(2)
	case strings.HasPrefix(rest, "0x"):
		n := 2
		for n < len(rest) && isHexDigit(rest[n]) {
			n++
		}
		tok.kind, tok.text = tHex, rest[2:n]
		lx.advance(n)
	case isDigit(c) || c == '-' && len(rest) > 1 && (isDigit(rest[1]) || strings.HasPrefix(rest[1:], "inf")):
		if strings.HasPrefix(rest, "-inf") && (len(rest) == 4 || !isIdentChar(rest[4])) {
			tok.kind, tok.text = tFloat, "-inf"
			lx.advance(4)
			break
		}
		n := 0
		if c == '-' {
			n++
		}
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		tok.kind = tInt
		if n < len(rest) && rest[n] == '.' {
			tok.kind = tFloat
			n++
			for n < len(rest) && isDigit(rest[n]) {
				n++
			}
		}
		if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
			m := n + 1
			if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
				m++
			}
			if m < len(rest) && isDigit(rest[m]) {
				tok.kind = tFloat
				n = m
				for n < len(rest) && isDigit(rest[n]) {
					n++
				}
			}
		}
		tok.text = rest[:n]
		lx.advance(n)
	case isIdentStart(c):
		n := 1
		for n < len(rest) && isIdentChar(rest[n]) {
			n++
		}
		tok.kind, tok.text = tIdent, rest[:n]
		lx.advance(n)
	case strings.ContainsRune("()[]{}<>,:=*?", rune(c)):
		tok.kind, tok.text = tPunct, rest[:1]
		lx.advance(1)
	default:
		return tok, lx.errAt(tok.line, tok.col, "unexpected character %q", c)
	}
	return tok, nil
}

// quoted scans a Go-syntax quoted string at the start of s and returns its
// value and length.
func (lx *lexer) quoted(s string, tok token) (string, int, error) {
	n := 1
	for n < len(s) {
		switch s[n] {
		case '\\':
			n += 2
			continue
		case '\n':
			return "", 0, lx.errAt(tok.line, tok.col, "unterminated string")
		case '"':
			v, err := strconv.Unquote(s[:n+1])
			if err != nil {
				return "", 0, lx.errAt(tok.line, tok.col, "malformed string %s", s[:n+1])
			}
			return v, n + 1, nil
		}
		n++
	}
	return "", 0, lx.errAt(tok.line, tok.col, "unterminated string")
}

// rawAngle scans the text between a '<' at the current position and its
// matching '>', for tensor and complex type bodies.
func (lx *lexer) rawAngle() (string, int, int, error) {
	lx.skipSpace()
	line, col := lx.line, lx.col
	if lx.pos >= len(lx.src) || lx.src[lx.pos] != '<' {
		return "", line, col, lx.errAt(line, col, "expected '<'")
	}
	depth := 0
	for i := lx.pos; i < len(lx.src); i++ {
		switch lx.src[i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				body := lx.src[lx.pos+1 : i]
				lx.advance(i + 1 - lx.pos)
				return body, line, col + 1, nil
			}
		case '\n', '(', ')', ',', '{', '}', '[', ']', '=', ':':
			// None of these occurs in a type body.
			return "", line, col, lx.errAt(line, col, "unterminated type: missing '>'")
		}
	}
	return "", line, col, lx.errAt(line, col, "unterminated type: missing '>'")
}
