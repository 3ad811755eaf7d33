//go:build !linux

package toolchain

import (
	"syscall"
	"time"
)

// cpuLimitByKernel: without prlimit the CPU budget bounds the wall-clock
// time (runLimited).
const cpuLimitByKernel = false

// cpuPollInterval is unused without /proc.
const cpuPollInterval = time.Second

// cpuTime is unknown without /proc.
func cpuTime(pid int) (time.Duration, bool) { return 0, false }

// applyLimits sets no limits where prlimit(2) does not exist; the memory
// limit is not enforced there.
func applyLimits(pid int, lim limits) error { return nil }

// dieWithParent does nothing where the kernel has no parent-death signal.
func dieWithParent(*syscall.SysProcAttr) {}
