// Package harness generates the run harness that lets mlir-runner execute a
// compiled model on a machine with no C compiler.
//
// After niro's host pipeline a model is an LLVM-dialect function
//
//	llvm.func @NAME([weights,] in0, ..., inN, out0, ..., outM)
//
// taking one !llvm.ptr per buffer (the bare-pointer convention): an optional
// read-only weights blob first, then the inputs in order, then the
// caller-allocated outputs, all row-major and packed. [Generate] writes an
// llvm.func @main, plus the libc declarations it needs, that
//
//   - reads each input from a raw binary file into a 64-byte aligned buffer,
//     checking that the file holds exactly the expected number of bytes;
//   - memory-maps the weights blob read-only when the model has one;
//   - allocates the outputs, calls the model Warmup times, then takes Runs
//     timed samples with clock_gettime(CLOCK_MONOTONIC) from libc
//     (nanoseconds); with MinSampleNs set, one sample spans a batch of calls
//     lasting at least MinSampleNs (sized by doubling untimed batches) and
//     records the time per call;
//   - writes each output's bytes to a raw file, the per-call seconds of each
//     sample, as little-endian f64 values, to a timings file, and the batch
//     size as a little-endian i64 to a batch file.
//
// Any failure prints a message naming the file to stderr and exits with
// status 1. [Splice] inserts the generated text into the lowered model module,
// and [Build] does both after checking the model function's signature; package
// toolchain runs the result under mlir-runner.
package harness

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/internal/mlirtext"
)

// Alignment is the byte alignment of every buffer the harness allocates.
const Alignment = 64

// Buffer is one raw binary file the harness reads or writes: the file's path,
// as the harness will open it, and its exact size in bytes.
type Buffer struct {
	Path  string
	Bytes int64
}

// Spec describes the harness for one model function.
type Spec struct {
	// Func is the symbol name of the lowered model function (without '@').
	Func string
	// Weights is the weights blob, memory-mapped read-only and passed as
	// the first argument; a zero Buffer (empty Path) means the model takes
	// no weights. Bytes must equal the blob file's size.
	Weights Buffer
	// Inputs are read from their files, in argument order.
	Inputs []Buffer
	// Outputs are written to their files after the last run, in argument order.
	Outputs []Buffer
	// Warmup is the number of untimed calls before the timed ones.
	Warmup int
	// Runs is the number of timed calls; at least 1.
	Runs int
	// TimingsPath receives Runs little-endian f64 values, the seconds per
	// call of each timed sample; empty means no timings file.
	TimingsPath string
	// MinSampleNs, when positive, makes each timed sample a batch of calls
	// lasting at least this many nanoseconds: after the warm-up, untimed
	// batches of 1, 2, 4, ... calls run until one lasts that long, and
	// that batch size is used, so that calls much shorter than the clock's
	// overhead are timed as well. Zero times every call on its own.
	MinSampleNs int64
	// BatchPath, when not empty, receives the batch size (calls per
	// sample) as one little-endian i64.
	BatchPath string
}

// maxBatch bounds the calls in one sample.
const maxBatch = 1 << 20

// NumArgs is the number of pointer arguments the model function takes.
func (s *Spec) NumArgs() int {
	n := len(s.Inputs) + len(s.Outputs)
	if s.Weights.Path != "" {
		n++
	}
	return n
}

