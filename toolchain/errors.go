package toolchain

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// ExitToolFailed is the exit code for a required external tool that is
// missing or failed.
const ExitToolFailed = 3

// ToolError reports that an external tool is missing, too old, or failed
// while running a stage. Its ExitCode is [ExitToolFailed], which the niro
// command maps to its exit status.
type ToolError struct {
	// Stage names what was being done: "find", "lower", "translate",
	// "optimize", "compile", "embed", "link" or "run".
	Stage string
	// Tool is the tool's name, such as "mlir-opt"; Path its file when known.
	Tool string
	Path string
	// Stderr holds what the tool wrote to standard error (trimmed, possibly
	// shortened).
	Stderr string
	// Err is the underlying cause.
	Err error

	fullOnce sync.Once // writes a long Stderr to fullPath
	fullPath string
	fullErr  error
}

// Error describes the failure; the tool's standard error follows on the
// next lines.
func (e *ToolError) Error() string {
	var b strings.Builder
	b.WriteString(e.Stage)
	b.WriteString(": ")
	if e.Tool != "" {
		b.WriteString(e.Tool)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("\n")
		b.WriteString(e.shortStderr(s))
	}
	return b.String()
}

// MaxErrorLines is about how many lines of a tool's standard error a
// ToolError's message shows; the rest is in a file the message names.
const MaxErrorLines = 40

// diagRE matches the first line of a diagnostic: "FILE:LINE:COL: error:",
// "error:", "LLVM ERROR:", and notes and warnings.
var diagRE = regexp.MustCompile(`(?i)(^|: )(error|warning|note|remark)\b|^LLVM ERROR`)

// shortStderr returns s when it is short; else its first MaxErrorLines
// lines, extended to hold the first error whole (up to the next
// diagnostic), then a line naming the file that holds all of s.
func (e *ToolError) shortStderr(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= MaxErrorLines {
		return s
	}
	keep := MaxErrorLines
	for i, l := range lines {
		if !diagRE.MatchString(l) || !strings.Contains(strings.ToLower(l), "error") {
			continue
		}
		end := i + 1
		for end < len(lines) && !diagRE.MatchString(lines[end]) {
			end++
		}
		keep = max(keep, end)
		break
	}
	if keep >= len(lines) {
		return s
	}
	where := e.saveFull(s)
	return fmt.Sprintf("%s\n... (%d more lines; %s)", strings.Join(lines[:keep], "\n"), len(lines)-keep, where)
}

// saveFull writes the full standard error to a temporary file once and
// says where it is.
func (e *ToolError) saveFull(s string) string {
	e.fullOnce.Do(func() {
		f, err := os.CreateTemp("", "niro-"+e.Stage+"-error-*.txt")
		if err == nil {
			_, err = f.WriteString(s + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			e.fullPath = f.Name()
		}
		e.fullErr = err
	})
	if e.fullErr != nil {
		return fmt.Sprintf("the full text could not be saved: %v", e.fullErr)
	}
	return "the full text is in " + e.fullPath
}

// Unwrap returns the underlying cause.
func (e *ToolError) Unwrap() error { return e.Err }

// ExitCode returns [ExitToolFailed].
func (e *ToolError) ExitCode() int { return ExitToolFailed }

// toolErrorf returns a *ToolError for stage and tool with a formatted cause.
func toolErrorf(stage, tool, format string, args ...any) *ToolError {
	return &ToolError{Stage: stage, Tool: tool, Err: fmt.Errorf(format, args...)}
}

// maxStderr bounds how much of a tool's standard error an error keeps.
const maxStderr = 64 << 10

// limitedBuffer keeps the first max bytes written to it and counts the rest.
type limitedBuffer struct {
	buf     []byte
	max     int
	dropped int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.dropped += len(p) - room
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	if b.dropped == 0 {
		return string(b.buf)
	}
	return fmt.Sprintf("%s\n... (%d more bytes)", b.buf, b.dropped)
}
