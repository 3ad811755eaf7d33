package toolchain

import (
	"fmt"
	"regexp"
	"strconv"
)

// MinVersion is the oldest LLVM/MLIR major version niro accepts.
const MinVersion = 22

// Version is an LLVM release number such as 22.1.8.
type Version struct {
	Major, Minor, Patch int
}

// String returns the version as MAJOR.MINOR.PATCH, or "unknown" for the
// zero Version.
func (v Version) String() string {
	if v == (Version{}) {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// versionRE matches the version line of every LLVM tool's --version output:
// "LLVM version 22.1.8", "Debian LLVM version 22.1.8", "LLVM version
// 23.0.0git", "LLD 22.1.8 (compatible with GNU linkers)".
var versionRE = regexp.MustCompile(`\b(?:LLVM version|LLD)\s+(\d+)(?:\.(\d+))?(?:\.(\d+))?`)

// ParseVersion extracts the LLVM version from a tool's --version output.
func ParseVersion(output string) (Version, error) {
	m := versionRE.FindStringSubmatch(output)
	if m == nil {
		return Version{}, fmt.Errorf("no LLVM version in --version output %q", firstLine(output))
	}
	var v Version
	for i, p := range []*int{&v.Major, &v.Minor, &v.Patch} {
		if m[i+1] == "" {
			continue
		}
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return Version{}, fmt.Errorf("bad version number %q: %w", m[i+1], err)
		}
		*p = n
	}
	return v, nil
}

// firstLine returns s up to its first newline, shortened to 120 bytes.
func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