// libcDecls are the external functions the harness calls, by symbol.
// Each is printed on one line so that Splice can drop the ones the lowered
// module already declares.
var libcDecls = []struct{ name, decl string }{
	{"fopen", "llvm.func @fopen(!llvm.ptr, !llvm.ptr) -> !llvm.ptr"},
	{"fread", "llvm.func @fread(!llvm.ptr, i64, i64, !llvm.ptr) -> i64"},
	{"fwrite", "llvm.func @fwrite(!llvm.ptr, i64, i64, !llvm.ptr) -> i64"},
	{"fclose", "llvm.func @fclose(!llvm.ptr) -> i32"},
	{"fileno", "llvm.func @fileno(!llvm.ptr) -> i32"},
	{"lseek", "llvm.func @lseek(i32, i64, i32) -> i64"},
	{"mmap", "llvm.func @mmap(!llvm.ptr, i64, i32, i32, i32, i64) -> !llvm.ptr"},
	{"munmap", "llvm.func @munmap(!llvm.ptr, i64) -> i32"},
	{"aligned_alloc", "llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr"},
	{"free", "llvm.func @free(!llvm.ptr)"},
	{"write", "llvm.func @write(i32, !llvm.ptr, i64) -> i64"},
	{"perror", "llvm.func @perror(!llvm.ptr)"},
	{"exit", "llvm.func @exit(i32)"},
	{"clock_gettime", "llvm.func @clock_gettime(i32, !llvm.ptr) -> i32"},
}

// symPrefix starts every symbol the harness defines besides main.
const symPrefix = "__niro_harness_"

// Linux values of the constants passed to lseek and mmap (the same on
// x86-64 and AArch64).
const (
	seekEnd        = 2
	clockMonotonic = 1
	protRead       = 1
	mapPrivate     = 2
	stderrFD       = 2
	failureExit    = 1
)

// Validate reports whether s describes a harness Generate can write.
func (s *Spec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.Func == "" {
		bad("no model function name")
	} else if s.Func == "main" || strings.HasPrefix(s.Func, symPrefix) || isLibcName(s.Func) {
		bad("model function name @%s clashes with a harness symbol", s.Func)
	}
	if s.Runs < 1 {
		bad("runs must be at least 1, got %d", s.Runs)
	}
	if s.Warmup < 0 {
		bad("warm-up runs must not be negative, got %d", s.Warmup)
	}
	check := func(what string, b Buffer, minBytes int64) {
		switch {
		case b.Path == "":
			bad("%s has no file path", what)
		case strings.IndexByte(b.Path, 0) >= 0:
			bad("%s path %q contains a NUL byte", what, b.Path)
		}
		if b.Bytes < minBytes {
			bad("%s %s: size %d bytes is out of range", what, b.Path, b.Bytes)
		}
	}
	if s.Weights.Path != "" || s.Weights.Bytes != 0 {
		check("weights", s.Weights, 1)
	}
	for i, b := range s.Inputs {
		check(fmt.Sprintf("input %d", i), b, 0)
	}
	for i, b := range s.Outputs {
		check(fmt.Sprintf("output %d", i), b, 0)
	}
	if len(s.Outputs) == 0 {
		bad("the model has no outputs")
	}
	if strings.IndexByte(s.TimingsPath, 0) >= 0 {
		bad("timings path %q contains a NUL byte", s.TimingsPath)
	}
	if strings.IndexByte(s.BatchPath, 0) >= 0 {
		bad("batch path %q contains a NUL byte", s.BatchPath)
	}
	if s.MinSampleNs < 0 {
		bad("minimum sample time must not be negative, got %d ns", s.MinSampleNs)
	}
	if len(errs) > 0 {
		return fmt.Errorf("harness: %w", errors.Join(errs...))
	}
	return nil
}

func isLibcName(name string) bool {
	for _, d := range libcDecls {
		if d.name == name {
			return true
		}
	}
	return false
}

// Generate returns the harness for s as LLVM-dialect text: a sequence of
// top-level operations (string constants, libc declarations and
// llvm.func @main), not wrapped in a module, to be placed inside the lowered
// model module with [Splice].
func Generate(s Spec) (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	g := &gen{}
	g.main(&s)
	var b strings.Builder
	b.WriteString("// Run harness generated by niro.\n")
	for _, d := range libcDecls {
		b.WriteString(d.decl)
		b.WriteByte('\n')
	}
	for _, str := range g.strs {
		fmt.Fprintf(&b, "llvm.mlir.global internal constant @%s(\"%s\") {addr_space = 0 : i32}\n",
			str.sym, escapeString(str.val+"\x00"))
	}
	b.WriteString(g.body.String())
	return b.String(), nil
}

