package toolchain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The default compile-time budget of a scheduled Lower (see
// DefaultScheduleBudget). docs/toolchain.md, "When a schedule fails", gives
// the measurements behind them.
const (
	ScheduleBudgetFloor   = 1 * time.Second
	ScheduleBudgetPerNest = 30 * time.Millisecond
	ScheduleBudgetPerLine = 1 * time.Millisecond
	// ScheduleBudgetLines is the module length, in lines, at which the
	// per-line term doubles: mlir-opt's own passes take superlinear time
	// on long modules.
	ScheduleBudgetLines = 20000
)

// DefaultScheduleBudget is the CPU time the scheduled attempts of a Lower
// over a module of lines lines holding nests tagged linalg.generic ops may
// use together: ScheduleBudgetFloor, plus ScheduleBudgetPerNest per nest,
// plus ScheduleBudgetPerLine per line times 1 + lines/ScheduleBudgetLines.
func DefaultScheduleBudget(nests, lines int) time.Duration {
	perLine := float64(ScheduleBudgetPerLine) * float64(lines) * (1 + float64(lines)/ScheduleBudgetLines)
	return ScheduleBudgetFloor + time.Duration(nests)*ScheduleBudgetPerNest + time.Duration(perLine)
}

// minRetryBudget is the least budget left worth another scheduled attempt.
const minRetryBudget = 100 * time.Millisecond

// taggedNest is one linalg.generic of the input carrying niro.* unit
// attributes, the tags that select a schedule for its loop nest.
type taggedNest struct {
	line int      // 1-based line of the op
	tags []string // its niro.* unit attributes, in order
	loc  string   // the ONNX node its location names, or ""
}

// describe spells the nest for the fallback line: its tags, joined by +,
// then its node name, quoted, when the op has one.
func (n taggedNest) describe() string {
	s := strings.Join(n.tags, "+")
	if n.loc != "" {
		s += " " + strconv.Quote(n.loc)
	}
	return s
}

var (
	attrsRE = regexp.MustCompile(` attrs = \{([^{}]*)\}`)
	unitTag = regexp.MustCompile(`^niro\.[A-Za-z0-9_.]+$`)
)

// ScheduleTags returns the schedule tags of one line of MLIR text: the
// niro.* unit attributes of the linalg op whose attribute dictionary
// (`attrs = {...}`) the line holds, or nil.
func ScheduleTags(line string) []string {
	tags, _ := opTags(line)
	return tags
}

// opTags returns the niro.* unit attributes of a line holding a linalg
// op's attribute dictionary (`attrs = {...}`, the structured ops' syntax)
// and where the dictionary is (the submatch indices of attrsRE), or nil.
func opTags(line string) ([]string, []int) {
	if !strings.Contains(line, " attrs = {") {
		return nil, nil
	}
	m := attrsRE.FindStringSubmatchIndex(line)
	if m == nil {
		return nil, nil
	}
	var tags []string
	for _, e := range strings.Split(line[m[2]:m[3]], ",") {
		if e = strings.TrimSpace(e); unitTag.MatchString(e) {
			tags = append(tags, e)
		}
	}
	if len(tags) == 0 {
		return nil, nil
	}
	return tags, m
}

// forEachLine calls fn with each line of r, its newline kept.
func forEachLine(r io.Reader, fn func(line string) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// scanNests returns the tagged nests of the MLIR file path and its number
// of lines (the budget's measure); nameNests names them, when a fallback
// is reported.
func scanNests(path string) ([]taggedNest, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var nests []taggedNest
	n := 0
	err = forEachLine(f, func(line string) error {
		n++
		if tags, _ := opTags(line); tags != nil {
			nests = append(nests, taggedNest{line: n, tags: tags})
		}
		return nil
	})
	return nests, n, err
}

// nameNests sets each nest's location from the MLIR file path: emit
// writes locations as aliases (loc(#locN), the table after the module;
// docs/emit.md), which LineLocs resolves, giving a region op's first
// line, where its tags are, the location of the line that closes it.
func nameNests(path string, nests []taggedNest) error {
	if len(nests) == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	locs, err := LineLocs(f)
	if err != nil {
		return err
	}
	for i := range nests {
		if l := locs[nests[i].line]; len(l) > 0 {
			nests[i].loc = l[0].Node
		}
	}
	return nil
}

// stripTags copies the MLIR file src to dst with every tag for which drop
// is true removed from its op's attribute dictionary (the dictionary
// itself when nothing is left in it).
func stripTags(src, dst string, drop func(tag string) bool) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	err = forEachLine(in, func(line string) error {
		if tags, m := opTags(line); tags != nil {
			var keep []string
			for _, e := range strings.Split(line[m[2]:m[3]], ",") {
				e = strings.TrimSpace(e)
				if e != "" && !(unitTag.MatchString(e) && drop(e)) {
					keep = append(keep, e)
				}
			}
			repl := ""
			if len(keep) > 0 {
				repl = " attrs = {" + strings.Join(keep, ", ") + "}"
			}
			line = line[:m[0]] + repl + line[m[1]:]
		}
		_, err := bw.WriteString(line)
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Schedule families: the tags that select each library's sequences. A
// fallback retries without one family's tags at a time.
const (
	familyConv        = "conv"
	familyContraction = "contraction"
)

// tagFamily returns the family of a tag: contraction for niro.contraction
// and the lane tags (schedule.mlir's), conv for a tag conv.mlir names,
// contraction for one schedule.mlir names, else "".
func tagFamily(tag string) string {
	switch {
	case tag == "niro.contraction" || strings.HasPrefix(tag, "niro.lane"):
		return familyContraction
	case namesTag(convLibrary, tag):
		return familyConv
	case namesTag(contractionLibrary, tag):
		return familyContraction
	}
	return ""
}

// namesTag reports whether the library text holds tag as a whole name.
func namesTag(text, tag string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], tag)
		if j < 0 {
			return false
		}
		end := i + j + len(tag)
		if end == len(text) || !isNameByte(text[end]) {
			return true
		}
		i = end
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lowerScheduled runs a pipeline with schedule steps: first as it is,
// under the budget (Toolchain.ScheduleBudget, or DefaultScheduleBudget for
// the module's tagged nests and lines), as CPU time. When mlir-opt fails (an exit
// status, a signal, the budget or memory spent) it retries with one
// schedule family's tags removed at a time, the attempts sharing what is
// left of the budget, and at last runs the pipeline without its schedule
// steps, every tag removed: the plain loop nests, which host-O0 shows
// compile. It then prints one line to Toolchain.Warnings naming the nests
// that fell back and why. With StrictSchedule the first failure is the
// error.
func (tc *Toolchain) lowerScheduled(ctx context.Context, ws *workspace, p Pipeline) (string, error) {
	nests, lines, err := scanNests(ws.path(fileInput))
	if err != nil {
		return "", fmt.Errorf("lower: reading %s: %w", fileInput, err)
	}
	budget := tc.ScheduleBudget
	if budget <= 0 {
		budget = DefaultScheduleBudget(len(nests), lines)
	}
	var used time.Duration
	out, err := tc.lowerOnce(ctx, ws, p, lowerAttempt{input: fileInput, cpu: budget, used: &used})
	if err == nil {
		return out, nil
	}
	if !scheduleFailure(ctx, err) {
		return "", err
	}
	if tc.StrictSchedule {
		return "", strictError(err)
	}
	why := failureReason(err)
	left := budget - used
	// Only the fallback's line names the nests: their locations are read
	// now (a line without names still says what fell back).
	if tc.Warnings != nil {
		_ = nameNests(ws.path(fileInput), nests)
	}

	// One family at a time, in the order of the pipeline's schedules.
	for _, fam := range presentFamilies(nests) {
		if left < minRetryBudget {
			break
		}
		file := "input-without-" + fam + ".mlir"
		if err := stripTags(ws.path(fileInput), ws.path(file), func(tag string) bool { return tagFamily(tag) == fam }); err != nil {
			return "", fmt.Errorf("lower: %w", err)
		}
		used = 0
		out, err := tc.lowerOnce(ctx, ws, p, lowerAttempt{input: file, cpu: left, used: &used,
			cmdFile: "lower-without-" + fam + "." + MLIROpt + ".cmd"})
		left -= used
		if err == nil {
			var fell []taggedNest
			for _, n := range nests {
				for _, t := range n.tags {
					if tagFamily(t) == fam {
						fell = append(fell, n)
						break
					}
				}
			}
			tc.warnFallback(why, fmt.Sprintf("without the %s schedule's tags", fam), fell, len(nests))
			return out, nil
		}
		if !scheduleFailure(ctx, err) {
			return "", err
		}
	}

	// The last line of defence: no schedules at all.
	const plainFile = "input-plain.mlir"
	if err := stripTags(ws.path(fileInput), ws.path(plainFile), func(string) bool { return true }); err != nil {
		return "", fmt.Errorf("lower: %w", err)
	}
	plain := p
	plain.Steps = nil
	for _, s := range p.Steps {
		if s.Schedule == "" {
			plain.Steps = append(plain.Steps, s)
		}
	}
	out, err = tc.lowerOnce(ctx, ws, plain, lowerAttempt{input: plainFile, cmdFile: "lower-plain." + MLIROpt + ".cmd"})
	if err != nil {
		return "", fmt.Errorf("%w\n(the scheduled attempt had failed first: %s)", err, why)
	}
	tc.warnFallback(why, "without schedules", nests, len(nests))
	return out, nil
}

// presentFamilies returns the families of the nests' tags, conv first.
func presentFamilies(nests []taggedNest) []string {
	seen := map[string]bool{}
	for _, n := range nests {
		for _, t := range n.tags {
			seen[tagFamily(t)] = true
		}
	}
	var fams []string
	for _, f := range []string{familyConv, familyContraction} {
		if seen[f] {
			fams = append(fams, f)
		}
	}
	return fams
}

// scheduleFailure reports whether err is mlir-opt failing on its own (an
// exit status, a signal, the budget or memory spent), which a fallback
// answers, rather than niro being stopped, a --tool-timeout or a missing
// tool.
func scheduleFailure(ctx context.Context, err error) bool {
	var te *ToolError
	if ctx.Err() != nil || !errors.As(err, &te) || te.Tool != MLIROpt {
		return false
	}
	var ee *exec.ExitError
	var be *BudgetError
	var ce *CrashError
	var oe *OutOfMemoryError
	return errors.As(err, &be) || errors.As(err, &ce) || errors.As(err, &oe) || errors.As(err, &ee)
}

// strictError is the error of a failed scheduled attempt under
// StrictSchedule.
func strictError(err error) error {
	var te *ToolError
	if !errors.As(err, &te) {
		return err
	}
	cp := &ToolError{Stage: te.Stage, Tool: te.Tool, Path: te.Path, Stderr: te.Stderr,
		Err: fmt.Errorf("the scheduled pipeline failed and --strict-schedule forbids falling back to plain loops: %w", te.Err)}
	return cp
}

// failureReason says in a few words why an attempt failed: the budget, a
// signal, memory, or the exit status with the tool's first error line.
func failureReason(err error) string {
	var be *BudgetError
	var ce *CrashError
	var oe *OutOfMemoryError
	var ee *exec.ExitError
	switch {
	case errors.As(err, &be):
		return fmt.Sprintf("mlir-opt exceeded the compile-time budget of %v", be.Budget.Round(time.Millisecond))
	case errors.As(err, &ce):
		if ce.Memory {
			return fmt.Sprintf("mlir-opt ran out of memory (limit %s) and was killed by %s", formatBytes(ce.Limit), ce.Signal)
		}
		return "mlir-opt was killed by signal " + ce.Signal
	case errors.As(err, &oe):
		return fmt.Sprintf("mlir-opt ran out of memory (limit %s)", formatBytes(oe.Limit))
	case errors.As(err, &ee):
		why := fmt.Sprintf("mlir-opt exited with status %d", ee.ExitCode())
		var te *ToolError
		if errors.As(err, &te) {
			if l := firstErrorLine(te.Stderr); l != "" {
				why += ": " + l
			}
		}
		return why
	}
	return err.Error()
}

// firstErrorLine returns the text of the first "error:" line of a tool's
// standard error, shortened to 120 bytes.
func firstErrorLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		i := strings.Index(l, "error: ")
		if i < 0 {
			continue
		}
		l = strings.TrimSpace(l[i:])
		if len(l) > 120 {
			l = l[:117] + "..."
		}
		return l
	}
	return ""
}

// maxNamedNests bounds how many nests the fallback line names.
const maxNamedNests = 8

// warnFallback prints the one fallback line.
func (tc *Toolchain) warnFallback(why, how string, fell []taggedNest, total int) {
	if tc.Warnings == nil {
		return
	}
	var names []string
	for i, n := range fell {
		if i == maxNamedNests {
			names = append(names, fmt.Sprintf("… and %d more", len(fell)-maxNamedNests))
			break
		}
		names = append(names, n.describe())
	}
	if len(fell) == 0 {
		fmt.Fprintf(tc.Warnings, "niro: warning: %s; compiled %s (plain loops)\n", why, how)
		return
	}
	fmt.Fprintf(tc.Warnings, "niro: warning: %s; compiled %s: %d of %d tagged loop nests fell back to plain loops: %s\n",
		why, how, len(fell), total, strings.Join(names, ", "))
}
