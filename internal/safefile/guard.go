package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// The process-wide record of the files read and the outputs claimed. niro
// runs one command per process; [Reset] starts a fresh record. Until the
// first Reset nothing is recorded or refused, so that a program using
// niro's packages as a library may write a file twice.
var (
	guardMu sync.Mutex
	active  bool
	inputs  []namedInfo
	outputs []namedInfo
)

type namedInfo struct {
	path string
	info fs.FileInfo
}

func addInput(path string, st fs.FileInfo) {
	guardMu.Lock()
	defer guardMu.Unlock()
	if !active {
		return
	}
	for _, in := range inputs {
		if os.SameFile(in.info, st) {
			return
		}
	}
	inputs = append(inputs, namedInfo{path, st})
}

// Rewrite drops path from the inputs so that the command may replace it:
// for a command whose output is its input by design (niro fmt -w), which
// has read the file whole and holds no mapping of it.
func Rewrite(path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	guardMu.Lock()
	defer guardMu.Unlock()
	kept := inputs[:0]
	for _, in := range inputs {
		if !os.SameFile(in.info, st) {
			kept = append(kept, in)
		}
	}
	inputs = kept
}

// Reset starts the record of a command: it forgets the inputs and outputs
// recorded so far and turns the guard on.
func Reset() {
	guardMu.Lock()
	active, inputs, outputs = true, nil, nil
	guardMu.Unlock()
}

// ConflictError is an output that would replace one of the command's
// inputs, or an output another output of the same command already
// claimed. It is bad usage: its ExitCode is 2.
type ConflictError struct {
	Output string
	Other  string // the input or the earlier output
	Input  bool   // Other is an input
}

func (e *ConflictError) Error() string {
	if e.Input {
		if e.Output == e.Other || absPath(e.Output) == absPath(e.Other) {
			return fmt.Sprintf("output %s is also an input of this command; refusing to overwrite it", e.Output)
		}
		return fmt.Sprintf("output %s is the same file as the input %s; refusing to overwrite it", e.Output, e.Other)
	}
	return fmt.Sprintf("output %s is the same file as the output %s of this command; choose different names", e.Output, e.Other)
}

// ExitCode is 2, bad usage.
func (e *ConflictError) ExitCode() int { return 2 }

// Claim reserves path as an output of the command: it fails with a
// *ConflictError when path is the same file as an input read so far or as
// an output claimed before. A path that does not exist yet is compared by
// name with the earlier outputs. Create calls Claim; call it directly to
// check every output of a command before writing the first.
func Claim(path string) error {
	abs := absPath(path)
	st, err := os.Stat(path)
	guardMu.Lock()
	defer guardMu.Unlock()
	if !active {
		return nil
	}
	if err == nil {
		for _, in := range inputs {
			if os.SameFile(in.info, st) {
				return &ConflictError{Output: path, Other: in.path, Input: true}
			}
		}
	}
	for _, out := range outputs {
		if out.path == abs || err == nil && out.info != nil && os.SameFile(out.info, st) {
			return &ConflictError{Output: path, Other: out.path}
		}
	}
	var info fs.FileInfo
	if err == nil {
		info = st
	}
	outputs = append(outputs, namedInfo{abs, info})
	return nil
}

// claimed reports whether path was claimed (Create claims once).
func claimed(path string) bool {
	abs := absPath(path)
	guardMu.Lock()
	defer guardMu.Unlock()
	if !active {
		return true // nothing to claim
	}
	for _, out := range outputs {
		if out.path == abs {
			return true
		}
	}
	return false
}

func absPath(path string) string {
	if a, err := filepathAbs(path); err == nil {
		return a
	}
	return path
}
