// Package mlirtext spells identifiers and strings in MLIR's textual syntax.
// It is the one place that rule lives for the packages that print MLIR
// (emit and harness).
package mlirtext

import (
	"fmt"
	"strings"
)

// IsBareID reports whether s is an MLIR bare identifier,
// (letter|_)(letter|digit|[_$.])*, so that it may follow @ or % unquoted.
func IsBareID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '$' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// Escape returns s as the body of an MLIR string literal: printable ASCII
// stays, every other byte (and '"' and '\\') becomes a two-digit hex
// escape \XX.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "\\%02X", c)
	}
	return b.String()
}

// AppendQuote appends s as an MLIR string literal, quotes included, to
// dst: Quote without allocating.
func AppendQuote(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '\\', hex[c>>4], hex[c&15])
	}
	return append(dst, '"')
}

// Quote returns s as an MLIR string literal, quotes included.
func Quote(s string) string { return `"` + Escape(s) + `"` }

// SymbolRef spells a reference to the symbol name: @name when name is a
// bare identifier, else @"...".
func SymbolRef(name string) string {
	if IsBareID(name) {
		return "@" + name
	}
	return "@" + Quote(name)
}
