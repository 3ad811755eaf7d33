package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/niro-dev/niro/internal/cleanup"
)

var filepathAbs = filepath.Abs

// File is an output being written. Write to it, then Commit to put it in
// place, or Abort to drop it; Abort after Commit does nothing, so
// `defer f.Abort()` is the usual pattern.
type File struct {
	dest    string   // the path as given, for messages
	target  string   // the file replaced (dest with symbolic links resolved)
	tmp     string   // the temporary file; "" when writing a special file in place
	f       *os.File // open for writing
	release func()
	done    bool
	err     error // the first write error
}

// Create starts writing the output path. A regular file (or none) at path
// is replaced only by Commit; a character device, FIFO or other special
// file is written in place, opened without O_TRUNC and without blocking
// (a FIFO with no reader is an error). A directory is an error. Create
// claims path as an output (see [Claim]) unless it was claimed already.
func Create(path string) (*File, error) {
	if !claimed(path) {
		if err := Claim(path); err != nil {
			return nil, err
		}
	}
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("%s: is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return nil, fmt.Errorf("%s: a FIFO with no reader", path)
		}
		if err != nil {
			return nil, err
		}
		return &File{dest: path, target: target, f: f, release: func() {}}, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	perm := os.FileMode(0o666) // less the umask, as for any new file
	if err == nil {
		perm = st.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	for tries := 0; ; tries++ {
		var r [6]byte
		_, _ = rand.Read(r[:])
		tmp := filepath.Join(dir, "."+base+".niro-"+hex.EncodeToString(r[:]))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) && tries < 100 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if st != nil {
			// Keep an existing file's permissions exactly (the umask
			// applied to the temporary file).
			_ = f.Chmod(perm)
		}
		return &File{dest: path, target: target, tmp: tmp, f: f, release: cleanup.Path(tmp)}, nil
	}
}

// Name returns the path given to Create.
func (f *File) Name() string { return f.dest }

// Write writes to the output; the first error sticks and fails Commit.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = fmt.Errorf("writing %s: %w", f.dest, err)
		return n, f.err
	}
	return n, nil
}

// Commit flushes the output to disk and puts it in place.
func (f *File) Commit() error {
	if f.done {
		return errors.New("safefile: Commit after Commit or Abort")
	}
	if f.err != nil {
		f.Abort()
		return f.err
	}
	if f.tmp == "" {
		f.done = true
		if err := f.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.dest, err)
		}
		return nil
	}
	if err := f.f.Sync(); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.dest, err)
	}
	if err := f.f.Close(); err != nil {
		f.done = true
		f.release()
		return fmt.Errorf("writing %s: %w", f.dest, err)
	}
	f.done = true
	if err := os.Rename(f.tmp, f.target); err != nil {
		f.release()
		return fmt.Errorf("writing %s: %w", f.dest, err)
	}
	cleanup.Forget(f.tmp)
	f.release()
	// Make the rename durable too; not every file system can sync a
	// directory, so this is best effort.
	if d, err := os.Open(filepath.Dir(f.target)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Abort drops the output: the temporary file is removed and the previous
// file, if any, is left as it was.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	f.release()
}

// Write writes the output path with fn, atomically as Create and Commit do.
func Write(path string, fn func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fn(f); err != nil {
		if f.err != nil && !errors.Is(err, f.err) {
			return fmt.Errorf("%w (%v)", f.err, err)
		}
		return err
	}
	return f.Commit()
}

// WriteFile writes data to the output path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
