package harness

import (
	"fmt"
	"regexp"
	"strings"
)

// Splice inserts harness text (from [Generate]) into lowered, the textual
// LLVM-dialect module the host pipeline produced, just before the closing
// brace of its top-level module. Declarations in harness of functions that
// lowered already declares (malloc and free, typically) are left out.
func Splice(lowered, harness string) (string, error) {
	end, err := moduleBodyEnd(lowered)
	if err != nil {
		return "", err
	}
	have := definedSymbols(lowered)
	if have["main"] {
		return "", fmt.Errorf("harness: the lowered module already defines @main")
	}
	var b strings.Builder
	b.Grow(len(lowered) + len(harness) + 64)
	b.WriteString(lowered[:end])
	if end > 0 && lowered[end-1] != '\n' {
		b.WriteByte('\n')
	}
	for _, line := range strings.SplitAfter(harness, "\n") {
		if line == "" {
			continue
		}
		if m := declRE.FindStringSubmatch(line); m != nil && have[m[1]] {
			continue
		}
		if m := symDefRE.FindStringSubmatch(line); m != nil && have[m[1]] {
			return "", fmt.Errorf("harness: the lowered module already defines @%s", m[1])
		}
		b.WriteString("  ")
		b.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString(lowered[end:])
	return b.String(), nil
}

// Build generates the harness for s, checks that lowered defines the model
// function with one !llvm.ptr parameter per buffer and no result, and
// splices the harness into lowered.
func Build(lowered string, s Spec) (string, error) {
	if err := s.checkBuffers(); err != nil {
		return "", err
	}
	h, err := Generate(s)
	if err != nil {
		return "", err
	}
	if err := CheckSignature(lowered, s.Func, s.NumArgs()); err != nil {
		return "", err
	}
	return Splice(lowered, h)
}

// declRE matches a one-line external function declaration and captures the
// symbol name.
var declRE = regexp.MustCompile(`^\s*llvm\.func\s+@([A-Za-z_][\w$.]*)\([^{]*$`)

// symDefRE matches the start of a top-level symbol definition.
var symDefRE = regexp.MustCompile(`(?m)^\s*(?:llvm\.func|llvm\.mlir\.global)\s+(?:[a-z_]+\s+)*@([A-Za-z_][\w$.]*)`)

// definedSymbols returns the names of the functions and globals that lowered
// declares or defines.
func definedSymbols(lowered string) map[string]bool {
	have := map[string]bool{}
	for _, m := range symDefRE.FindAllStringSubmatch(lowered, -1) {
		have[m[1]] = true
	}
	return have
}

// CheckSignature reports whether lowered defines or declares
// llvm.func @fn taking exactly nargs parameters, all !llvm.ptr, and
// returning nothing: the bare-pointer calling convention the harness uses.
func CheckSignature(lowered, fn string, nargs int) error {
	re := regexp.MustCompile(`(?m)^\s*llvm\.func\s+(?:[a-z_]+\s+)*` + regexp.QuoteMeta(symbolRef(fn)) + `\(`)
	loc := re.FindStringIndex(lowered)
	if loc == nil {
		return fmt.Errorf("harness: the lowered module has no llvm.func @%s", fn)
	}
	params, rest, ok := splitParams(lowered[loc[1]:])
	if !ok {
		return fmt.Errorf("harness: cannot read the parameter list of llvm.func @%s", fn)
	}
	if len(params) != nargs {
		return fmt.Errorf("harness: llvm.func @%s takes %d parameters, the harness passes %d pointers", fn, len(params), nargs)
	}
	for i, p := range params {
		t := p
		if strings.HasPrefix(t, "%") {
			_, t, _ = strings.Cut(t, ":")
		}
		t = strings.TrimSpace(t)
		if t != "!llvm.ptr" && !strings.HasPrefix(t, "!llvm.ptr ") {
			return fmt.Errorf("harness: parameter %d of llvm.func @%s has type %s, want !llvm.ptr (was the module lowered with use-bare-ptr-memref-call-conv=1 and static shapes?)", i, fn, t)
		}
	}
	rest = strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(rest, "->") {
		return fmt.Errorf("harness: llvm.func @%s returns a value; the harness expects results in out-parameters", fn)
	}
	return nil
}

// splitParams splits the text after an opening parenthesis into the
// top-level comma-separated items up to the matching closing parenthesis,
// returning the items and the text after it.
func splitParams(s string) (params []string, rest string, ok bool) {
	depth := 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			j := skipString(s, i)
			if j < 0 {
				return nil, "", false
			}
			i = j - 1
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			if c == '>' && i > 0 && s[i-1] == '-' {
				continue
			}
			if depth == 0 {
				if c != ')' {
					return nil, "", false
				}
				if last := strings.TrimSpace(s[start:i]); last != "" || len(params) > 0 {
					params = append(params, last)
				}
				return params, s[i+1:], true
			}
			depth--
		case ',':
			if depth == 0 {
				params = append(params, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, "", false
}

// skipString returns the index just after the string literal starting at
// s[i] == '"', or -1 when it is not terminated.
func skipString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// moduleBodyEnd returns the offset of the closing brace of the region of
// the top-level builtin module in src.
func moduleBodyEnd(src string) (int, error) {
	depth := 0
	state := 0 // 0: looking for "module"; 1: after it; 2: inside its attribute dictionary; 3: inside its body
	sawAttributes := false
	bodyDepth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			j := skipString(src, i)
			if j < 0 {
				return 0, fmt.Errorf("harness: unterminated string in the lowered module at offset %d", i)
			}
			i = j - 1
		case c == '{':
			depth++
			if depth == 1 && state == 1 {
				if sawAttributes {
					state, sawAttributes = 2, false
				} else {
					state, bodyDepth = 3, depth
				}
			}
		case c == '}':
			if depth == 0 {
				return 0, fmt.Errorf("harness: unbalanced '}' in the lowered module at offset %d", i)
			}
			if state == 3 && depth == bodyDepth {
				return i, nil
			}
			depth--
			if state == 2 && depth == 0 {
				state = 1
			}
		case isWordByte(c) && (i == 0 || !isWordByte(src[i-1])):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			word := src[i:j]
			if depth == 0 {
				switch {
				case state == 0 && (word == "module" || word == "builtin.module"):
					state = 1
				case state == 1 && word == "attributes":
					sawAttributes = true
				}
			}
			i = j - 1
		}
	}
	if state == 0 {
		return 0, fmt.Errorf("harness: the lowered text has no top-level module")
	}
	return 0, fmt.Errorf("harness: the lowered module's body is not closed")
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c == '#' || c == '@' || c == '%' || c == '!' || c == '^' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
