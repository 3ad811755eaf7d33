package toolchain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/niro-dev/niro/internal/cleanup"
)

// DefaultToolTimeout bounds one tool invocation when Toolchain.ToolTimeout
// is zero: generous, so that only a tool that hangs reaches it.
const DefaultToolTimeout = 30 * time.Minute

// ProbeTimeout bounds one `TOOL --version` probe.
const ProbeTimeout = 30 * time.Second

// waitDelay bounds how long a tool's standard output and error are drained
// after the tool exits (or is killed): a child the tool left behind that
// holds them open does not keep niro waiting.
const waitDelay = 2 * time.Second

// TimeoutError reports a tool killed because it ran past its time-out.
type TimeoutError struct {
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %v (see --tool-timeout) and was killed", e.Timeout)
}

// runProcess is the one way niro runs an external program (every tool
// stage and every --version probe). The program runs in a process group
// of its own under a time-out; the group is killed (SIGKILL) when the
// time-out passes, when ctx is done (niro's own SIGINT or SIGTERM), and
// after the program exits, so that nothing it started outlives it. While
// it runs the group is registered with package cleanup, which kills it on
// niro's signal exit path. Waiting for its output pipes is bounded by
// waitDelay.
func runProcess(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) error {
	return runLimited(ctx, cmd, timeout, limits{})
}

// limits bound one tool process's resources beyond its wall-clock
// time-out.
type limits struct {
	// cpu is the CPU time (user plus system, all threads) the process may
	// use; 0 means no limit. On Linux it is RLIMIT_CPU, soft and hard
	// alike, so the kernel kills the process (SIGKILL) when it is spent;
	// the limit is whole seconds, rounded up (the error reports the
	// rounded budget). Elsewhere it bounds the
	// wall-clock time instead.
	cpu time.Duration
	// data is the most memory, in bytes, the process may allocate
	// (RLIMIT_DATA: its heap and private writable mappings; read-only
	// mappings such as a memory-mapped weights file do not count); 0 means
	// no limit. Linux only.
	data int64
}

