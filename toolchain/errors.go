package toolchain

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
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

	// input and inputNodes name the tool's MLIR input file (as the tool
	// spells it) and the nodes of its lines, for diagnostics that point
	// at a line of it (noteInput).
	input      string
	inputNodes map[int][]NodeLoc
}

// Error describes the failure; the tool's standard error follows on the
// next lines. When an error diagnostic's location names a node of the
// model (see [ToolError.Located]), the first line is that diagnostic,
// naming the node: `lower: node "conv1" (conv): mlir-opt: error:
// Unsupported Op, cannot vectorize`.
func (e *ToolError) Error() string {
	var b strings.Builder
	b.WriteString(e.Stage)
	b.WriteString(": ")
	if d, ok := e.Located(); ok {
		b.WriteString(nodeList(d.Nodes))
		b.WriteString(": ")
		if e.Tool != "" {
			b.WriteString(e.Tool)
			b.WriteString(": ")
		}
		b.WriteString(d.Severity + ": " + d.Message)
		// The exit status says nothing more; any other cause (a time-out,
		// where --keep-temps left the files) stays.
		if _, exit := e.Err.(*exec.ExitError); e.Err != nil && !exit {
			b.WriteString(" (" + e.Err.Error() + ")")
		}
	} else if e.Tool != "" {
		b.WriteString(e.Tool)
		b.WriteString(": ")
	}
	if _, ok := e.Located(); !ok && e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("\n")
		b.WriteString(e.shortStderr(s))
	}
	return b.String()
}

// Located returns the first error diagnostic in Stderr that names nodes
// of the model: by its location (loc("NODE"("OP")) as package emit writes
// it, also inside the fused and callsite locations transforms make), or,
// when it points at a line of the tool's input file (a parse error, or
// an op whose location is the file position), by that line's location.
func (e *ToolError) Located() (Diagnostic, bool) {
	if !strings.Contains(e.Stderr, "error: ") {
		return Diagnostic{}, false
	}
	for _, d := range ParseDiagnostics(e.Stderr) {
		if d.Severity != "error" {
			continue
		}
		if len(d.Nodes) == 0 && e.inputNodes != nil {
			if file, line, ok := filePosition(d.Where); ok && file == e.input {
				d.Nodes = e.inputNodes[line]
			}
		}
		if len(d.Nodes) > 0 {
			return d, true
		}
	}
	return Diagnostic{}, false
}

// noteInput records the nodes of the lines of the tool's input file, at
// path, named file in the tool's diagnostics, when an error diagnostic
// points at a line of it: the file is removed once the stage returns.
func (e *ToolError) noteInput(path, file string) {
	if !strings.Contains(e.Stderr, file+":") {
		return
	}
	for _, d := range ParseDiagnostics(e.Stderr) {
		if f, _, ok := filePosition(d.Where); ok && f == file && d.Severity == "error" {
			e.input, e.inputNodes = file, inputLocs(path)
			return
		}
	}
}

// filePosition splits "FILE:LINE:COL".
func filePosition(where string) (file string, line int, ok bool) {
	rest, _, ok := cutLast(where, ":")
	if !ok {
		return "", 0, false
	}
	file, l, ok := cutLast(rest, ":")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.Atoi(l)
	return file, n, err == nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// maxNamedNodes is how many nodes a message names; the rest are counted.
const maxNamedNodes = 3

// nodeList returns `node "a" (add)`, or several joined by ", ".
func nodeList(ns []NodeLoc) string {
	parts := make([]string, 0, maxNamedNodes+1)
	for i, n := range ns {
		if i == maxNamedNodes {
			parts = append(parts, fmt.Sprintf("and %d more", len(ns)-i))
			break
		}
		parts = append(parts, n.String())
	}
	return strings.Join(parts, ", ")
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
