package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/niro-dev/niro/internal/cleanup"
	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/tensorio"
)

// faultFlags are the global flags that bound what a command may spend:
// time per tool and memory per tensor.
type faultFlags struct {
	ToolTimeout time.Duration `name:"tool-timeout" help:"Kill a tool (with everything it started) that runs longer than this; exit 3." default:"30m" placeholder:"DURATION"`
	MaxMemory   string        `name:"max-memory" help:"Largest tensor (input, output or intermediate) a command may allocate, and the most memory each tool (mlir-opt, llc, mlir-runner, ...) may allocate, such as 512M or 8G (default: half the physical memory)." placeholder:"SIZE"`
	// ScheduleBudget and StrictSchedule: docs/toolchain.md, "When a
	// schedule fails".
	ScheduleBudget time.Duration `name:"schedule-budget" help:"CPU time the scheduled mlir-opt attempts of a model may take before niro falls back to plain loops (default: 1s, plus 30ms per tagged loop nest, plus about 1ms per line of MLIR)." placeholder:"DURATION"`
	StrictSchedule bool          `name:"strict-schedule" help:"Make a failed schedule an error (exit 3) instead of a fallback to plain loops."`
}

// applyFaultFlags checks the flags and sets the tensor size limit.
func (env *Env) applyFaultFlags() error {
	if env.ToolTimeout <= 0 {
		return usagef("--tool-timeout %v: want a positive duration such as 10m", env.ToolTimeout)
	}
	if env.ScheduleBudget < 0 {
		return usagef("--schedule-budget %v: want a positive duration such as 5s", env.ScheduleBudget)
	}
	if env.MaxMemory != "" {
		n, err := parseSize(env.MaxMemory)
		if err != nil {
			return usagef("--max-memory %q: %v", env.MaxMemory, err)
		}
		tensorio.SetMaxBytes(n)
	} else {
		tensorio.SetMaxBytes(0)
	}
	return nil
}

// parseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024, an optional trailing B or iB).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v <= 0 || v*float64(mult) >= 1<<62 {
		return 0, fmt.Errorf("want a positive size such as 512M or 8G")
	}
	return int64(v * float64(mult)), nil
}

// context returns the command's context, which SIGINT and SIGTERM cancel.
func (env *Env) context() context.Context {
	if env.ctx == nil {
		return context.Background()
	}
	return env.ctx
}

// keepTemps returns this run's own directory under --keep-temps, made once
// (KEEP/run-*, printed on standard error), or "" without the flag. Runs
// that share a --keep-temps directory never share files.
func (env *Env) keepTemps() (string, error) {
	if env.KeepTemps == "" {
		return "", nil
	}
	env.keepOnce.Do(func() {
		if err := os.MkdirAll(env.KeepTemps, 0o755); err != nil {
			env.keepErr = fmt.Errorf("--keep-temps: %w", err)
			return
		}
		dir, err := os.MkdirTemp(env.KeepTemps, "run-")
		if err != nil {
			env.keepErr = fmt.Errorf("--keep-temps: %w", err)
			return
		}
		env.keepDir = dir
		fmt.Fprintf(env.Stderr, "niro: keeping intermediate files in %s\n", dir)
	})
	return env.keepDir, env.keepErr
}

// tempDir makes a temporary directory registered with package cleanup, so
// that a signal removes it too, and returns it with its removal.
func tempDir(pattern string) (string, func(), error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	return dir, cleanup.Path(dir), nil
}

// writeFileOutput writes an output with fn: to standard output for "" or
// "-", else atomically through package safefile, which refuses an output
// that is an input of the command.
func writeFileOutput(env *Env, path string, fn func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(env.Stdout)
	}
	return safefile.Write(path, fn)
}

// claimOutputs claims the output files a command will write ("" and "-"
// are skipped) before it writes the first, so that an output that is an
// input, or two outputs that are one file, are refused up front (exit 2).
func claimOutputs(paths ...string) error {
	for _, p := range paths {
		if p == "" || p == "-" {
			continue
		}
		if err := safefile.Claim(p); err != nil {
			return err
		}
	}
	return nil
}

// Message bounds: a list or shape quotes at most maxQuotedItems items, and
// a whole message at most maxMessageBytes bytes.
const (
	maxQuotedItems  = 10
	maxMessageBytes = 16 << 10
)

// capMessage bounds an error message before niro prints it, whatever
// produced it: each list of more than maxQuotedItems numbers (separated by
// ", ", "," or " ", or by "x" in a shape) keeps its first items and says how
// many more there are ("1, 2, 3, … and 4,999,990 more"), and the whole
// message is cut at maxMessageBytes. It runs in one linear pass.
func capMessage(msg string) string {
	if len(msg) < 64 {
		return msg
	}
	var b strings.Builder
	isDigit := func(i int) bool { return i < len(msg) && msg[i] >= '0' && msg[i] <= '9' }
	// number returns the end of a number starting at i, or i.
	number := func(i int) int {
		j := i
		if j < len(msg) && msg[j] == '-' {
			j++
		}
		if !isDigit(j) {
			return i
		}
		for isDigit(j) {
			j++
		}
		return j
	}
	// sep returns the end of a separator starting at i, or i.
	sep := func(i int) int {
		switch {
		case strings.HasPrefix(msg[i:], ", "):
			return i + 2
		case i < len(msg) && (msg[i] == ',' || msg[i] == ' ' || msg[i] == 'x'):
			return i + 1
		}
		return i
	}
	for i := 0; i < len(msg); {
		end := number(i)
		if end == i || i > 0 && isDigit(i-1) {
			b.WriteByte(msg[i])
			i++
			continue
		}
		items, cutAt, shape := 1, -1, false
		for {
			s := sep(end)
			if s == end {
				break
			}
			e := number(s)
			if e == s {
				break
			}
			if items == maxQuotedItems {
				cutAt, shape = end, msg[end] == 'x'
			}
			items++
			end = e
		}
		if cutAt < 0 {
			b.WriteString(msg[i:end])
		} else {
			more := tensorio.Grouped(int64(items - maxQuotedItems))
			b.WriteString(msg[i:cutAt])
			if shape {
				b.WriteString("x… (and " + more + " more dimensions)")
			} else {
				sep := msg[cutAt : cutAt+1]
				if sep == "," {
					sep = ", "
				}
				b.WriteString(sep + "… and " + more + " more")
			}
		}
		i = end
	}
	msg = b.String()
	if len(msg) > maxMessageBytes {
		cut := maxMessageBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + fmt.Sprintf("… (%s more bytes)", tensorio.Grouped(int64(len(msg)-cut)))
	}
	return msg
}

// outputPaths returns the files niro run writes for hm's outputs in dir.
func outputPaths(dir string, hm *hostModel) []string {
	names := make([]string, len(hm.out.Entry.Outputs))
	for i, p := range hm.out.Entry.Outputs {
		names[i] = paramName(p, i, "output")
	}
	var paths []string
	for _, f := range outputFiles(names) {
		paths = append(paths, filepath.Join(dir, f))
	}
	return paths
}
