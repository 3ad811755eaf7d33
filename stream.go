package main

import (
	"bufio"
	"io"
	"os"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/internal/cleanup"
)

// writeMLIR streams out's MLIR text to path (standard output for "" or
// "-"). A file is written atomically (safefile): the text goes straight
// into the temporary file as emit lowers each function, and a lowering
// error leaves whatever was at path untouched. Standard output gets
// nothing on failure either: the text is spooled to an unlinked temporary
// file first and copied out once it is complete. The whole text is never
// held in memory (docs/emit.md, "Streaming").
func writeMLIR(env *Env, path string, out *emit.Output) error {
	if path != "" && path != "-" {
		return writeFileOutput(env, path, out.WriteMLIR)
	}
	spool, release, err := spoolFile()
	if err != nil {
		// No temporary file: build the text in memory instead.
		text, err := out.Text()
		if err != nil {
			return err
		}
		_, err = io.WriteString(env.Stdout, text)
		return err
	}
	defer release()
	if err := out.WriteMLIR(spool); err != nil {
		return err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w := bufio.NewWriterSize(env.Stdout, 256<<10)
	if _, err := io.Copy(w, spool); err != nil {
		return err
	}
	return w.Flush()
}

// spoolFile creates a temporary file, unlinked at once where the system
// allows it (elsewhere registered with package cleanup), and returns it
// with the function that closes and removes it.
func spoolFile() (*os.File, func(), error) {
	f, err := os.CreateTemp("", "niro-spool-*.mlir")
	if err != nil {
		return nil, nil, err
	}
	remove := func() {}
	if os.Remove(f.Name()) != nil {
		remove = cleanup.Path(f.Name())
	}
	return f, func() { f.Close(); remove() }, nil
}
