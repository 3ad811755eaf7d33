//go:build !linux

package toolchain

// cpuLimitByKernel: without prlimit the CPU budget bounds the wall-clock
// time (runLimited).
const cpuLimitByKernel = false

// applyLimits sets no limits where prlimit(2) does not exist; the memory
// limit is not enforced there.
func applyLimits(pid int, lim limits) error { return nil }