// runLimited is runProcess with the limits lim applied to the process
// right after it starts (prlimit on its pid: no cgo, and nothing changes
// in niro's own process).
func runLimited(ctx context.Context, cmd *exec.Cmd, timeout time.Duration, lim limits) error {
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	if lim.cpu > 0 && !cpuLimitByKernel && lim.cpu < timeout {
		timeout = lim.cpu
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	// Where prlimit is refused (a sandbox), the tool runs without the
	// kernel's limits; the CPU budget is still enforced from /proc.
	_ = applyLimits(pgid, lim)
	release := cleanup.Group(pgid)
	stop := make(chan struct{})
	var overBudget atomic.Bool
	go func() {
		var tick <-chan time.Time
		if lim.cpu > 0 && cpuLimitByKernel {
			// The CPU time the process has used, to the clock tick: finer
			// than RLIMIT_CPU's whole seconds, which stay as a backstop.
			t := time.NewTicker(cpuPollInterval)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-tctx.Done():
				killGroup(pgid)
				return
			case <-tick:
				if used, ok := cpuTime(pgid); ok && used >= lim.cpu {
					overBudget.Store(true)
					killGroup(pgid)
					return
				}
			case <-stop:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	// Whatever the program left in its group goes with it.
	killGroup(pgid)
	release()
	if err != nil && tctx.Err() != nil {
		// Killed (or failed as it was about to be): say why.
		if ctx.Err() != nil {
			return fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		if lim.cpu > 0 && timeout == lim.cpu {
			return &BudgetError{Budget: lim.cpu}
		}
		return &TimeoutError{Timeout: timeout}
	}
	if err != nil && overBudget.Load() {
		var used time.Duration
		if ps := cmd.ProcessState; ps != nil {
			used = ps.UserTime() + ps.SystemTime()
		}
		return &BudgetError{Budget: lim.cpu, Used: used}
	}
	if err != nil && lim.cpu > 0 && cpuLimitByKernel && cmd.ProcessState != nil {
		// RLIMIT_CPU spent: the kernel killed it (SIGKILL, or SIGXCPU).
		used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if sig, ok := exitSignal(cmd.ProcessState); ok && (sig == sigKill || sig == sigXCPU) && used >= lim.cpu {
			return &BudgetError{Budget: lim.cpu, Used: used}
		}
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0 but a child of it held its output open;
		// the child is gone now and what the program wrote is kept.
		err = nil
	}
	return err
}

// BudgetError reports a tool stopped because it used up its CPU-time
// budget (a scheduled mlir-opt attempt; see Toolchain.ScheduleBudget).
type BudgetError struct {
	Budget time.Duration // the budget it had
	Used   time.Duration // the CPU time it used, when known
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("exceeded its compile-time budget of %v of CPU time (see --schedule-budget) and was killed", e.Budget.Round(time.Millisecond))
}

// CrashError reports a tool killed by a signal other than niro's own
// time-out or budget: a crash (SIGSEGV, SIGABRT, ...) or the memory limit.
// Either is a bug in niro or LLVM, never in the model.
type CrashError struct {
	Signal string // the signal's name, such as "SIGSEGV"
	// Memory is set when the tool ran out of memory under its limit
	// (Limit bytes, niro's --max-memory).
	Memory bool
	Limit  int64
}

func (e *CrashError) Error() string {
	what := "was killed by signal " + e.Signal
	if e.Limit > 0 {
		// A failed allocation can end in any signal: say what the limit was.
		what += fmt.Sprintf(" (under a memory limit of %s, --max-memory)", formatBytes(e.Limit))
	}
	if e.Memory {
		what = fmt.Sprintf("ran out of memory under its limit of %s (--max-memory) and was killed by signal %s", formatBytes(e.Limit), e.Signal)
	}
	return what + "; this is a bug in niro: please report it, with the input that --keep-temps=DIR keeps"
}

// OutOfMemoryError reports a tool that exited after failing to allocate
// memory under its limit (LLVM prints "out of memory" and exits or aborts).
type OutOfMemoryError struct {
	Limit int64
	Err   error // the exit status
}

func (e *OutOfMemoryError) Error() string {
	return fmt.Sprintf("ran out of memory under its limit of %s (--max-memory; %v); this is a bug in niro: please report it, with the input that --keep-temps=DIR keeps", formatBytes(e.Limit), e.Err)
}

func (e *OutOfMemoryError) Unwrap() error { return e.Err }

// oomRE matches what LLVM, the C++ runtime and the dynamic loader print
// when an allocation fails (a thread's stack is one too).
var oomRE = regexp.MustCompile(`(?i)out of memory|Allocation failed|std::bad_alloc|cannot allocate memory|pthread_create failed|cannot map zero-fill pages|failed to map segment from shared object`)

// classifyExit turns the failure err of a tool that ran with the memory
// limit dataLimit (0: none) into a *CrashError when a signal killed it, or
// an *OutOfMemoryError when it says it ran out of memory; other errors are
// returned as they are.
func classifyExit(err error, ps *os.ProcessState, stderr string, dataLimit int64) error {
	var ee *exec.ExitError
	if err == nil || !errors.As(err, &ee) || ps == nil {
		return err
	}
	oom := dataLimit > 0 && oomRE.MatchString(stderr)
	if sig, ok := exitSignal(ps); ok {
		return &CrashError{Signal: signalName(sig), Memory: oom, Limit: dataLimit}
	}
	if oom {
		return &OutOfMemoryError{Limit: dataLimit, Err: err}
	}
	return err
}

// formatBytes spells n bytes as GiB or MiB.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// cappedWriter passes on the first max bytes written to it and drops the
// rest, noting once that it did: a tool's standard error copied to the
// user's stays readable however much the tool prints.
type cappedWriter struct {
	w       io.Writer
	max     int64
	n       int64
	dropped bool
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	room := c.max - c.n
	if room >= int64(len(p)) {
		c.n += int64(len(p))
		_, err := c.w.Write(p)
		if err != nil {
			return len(p), nil // the tool must not fail for our stderr
		}
		return len(p), nil
	}
	if room > 0 {
		c.w.Write(p[:room])
		c.n = c.max
	}
	if !c.dropped {
		c.dropped = true
		fmt.Fprintf(c.w, "\nniro: (further standard error of the tool dropped after %d bytes)\n", c.max)
	}
	return len(p), nil
}
