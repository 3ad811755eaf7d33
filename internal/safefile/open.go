package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError reports a file that niro would read but that is not a
// regular file (a FIFO, a device, a socket or a directory).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, e.Kind())
}

// Kind names what the file is instead: "a FIFO", "a directory", ...
func (e *NotRegularError) Kind() string { return kindOf(e.Mode) }

// kindOf names a file mode's type for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}

// openFlags open for reading without blocking: opening a FIFO with no
// writer would otherwise wait forever. O_NONBLOCK has no effect on reading
// a regular file.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// OpenRegular opens path for reading and returns it with its fstat result,
// or a *NotRegularError when the opened file is not a regular file.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, path)
}

// Input records a file the command reads through other means (a file it
// maps or that a tool reads), so that no output may replace it.
func Input(path string) {
	if st, err := os.Stat(path); err == nil {
		addInput(path, st)
	}
}

// OpenRegularIn opens name inside root for reading, as OpenRegular does.
func OpenRegularIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, name)
}

func checkRegular(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	addInput(path, st)
	return f, st, nil
}

// ReadFile reads a regular file whole, as os.ReadFile does, refusing
// special files. Like every file opened here, it is recorded as an input
// (see [Claim]).
func ReadFile(path string) ([]byte, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := st.Size()
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: too large to read (%d bytes)", path, size)
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // the file grew: let append choose
		}
	}
}
