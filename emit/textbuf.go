package emit

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/niro-dev/niro/internal/cleanup"
)

// spillLimit is how many bytes of a function body bodyText holds in memory
// before it moves the finished lines to a temporary file. A variable so
// that tests can make it small.
var spillLimit = 4 << 20

// bodyText collects the text of one function body. The body cannot go
// straight to the module's writer: the index constants it uses are hoisted
// into the function's prologue, which is known only once the body is
// complete. A body of up to spillLimit bytes stays in memory; beyond that
// every finished line but the last goes to an unlinked temporary file, so
// that a function of millions of ops costs disk, not memory. The last line
// always stays in memory, where rewriteLast can change it.
type bodyText struct {
	buf  []byte // the text not yet spilled
	last int    // start of the last line in buf
	loc  int    // the op being lowered's location alias + 1 (opLoc), 0 for none

	file    *os.File // the spill file; nil until the body outgrew spillLimit
	fw      *bufio.Writer
	release func() // removes the spill file where it could not be unlinked at once
	noSpill bool   // creating the spill file failed: keep everything in memory
	err     error  // the first error writing the spill file
}

// begin starts a line indented by indent levels of two spaces.
func (b *bodyText) begin(indent int) {
	b.last = len(b.buf)
	for i := 0; i < indent; i++ {
		b.buf = append(b.buf, "  "...)
	}
}

// end finishes the line begun last. A line that ends an MLIR op (neither
// a block label, ending in ':', nor a line opening a region, ending in
// '{') gets the location of the Niro op being lowered.
func (b *bodyText) end() {
	if n := len(b.buf); b.loc > 0 && n > b.last {
		if c := b.buf[n-1]; c != '{' && c != ':' {
			b.buf = appendLocRef(b.buf, b.loc)
		}
	}
	b.buf = append(b.buf, '\n')
	if len(b.buf) > spillLimit && !b.noSpill {
		b.spill()
	}
}

// lastLine returns the last line of the text, with its newline; it lies
// within what the last begin and end wrote, which is never spilled.
func (b *bodyText) lastLine() []byte {
	return b.buf[b.lastStart():]
}

func (b *bodyText) lastStart() int {
	if len(b.buf) == 0 {
		return 0
	}
	return bytes.LastIndexByte(b.buf[b.last:len(b.buf)-1], '\n') + 1 + b.last
}

// rewriteLast replaces the last line of the text with line (which ends
// with a newline).
func (b *bodyText) rewriteLast(line []byte) {
	b.buf = append(b.buf[:b.lastStart()], line...)
}

// spill moves every line before the last one to the spill file.
func (b *bodyText) spill() {
	if b.file == nil {
		f, err := os.CreateTemp("", "niro-emit-*.mlir")
		if err != nil {
			b.noSpill = true // memory is the fallback
			return
		}
		b.file, b.fw = f, bufio.NewWriterSize(f, 1<<20)
		// Unlinked at once where the system allows it, so nothing is left
		// behind however niro ends; elsewhere removed by close or on a
		// signal.
		if os.Remove(f.Name()) != nil {
			b.release = cleanup.Path(f.Name())
		}
	}
	if b.err == nil {
		_, b.err = b.fw.Write(b.buf[:b.last])
	}
	n := copy(b.buf, b.buf[b.last:])
	b.buf, b.last = b.buf[:n], 0
}

// writeTo writes the whole body to w: the spilled part, then the rest.
func (b *bodyText) writeTo(w io.Writer) error {
	if b.file != nil {
		if b.err == nil {
			b.err = b.fw.Flush()
		}
		if b.err == nil {
			_, b.err = b.file.Seek(0, io.SeekStart)
		}
		if b.err == nil {
			_, b.err = io.Copy(w, b.file)
		}
		if b.err != nil {
			return b.err
		}
	}
	_, err := w.Write(b.buf)
	return err
}

// close drops the spill file.
func (b *bodyText) close() {
	if b.file != nil {
		b.file.Close()
		if b.release != nil {
			b.release()
		}
		b.file, b.fw, b.release = nil, nil, nil
	}
}
