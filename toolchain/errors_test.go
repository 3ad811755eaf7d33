package toolchain

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestToolErrorCapsLongStderr(t *testing.T) {
	var lines []string
	for i := 0; i < 5; i++ {
		lines = append(lines, fmt.Sprintf("warning line %d", i))
	}
	lines = append(lines, "input.mlir:3:5: error: 'llvm.call' op operand type mismatch")
	for i := 0; i < 60; i++ { // the first error's dump: kept whole
		lines = append(lines, fmt.Sprintf("  dump %d", i))
	}
	lines = append(lines, "input.mlir:9:1: note: see current operation")
	for i := 0; i < 200; i++ {
		lines = append(lines, fmt.Sprintf("  more %d", i))
	}
	full := strings.Join(lines, "\n")
	e := &ToolError{Stage: "translate", Tool: "mlir-translate", Stderr: full, Err: errors.New("exit status 1")}
	msg := e.Error()
	got := strings.Split(msg, "\n")
	// The header line, lines 0..65 (through the dump), the summary line.
	if len(got) != 1+66+1 {
		t.Fatalf("message has %d lines, want %d:\n%s", len(got), 68, msg)
	}
	if !strings.Contains(msg, "  dump 59") || strings.Contains(msg, "see current operation") {
		t.Errorf("the first error is not kept whole, or the rest is not cut:\n%s", msg)
	}
	m := regexp.MustCompile(`\.\.\. \(201 more lines; the full text is in (\S+)\)$`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("no summary line naming the file:\n%s", got[len(got)-1])
	}
	defer os.Remove(m[1])
	data, err := os.ReadFile(m[1])
	if err != nil || string(data) != full+"\n" {
		t.Errorf("full text file: %v, %d bytes, want %d", err, len(data), len(full)+1)
	}
	if e.Error() != msg {
		t.Errorf("a second Error() differs (it must reuse the file)")
	}

	short := &ToolError{Stage: "lower", Tool: "mlir-opt", Stderr: "a\nb", Err: errors.New("exit status 1")}
	if got := short.Error(); got != "lower: mlir-opt: exit status 1\na\nb" {
		t.Errorf("short message = %q", got)
	}
}
