//go:build unix

package toolchain

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownGroup makes cmd start in a process group of its own, whose id is its
// pid.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	dieWithParent(cmd.SysProcAttr)
}

// killGroup kills the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

const (
	sigKill = syscall.SIGKILL
	sigXCPU = syscall.SIGXCPU
)

// exitSignal returns the signal that killed the process, if one did.
func exitSignal(ps *os.ProcessState) (syscall.Signal, bool) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// signalName spells sig as SIGSEGV (segmentation fault).
func signalName(sig syscall.Signal) string {
	name := unix.SignalName(sig)
	if name == "" {
		name = fmt.Sprintf("signal %d", int(sig))
	}
	return fmt.Sprintf("%s (%s)", name, sig.String())
}
