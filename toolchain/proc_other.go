//go:build !unix

package toolchain

import (
	"os"
	"os/exec"
)

// signal stands in for syscall.Signal where processes have none.
type signal int

const (
	sigKill signal = -1
	sigXCPU signal = -2
)

// exitSignal reports no signal where there are none.
func exitSignal(ps *os.ProcessState) (signal, bool) { return 0, false }

func signalName(sig signal) string { return "unknown" }

// ownGroup does nothing where there are no process groups.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the process pgid.
func killGroup(pgid int) {
	if p, err := os.FindProcess(pgid); err == nil {
		_ = p.Kill()
	}
}
