package niro

// Op is the closed union of operation kinds that may appear in a block.
//
// Values:
//   - [*Const]: literal data as a typed value.
//   - [*GetGlobal]: a module global as a value.
//
// Arithmetic and tensors:
//   - [*Binary], [*Unary], [*Compare], [*Cast], [*Select]: the element-wise
//     families, scalar or broadcasting (elementwise.go).
//   - [*Reduce]: reductions over axes (reduce.go).
//   - [*Reshape], [*Broadcast]: shape changes (shape.go).
//   - [*CumSum]: running sums or products along an axis (cumsum.go).
//   - [*TopK]: the K largest or smallest elements along an axis, with
//     their indices (topk.go).
//   - [*Pad]: padding and cropping (pad.go).
//   - [*DynSlice]: a window whose bounds are known at run time (dynslice.go).
//   - [*Conv]: convolution (conv.go).
//   - [*Pool]: max, average and Lp pooling windows (pool.go).
//   - [*MaxPoolIndices]: the positions of max_pool's maxima (pool.go).
//   - [*MatMul]: matrix product, with broadcasting batch axes.
//   - [*Recurrent]: an LSTM, GRU or simple RNN layer over a sequence
//     (recurrent.go).
//   - [*Transpose]: dimension permutation.
//   - [*TensorExtract]: one element of a ranked tensor.
//
// Calls and control flow:
//   - [*Call]: a call of a module function.
//   - [*Branch], [*CondBranch]: CFG terminators with block arguments.
//   - [*Return]: function exit. [*Yield]: nested region exit.
//   - [*If]: two single-block regions selected by a BOOL.
//   - [*Loop]: a single-block body run repeatedly, with carried values and
//     scan inputs and outputs (loop.go).
//
// Opaque:
//   - [*UnknownOp]: an operation Niro does not model yet.
//
// The unexported methods make the union closed: every op kind must provide
// its printed form and its verification rule, so a new kind that forgets
// either does not compile. Cross-package walks use type switches whose
// default is a single panic, and tests iterate [OpKinds].
//
//sumtype:decl
type Op interface {
	// Operands returns the values the op reads, successor arguments
	// included, in printed order.
	Operands() []Value
	// Results returns the values the op defines.
	Results() []Value
	// Regions returns the regions the op owns.
	Regions() []*Region
	// Successors returns the blocks a terminator may branch to.
	Successors() []*Block
	// Name returns the op's printed mnemonic (for UnknownOp, its name).
	Name() string
	// Location returns the op's provenance, such as an ONNX node name, or "".
	Location() string
	// SetLocation records the op's provenance.
	SetLocation(loc string)

	print(p *printer)
	verify(v *opVerifier)
	isOp()
}

// Loc records where an op came from, such as an ONNX node name. Every op
// embeds it; it prints as loc("...") at the end of the op's line.
type Loc struct {
	Loc string
}

// Location returns the recorded provenance.
func (l Loc) Location() string { return l.Loc }

// SetLocation records the op's provenance.
func (l *Loc) SetLocation(loc string) { l.Loc = loc }

// noRegions and noSuccessors are embedded by ops without regions or
// successors.
type noRegions struct{}

func (noRegions) Regions() []*Region { return nil }

type noSuccessors struct{}

func (noSuccessors) Successors() []*Block { return nil }

// Const introduces literal data as a typed SSA value.
//
// The literal must match the result type: BoolLit for i1, IntLit in range
// for integers, FloatLit for floats, and for a tensor BytesLit holding
// exactly the packed bytes of its static shape.
//
// Example printed form:
//
//	%0 = const 2.0 : f32
//	%1 = const 0x0000803F00000040 : tensor<2xf32>
type Const struct {
	Loc
	noRegions
	noSuccessors
	Result Value
	Lit    Literal
}

// GetGlobal reads a module global as a value. The global's type must equal
// the result type.
//
// Example printed form:
//
//	%0 = get_global @weight : tensor<4x4xf32>
type GetGlobal struct {
	Loc
	noRegions
	noSuccessors
	Result Value
	Global string
}

// Transpose reorders tensor dimensions: result dimension i is operand
// dimension Perm[i].
//
// Example printed form:
//
//	%1 = transpose %0 [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
type Transpose struct {
	Loc
	noRegions
	noSuccessors
	Result Value
	X      Value
	Perm   []int
}

// TensorExtract reads one element of a ranked tensor, with one I32 or I64
// scalar index per axis. The result is the element type.
//
// Example printed form:
//
//	%3 = tensor_extract %0[%1, %2] : (tensor<2x3xf32>, i64, i64) -> f32
type TensorExtract struct {
	Loc
	noRegions
	noSuccessors
	Result  Value
	X       Value
	Indices []Value
}

