//go:build unix

package importer

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only. The mapping is private to this
// process and is released by unmap.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file %s is too large to map (%d bytes)", f.Name(), size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", f.Name(), err)
	}
	return b, nil
}

// unmap releases a mapping made by mapFile.
func unmap(b []byte) error { return syscall.Munmap(b) }