// gen accumulates the body of @main and the string constants it uses.
type gen struct {
	body   strings.Builder
	strs   []strConst
	strIdx map[string]string
	nextV  int
	nextB  int
	// timespec is the struct timespec clock_gettime fills, allocated once
	// at the top of @main.
	timespec string
}

type strConst struct{ sym, val string }

// str returns the symbol of a NUL-terminated string constant holding v.
func (g *gen) str(v string) string {
	if sym, ok := g.strIdx[v]; ok {
		return sym
	}
	if g.strIdx == nil {
		g.strIdx = map[string]string{}
	}
	sym := symPrefix + "str" + strconv.Itoa(len(g.strs))
	g.strs = append(g.strs, strConst{sym, v})
	g.strIdx[v] = sym
	return sym
}

func (g *gen) emit(format string, args ...any) {
	g.body.WriteString("    ")
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteByte('\n')
}

// val emits "%vN = rhs" and returns "%vN".
func (g *gen) val(format string, args ...any) string {
	v := "%v" + strconv.Itoa(g.nextV)
	g.nextV++
	g.emit("%s = "+format, append([]any{v}, args...)...)
	return v
}

func (g *gen) label(prefix string) string {
	l := "^" + prefix + strconv.Itoa(g.nextB)
	g.nextB++
	return l
}

func (g *gen) block(label string) { fmt.Fprintf(&g.body, "  %s:\n", label) }

func (g *gen) i64(n int64) string { return g.val("llvm.mlir.constant(%d : i64) : i64", n) }
func (g *gen) i32(n int32) string { return g.val("llvm.mlir.constant(%d : i32) : i32", n) }

func (g *gen) addr(sym string) string { return g.val("llvm.mlir.addressof @%s : !llvm.ptr", sym) }

// failIf branches to a block that prints msg to stderr and exits with
// status 1 when cond is true, and continues in a fresh block otherwise.
func (g *gen) failIf(cond, msg string) { g.fail(cond, msg, false) }

// failErrnoIf is failIf for a failed libc call: the message ends with the
// reason errno gives (through perror).
func (g *gen) failErrnoIf(cond, msg string) { g.fail(cond, msg, true) }

func (g *gen) fail(cond, msg string, errno bool) {
	fail, cont := g.label("fail"), g.label("bb")
	g.emit("llvm.cond_br %s, %s, %s", cond, fail, cont)
	g.block(fail)
	if errno {
		p := g.addr(g.str("niro: " + msg))
		g.emit("llvm.call @perror(%s) : (!llvm.ptr) -> ()", p)
	} else {
		text := "niro: " + msg + "\n"
		p := g.addr(g.str(text))
		n := g.i64(int64(len(text)))
		fd := g.i32(stderrFD)
		g.val("llvm.call @write(%s, %s, %s) : (i32, !llvm.ptr, i64) -> i64", fd, p, n)
	}
	code := g.i32(failureExit)
	g.emit("llvm.call @exit(%s) : (i32) -> ()", code)
	g.emit("llvm.unreachable")
	g.block(cont)
}

// alloc returns a 64-byte aligned buffer of at least n bytes (at least one
// alignment unit, so that empty tensors still get a valid pointer).
func (g *gen) alloc(n int64, what string) string {
	size := (n + Alignment - 1) / Alignment * Alignment
	if size == 0 {
		size = Alignment
	}
	al := g.i64(Alignment)
	sz := g.i64(size)
	p := g.val("llvm.call @aligned_alloc(%s, %s) : (i64, i64) -> !llvm.ptr", al, sz)
	null := g.val("llvm.mlir.zero : !llvm.ptr")
	isNull := g.val("llvm.icmp \"eq\" %s, %s : !llvm.ptr", p, null)
	g.failErrnoIf(isNull, fmt.Sprintf("cannot allocate %d bytes for %s", n, what))
	return p
}