// MatMul is the matrix product of tensors of rank at least 2:
// [..., M, K] × [..., K, N] → [..., M, N]. The leading (batch) axes
// broadcast as element-wise operands do (aligned at the end, an extent of
// 1 stretches); each result matrix is the product of the operands'
// matrices at its batch index.
//
// Example printed form:
//
//	%2 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
type MatMul struct {
	Loc
	noRegions
	noSuccessors
	Result   Value
	LHS, RHS Value
}

// Call invokes a module function by name.
//
// Example printed form:
//
//	%2, %3 = call @f(%0, %1) : (f32, f32) -> (f32, f32)
type Call struct {
	Loc
	noRegions
	noSuccessors
	Callee string
	Args   []Value
	Res    []Value
}

// Branch transfers control to Target, passing Args to its block arguments.
//
// Example printed form:
//
//	br ^bb3(%1 : i32)
type Branch struct {
	Loc
	noRegions
	Target *Block
	Args   []Value
}

// CondBranch branches to True or False on a scalar BOOL condition.
//
// Example printed form:
//
//	cond_br %0 : i1, ^bb1(%1 : i32), ^bb2
type CondBranch struct {
	Loc
	noRegions
	Cond      Value
	True      *Block
	TrueArgs  []Value
	False     *Block
	FalseArgs []Value
}

// Return terminates a function body, returning its outputs.
//
// Example printed form:
//
//	return %2 : f32
type Return struct {
	Loc
	noRegions
	noSuccessors
	Values []Value
}

// Yield terminates a nested region, passing values to its owning op.
//
// Example printed form:
//
//	yield %1 : f32
type Yield struct {
	Loc
	noRegions
	noSuccessors
	Values []Value
}

// If runs one of two single-block regions on a scalar BOOL condition; the
// taken arm's Yield values become the results.
//
// Example printed form:
//
//	%3 = if %0 : i1 -> (f32) {
//	  yield %1 : f32
//	} else {
//	  yield %2 : f32
//	}
type If struct {
	Loc
	noSuccessors
	Res  []Value
	Cond Value
	Then *Region
	Else *Region
}

// UnknownOp preserves an operation whose semantics Niro does not model. It
// has a complete SSA interface; attributes, regions and successors are kept
// as they are. With successors it terminates its block.
//
// Example printed form (MLIR's generic form):
//
//	%1 = "onnx.LeakyRelu"(%0) {alpha = 0.01} : (tensor<4xf32>) -> tensor<4xf32>
type UnknownOp struct {
	Loc
	OpName  string
	Args    []Value
	Res     []Value
	Attrs   Attrs
	Bodies  []*Region
	Targets []*Block
}

// OpKinds returns one zero-valued sample of every op kind. Tests of every
// generic walker (printer, parser, verifier, emitter) iterate it, so a new
// kind that one of them misses fails a test.
func OpKinds() []Op {
	return []Op{
		&Const{}, &GetGlobal{}, &Transpose{}, &TensorExtract{},
		&Binary{}, &Unary{}, &Compare{}, &Cast{}, &Select{}, &Reduce{}, &Reshape{}, &Broadcast{}, &Iota{},
		&Concat{}, &Slice{}, &DynSlice{}, &CumSum{}, &Pad{},
		&Gather{}, &GatherElements{}, &GatherND{}, &Scatter{}, &ArgReduce{}, &TopK{},
		&Recurrent{},
		&MatMul{}, &Conv{}, &Pool{}, &MaxPoolIndices{}, &Call{}, &Branch{}, &CondBranch{},
		&Return{}, &Yield{}, &If{}, &Loop{}, &UnknownOp{},
	}
}

