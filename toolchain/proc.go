package toolchain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
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
	if timeout <= 0 {
		timeout = DefaultToolTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	release := cleanup.Group(pgid)
	stop := make(chan struct{})
	go func() {
		select {
		case <-tctx.Done():
			killGroup(pgid)
		case <-stop:
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
		return &TimeoutError{Timeout: timeout}
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0 but a child of it held its output open;
		// the child is gone now and what the program wrote is kept.
		err = nil
	}
	return err
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
