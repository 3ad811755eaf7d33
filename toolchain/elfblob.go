package toolchain

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// BlobSectionAlign is the alignment, in bytes, of the section
// AppendBlobSection adds.
const BlobSectionAlign = 64

// Sizes of the ELF64 structures AppendBlobSection reads and writes.
const (
	elf64HeaderSize  = 64 // elf.Header64
	elf64SectionSize = 64 // elf.Section64
	elf64SymbolSize  = elf.Sym64Size
)

// maxTableAlign bounds the alignment of the tables AppendBlobSection moves;
// llc aligns symbol tables to 8 bytes and string tables to 1.
const maxTableAlign = 4096

// AppendBlobSection writes to w the ELF64 little-endian relocatable object
// obj (as llc makes it) with the blob added: one more section .rodata.SYMBOL
// (SHT_PROGBITS, SHF_ALLOC, aligned to [BlobSectionAlign], size bytes long)
// holding the bytes blob.WriteTo writes, and a global object symbol SYMBOL of
// that size at its first byte. The result is one linkable object holding
// the model's code and its weights.
//
// The blob is streamed to w, never held in memory, so the memory needed is
// that of obj alone. obj's bytes are copied unchanged, and every index in
// them stays valid: the symbol table, the symbol string table and the
// section name table are written again after them, each with the new entry
// at its end (the new symbol is global, and globals come last), then the
// blob, then a new section header table with the new section last; the ELF
// header's e_shoff and e_shnum point at it. w is written strictly in order,
// so it may be a pipe.
//
// blob must write exactly size bytes; AppendBlobSection fails otherwise.
// Objects with more than 0xfeff sections or an extended section index
// table, and objects that already name SYMBOL, are refused.
func AppendBlobSection(w io.Writer, obj []byte, symbol string, blob io.WriterTo, size int64) error {
	const stage = "embed"
	if !cIdentRE.MatchString(symbol) {
		return fmt.Errorf("%s: blob symbol %q is not a C identifier", stage, symbol)
	}
	if size < 0 {
		return fmt.Errorf("%s: negative blob size %d", stage, size)
	}
	l, err := planBlobSection(obj, symbol, size)
	if err != nil {
		return fmt.Errorf("%s: %w", stage, err)
	}
	if err := l.write(w, obj, blob); err != nil {
		return fmt.Errorf("%s: %w", stage, err)
	}
	return nil
}

// blobLayout is the plan of AppendBlobSection's output: obj's bytes, then
// the appended tables, the blob and the section header table, at the
// offsets recorded here.
type blobLayout struct {
	header   elf.Header64
	sections []elf.Section64 // the new section header table

	// tables are the string and symbol tables written after obj, in offset
	// order; each is the old contents plus an appended tail.
	tables []appendedTable

	blobOff, blobSize int64
}

// appendedTable is a section copied to the end of the file with bytes
// added.
type appendedTable struct {
	off  int64  // where the copy starts
	old  []byte // the original contents
	tail []byte // the bytes appended
}

