// Package emit lowers Niro IR to MLIR text in the linalg, tensor, arith,
// math, func, scf, cf, memref and bufferization dialects.
//
// [Module] writes one func.func per Niro function and needs no external
// tool. Element-wise Add and Mul on tensors become a tensor.empty plus one
// broadcasting linalg.generic; MatMul becomes a zero fill and a contraction
// generic tagged niro.contraction; Transpose a generic with a permuted input
// map; TensorExtract a tensor.extract; control flow becomes cf branches and
// scf.if. Large globals and constants never pass through the text: they go
// into a weights [Blob] that the compiled code reads in place through a
// leading memref<Nxi8> parameter of the entry function, which every call
// passes on to the functions that read the blob. Only the entry function is
// exported; the others are private with internal linkage. [Header] writes
// the C header of the compiled entry function. docs/emit.md describes every
// rule.
package emit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/internal/mlirtext"
	"github.com/niro-dev/niro/niro"
)

// DefaultInlineLimit is the largest global, in bytes, that [Module] writes
// into the MLIR text when [Options.InlineLimit] is zero.
const DefaultInlineLimit = 4096

// Options controls [Module].
type Options struct {
	// InlineLimit is the largest tensor global or constant, in bytes, that
	// is written into the MLIR text. Larger ones go into the weights blob,
	// unless all their elements are equal (a splat stays small in the text).
	// Zero means DefaultInlineLimit; a negative limit puts every tensor
	// global and tensor constant that is not a splat into the blob.
	InlineLimit int64
	// Math chooses how exp, log, tanh and erf are computed on f32 (and
	// f16 and bf16): MathPoly ("poly", also when empty) for niro's own
	// vectorizable polynomials, MathLibm ("libm") for the math dialect
	// (libm's results, one scalar call per element). f64 always uses
	// the math dialect.
	Math string
}

func (o Options) inlineLimit() int64 {
	if o.InlineLimit == 0 {
		return DefaultInlineLimit
	}
	return o.InlineLimit
}

// Output is the result of [Module] or [Prepare].
type Output struct {
	// MLIR is the module's MLIR text, filled by [Module]; empty after
	// [Prepare], whose caller streams the text with [Output.WriteMLIR].
	MLIR string
	// Blob holds the large tensors the compiled code reads in place; nil
	// when there are none.
	Blob *Blob
	// Entry describes the entry function's interface.
	Entry Entry

	e *emitter // the checked, planned module, for WriteMLIR
}

// Entry describes the entry function: the one the compiled model exports.
type Entry struct {
	// Name is the function's symbol, a valid C identifier.
	Name string
	// HasWeights reports whether the function takes the weights blob as a
	// leading memref<Nxi8> parameter (a const void * in the C ABI).
	HasWeights bool
	// Inputs and Outputs are the function's parameters and results, in
	// order, after the weights parameter.
	Inputs, Outputs []Param
}

// Param is one input or output of the entry function.
type Param struct {
	// Name is the name the IR gives it (an ONNX graph input or output
	// name), or "" when unnamed.
	Name string
	// Type is its Niro type.
	Type niro.Type
}

// Module lowers m to MLIR text, returned in Output.MLIR. It runs
// [niro.Verify] first and returns its diagnostics for an invalid module. A
// module holding UnknownOps gets one [UnsupportedError] naming every
// unknown op type, before lowering, so nothing downstream of them is
// reported. Otherwise it reports everything it cannot lower, collected
// rather than stopping at the first: the error joins one error per
// unsupported op, element type or construct, each naming its function and
// the op's location or the value.
//
// Module holds the whole text in memory; [Prepare] and
// [Output.WriteMLIR] stream it to a writer instead.
func Module(m *niro.Module, opts Options) (*Output, error) {
	out, err := Prepare(m, opts)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	if err := out.WriteMLIR(&sb); err != nil {
		return nil, err
	}
	out.MLIR = sb.String()
	out.e = nil // WriteMLIR writes the string from now on
	return out, nil
}

