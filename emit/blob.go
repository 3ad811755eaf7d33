package emit

import (
	"fmt"
	"io"
	"strconv"

	"github.com/niro-dev/niro/niro"
)

// BlobAlign is the alignment, in bytes, of every entry's offset in the
// weights blob and of memref.global constants in the text. The blob itself
// must be loaded at an address aligned to BlobAlign.
const BlobAlign = 64

// Blob is the weights blob: the large tensors the compiled code reads in
// place. Entries follow one another in first-use order, each at an offset
// aligned to BlobAlign, with zero bytes in between. The blob references the
// IR's data; it copies nothing.
type Blob struct {
	// Entries are the tensors in the blob, in offset order.
	Entries []BlobEntry
	// Size is the blob's length in bytes: the end of the last entry.
	Size int64
}

// BlobEntry is one tensor in the weights blob.
type BlobEntry struct {
	// Name is the global's name, or FUNC/%ID for a large constant in
	// function FUNC.
	Name string
	// Type is the tensor's type; its shape is static.
	Type niro.TensorType
	// Offset is the entry's position in the blob, a multiple of BlobAlign.
	Offset int64
	// Size is the entry's length in bytes.
	Size int64

	data []byte
}

// add appends an entry at the next aligned offset.
func (b *Blob) add(name string, t niro.TensorType, data []byte) {
	if isPacked(t.Elem) && int64(len(data)) == niro.PackedBytes(t.Elem, t.NumElements()) {
		data = unpackData(t.Elem, t.NumElements(), data) // one element a byte, see packed.go
	}
	off := alignUp(b.Size, BlobAlign)
	b.Entries = append(b.Entries, BlobEntry{Name: name, Type: t, Offset: off, Size: int64(len(data)), data: data})
	b.Size = off + int64(len(data))
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// zeros is the padding source for WriteTo.
var zeros [BlobAlign]byte

// WriteTo writes the blob to w: each entry's bytes at its offset, zero
// padding in between. It writes the IR's data directly, one entry at a
// time, without assembling the blob in memory. It implements io.WriterTo.
func (b *Blob) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, e := range b.Entries {
		if pad := e.Offset - n; pad > 0 {
			k, err := w.Write(zeros[:pad])
			n += int64(k)
			if err != nil {
				return n, err
			}
		}
		k, err := w.Write(e.data)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// weightsType returns the type of the weights parameter.
func (e *emitter) weightsType() string {
	return "memref<" + strconv.FormatInt(e.blob.Size, 10) + "xi8>"
}

// needsWeights reports whether f takes the weights parameter.
func (e *emitter) needsWeights(f *niro.Function) bool { return e.weightsFns[f.Name] && f.Body != nil }

// constKey is the blob key of a large constant: FUNC/%ID.
func constKey(f *niro.Function, v niro.Value) string {
	return f.Name + "/" + name(v)
}

// placement says where a tensor's data goes.
type placement int

const (
	inText placement = iota // written into the MLIR text
	inBlob                  // read in place from the weights blob
)

// place decides where packed tensor data of type t goes: the blob when it
// is larger than the inline limit and not a splat, the text otherwise.
// Malformed data stays in the text, where emitting it reports the problem.
func (e *emitter) place(t niro.TensorType, lit niro.Literal) placement {
	data, ok := lit.(niro.BytesLit)
	if !ok || checkTensorData(t, data) != nil || len(data) == 0 {
		return inText
	}
	limit := e.opts.inlineLimit()
	if limit >= 0 && int64(len(data)) <= limit {
		return inText
	}
	if isSplat(data, elemBytes(t.Elem)) {
		return inText
	}
	return inBlob
}

// planData decides where each global and tensor constant lives, lays out
// the weights blob, and finds the functions that need the weights
// parameter: those that read the blob and, transitively, their callers.
// The entry function takes it whenever the blob is not empty.
func (e *emitter) planData() {
	e.blobIndex = map[string]int{}
	e.weightsFns = map[string]bool{}
	usedInText := map[string]bool{}
	callers := map[string][]string{}
	var work []string
	addBlob := func(key string, t niro.TensorType, data []byte) {
		if _, ok := e.blobIndex[key]; ok {
			return
		}
		e.blobIndex[key] = len(e.blob.Entries)
		e.blob.add(key, t, data)
	}
	e.planConvFilters()
	for _, f := range e.m.Functions {
		if f == nil || f.Body == nil {
			continue
		}
		reads := false
		f.Body.Walk(func(op niro.Op) bool {
			if e.filters.unread[op] {
				return true // only folded convolution filters read it
			}
			switch op := op.(type) {
			case *niro.Conv:
				// A filter laid out at compile time (conv_filter.go).
				if cf := e.filters.byConv[op]; cf != nil && e.place(cf.typ, niro.BytesLit(cf.data)) == inBlob {
					addBlob(cf.key, cf.typ, cf.data)
					reads = true
				}
			case *niro.GetGlobal:
				g := e.globals[op.Global]
				if g == nil {
					break
				}
				t, ok := g.Type.(niro.TensorType)
				if !ok {
					break
				}
				if e.place(t, g.Init) == inBlob {
					addBlob(g.Name, t, g.Init.(niro.BytesLit))
					reads = true
				} else {
					usedInText[g.Name] = true
				}
			case *niro.Const:
				t, ok := op.Result.Type.(niro.TensorType)
				if ok && e.place(t, op.Lit) == inBlob {
					addBlob(constKey(f, op.Result), t, op.Lit.(niro.BytesLit))
					reads = true
				}
			case *niro.Call:
				callers[op.Callee] = append(callers[op.Callee], f.Name)
			}
			return true
		})
		if reads {
			e.weightsFns[f.Name] = true
			work = append(work, f.Name)
		}
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, c := range callers[f] {
			if !e.weightsFns[c] {
				e.weightsFns[c] = true
				work = append(work, c)
			}
		}
	}
	if len(e.blob.Entries) > 0 {
		e.weightsFns[e.entry.Name] = true
	}
	for _, g := range e.m.Globals {
		if g != nil && usedInText[g.Name] {
			e.textGlobal = append(e.textGlobal, g)
		}
	}
}

// writeGlobals writes each tensor global kept in the text as a private
// constant memref.global, aligned to 64 bytes.
func (e *emitter) writeGlobals(sb io.Writer) {
	for _, g := range e.textGlobal {
		t := g.Type.(niro.TensorType)
		mt, err := memrefType(t)
		if err != nil {
			e.errorf("global %s: %v", symbol(g.Name), err)
			continue
		}
		data, ok := g.Init.(niro.BytesLit)
		if !ok {
			e.errorf("global %s: a tensor initializer needs packed bytes, got %s", symbol(g.Name), litName(g.Init))
			continue
		}
		attr, err := denseAttr(t, data)
		if err != nil {
			e.errorf("global %s: %v", symbol(g.Name), err)
			continue
		}
		fmt.Fprintf(sb, "  memref.global \"private\" constant %s : %s = %s {alignment = %d : i64}\n", symbol(g.Name), mt, attr, BlobAlign)
	}
}
