package emit

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// weightsArg is the SSA name of the weights parameter.
const weightsArg = "%weights"

// function writes f to w: a private declaration without a body; a
// definition otherwise, public for the entry function and private, with
// internal LLVM linkage, for the others. It returns an error writing to w
// (or to the body's spill file); problems with f itself go to the
// emitter's errors.
func (fe *funcEmitter) function(w *bufio.Writer) error {
	f := fe.f
	fe.planLayout()
	fe.planConvEpilogues()
	entry := f.Entry()
	var params, prologue []string
	var unpacks []func()
	switch {
	case f.Body == nil:
		for i, t := range f.Type.Inputs {
			params = append(params, fe.sigType(boundaryType(t), "input", i))
		}
	case entry == nil:
		fe.errorf("body has no entry block")
		return nil
	case len(entry.Args) != len(f.Type.Inputs):
		fe.errorf("entry block has %d arguments for %d inputs", len(entry.Args), len(f.Type.Inputs))
		return nil
	default:
		if fe.e.needsWeights(f) {
			params = append(params, weightsArg+": "+fe.e.weightsType())
		}
		for i, a := range entry.Args {
			t, err := mlirType(boundaryType(a.Type))
			if err != nil {
				fe.badValue[a.ID] = true
				fe.errorf("input %d (%s): %v", i, name(a), err)
				t = "<unsupported>"
			}
			if pt, ok := packedType(a.Type); ok && f == fe.e.entry && err == nil {
				// Packed bytes at the boundary, unpacked at the start.
				bt, err := packedBoundary(pt)
				if err != nil {
					fe.badValue[a.ID] = true
					fe.errorf("input %d (%s): %v", i, name(a), err)
					continue
				}
				p := fe.tmp()
				params = append(params, p+": "+bt)
				unpacks = append(unpacks, func() { fe.unpack(name(a), p, pt) })
				continue
			}
			if isFlattened(a.Type) {
				// The argument's uses read no element: they take a
				// fresh empty tensor of its type.
				p := fe.tmp()
				params = append(params, p+": "+t)
				prologue = append(prologue, name(a)+" = tensor.empty() : "+fe.typ(a))
				continue
			}
			params = append(params, name(a)+": "+t)
		}
	}
	outs := make([]string, len(f.Type.Outputs))
	for i, t := range f.Type.Outputs {
		if pt, ok := packedType(t); ok && f == fe.e.entry && f.Body != nil {
			if _, err := scalarType(pt.Elem); err == nil {
				bt, err := packedBoundary(pt)
				if err != nil {
					fe.errorf("output %d: %v", i, err)
				}
				outs[i] = bt
				continue
			}
		}
		outs[i] = fe.sigType(boundaryType(t), "output", i)
	}
	results := ""
	switch len(outs) {
	case 0:
	case 1:
		results = " -> " + outs[0]
	default:
		results = " -> (" + strings.Join(outs, ", ") + ")"
	}
	if f.Body == nil {
		_, err := fmt.Fprintf(w, "  func.func private %s(%s)%s\n", symbol(f.Name), strings.Join(params, ", "), results)
		return err
	}
	// Only the entry function is exported: the others are private in
	// MLIR and internal in LLVM, so two compiled models never clash on a
	// helper's symbol.
	visibility, attrs := "private ", " attributes {llvm.linkage = #llvm.linkage<internal>}"
	if f == fe.e.entry {
		visibility, attrs = "", ""
	}
	for i, b := range f.Body.Blocks {
		fe.blocks[b] = i
	}
	fe.indent = 2
	for _, l := range prologue {
		fe.line("%s", l)
	}
	for _, u := range unpacks {
		u()
	}
	for i, b := range f.Body.Blocks {
		if b == nil {
			fe.errorf("nil block")
			continue
		}
		if i > 0 {
			fe.label(b, i)
		}
		fe.block(b, regionFunc)
	}
	if len(fe.e.errs) > 0 {
		// The text will be dropped: writing it would only cost time.
		return nil
	}
	fmt.Fprintf(w, "  func.func %s%s(%s)%s%s {\n", visibility, symbol(f.Name), strings.Join(params, ", "), results, attrs)
	for _, n := range fe.constSeq {
		fmt.Fprintf(w, "    %%c%d = arith.constant %d : index\n", n, n)
	}
	if err := fe.body.writeTo(w); err != nil {
		return err
	}
	_, err := w.WriteString("  }\n")
	return err
}

// boundaryType returns the type a value of type t has at a function
// boundary: t itself, except that an empty tensor of static shape and rank
// 2 or more is flattened to tensor<0xE>. MLIR's bare-pointer calling
// convention (convert-func-to-llvm use-bare-ptr-memref-call-conv) converts
// only memrefs with static strides, and the strides of an identity-layout
// memref with a zero extent after the first, as memref<2x0x4xf32>, are not
// static (the zero size folds the outer dimensions' terms out of the
// canonical layout expression), so such a function would stay an
// unconverted func.func. A flattened argument or result holds no element:
// the callee uses a fresh empty tensor of the full type for an argument and
// returns a fresh flat empty tensor for a result, so nothing is ever read
// from or written to the zero-byte buffer.
func boundaryType(t niro.Type) niro.Type {
	if isFlattened(t) {
		return niro.Tensor(t.(niro.TensorType).Elem, 0)
	}
	return t
}

