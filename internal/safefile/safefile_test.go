package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpenRegularRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo); done <- err }()
	select {
	case err := <-done:
		var nr *NotRegularError
		if !errors.As(err, &nr) {
			t.Fatalf("ReadFile(FIFO) = %v, want a NotRegularError", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, _, err := OpenRegularIn(root, "fifo"); err == nil {
		t.Fatal("OpenRegularIn(FIFO) succeeded")
	}
	if _, err := ReadFile(dir); err == nil {
		t.Fatal("ReadFile(directory) succeeded")
	}
}

func TestCreateIsAtomic(t *testing.T) {
	Reset()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.ll")
	if err := os.WriteFile(out, []byte("good"), 0o640); err != nil {
		t.Fatal(err)
	}
	// A failure midway leaves the previous file as it was, and no
	// temporary file behind.
	boom := errors.New("disk full")
	err := Write(out, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want %v", err, boom)
	}
	assertFile(t, out, "good")
	assertOnly(t, dir, "out.ll")
	// Success replaces it, keeping its permissions.
	Reset()
	if err := WriteFile(out, []byte("new")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, out, "new")
	assertOnly(t, dir, "out.ll")
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
}

func TestCreateSpecialFileInPlace(t *testing.T) {
	Reset()
	// A character device is written in place, never replaced or removed.
	if err := WriteFile(os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(os.DevNull + "")
	if err == nil {
		f.Abort()
	}
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, st, err)
	}
	// A FIFO with no reader is an error, not a hang.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { done <- WriteFile(fifo, []byte("x")) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("writing a FIFO with no reader succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("writing a FIFO with no reader blocked")
	}
	if st, err := os.Stat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was removed or replaced: %v", err)
	}
}

func TestClaimRefusesInputsAndRepeats(t *testing.T) {
	Reset()
	dir := t.TempDir()
	in := filepath.Join(dir, "model.weights")
	if err := os.WriteFile(in, []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(in); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "alias")
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{in, link} {
		err := WriteFile(p, nil)
		var ce *ConflictError
		if !errors.As(err, &ce) || !ce.Input || ce.ExitCode() != 2 {
			t.Fatalf("WriteFile(%s) = %v, want a ConflictError on an input", p, err)
		}
	}
	assertFile(t, in, "weights")
	out := filepath.Join(dir, "a.o")
	if err := Claim(out); err != nil {
		t.Fatal(err)
	}
	if err := Claim(filepath.Join(dir, ".", "a.o")); err == nil {
		t.Fatal("a second claim of one output succeeded")
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}