// open calls fopen and exits with a message when it fails.
func (g *gen) open(path, mode, msg string) string {
	p := g.addr(g.str(path))
	m := g.addr(g.str(mode))
	f := g.val("llvm.call @fopen(%s, %s) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr", p, m)
	null := g.val("llvm.mlir.zero : !llvm.ptr")
	isNull := g.val("llvm.icmp \"eq\" %s, %s : !llvm.ptr", f, null)
	g.failErrnoIf(isNull, msg)
	return f
}

// readInput reads exactly b.Bytes bytes from b.Path into a new buffer.
func (g *gen) readInput(i int, b Buffer) string {
	what := fmt.Sprintf("input %d (%s)", i, b.Path)
	buf := g.alloc(b.Bytes, what)
	f := g.open(b.Path, "rb", "cannot open input file "+b.Path)
	one := g.i64(1)
	want := g.i64(b.Bytes)
	got := g.val("llvm.call @fread(%s, %s, %s, %s) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64", buf, one, want, f)
	short := g.val("llvm.icmp \"ne\" %s, %s : i64", got, want)
	g.failIf(short, fmt.Sprintf("input file %s is shorter than %d bytes", b.Path, b.Bytes))
	// The file must end here: reading one more byte must get nothing.
	probe := g.val("llvm.alloca %s x i8 : (i64) -> !llvm.ptr", one)
	extra := g.val("llvm.call @fread(%s, %s, %s, %s) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64", probe, one, one, f)
	zero := g.i64(0)
	long := g.val("llvm.icmp \"ne\" %s, %s : i64", extra, zero)
	g.failIf(long, fmt.Sprintf("input file %s is longer than %d bytes", b.Path, b.Bytes))
	g.val("llvm.call @fclose(%s) : (!llvm.ptr) -> i32", f)
	return buf
}

// mapWeights memory-maps the weights blob read-only after checking its size.
func (g *gen) mapWeights(b Buffer) string {
	f := g.open(b.Path, "rb", "cannot open weights file "+b.Path)
	fd := g.val("llvm.call @fileno(%s) : (!llvm.ptr) -> i32", f)
	zero := g.i64(0)
	whence := g.i32(seekEnd)
	size := g.val("llvm.call @lseek(%s, %s, %s) : (i32, i64, i32) -> i64", fd, zero, whence)
	want := g.i64(b.Bytes)
	wrong := g.val("llvm.icmp \"ne\" %s, %s : i64", size, want)
	g.failIf(wrong, fmt.Sprintf("weights file %s does not hold exactly %d bytes", b.Path, b.Bytes))
	null := g.val("llvm.mlir.zero : !llvm.ptr")
	prot := g.i32(protRead)
	flags := g.i32(mapPrivate)
	p := g.val("llvm.call @mmap(%s, %s, %s, %s, %s, %s) : (!llvm.ptr, i64, i32, i32, i32, i64) -> !llvm.ptr",
		null, want, prot, flags, fd, zero)
	minus1 := g.i64(-1)
	failed := g.val("llvm.inttoptr %s : i64 to !llvm.ptr", minus1)
	isFailed := g.val("llvm.icmp \"eq\" %s, %s : !llvm.ptr", p, failed)
	g.failErrnoIf(isFailed, "cannot memory-map weights file "+b.Path)
	g.val("llvm.call @fclose(%s) : (!llvm.ptr) -> i32", f)
	return p
}