// Prepare does everything [Module] does before it writes text: it
// verifies m, refuses unknown ops, checks the entry function and plans
// where the data goes, and returns the Output with Blob and Entry filled
// and MLIR empty. [Output.WriteMLIR] then writes the text.
func Prepare(m *niro.Module, opts Options) (*Output, error) {
	if m == nil {
		return nil, errors.New("emit: nil module")
	}
	if opts.Math != "" && opts.Math != MathPoly && opts.Math != MathLibm {
		return nil, fmt.Errorf("emit: Options.Math is %q, want %q or %q", opts.Math, MathPoly, MathLibm)
	}
	if err := niro.Verify(m); err != nil {
		return nil, fmt.Errorf("emit: invalid module:\n%w", err)
	}
	if err := Unsupported(m); err != nil {
		return nil, err
	}
	entry := m.Entry()
	if entry == nil {
		if name, ok := m.Attrs["entry"].(niro.StringAttr); ok {
			return nil, fmt.Errorf("emit: entry function @%s is not defined in the module", string(name))
		}
		return nil, errors.New("emit: module has no function with a body to serve as the entry")
	}
	if entry.Body == nil {
		return nil, fmt.Errorf("emit: entry function @%s has no body", entry.Name)
	}
	if !niro.IsCIdent(entry.Name) {
		return nil, fmt.Errorf("emit: entry function name %q is not a valid C identifier", entry.Name)
	}
	e := &emitter{
		m:       m,
		opts:    opts,
		entry:   entry,
		globals: map[string]*niro.Global{},
		funcs:   map[string]*niro.Function{},
	}
	for _, g := range m.Globals {
		if g != nil {
			e.globals[g.Name] = g
		}
	}
	for _, f := range m.Functions {
		if f != nil {
			e.funcs[f.Name] = f
		}
	}
	e.planData()
	out := &Output{Entry: Entry{Name: entry.Name, HasWeights: e.needsWeights(entry)}, e: e}
	if len(e.blob.Entries) > 0 {
		out.Blob = &e.blob
	}
	for i, t := range entry.Type.Inputs {
		out.Entry.Inputs = append(out.Entry.Inputs, Param{Name: nameAt(entry.InputNames, i), Type: t})
	}
	for i, t := range entry.Type.Outputs {
		out.Entry.Outputs = append(out.Entry.Outputs, Param{Name: nameAt(entry.OutputNames, i), Type: t})
	}
	return out, nil
}

// WriteMLIR writes the module's MLIR text to w, through a buffer, as it
// lowers each function; it never holds the whole text (docs/emit.md,
// "Streaming"). It returns what [Module] would report for the module:
// the joined lowering errors, and any error writing to w. After an error
// the text written is incomplete and must be discarded. An Output from
// [Module] writes its MLIR. WriteMLIR may be called more than once, not
// concurrently; each call writes the same text.
func (o *Output) WriteMLIR(w io.Writer) error {
	if o.e == nil {
		_, err := io.WriteString(w, o.MLIR)
		return err
	}
	return o.e.write(w)
}

// Text returns the module's MLIR text: Output.MLIR when [Module] filled
// it, else the text [Output.WriteMLIR] writes, built in memory.
func (o *Output) Text() (string, error) {
	if o.MLIR != "" || o.e == nil {
		return o.MLIR, nil
	}
	var sb strings.Builder
	if err := o.e.write(&sb); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// write writes the module's text to w.
func (e *emitter) write(w io.Writer) error {
	e.errs = nil
	e.locList = e.locList[:0]
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.WriteString("module {\n")
	e.writeGlobals(bw)
	for _, f := range e.m.Functions {
		if f == nil {
			continue
		}
		fe := newFuncEmitter(e, f)
		err := fe.function(bw)
		fe.body.close()
		if err != nil {
			return fmt.Errorf("emit: writing the MLIR of %s: %w", fe.fn, err)
		}
	}
	bw.WriteString("}\n")
	e.writeLocs(bw)
	if len(e.errs) > 0 {
		return errors.Join(e.errs...)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("emit: writing the MLIR: %w", err)
	}
	return nil
}

func nameAt(names []*string, i int) string {
	if i < len(names) && names[i] != nil {
		return *names[i]
	}
	return ""
}

// emitter holds the module-wide state.
type emitter struct {
	m       *niro.Module
	opts    Options
	entry   *niro.Function
	globals map[string]*niro.Global
	funcs   map[string]*niro.Function

	// data placement, decided by planData
	blob       Blob
	blobIndex  map[string]int  // blob entry key -> index in blob.Entries
	textGlobal []*niro.Global  // globals written as memref.global, in module order
	weightsFns map[string]bool // functions that take the weights parameter
	filters    *convFilterPlan // convolution filters laid out at compile time

	locList []locKey // the location aliases (loc.go), in first-use order

	errs []error
}

func (e *emitter) errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("emit: "+format, args...))
}

// funcEmitter writes one function.
type funcEmitter struct {
	e  *emitter
	f  *niro.Function
	fn string // "func @name" for messages

	body   bodyText // the entry block's ops after the prologue, then the other blocks
	indent int

	blocks   map[*niro.Block]int
	cur      niro.Op        // the op being lowered, for messages
	temp     int            // next %tN
	consts   map[int64]bool // index constants used, hoisted into the prologue
	constSeq []int64
	badValue map[niro.ValueID]bool      // values already reported
	nhwc     map[niro.ValueID]bool      // 4-D values kept channels-last (layout.go)
	epiAttrs map[string]string          // extra generic attributes by result name (conv_epilogue.go)
	epiConv  map[niro.ValueID]bool      // convolutions whose epilogue is fused (conv_epilogue.go)
	epiSplit map[niro.ValueID]*epiSplit // per-group epilogue regions' values (conv_pergroup_epi.go)

	typeCache [8]typeSpelling // the tensor types spelled last, for typ
	nextType  int             // the entry of typeCache replaced next
}

