//go:build linux

package toolchain

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuLimitByKernel: on Linux the CPU budget is RLIMIT_CPU.
const cpuLimitByKernel = true

// applyLimits sets lim on the running process pid with prlimit(2).
func applyLimits(pid int, lim limits) error {
	if lim.cpu > 0 {
		secs := uint64((lim.cpu + time.Second - 1) / time.Second)
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