// writeFile writes n bytes at buf to path, checking every step.
func (g *gen) writeFile(path string, buf string, n int64, what string) {
	f := g.open(path, "wb", fmt.Sprintf("cannot create %s file %s", what, path))
	one := g.i64(1)
	want := g.i64(n)
	got := g.val("llvm.call @fwrite(%s, %s, %s, %s) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64", buf, one, want, f)
	short := g.val("llvm.icmp \"ne\" %s, %s : i64", got, want)
	g.failErrnoIf(short, fmt.Sprintf("cannot write %s file %s", what, path))
	rc := g.val("llvm.call @fclose(%s) : (!llvm.ptr) -> i32", f)
	zero := g.i32(0)
	bad := g.val("llvm.icmp \"ne\" %s, %s : i32", rc, zero)
	g.failErrnoIf(bad, fmt.Sprintf("cannot write %s file %s", what, path))
}

// callModel emits one call of the model function.
func (g *gen) callModel(fn string, args []string) {
	types := strings.TrimSuffix(strings.Repeat("!llvm.ptr, ", len(args)), ", ")
	g.emit("llvm.call %s(%s) : (%s) -> ()", symbolRef(fn), strings.Join(args, ", "), types)
}

// loop emits a counted loop running body n times.
func (g *gen) loop(n int, body func(i string)) {
	if n == 0 {
		return
	}
	g.loopN(g.i64(int64(n)), body)
}

// loopN emits a loop running body limit times, limit an i64 value.
func (g *gen) loopN(limit string, body func(i string)) {
	head, bodyL, done := g.label("loop"), g.label("body"), g.label("done")
	start := g.i64(0)
	g.emit("llvm.br %s(%s : i64)", head, start)
	i := "%v" + strconv.Itoa(g.nextV)
	g.nextV++
	fmt.Fprintf(&g.body, "  %s(%s: i64):\n", head, i)
	more := g.val("llvm.icmp \"slt\" %s, %s : i64", i, limit)
	g.emit("llvm.cond_br %s, %s, %s", more, bodyL, done)
	g.block(bodyL)
	body(i)
	one := g.i64(1)
	next := g.val("llvm.add %s, %s : i64", i, one)
	g.emit("llvm.br %s(%s : i64)", head, next)
	g.block(done)
}

func (g *gen) main(s *Spec) {
	g.body.WriteString("llvm.func @main() {\n")
	g.timespec = g.val("llvm.alloca %s x !llvm.array<2 x i64> : (i64) -> !llvm.ptr", g.i64(1))
	var args []string
	var weights string
	if s.Weights.Path != "" {
		weights = g.mapWeights(s.Weights)
		args = append(args, weights)
	}
	var ins, outs []string
	for i, b := range s.Inputs {
		ins = append(ins, g.readInput(i, b))
	}
	for i, b := range s.Outputs {
		outs = append(outs, g.alloc(b.Bytes, fmt.Sprintf("output %d (%s)", i, b.Path)))
	}
	args = append(args, ins...)
	args = append(args, outs...)

	g.loop(s.Warmup, func(string) { g.callModel(s.Func, args) })
	batch := g.i64(1)
	if s.MinSampleNs > 0 {
		batch = g.calibrate(s.Func, args, s.MinSampleNs)
	}
	batchF := g.val("llvm.sitofp %s : i64 to f64", batch)
	nsPerS := g.val("llvm.mlir.constant(1.000000e+09 : f64) : f64")

	timingBytes := int64(s.Runs) * 8
	times := g.alloc(timingBytes, "the timings")
	g.loop(s.Runs, func(i string) {
		t0 := g.now()
		if s.MinSampleNs > 0 {
			g.loopN(batch, func(string) { g.callModel(s.Func, args) })
		} else {
			g.callModel(s.Func, args)
		}
		t1 := g.now()
		d := g.val("llvm.sub %s, %s : i64", t1, t0)
		df := g.val("llvm.sitofp %s : i64 to f64", d)
		df = g.val("llvm.fdiv %s, %s : f64", df, batchF)
		df = g.val("llvm.fdiv %s, %s : f64", df, nsPerS)
		slot := g.val("llvm.getelementptr %s[%s] : (!llvm.ptr, i64) -> !llvm.ptr, f64", times, i)
		g.emit("llvm.store %s, %s : f64, !llvm.ptr", df, slot)
	})

	for i, b := range s.Outputs {
		g.writeFile(b.Path, outs[i], b.Bytes, "output")
	}
	if s.TimingsPath != "" {
		g.writeFile(s.TimingsPath, times, timingBytes, "timings")
	}
	if s.BatchPath != "" {
		one := g.i64(1)
		slot := g.val("llvm.alloca %s x i64 : (i64) -> !llvm.ptr", one)
		g.emit("llvm.store %s, %s : i64, !llvm.ptr", batch, slot)
		g.writeFile(s.BatchPath, slot, 8, "batch")
	}
	for _, p := range append(append(ins, outs...), times) {
		g.emit("llvm.call @free(%s) : (!llvm.ptr) -> ()", p)
	}
	if weights != "" {
		n := g.i64(s.Weights.Bytes)
		g.val("llvm.call @munmap(%s, %s) : (!llvm.ptr, i64) -> i32", weights, n)
	}
	g.emit("llvm.return")
	g.body.WriteString("}\n")
}