// sameTensorType is niro.TypesEqual for two tensor types.
func sameTensorType(a, b niro.TensorType) bool {
	return a.Elem == b.Elem && a.Unranked == b.Unranked && slices.Equal(a.Dims, b.Dims)
}

// typeSpelling is a tensor type and its MLIR spelling.
type typeSpelling struct {
	t niro.TensorType
	s string
}

func newFuncEmitter(e *emitter, f *niro.Function) *funcEmitter {
	return &funcEmitter{
		e:        e,
		f:        f,
		fn:       "func " + symbol(f.Name),
		blocks:   map[*niro.Block]int{},
		consts:   map[int64]bool{},
		badValue: map[niro.ValueID]bool{},
	}
}

func (fe *funcEmitter) errorf(format string, args ...any) {
	fe.e.errorf("%s: "+format, append([]any{fe.fn}, args...)...)
}

// opErrorf reports a problem with op, naming its location when it has one.
func (fe *funcEmitter) opErrorf(op niro.Op, format string, args ...any) {
	fe.errorf("%s%s", fmt.Sprintf(format, args...), locSuffix(op))
}

// locSuffix returns ` (node "NAME")` for an op with a location, else "".
func locSuffix(op niro.Op) string {
	if op == nil || op.Location() == "" {
		return ""
	}
	return fmt.Sprintf(" (node %q)", op.Location())
}

// line writes one line of the body at the current indentation.
func (fe *funcEmitter) line(format string, args ...any) {
	fe.body.begin(fe.indent)
	fe.body.buf = fmt.Appendf(fe.body.buf, format, args...)
	fe.body.end()
}

// lineOf writes one line made of parts at the current indentation: what
// line does, without formatting, for the most frequent lines.
func (fe *funcEmitter) lineOf(parts ...string) {
	fe.body.begin(fe.indent)
	for _, p := range parts {
		fe.body.buf = append(fe.body.buf, p...)
	}
	fe.body.end()
}

// tmp returns a fresh SSA name for a value the emitter introduces.
func (fe *funcEmitter) tmp() string {
	var b [24]byte
	s := string(strconv.AppendInt(append(b[:0], "%t"...), int64(fe.temp), 10))
	fe.temp++
	return s
}

// index returns the name of an index constant, hoisted to the start of the
// function so that it dominates every use.
func (fe *funcEmitter) index(n int64) string {
	if !fe.consts[n] {
		fe.consts[n] = true
		fe.constSeq = append(fe.constSeq, n)
	}
	return "%c" + strconv.FormatInt(n, 10)
}

// name returns the SSA name of a Niro value: %ID, as Niro prints it.
func name(v niro.Value) string {
	var b [24]byte
	return string(strconv.AppendUint(append(b[:0], '%'), uint64(v.ID), 10))
}

// names returns the comma-separated SSA names of vs.
func names(vs []niro.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = name(v)
	}
	return strings.Join(parts, ", ")
}

// typ returns the MLIR type of v, reporting an unsupported type once per
// value.
func (fe *funcEmitter) typ(v niro.Value) string {
	if t, ok := fe.layoutType(v); ok {
		return t
	}
	if tt, ok := v.Type.(niro.TensorType); ok {
		// Most values share a few types: spelled once, then looked up.
		for i := range fe.typeCache {
			if c := &fe.typeCache[i]; c.s != "" && sameTensorType(c.t, tt) {
				return c.s
			}
		}
		if s, err := mlirType(tt); err == nil {
			tt.Dims = slices.Clone(tt.Dims)
			fe.typeCache[fe.nextType] = typeSpelling{tt, s}
			fe.nextType = (fe.nextType + 1) % len(fe.typeCache)
			return s
		}
	}
	s, err := mlirType(v.Type)
	if err != nil {
		if !fe.badValue[v.ID] {
			fe.badValue[v.ID] = true
			fe.errorf("value %s: %v%s", name(v), err, locSuffix(fe.cur))
		}
		return "<unsupported>"
	}
	return s
}

// types returns the comma-separated MLIR types of vs.
func (fe *funcEmitter) types(vs []niro.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fe.typ(v)
	}
	return strings.Join(parts, ", ")
}

