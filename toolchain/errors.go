package toolchain

import (
	"fmt"
	"strings"
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
		b.WriteString(s)
	}
	return b.String()
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