// Static assertions that every kind implements Op.
var (
	_ Op = (*Const)(nil)
	_ Op = (*GetGlobal)(nil)
	_ Op = (*Transpose)(nil)
	_ Op = (*TensorExtract)(nil)
	_ Op = (*Binary)(nil)
	_ Op = (*Unary)(nil)
	_ Op = (*Compare)(nil)
	_ Op = (*Cast)(nil)
	_ Op = (*Select)(nil)
	_ Op = (*Reduce)(nil)
	_ Op = (*Reshape)(nil)
	_ Op = (*Broadcast)(nil)
	_ Op = (*Iota)(nil)
	_ Op = (*Concat)(nil)
	_ Op = (*Slice)(nil)
	_ Op = (*DynSlice)(nil)
	_ Op = (*CumSum)(nil)
	_ Op = (*Pad)(nil)
	_ Op = (*Gather)(nil)
	_ Op = (*GatherElements)(nil)
	_ Op = (*GatherND)(nil)
	_ Op = (*Scatter)(nil)
	_ Op = (*ArgReduce)(nil)
	_ Op = (*TopK)(nil)
	_ Op = (*Recurrent)(nil)
	_ Op = (*MatMul)(nil)
	_ Op = (*Conv)(nil)
	_ Op = (*Pool)(nil)
	_ Op = (*MaxPoolIndices)(nil)
	_ Op = (*Call)(nil)
	_ Op = (*Branch)(nil)
	_ Op = (*CondBranch)(nil)
	_ Op = (*Return)(nil)
	_ Op = (*Yield)(nil)
	_ Op = (*If)(nil)
	_ Op = (*Loop)(nil)
	_ Op = (*UnknownOp)(nil)
)

func (*Const) isOp()         {}
func (*GetGlobal) isOp()     {}
func (*Transpose) isOp()     {}
func (*TensorExtract) isOp() {}
func (*MatMul) isOp()        {}
func (*Call) isOp()          {}
func (*Branch) isOp()        {}
func (*CondBranch) isOp()    {}
func (*Return) isOp()        {}
func (*Yield) isOp()         {}
func (*If) isOp()            {}
func (*UnknownOp) isOp()     {}

// Names.

func (*Const) Name() string         { return "const" }
func (*GetGlobal) Name() string     { return "get_global" }
func (*Transpose) Name() string     { return "transpose" }
func (*TensorExtract) Name() string { return "tensor_extract" }
func (*MatMul) Name() string        { return "matmul" }
func (*Call) Name() string          { return "call" }
func (*Branch) Name() string        { return "br" }
func (*CondBranch) Name() string    { return "cond_br" }
func (*Return) Name() string        { return "return" }
func (*Yield) Name() string         { return "yield" }
func (*If) Name() string            { return "if" }
func (o *UnknownOp) Name() string   { return o.OpName }

// Operands.

func (o *Const) Operands() []Value         { return nil }
func (o *GetGlobal) Operands() []Value     { return nil }
func (o *Transpose) Operands() []Value     { return []Value{o.X} }
func (o *TensorExtract) Operands() []Value { return append([]Value{o.X}, o.Indices...) }
func (o *MatMul) Operands() []Value        { return []Value{o.LHS, o.RHS} }
func (o *Call) Operands() []Value          { return o.Args }
func (o *Branch) Operands() []Value        { return o.Args }
func (o *CondBranch) Operands() []Value {
	out := append([]Value{o.Cond}, o.TrueArgs...)
	return append(out, o.FalseArgs...)
}
func (o *Return) Operands() []Value    { return o.Values }
func (o *Yield) Operands() []Value     { return o.Values }
func (o *If) Operands() []Value        { return []Value{o.Cond} }
func (o *UnknownOp) Operands() []Value { return o.Args }

// Results.

func (o *Const) Results() []Value         { return []Value{o.Result} }
func (o *GetGlobal) Results() []Value     { return []Value{o.Result} }
func (o *Transpose) Results() []Value     { return []Value{o.Result} }
func (o *TensorExtract) Results() []Value { return []Value{o.Result} }
func (o *MatMul) Results() []Value        { return []Value{o.Result} }
func (o *Call) Results() []Value          { return o.Res }
func (o *Branch) Results() []Value        { return nil }
func (o *CondBranch) Results() []Value    { return nil }
func (o *Return) Results() []Value        { return nil }
func (o *Yield) Results() []Value         { return nil }
func (o *If) Results() []Value            { return o.Res }
func (o *UnknownOp) Results() []Value     { return o.Res }

// Regions and successors of the ops that have them.

func (o *If) Regions() []*Region        { return []*Region{o.Then, o.Else} }
func (o *UnknownOp) Regions() []*Region { return o.Bodies }

func (o *Branch) Successors() []*Block     { return []*Block{o.Target} }
func (o *CondBranch) Successors() []*Block { return []*Block{o.True, o.False} }
func (o *UnknownOp) Successors() []*Block  { return o.Targets }

// IsTerminator reports whether op ends its block: Branch, CondBranch,
// Return, Yield, or an UnknownOp with successors.
func IsTerminator(op Op) bool {
	switch op := op.(type) {
	case *Branch, *CondBranch, *Return, *Yield:
		return true
	case *UnknownOp:
		return len(op.Targets) > 0
	default:
		return false
	}
}
