//go:build !unix

package importer

import (
	"fmt"
	"io"
	"os"
)

// mapFile reads the file into memory on systems without mmap support.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("reading %s: %w", f.Name(), err)
	}
	return b, nil
}

// unmap is a no-op for memory read by mapFile.
func unmap([]byte) error { return nil }
