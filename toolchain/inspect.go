package toolchain

import (
	"regexp"
	"strings"
)

// CodeFacts are facts about lowered code that a C header states.
type CodeFacts struct {
	// Allocates reports that the code calls malloc or aligned_alloc (the
	// lowering of memref.alloc: scratch memory taken on each call).
	Allocates bool
	// MutableGlobals lists the global variables that are not constant:
	// memory the code may write, shared between concurrent calls.
	MutableGlobals []string
}

var (
	allocCallRE = regexp.MustCompile(`llvm\.call @(malloc|aligned_alloc|calloc|realloc)\(`)
	globalRE    = regexp.MustCompile(`^\s*llvm\.mlir\.global\s+(.*?)@("(?:[^"\\]|\\.)*"|[A-Za-z_$.][A-Za-z0-9_$.]*)`)
)

// Inspect reads MLIR in the llvm dialect (Lower's output) for the facts a
// header states about the compiled function.
func Inspect(llvmDialect string) CodeFacts {
	var f CodeFacts
	f.Allocates = allocCallRE.MatchString(llvmDialect)
	for _, line := range strings.Split(llvmDialect, "\n") {
		m := globalRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if !strings.Contains(" "+m[1], " constant ") {
			f.MutableGlobals = append(f.MutableGlobals, m[2])
		}
	}
	return f
}