// isFlattened reports whether boundaryType flattens t.
func isFlattened(t niro.Type) bool {
	tt, ok := t.(niro.TensorType)
	return ok && !tt.Unranked && len(tt.Dims) >= 2 && tt.HasStaticShape() && tt.NumElements() == 0
}

// boundaryValues returns the names and types of vs passed across a
// function boundary, writing a flat empty tensor for each flattened one.
func (fe *funcEmitter) boundaryValues(vs []niro.Value) (string, string) {
	ns, ts := make([]string, len(vs)), make([]string, len(vs))
	for i, v := range vs {
		ns[i], ts[i] = name(v), fe.typ(v)
		if isFlattened(v.Type) {
			// A fresh allocation, not tensor.empty: CSE merges equal
			// empties, and two results that are one value crash
			// buffer-results-to-out-params (two zero-size outputs).
			ts[i], _ = mlirType(boundaryType(v.Type))
			ns[i] = fe.tmp()
			fe.line("%s = bufferization.alloc_tensor() : %s", ns[i], ts[i])
		}
	}
	return strings.Join(ns, ", "), strings.Join(ts, ", ")
}

// sigType returns the MLIR type of a signature entry, reporting an
// unsupported one.
func (fe *funcEmitter) sigType(t niro.Type, side string, i int) string {
	s, err := mlirType(t)
	if err != nil {
		fe.errorf("%s %d: %v", side, i, err)
		return "<unsupported>"
	}
	return s
}

// label writes a block label with its arguments.
func (fe *funcEmitter) label(b *niro.Block, i int) {
	args := make([]string, len(b.Args))
	for j, a := range b.Args {
		args[j] = name(a) + ": " + fe.typ(a)
	}
	l := "^bb" + strconv.Itoa(i)
	if len(args) > 0 {
		l += "(" + strings.Join(args, ", ") + ")"
	}
	saved := fe.indent
	fe.indent = 1
	fe.line("%s:", l)
	fe.indent = saved
}

// regionKind says which terminator a region's blocks end with.
type regionKind int

const (
	regionFunc regionKind = iota // a function body: Return and branches
	regionIf                     // an If arm: Yield
)

// block writes the ops of b.
func (fe *funcEmitter) block(b *niro.Block, kind regionKind) {
	if b.Terminator() == nil {
		fe.errorf("block ^bb%d does not end with a terminator", fe.blocks[b])
	}
	for _, op := range b.Ops {
		if op == nil {
			fe.errorf("nil op")
			continue
		}
		switch op.(type) {
		case *niro.Return, *niro.Branch, *niro.CondBranch:
			if kind != regionFunc {
				fe.opErrorf(op, "%s inside an if region", op.Name())
				continue
			}
		case *niro.Yield:
			if kind != regionIf {
				fe.opErrorf(op, "yield outside an if region")
				continue
			}
		}
		fe.op(op)
	}
}

// unknown refuses an op Niro does not model, naming it, its results and
// its location.
func (fe *funcEmitter) unknown(op *niro.UnknownOp) {
	what := "unsupported op " + op.OpName
	if len(op.Res) > 0 {
		what += " defining " + names(op.Res)
	}
	if r, ok := op.Attrs["niro.not_compilable"].(niro.StringAttr); ok {
		what += ": " + string(r)
	}
	fe.opErrorf(op, "%s", what)
}

// call lowers Call to func.call, passing the weights along when the callee
// reads them.
func (fe *funcEmitter) call(op *niro.Call) {
	callee := fe.e.funcs[op.Callee]
	if callee == nil {
		fe.opErrorf(op, "call of undefined function %s", symbol(op.Callee))
		return
	}
	args, types := fe.boundaryValues(op.Args)
	if fe.e.needsWeights(callee) {
		args = joinNonEmpty(weightsArg, args)
		types = joinNonEmpty(fe.e.weightsType(), types)
	}
	lhs := ""
	res := make([]string, len(op.Res))
	resTypes := make([]string, len(op.Res))
	var empties []niro.Value
	for i, r := range op.Res {
		res[i], resTypes[i] = name(r), fe.typ(r)
		if isFlattened(r.Type) {
			res[i] = fe.tmp()
			resTypes[i], _ = mlirType(boundaryType(r.Type))
			empties = append(empties, r)
		}
	}
	if len(op.Res) > 0 {
		lhs = strings.Join(res, ", ") + " = "
	}
	fe.line("%sfunc.call %s(%s) : (%s) -> (%s)", lhs, symbol(op.Callee), args, types, strings.Join(resTypes, ", "))
	for _, r := range empties {
		fe.line("%s = tensor.empty() : %s", name(r), fe.typ(r))
	}
}

