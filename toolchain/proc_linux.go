//go:build linux

package toolchain

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cpuLimitByKernel: on Linux the CPU budget is RLIMIT_CPU.
const cpuLimitByKernel = true

// applyLimits sets lim on the running process pid with prlimit(2).
func applyLimits(pid int, lim limits) error {
	if lim.cpu > 0 {
		secs := uint64((lim.cpu+time.Second-1)/time.Second) + 1
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: secs, Max: secs}, nil); err != nil {
			return err
		}
	}
	if lim.data > 0 {
		n := uint64(lim.data)
		if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
			return err
		}
	}
	return nil
}

// cpuPollInterval is how often runLimited reads a budgeted process's CPU
// time.
const cpuPollInterval = 20 * time.Millisecond

// cpuTime returns the CPU time (user plus system, all threads) process pid
// has used, from /proc/PID/stat (fields 14 and 15, in clock ticks of
// 1/100 s, Linux's USER_HZ).
func cpuTime(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(data[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * (time.Second / 100), true
}

// dieWithParent has the kernel kill the tool when niro dies (killed by a
// signal it cannot catch, such as a test's time-out or the OOM killer),
// so that no mlir-opt outlives it, holding gigabytes (PR_SET_PDEATHSIG).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