// op lowers one op. It is the single dispatch point over Niro's op kinds.
func (fe *funcEmitter) op(op niro.Op) {
	saved, savedLoc := fe.cur, fe.body.loc
	fe.cur, fe.body.loc = op, fe.e.opLoc(op)
	defer func() { fe.cur, fe.body.loc = saved, savedLoc }()
	switch op := op.(type) {
	case *niro.Const:
		fe.constOp(op)
	case *niro.GetGlobal:
		fe.getGlobal(op)
	case *niro.Transpose:
		fe.transpose(op)
	case *niro.TensorExtract:
		fe.tensorExtract(op)
	case *niro.Binary:
		fe.binaryOp(op)
	case *niro.Unary:
		fe.unaryOp(op)
	case *niro.Compare:
		fe.compareOp(op)
	case *niro.Cast:
		fe.castOp(op)
	case *niro.Select:
		fe.selectOp(op)
	case *niro.Reduce:
		fe.reduce(op)
	case *niro.Reshape:
		fe.reshape(op)
	case *niro.Broadcast:
		fe.broadcast(op)
	case *niro.Iota:
		fe.iota(op)
	case *niro.Concat:
		fe.concat(op)
	case *niro.Slice:
		fe.slice(op)
	case *niro.DynSlice:
		fe.dynSlice(op)
	case *niro.CumSum:
		fe.cumsum(op)
	case *niro.Pad:
		fe.pad(op)
	case *niro.Gather:
		fe.gather(op)
	case *niro.GatherElements:
		fe.gatherElements(op)
	case *niro.GatherND:
		fe.gatherND(op)
	case *niro.Scatter:
		fe.scatter(op)
	case *niro.ArgReduce:
		fe.argReduce(op)
	case *niro.TopK:
		fe.topk(op)
	case *niro.Recurrent:
		fe.recurrent(op)
	case *niro.MatMul:
		fe.matmul(op)
	case *niro.Conv:
		fe.conv(op)
	case *niro.Pool:
		fe.pool(op)
	case *niro.MaxPoolIndices:
		fe.maxPoolIndices(op)
	case *niro.Call:
		fe.call(op)
	case *niro.Branch:
		fe.branch(op)
	case *niro.CondBranch:
		fe.condBranch(op)
	case *niro.Return:
		fe.ret(op)
	case *niro.Yield:
		fe.yield(op)
	case *niro.If:
		fe.ifOp(op)
	case *niro.Loop:
		fe.loop(op)
	case *niro.UnknownOp:
		fe.unknown(op)
	default:
		panic(fmt.Sprintf("emit: unhandled op %T", op))
	}
}

// scalarType returns the MLIR spelling of an element type. Integers are
// signless: unsigned types share the spelling of their signed width and
// differ only in the operations chosen for them.
func scalarType(s niro.ScalarType) (string, error) {
	switch s {
	case niro.Bool:
		return "i1", nil
	case niro.I8, niro.U8:
		return "i8", nil
	case niro.I16, niro.U16:
		return "i16", nil
	case niro.I32, niro.U32:
		return "i32", nil
	case niro.I64, niro.U64:
		return "i64", nil
	case niro.F16, niro.BF16, niro.F32, niro.F64:
		return s.String(), nil
	}
	if isMini(s) || s == niro.F8E8M0FNU || isPacked(s) {
		return "i8", nil // the bit pattern; see narrow.go
	}
	return "", fmt.Errorf("element type %s has no MLIR lowering", s)
}

// mlirType returns the MLIR spelling of a Niro type.
func mlirType(t niro.Type) (string, error) {
	switch t := t.(type) {
	case niro.ScalarType:
		return scalarType(t)
	case niro.TensorType:
		elem, err := scalarType(t.Elem)
		if err != nil {
			return "", err
		}
		return "tensor<" + shapePrefix(t) + elem + ">", nil
	case nil:
		return "", errors.New("missing type")
	default:
		panic(fmt.Sprintf("emit: unhandled type %T", t))
	}
}

// shapePrefix returns "2x?x" for dims [2, ?], "*x" for an unranked tensor
// and "" for rank zero.
func shapePrefix(t niro.TensorType) string {
	if t.Unranked {
		return "*x"
	}
	var sb strings.Builder
	for _, d := range t.Dims {
		if d < 0 {
			sb.WriteString("?")
		} else {
			sb.WriteString(strconv.FormatInt(d, 10))
		}
		sb.WriteString("x")
	}
	return sb.String()
}

// symbol returns @name, quoted when name is not an MLIR bare identifier.
func symbol(name string) string { return mlirtext.SymbolRef(name) }

// isBareID reports whether s is an MLIR bare-id: (letter|_)(letter|digit|_|$|.)*.
func isBareID(s string) bool { return mlirtext.IsBareID(s) }

// quote returns s as an MLIR string literal: printable ASCII as is, every
// other byte as a two-digit hex escape.
func quote(s string) string { return mlirtext.Quote(s) }
