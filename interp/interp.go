// Package interp evaluates a verified Niro module in Go, op by op, with
// niro's documented semantics (docs/ops.md): in-order sums for reductions
// and contractions, every multiply and add rounded separately (never a
// fused multiply-add), f16 and bf16 computed in f32 and rounded once,
// integer division and modulo signs, NaN propagation, and Cast's
// rounding. exp, log, tanh and erf on f32 (and the 16-bit floats) run the
// same polynomials the emitter writes (emit.EvalMathPoly, one Go
// definition shared with the MLIR emitter), so they match compiled code
// bit for bit.
//
// Values are flat, row-major typed slices: float32 for f16, bf16 and f32
// (the 16-bit types hold exactly representable values), float64 for f64
// and int64 for the integer types and bool (signed types sign-extended,
// unsigned ones zero-extended, u64 by its bit pattern). Model inputs,
// constants and globals are decoded from the packed little-endian bytes
// of [tensorio.Tensor] once, and outputs encoded back.
//
// An op the interpreter does not evaluate (an UnknownOp, an element type
// outside the emitter's set) is refused with an error naming the node,
// by [Check] before anything runs.
package interp

import (
	"errors"
	"fmt"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// Options configure an evaluation.
type Options struct {
	// Math selects how exp, log, tanh and erf are computed on f32 (and
	// f16 and bf16): emit.MathPoly (the default, "") is niro's
	// polynomials, bit-identical to the compiled code; emit.MathLibm is
	// Go's float64 math rounded to f32 (libm's results may differ by an
	// ulp).
	Math string
}

// Error is an evaluation error naming the op it happened at.
type Error struct {
	Func string // the function being evaluated
	Op   string // the op's mnemonic
	Loc  string // the op's location (ONNX node name), or ""
	Err  error
}

func (e *Error) Error() string {
	where := e.Op
	if e.Loc != "" {
		where = fmt.Sprintf("%s (node %q)", e.Op, e.Loc)
	}
	return fmt.Sprintf("interp: @%s: %s: %v", e.Func, where, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrUnsupported marks an op or type the interpreter does not evaluate.
var ErrUnsupported = errors.New("not supported by the interpreter")

// Run evaluates the module's entry function on inputs (in entry order) and
// returns its outputs as packed tensors.
func Run(m *niro.Module, inputs []tensorio.Tensor, opts Options) ([]tensorio.Tensor, error) {
	f := m.Entry()
	if f == nil || f.Body == nil {
		return nil, fmt.Errorf("interp: the module has no entry function")
	}
	if err := Check(m); err != nil {
		return nil, err
	}
	if len(inputs) != len(f.Type.Inputs) {
		return nil, fmt.Errorf("interp: @%s takes %d inputs, got %d", f.Name, len(f.Type.Inputs), len(inputs))
	}
	args := make([]*tensor, len(inputs))
	for i, in := range inputs {
		if err := in.Check(); err != nil {
			return nil, fmt.Errorf("interp: input %d: %w", i, err)
		}
		want := f.Type.Inputs[i]
		t, err := decode(in.Elem, in.Dims, in.Data)
		if err != nil {
			return nil, fmt.Errorf("interp: input %d: %w", i, err)
		}
		switch w := want.(type) {
		case niro.ScalarType:
			if in.Elem != w || len(in.Dims) != 0 {
				return nil, fmt.Errorf("interp: input %d: got %s, @%s takes %s", i, in.Type(), f.Name, w)
			}
			t.scalar = true
		case niro.TensorType:
			if !niro.TypeRefines(in.Type(), w) {
				return nil, fmt.Errorf("interp: input %d: got %s, @%s takes %s", i, in.Type(), f.Name, w)
			}
		}
		args[i] = t
	}
	in := &machine{m: m, opts: opts, globals: map[string]*tensor{}}
	outs, err := in.call(f, args, 0)
	if err != nil {
		return nil, err
	}
	res := make([]tensorio.Tensor, len(outs))
	for i, o := range outs {
		res[i] = o.encode()
		if i < len(f.OutputNames) && f.OutputNames[i] != nil {
			res[i].Name = *f.OutputNames[i]
		}
	}
	return res, nil
}

// Check reports the first op of m the interpreter does not evaluate,
// naming its node, or nil when it evaluates every op.
func Check(m *niro.Module) error {
	for _, f := range m.Functions {
		if f.Body == nil {
			continue
		}
		var err error
		f.Body.Walk(func(op niro.Op) bool {
			if e := supported(op); e != nil {
				err = &Error{Func: f.Name, Op: op.Name(), Loc: op.Location(), Err: e}
				return false
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// handled reports whether the interpreter evaluates op's kind. An op kind
// added to niro after the interpreter is refused by name until it is
// covered here and in compute.
func handled(op niro.Op) bool {
	switch op.(type) {
	case *niro.Const, *niro.GetGlobal, *niro.Transpose, *niro.TensorExtract,
		*niro.Binary, *niro.Unary, *niro.Compare, *niro.Cast, *niro.Select, *niro.Reduce,
		*niro.Reshape, *niro.Broadcast, *niro.Iota, *niro.Concat, *niro.Slice, *niro.DynSlice, *niro.CumSum,
		*niro.Pad, *niro.Gather, *niro.GatherElements, *niro.GatherND, *niro.Scatter,
		*niro.ArgReduce, *niro.TopK, *niro.MatMul, *niro.Conv, *niro.Pool, *niro.MaxPoolIndices, *niro.Recurrent,
		*niro.Call, *niro.Branch, *niro.CondBranch, *niro.Return, *niro.Yield, *niro.If, *niro.Loop:
		return true
	}
	return false
}

// supported reports why op cannot be evaluated, or nil.
func supported(op niro.Op) error {
	if _, ok := op.(*niro.UnknownOp); !ok && !handled(op) {
		return fmt.Errorf("%w: op %s", ErrUnsupported, op.Name())
	}
	if u, ok := op.(*niro.UnknownOp); ok {
		why := "an op niro does not model"
		if r, ok := u.Attrs["niro.not_compilable"].(niro.StringAttr); ok {
			why = string(r)
		}
		return fmt.Errorf("%w: %s", ErrUnsupported, why)
	}
	for _, vs := range [][]niro.Value{op.Operands(), op.Results()} {
		for _, v := range vs {
			if v.Type == nil {
				continue
			}
			if e := niro.ElemOf(v.Type); niro.ClassOf(e) == 0 && !(niro.IsCastOnly(e) && movesCastOnly(op)) {
				return fmt.Errorf("%w: element type %s of %s", ErrUnsupported, e, v)
			}
			if t, ok := v.Type.(niro.TensorType); ok && t.Unranked {
				return fmt.Errorf("%w: unranked tensor %s", ErrUnsupported, v)
			}
		}
	}
	return nil
}

// maxDepth bounds call nesting.
const maxDepth = 256

type machine struct {
	m       *niro.Module
	opts    Options
	globals map[string]*tensor
}

// frame holds one function activation's values, by ID.
type frame struct {
	f    *niro.Function
	vals map[niro.ValueID]*tensor
}

func (fr *frame) get(v niro.Value) *tensor { return fr.vals[v.ID] }

func (fr *frame) set(v niro.Value, t *tensor) {
	if _, ok := v.Type.(niro.ScalarType); ok {
		t.scalar = true
	}
	fr.vals[v.ID] = t
}

// call evaluates f on args.
func (in *machine) call(f *niro.Function, args []*tensor, depth int) ([]*tensor, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("interp: @%s: calls nest deeper than %d", f.Name, maxDepth)
	}
	if f.Body == nil {
		return nil, fmt.Errorf("interp: @%s is declared without a body", f.Name)
	}
	fr := &frame{f: f, vals: map[niro.ValueID]*tensor{}}
	outs, err := in.region(fr, f.Body, args, depth)
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// region runs a region from its entry block with args bound to the entry
// block's arguments, following branches, until a Return or Yield, whose
// values it returns.
func (in *machine) region(fr *frame, r *niro.Region, args []*tensor, depth int) ([]*tensor, error) {
	if len(r.Blocks) == 0 {
		return nil, fmt.Errorf("interp: @%s: empty region", fr.f.Name)
	}
	b := r.Blocks[0]
	for {
		if len(args) != len(b.Args) {
			return nil, fmt.Errorf("interp: @%s: a block of %d arguments entered with %d", fr.f.Name, len(b.Args), len(args))
		}
		for i, a := range b.Args {
			fr.set(a, args[i])
		}
		var next *niro.Block
		var nextArgs []*tensor
		done := false
		var outs []*tensor
		for _, op := range b.Ops {
			var err error
			switch op := op.(type) {
			case *niro.Return:
				outs, done = fr.list(op.Values), true
			case *niro.Yield:
				outs, done = fr.list(op.Values), true
			case *niro.Branch:
				next, nextArgs = op.Target, fr.list(op.Args)
			case *niro.CondBranch:
				if fr.get(op.Cond).ints[0] != 0 {
					next, nextArgs = op.True, fr.list(op.TrueArgs)
				} else {
					next, nextArgs = op.False, fr.list(op.FalseArgs)
				}
			case *niro.If:
				arm := op.Else
				if fr.get(op.Cond).ints[0] != 0 {
					arm = op.Then
				}
				var res []*tensor
				if res, err = in.region(fr, arm, nil, depth); err == nil {
					if len(res) != len(op.Res) {
						err = fmt.Errorf("the arm yields %d values for %d results", len(res), len(op.Res))
					}
					for i, v := range op.Res {
						if err == nil {
							fr.set(v, res[i])
						}
					}
				}
			case *niro.Loop:
				var res []*tensor
				if res, err = in.loop(fr, op, depth); err == nil {
					for i, v := range op.Res {
						fr.set(v, res[i])
					}
				}
			case *niro.Call:
				_, callee := in.m.Lookup(op.Callee)
				if callee == nil {
					err = fmt.Errorf("no function @%s", op.Callee)
					break
				}
				var res []*tensor
				if res, err = in.call(callee, fr.list(op.Args), depth+1); err == nil {
					for i, v := range op.Res {
						fr.set(v, res[i])
					}
				}
			default:
				err = in.eval(fr, op)
			}
			if err != nil {
				var ie *Error
				if errors.As(err, &ie) {
					return nil, err
				}
				return nil, &Error{Func: fr.f.Name, Op: op.Name(), Loc: op.Location(), Err: err}
			}
			if done || next != nil {
				break
			}
		}
		if done {
			return outs, nil
		}
		if next == nil {
			return nil, fmt.Errorf("interp: @%s: a block ends without a terminator", fr.f.Name)
		}
		b, args = next, nextArgs
	}
}

func (fr *frame) list(vs []niro.Value) []*tensor {
	out := make([]*tensor, len(vs))
	for i, v := range vs {
		out[i] = fr.get(v)
	}
	return out
}

// eval evaluates one op without regions or successors and binds its
// results.
func (in *machine) eval(fr *frame, op niro.Op) error {
	ins := fr.list(op.Operands())
	for i, t := range ins {
		if t == nil {
			return fmt.Errorf("operand #%d is not defined", i)
		}
	}
	var outs []*tensor
	var err error
	switch op := op.(type) {
	case *niro.Const:
		var t *tensor
		t, err = literal(op.Result.Type, op.Lit)
		outs = []*tensor{t}
	case *niro.GetGlobal:
		var t *tensor
		t, err = in.global(op.Global)
		outs = []*tensor{t}
	default:
		var rdims [][]int64
		if rdims, err = resultDims(op, ins); err != nil {
			return err
		}
		outs, err = compute(op, ins, rdims, in.opts)
	}
	if err != nil {
		return err
	}
	res := op.Results()
	if len(outs) != len(res) {
		return fmt.Errorf("evaluated %d results for %d", len(outs), len(res))
	}
	for i, v := range res {
		fr.set(v, outs[i])
	}
	return nil
}

// global decodes a module global once.
func (in *machine) global(name string) (*tensor, error) {
	if t, ok := in.globals[name]; ok {
		return t, nil
	}
	g, _ := in.m.Lookup(name)
	if g == nil {
		return nil, fmt.Errorf("no global @%s", name)
	}
	t, err := literal(g.Type, g.Init)
	if err != nil {
		return nil, fmt.Errorf("global @%s: %w", name, err)
	}
	in.globals[name] = t
	return t, nil
}

// literal decodes a Const literal or a global initializer of type typ.
func literal(typ niro.Type, lit niro.Literal) (*tensor, error) {
	switch t := typ.(type) {
	case niro.ScalarType:
		out := newTensor(t, nil)
		out.scalar = true
		if _, ok := lit.(niro.BytesLit); !ok && storeOf(t) == sInt && t.IsFloat() {
			// The cast-only floats are held as codes; their literal is
			// the code's bytes.
			return nil, fmt.Errorf("%w: %s literal %v (not its code's bytes)", ErrUnsupported, t, lit)
		}
		switch l := lit.(type) {
		case niro.BoolLit:
			if l {
				out.ints[0] = 1
			}
		case niro.IntLit:
			if t.IsFloat() {
				out.setFloat(0, float64(l))
			} else {
				out.ints[0] = wrap(t, int64(l))
			}
		case niro.FloatLit:
			if !t.IsFloat() {
				return nil, fmt.Errorf("float literal for %s", t)
			}
			out.setFloat(0, float64(l))
		case niro.BytesLit:
			return decodeScalar(t, l)
		default:
			return nil, fmt.Errorf("literal %T for %s", lit, t)
		}
		return out, nil
	case niro.TensorType:
		b, ok := lit.(niro.BytesLit)
		if !ok {
			return nil, fmt.Errorf("tensor literal must be bytes, is %T", lit)
		}
		if !t.HasStaticShape() {
			return nil, fmt.Errorf("tensor literal of dynamic type %s", t)
		}
		return decode(t.Elem, t.Dims, b)
	}
	return nil, fmt.Errorf("literal of type %v", typ)
}

func decodeScalar(t niro.ScalarType, b []byte) (*tensor, error) {
	out, err := decode(t, nil, b)
	if err != nil {
		return nil, err
	}
	out.scalar = true
	return out, nil
}

// resultDims returns the runtime shapes of op's results: the static
// result types, or for a dynamic one the type rule applied to the
// operands' runtime shapes.
func resultDims(op niro.Op, ins []*tensor) ([][]int64, error) {
	res := op.Results()
	out := make([][]int64, len(res))
	dynamic := false
	for i, r := range res {
		if r.Type == nil {
			// An op not yet given results (the importer folds before it
			// defines them): the type rule gives them.
			ts, err := niro.InferResults(op)
			if err != nil {
				return nil, err
			}
			res = make([]niro.Value, len(ts))
			for j, t := range ts {
				res[j] = niro.Value{Type: t}
			}
			return resultDims(&typed{op, res}, ins)
		}
		switch t := r.Type.(type) {
		case niro.ScalarType:
		case niro.TensorType:
			if t.HasStaticShape() {
				out[i] = t.Dims
			} else {
				dynamic = true
			}
		}
	}
	if !dynamic {
		return out, nil
	}
	if ds, ok := op.(*niro.DynSlice); ok {
		_, dims, err := dynSliceBounds(ds, ins[0], ins[1], ins[2])
		if err != nil {
			return nil, err
		}
		out[0] = dims
		return out, nil
	}
	if rs, ok := op.(*niro.Reshape); ok {
		n := ins[0].n()
		dims := append([]int64(nil), rs.Shape...)
		known, dyn := int64(1), -1
		for i, d := range dims {
			if d < 0 {
				if dyn >= 0 {
					return nil, fmt.Errorf("reshape to %v: more than one dynamic extent", rs.Shape)
				}
				dyn = i
			} else {
				known *= d
			}
		}
		if dyn >= 0 {
			if known == 0 || int64(n)%known != 0 {
				return nil, fmt.Errorf("reshape of %d elements to %v", n, rs.Shape)
			}
			dims[dyn] = int64(n) / known
		}
		out[0] = dims
		return out, nil
	}
	// Retype the operands to their runtime shapes and apply the op's rule.
	opnds := op.Operands()
	for i, v := range opnds {
		if _, ok := v.Type.(niro.TensorType); ok {
			rt := niro.Tensor(ins[i].elem, ins[i].dims...)
			niro.SetOperand(op, i, niro.Value{ID: v.ID, Type: rt})
		}
	}
	types, err := niro.InferResults(op)
	for i, v := range opnds {
		niro.SetOperand(op, i, v)
	}
	if err != nil {
		return nil, err
	}
	for i, t := range types {
		if tt, ok := t.(niro.TensorType); ok && out[i] == nil {
			if !tt.HasStaticShape() {
				return nil, fmt.Errorf("%w: result %s has dynamic shape %s", ErrUnsupported, res[i], tt)
			}
			out[i] = tt.Dims
		}
	}
	return out, nil
}

// compute evaluates a pure op.
func compute(op niro.Op, ins []*tensor, rd [][]int64, opts Options) ([]*tensor, error) {
	one := func(t *tensor, err error) ([]*tensor, error) {
		if err != nil {
			return nil, err
		}
		return []*tensor{t}, nil
	}
	switch op := op.(type) {
	case *niro.Binary:
		return one(binaryOp(op.Kind, ins[0], ins[1], rd[0]))
	case *niro.Unary:
		return one(unary(op.Kind, ins[0], opts))
	case *niro.Compare:
		return one(compare(op.Pred, ins[0], ins[1], rd[0]))
	case *niro.Cast:
		if op.Bitcast {
			return one(bitcast(ins[0], op.To))
		}
		return one(castOp(ins[0], op.To, op.NoSaturate), nil)
	case *niro.Select:
		return one(selectOp(ins[0], ins[1], ins[2], rd[0]))
	case *niro.Reduce:
		return one(reduce(op, ins[0], rd[0]))
	case *niro.Reshape:
		return one(ins[0].reshaped(rd[0]), nil)
	case *niro.Broadcast:
		return one(broadcastTo(ins[0], rd[0]), nil)
	case *niro.Iota:
		return one(iotaOp(op.Type.Elem, rd[0], op.Axis), nil)
	case *niro.Transpose:
		return one(transpose(ins[0], op.Perm, rd[0]), nil)
	case *niro.TensorExtract:
		return one(tensorExtract(ins[0], ins[1:]))
	case *niro.Concat:
		return one(concat(ins, op.Axis, rd[0]), nil)
	case *niro.Slice:
		return one(slice(ins[0], op.Starts, op.Steps, rd[0]), nil)
	case *niro.DynSlice:
		return one(dynSliceOp(op, ins[0], ins[1], ins[2]))
	case *niro.CumSum:
		return one(cumsum(op, ins[0]), nil)
	case *niro.Pad:
		return one(pad(op, ins[0], ins[1], rd[0]), nil)
	case *niro.Gather:
		return one(gather(ins[0], ins[1], op.Axis, rd[0]), nil)
	case *niro.GatherElements:
		return one(gatherElements(ins[0], ins[1], op.Axis), nil)
	case *niro.GatherND:
		return one(gatherND(ins[0], ins[1], op.BatchDims, rd[0]), nil)
	case *niro.Scatter:
		return one(scatter(op, ins[0], ins[1], ins[2]))
	case *niro.ArgReduce:
		return one(argReduce(op, ins[0], rd[0]), nil)
	case *niro.TopK:
		v, i := topk(op, ins[0], rd[0])
		return []*tensor{v, i}, nil
	case *niro.MatMul:
		return one(matmul(ins[0], ins[1], rd[0]))
	case *niro.Conv:
		var b *tensor
		if op.HasBias() {
			b = ins[2]
		}
		return one(conv(op, ins[0], ins[1], b, rd[0]), nil)
	case *niro.Pool:
		return one(pool(op, ins[0], rd[0]), nil)
	case *niro.MaxPoolIndices:
		return one(maxPoolIndices(op, ins[0], rd[0]), nil)
	case *niro.Recurrent:
		return recurrent(op, ins, opts)
	}
	return nil, fmt.Errorf("%w: op kind %T", ErrUnsupported, op)
}

// polyOrLibm computes the f32 function k on x: niro's polynomial, or Go's
// float64 math rounded to f32.
func polyOrLibm(k niro.UnaryKind, x float32, opts Options) float32 {
	if opts.Math != emit.MathLibm {
		if y, ok := emit.EvalMathPoly(k, x); ok {
			return y
		}
	}
	return float32(math64(k, float64(x)))
}

// EvalOp evaluates one pure op (no regions, successors, calls or globals)
// on operand values given as packed tensors (a scalar operand as a rank-0
// tensor) and returns its results the same way. Constant folding uses it.
func EvalOp(op niro.Op, operands []tensorio.Tensor, opts Options) ([]tensorio.Tensor, error) {
	if err := supported(op); err != nil {
		return nil, err
	}
	switch op.(type) {
	case *niro.Const, *niro.GetGlobal, *niro.Call, *niro.If, *niro.Loop, *niro.Branch, *niro.CondBranch, *niro.Return, *niro.Yield, *niro.UnknownOp:
		return nil, fmt.Errorf("%w: %s is not a pure op", ErrUnsupported, op.Name())
	}
	vals := op.Operands()
	if len(operands) != len(vals) {
		return nil, fmt.Errorf("%s takes %d operands, got %d", op.Name(), len(vals), len(operands))
	}
	ins := make([]*tensor, len(operands))
	for i, o := range operands {
		t, err := decode(o.Elem, o.Dims, o.Data)
		if err != nil {
			return nil, err
		}
		_, t.scalar = vals[i].Type.(niro.ScalarType)
		ins[i] = t
	}
	rd, err := resultDims(op, ins)
	if err != nil {
		return nil, err
	}
	outs, err := compute(op, ins, rd, opts)
	if err != nil {
		return nil, err
	}
	res := make([]tensorio.Tensor, len(outs))
	for i, o := range outs {
		res[i] = o.encode()
	}
	return res, nil
}

// typed is an op seen with the given result values (for resultDims).
type typed struct {
	niro.Op
	res []niro.Value
}

func (t *typed) Results() []niro.Value { return t.res }