// planBlobSection checks obj and lays out the output.
func planBlobSection(obj []byte, symbol string, size int64) (*blobLayout, error) {
	if len(obj) < elf.EI_NIDENT || !bytes.HasPrefix(obj, []byte(elf.ELFMAG)) {
		return nil, errors.New("the model's object is not an ELF file")
	}
	if c := elf.Class(obj[elf.EI_CLASS]); c != elf.ELFCLASS64 {
		return nil, fmt.Errorf("the model's object is %v; only 64-bit ELF objects can carry the weights", c)
	}
	if d := elf.Data(obj[elf.EI_DATA]); d != elf.ELFDATA2LSB {
		return nil, fmt.Errorf("the model's object is %v; only little-endian ELF objects can carry the weights", d)
	}
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, fmt.Errorf("the model's object: %w", err)
	}
	if f.Type != elf.ET_REL {
		return nil, fmt.Errorf("the model's object is %v, not a relocatable object", f.Type)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("the model's object: %w", err)
	}
	for _, s := range syms {
		if s.Name == symbol {
			return nil, fmt.Errorf("the model's object already has a symbol %s", symbol)
		}
	}

	le := binary.LittleEndian
	l := &blobLayout{blobSize: size}
	if _, err := binary.Decode(obj, le, &l.header); err != nil {
		return nil, fmt.Errorf("the model's object: ELF header: %w", err)
	}
	h := &l.header
	switch {
	case h.Shentsize != elf64SectionSize:
		return nil, fmt.Errorf("the model's object has section headers of %d bytes, not %d", h.Shentsize, elf64SectionSize)
	case h.Shnum == 0:
		// Zero means no sections, or too many for e_shnum (counted in
		// section 0's sh_size): neither is an object llc makes.
		return nil, errors.New("the model's object has no section count in its ELF header (none, or 0xff00 or more sections); cannot add a section")
	case h.Shstrndx == uint16(elf.SHN_UNDEF) || h.Shstrndx >= h.Shnum:
		return nil, fmt.Errorf("the model's object has section name table index %d, not a section", h.Shstrndx)
	case uint32(h.Shnum) >= uint32(elf.SHN_LORESERVE):
		return nil, fmt.Errorf("the model's object has %d sections; the blob's would need an extended section index", h.Shnum)
	}
	shnum := int(h.Shnum)
	end := h.Shoff + uint64(shnum)*elf64SectionSize
	if h.Shoff > uint64(len(obj)) || end > uint64(len(obj)) {
		return nil, errors.New("the model's object: section header table lies outside the file")
	}
	l.sections = make([]elf.Section64, shnum, shnum+1)
	symtab := -1
	for i := range l.sections {
		if _, err := binary.Decode(obj[h.Shoff+uint64(i)*elf64SectionSize:], le, &l.sections[i]); err != nil {
			return nil, fmt.Errorf("the model's object: section header %d: %w", i, err)
		}
		switch elf.SectionType(l.sections[i].Type) {
		case elf.SHT_SYMTAB:
			if symtab >= 0 {
				return nil, errors.New("the model's object has more than one symbol table")
			}
			symtab = i
		case elf.SHT_SYMTAB_SHNDX:
			return nil, errors.New("the model's object has an extended section index table; cannot add a symbol")
		}
	}
	if symtab < 0 {
		return nil, errors.New("the model's object has no symbol table")
	}
	st := &l.sections[symtab]
	if st.Entsize != elf64SymbolSize || st.Size%elf64SymbolSize != 0 {
		return nil, fmt.Errorf("the model's object: symbol table entries of %d bytes, size %d; want %d-byte entries", st.Entsize, st.Size, elf64SymbolSize)
	}
	strtab, shstrtab := int(st.Link), int(h.Shstrndx)
	for _, i := range []int{symtab, strtab, shstrtab} {
		if i <= 0 || i >= shnum {
			return nil, fmt.Errorf("the model's object: section index %d out of range", i)
		}
		s := l.sections[i]
		if i != symtab && elf.SectionType(s.Type) != elf.SHT_STRTAB {
			return nil, fmt.Errorf("the model's object: section %d is %v, not a string table", i, elf.SectionType(s.Type))
		}
		if s.Off > uint64(len(obj)) || s.Size > uint64(len(obj))-s.Off {
			return nil, fmt.Errorf("the model's object: section %d lies outside the file", i)
		}
		if a := s.Addralign; a&(a-1) != 0 || a > maxTableAlign {
			return nil, fmt.Errorf("the model's object: section %d has alignment %d", i, a)
		}
	}

	// The names go at the ends of their string tables; llc's objects share
	// one table for section and symbol names.
	secName := ".rodata." + symbol
	tails := map[int][]byte{}
	nameOff := func(table int, name string) uint32 {
		off := l.sections[table].Size + uint64(len(tails[table]))
		tails[table] = append(append(tails[table], name...), 0)
		return uint32(off)
	}
	blobIndex := uint16(shnum)
	sym := elf.Sym64{
		Name:  nameOff(strtab, symbol),
		Info:  elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT),
		Other: uint8(elf.STV_DEFAULT),
		Shndx: blobIndex,
		Size:  uint64(size),
	}
	sec := elf.Section64{
		Name:      nameOff(shstrtab, secName),
		Type:      uint32(elf.SHT_PROGBITS),
		Flags:     uint64(elf.SHF_ALLOC),
		Size:      uint64(size),
		Addralign: BlobSectionAlign,
	}
	tails[symtab], err = binary.Append(nil, le, &sym)
	if err != nil {
		return nil, err
	}
	for _, i := range []int{strtab, shstrtab} {
		if l.sections[i].Size+uint64(len(tails[i])) > math.MaxUint32 {
			return nil, fmt.Errorf("the model's object: string table %d is too large", i)
		}
	}

	// Lay out the copies after obj, then the blob, then the headers.
	off := int64(len(obj))
	for _, i := range []int{symtab, strtab, shstrtab} {
		tail, ok := tails[i]
		if !ok {
			continue // the same table as an earlier one
		}
		delete(tails, i)
		s := &l.sections[i]
		off = alignUp(off, int64(max(s.Addralign, 1)))
		l.tables = append(l.tables, appendedTable{off: off, old: obj[s.Off : s.Off+s.Size], tail: tail})
		s.Off = uint64(off)
		s.Size += uint64(len(tail))
		off += int64(s.Size)
	}
	l.blobOff = alignUp(off, BlobSectionAlign)
	sec.Off = uint64(l.blobOff)
	l.sections = append(l.sections, sec)
	h.Shoff = uint64(alignUp(l.blobOff+size, 8))
	h.Shnum++
	return l, nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// write writes the output l describes.
