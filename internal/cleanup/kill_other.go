//go:build !unix

package cleanup

import "os"

// killGroup kills the process pgid where there are no process groups.
func killGroup(pgid int) {
	if p, err := os.FindProcess(pgid); err == nil {
		_ = p.Kill()
	}
}