// calibrate emits untimed batches of 1, 2, 4, ... calls until one lasts at
// least minNs nanoseconds (or holds maxBatch calls) and returns that batch
// size, an i64 value.
func (g *gen) calibrate(fn string, args []string, minNs int64) string {
	head, exit := g.label("calib"), g.label("calibrated")
	start := g.i64(1)
	g.emit("llvm.br %s(%s : i64)", head, start)
	b := "%v" + strconv.Itoa(g.nextV)
	g.nextV++
	fmt.Fprintf(&g.body, "  %s(%s: i64):\n", head, b)
	t0 := g.now()
	g.loopN(b, func(string) { g.callModel(fn, args) })
	t1 := g.now()
	d := g.val("llvm.sub %s, %s : i64", t1, t0)
	long := g.val("llvm.icmp \"sge\" %s, %s : i64", d, g.i64(minNs))
	full := g.val("llvm.icmp \"sge\" %s, %s : i64", b, g.i64(maxBatch))
	stop := g.val("llvm.or %s, %s : i1", long, full)
	two := g.i64(2)
	next := g.val("llvm.mul %s, %s : i64", b, two)
	g.emit("llvm.cond_br %s, %s(%s : i64), %s(%s : i64)", stop, exit, b, head, next)
	out := "%v" + strconv.Itoa(g.nextV)
	g.nextV++
	fmt.Fprintf(&g.body, "  %s(%s: i64):\n", exit, out)
	return out
}

// now returns clock_gettime(CLOCK_MONOTONIC) in nanoseconds as an i64
// value, exiting with a message when the clock fails.
func (g *gen) now() string {
	ts := g.timespec
	clk := g.i32(clockMonotonic)
	rc := g.val("llvm.call @clock_gettime(%s, %s) : (i32, !llvm.ptr) -> i32", clk, ts)
	zero := g.i32(0)
	bad := g.val("llvm.icmp \"ne\" %s, %s : i32", rc, zero)
	g.failErrnoIf(bad, "clock_gettime(CLOCK_MONOTONIC) failed")
	sec := g.val("llvm.load %s : !llvm.ptr -> i64", ts)
	nsecP := g.val("llvm.getelementptr %s[1] : (!llvm.ptr) -> !llvm.ptr, i64", ts)
	nsec := g.val("llvm.load %s : !llvm.ptr -> i64", nsecP)
	billion := g.i64(1_000_000_000)
	ns := g.val("llvm.mul %s, %s : i64", sec, billion)
	return g.val("llvm.add %s, %s : i64", ns, nsec)
}

// escapeString writes s as the body of an MLIR string literal: printable
// ASCII stays, everything else (and '"', '\\') becomes a \XX hex escape.
func escapeString(s string) string { return mlirtext.Escape(s) }

// symbolRef spells a symbol reference, quoting names that are not MLIR
// bare identifiers.
func symbolRef(name string) string { return mlirtext.SymbolRef(name) }