func (l *blobLayout) write(w io.Writer, obj []byte, blob io.WriterTo) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	ow := &offsetWriter{w: bw}
	head, err := binary.Append(nil, binary.LittleEndian, &l.header)
	if err != nil {
		return err
	}
	ow.write(head)
	ow.write(obj[len(head):])
	for _, t := range l.tables {
		ow.padTo(t.off)
		ow.write(t.old)
		ow.write(t.tail)
	}
	ow.padTo(l.blobOff)
	if ow.err != nil {
		return ow.err
	}
	ew := &exactWriter{w: bw, left: l.blobSize}
	n, err := blob.WriteTo(ew)
	if err != nil {
		return fmt.Errorf("writing the weights: %w", err)
	}
	if n != l.blobSize || ew.left != 0 {
		return fmt.Errorf("the weights are %d bytes, not the %d announced", n, l.blobSize)
	}
	ow.n += l.blobSize
	ow.padTo(int64(l.header.Shoff))
	table, err := binary.Append(nil, binary.LittleEndian, l.sections)
	if err != nil {
		return err
	}
	ow.write(table)
	if ow.err != nil {
		return ow.err
	}
	return bw.Flush()
}

// offsetWriter writes in order, tracking the offset and keeping the first
// error.
type offsetWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (o *offsetWriter) write(p []byte) {
	if o.err != nil {
		return
	}
	k, err := o.w.Write(p)
	o.n += int64(k)
	o.err = err
}

// padTo writes zero bytes up to offset off.
func (o *offsetWriter) padTo(off int64) {
	var zeros [BlobSectionAlign]byte
	for o.err == nil && o.n < off {
		o.write(zeros[:min(off-o.n, int64(len(zeros)))])
	}
}

// exactWriter passes at most left bytes to w and fails on more.
type exactWriter struct {
	w    io.Writer
	left int64
}

func (e *exactWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > e.left {
		return 0, errors.New("more bytes than the blob size")
	}
	n, err := e.w.Write(p)
	e.left -= int64(n)
	return n, err
}