func joinNonEmpty(a, b string) string {
	if b == "" {
		return a
	}
	return a + ", " + b
}

// ret lowers Return to func.return.
func (fe *funcEmitter) ret(op *niro.Return) {
	if len(op.Values) == 0 {
		fe.line("func.return")
		return
	}
	ns, ts := fe.boundaryValues(op.Values)
	if fe.f == fe.e.entry {
		// Packed results leave packed (see packed.go).
		nl, tl := strings.Split(ns, ", "), strings.Split(ts, ", ")
		for i, v := range op.Values {
			if pt, ok := packedType(v.Type); ok && pt.HasStaticShape() && !fe.badValue[v.ID] {
				nl[i] = fe.pack(name(v), pt)
				tl[i], _ = packedBoundary(pt)
			}
		}
		ns, ts = strings.Join(nl, ", "), strings.Join(tl, ", ")
	}
	// A tensor returned twice (two outputs that are one value) gets a copy
	// for each later place: each result needs a buffer of its own, and
	// buffer-results-to-out-params fails on one value returned twice.
	nl, tl := strings.Split(ns, ", "), strings.Split(ts, ", ")
	seen := map[string]bool{}
	for i, n := range nl {
		if seen[n] && strings.HasPrefix(tl[i], "tensor<") && !strings.Contains(tl[i], "?") {
			c := fe.tmp()
			fe.line("%s = bufferization.alloc_tensor() copy(%s) : %s", c, n, tl[i])
			nl[i] = c
		}
		seen[n] = true
	}
	fe.line("func.return %s : %s", strings.Join(nl, ", "), strings.Join(tl, ", "))
}

// getGlobal lowers GetGlobal: a scalar global to arith.constant, a tensor
// written in the text to memref.get_global, a large one to a view of the
// weights blob; both tensors reach the body through bufferization.to_tensor
// restrict, so the data is read in place.
func (fe *funcEmitter) getGlobal(op *niro.GetGlobal) {
	res := op.Result
	if fe.e.filters != nil && fe.e.filters.unread[op] {
		return // a convolution filter laid out at compile time (conv_filter.go)
	}
	g := fe.e.globals[op.Global]
	if g == nil {
		fe.opErrorf(op, "get_global %s: no global %s", name(res), symbol(op.Global))
		return
	}
	if !niro.TypesEqual(g.Type, res.Type) {
		fe.opErrorf(op, "get_global %s: global %s has type %s, not %s", name(res), symbol(g.Name), typeName(g.Type), typeName(res.Type))
		return
	}
	t := fe.typ(res)
	switch gt := g.Type.(type) {
	case niro.ScalarType:
		attr, err := scalarAttr(gt, g.Init)
		if err != nil {
			fe.opErrorf(op, "get_global %s: global %s: %v", name(res), symbol(g.Name), err)
			return
		}
		if gt == niro.Bool {
			fe.line("%s = arith.constant %s", name(res), attr)
		} else {
			fe.line("%s = arith.constant %s : %s", name(res), attr, t)
		}
	case niro.TensorType:
		if i, ok := fe.e.blobIndex[g.Name]; ok {
			fe.blobView(name(res), fe.e.blob.Entries[i], gt)
			return
		}
		mt, err := memrefType(gt)
		if err != nil {
			return // reported with the global
		}
		m := fe.tmp()
		fe.line("%s = memref.get_global %s : %s", m, symbol(g.Name), mt)
		fe.line("%s = bufferization.to_tensor %s restrict : %s to %s", name(res), m, mt, t)
	case nil:
	default:
		panic(fmt.Sprintf("emit: unhandled type %T", gt))
	}
}

// blobView writes dst as a read-only tensor over entry's bytes in the
// weights blob.
func (fe *funcEmitter) blobView(dst string, entry BlobEntry, t niro.TensorType) {
	mt, err := memrefType(t)
	if err != nil {
		fe.errorf("%s: %v", dst, err)
		return
	}
	tt, _ := mlirType(t) // memrefType checked the element type
	v := fe.tmp()
	fe.line("%s = memref.view %s[%s][] : %s to %s", v, weightsArg, fe.index(entry.Offset), fe.e.weightsType(), mt)
	fe.line("%s = bufferization.to_tensor %s restrict : %s to %s", dst, v, mt, tt)
}

// memrefType returns memref<dims x elem> for a static tensor type.
func memrefType(t niro.TensorType) (string, error) {
	if !t.HasStaticShape() {
		return "", fmt.Errorf("%s has no static shape", t)
	}
	elem, err := scalarType(t.Elem)
	if err != nil {
		return "", err
	}
	return "memref<" + shapePrefix(t) + elem + ">", nil
}
