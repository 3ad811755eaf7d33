package niro

import "fmt"

// Builder appends ops to a block of a function, handing out fresh value IDs
// and inferring result types where the spec fixes them. It does not check
// ONNX or shape semantics beyond inference; [Verify] re-checks everything.
// It panics only on programmer misuse (a nil block, inference on operands
// that cannot combine), with messages prefixed "niro: BUG:".
type Builder struct {
	f     *Function
	block *Block
	loc   string
}

// NewBuilder returns a builder that appends to block b of function f.
func NewBuilder(f *Function, b *Block) *Builder {
	if f == nil || b == nil {
		panic("niro: BUG: NewBuilder needs a function and a block")
	}
	return &Builder{f: f, block: b}
}

// Builder returns a builder appending to the function's entry block.
func (f *Function) Builder() *Builder {
	if f.Entry() == nil {
		panic(fmt.Sprintf("niro: BUG: function @%s has no body", f.Name))
	}
	return NewBuilder(f, f.Entry())
}

// Function returns the function being built.
func (b *Builder) Function() *Function { return b.f }

// Block returns the block ops are appended to.
func (b *Builder) Block() *Block { return b.block }

// SetBlock moves the insertion point to the end of blk.
func (b *Builder) SetBlock(blk *Block) { b.block = blk }

// SetLoc sets the location recorded on the following ops.
func (b *Builder) SetLoc(loc string) { b.loc = loc }

// NewValue returns a value with a fresh ID in the function.
func (b *Builder) NewValue(t Type) Value { return b.f.NewValue(t) }

func (b *Builder) insert(op Op) {
	if t := b.block.Terminator(); t != nil {
		panic(fmt.Sprintf("niro: BUG: inserting %s after terminator %s", op.Name(), t.Name()))
	}
	op.SetLocation(b.loc)
	b.block.Ops = append(b.block.Ops, op)
}

func must(t Type, err error) Type {
	if err != nil {
		panic("niro: BUG: " + err.Error())
	}
	return t
}

// Const adds a constant of type t.
func (b *Builder) Const(t Type, lit Literal) Value {
	op := &Const{Result: b.NewValue(t), Lit: lit}
	b.insert(op)
	return op.Result
}

// GetGlobal reads global g.
func (b *Builder) GetGlobal(g *Global) Value {
	op := &GetGlobal{Result: b.NewValue(g.Type), Global: g.Name}
	b.insert(op)
	return op.Result
}

// Transpose permutes the dimensions of x.
func (b *Builder) Transpose(x Value, perm ...int) Value {
	t := must(InferTranspose(x.Type, perm))
	op := &Transpose{Result: b.NewValue(t), X: x, Perm: append([]int(nil), perm...)}
	b.insert(op)
	return op.Result
}

// TensorExtract reads one element of x.
func (b *Builder) TensorExtract(x Value, indices ...Value) Value {
	xt, ok := x.Type.(TensorType)
	if !ok {
		panic(fmt.Sprintf("niro: BUG: tensor_extract from %s", typeString(x.Type)))
	}
	op := &TensorExtract{Result: b.NewValue(xt.Elem), X: x, Indices: append([]Value(nil), indices...)}
	b.insert(op)
	return op.Result
}

// Add adds x and y, broadcasting.
func (b *Builder) Add(x, y Value) Value { return b.Binary(Add, x, y) }

// Mul multiplies x and y, broadcasting.
func (b *Builder) Mul(x, y Value) Value { return b.Binary(Mul, x, y) }

// Binary applies k to x and y, broadcasting.
func (b *Builder) Binary(k BinaryKind, x, y Value) Value {
	return b.Insert(&Binary{Kind: k, LHS: x, RHS: y})[0]
}

// Unary applies k to x.
func (b *Builder) Unary(k UnaryKind, x Value) Value {
	return b.Insert(&Unary{Kind: k, X: x})[0]
}

// Compare relates x and y under p, broadcasting.
func (b *Builder) Compare(p Predicate, x, y Value) Value {
	return b.Insert(&Compare{Pred: p, LHS: x, RHS: y})[0]
}

// Cast converts x to element type to.
func (b *Builder) Cast(x Value, to ScalarType) Value {
	return b.Insert(&Cast{To: to, X: x})[0]
}

// Select picks x where cond holds, else y.
func (b *Builder) Select(cond, x, y Value) Value {
	return b.Insert(&Select{Cond: cond, X: x, Y: y})[0]
}

// Insert appends a generic op (any op in the generic text form) whose
// operands and parameters are set, giving it fresh results of the types
// its rule infers, and returns them.
func (b *Builder) Insert(op Op) []Value {
	vs, err := Define(b.f, op, nil)
	if err != nil {
		panic("niro: BUG: " + err.Error())
	}
	b.insert(op)
	return vs
}

// Retype sets the results of a generic op to values with the same IDs and
// the given types, which must refine the types its rule infers.
func Retype(op Op, types []Type) error {
	g, ok := op.(genericOp)
	if !ok {
		return fmt.Errorf("%s has no result-type rule", op.Name())
	}
	want, err := g.inferTypes()
	if err != nil {
		return err
	}
	res := op.Results()
	if len(types) != len(want) || len(res) != len(want) {
		return fmt.Errorf("%s: %d result types for %d results", op.Name(), len(types), len(want))
	}
	vs := make([]Value, len(res))
	for i, t := range types {
		if !TypeRefines(t, want[i]) {
			return fmt.Errorf("%s: result type %s does not refine %s", op.Name(), typeString(t), typeString(want[i]))
		}
		vs[i] = Value{ID: res[i].ID, Type: t}
	}
	g.setResults(vs)
	return nil
}

// Define gives a generic op fresh results in f: the types its rule infers
// for its operands, or, where types is not nil, the given types (which
// must refine the inferred ones). It does not insert the op.
func Define(f *Function, op Op, types []Type) ([]Value, error) {
	g, ok := op.(genericOp)
	if !ok {
		return nil, fmt.Errorf("%s has no result-type rule", op.Name())
	}
	want, err := g.inferTypes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name(), err)
	}
	if types != nil {
		if len(types) != len(want) {
			return nil, fmt.Errorf("%s: %d result types for %d results", op.Name(), len(types), len(want))
		}
		for i, t := range types {
			if !TypeRefines(t, want[i]) {
				return nil, fmt.Errorf("%s: result type %s does not refine %s", op.Name(), typeString(t), typeString(want[i]))
			}
		}
		want = types
	}
	vs := make([]Value, len(want))
	for i, t := range want {
		vs[i] = f.NewValue(t)
	}
	g.setResults(vs)
	return vs, nil
}

// MatMul multiplies x and y (rank at least 2, batch axes broadcast).
func (b *Builder) MatMul(x, y Value) Value {
	op := &MatMul{Result: b.NewValue(must(InferMatMul(x.Type, y.Type))), LHS: x, RHS: y}
	b.insert(op)
	return op.Result
}

// Call calls callee with args; the results take the callee's output types.
func (b *Builder) Call(callee *Function, args ...Value) []Value {
	op := &Call{Callee: callee.Name, Args: append([]Value(nil), args...)}
	for _, t := range callee.Type.Outputs {
		op.Res = append(op.Res, b.NewValue(t))
	}
	b.insert(op)
	return op.Res
}

// NewBlock appends a block with fresh arguments of the given types to the
// region that holds the current block's function body or nested region.
func (b *Builder) NewBlock(argTypes ...Type) *Block {
	r := b.regionOf(b.block)
	if r == nil {
		panic("niro: BUG: the builder's block is not in any region of its function")
	}
	blk := &Block{}
	for _, t := range argTypes {
		blk.Args = append(blk.Args, b.NewValue(t))
	}
	r.Blocks = append(r.Blocks, blk)
	return blk
}

func (b *Builder) regionOf(target *Block) *Region {
	var find func(r *Region) *Region
	find = func(r *Region) *Region {
		if r == nil {
			return nil
		}
		for _, blk := range r.Blocks {
			if blk == target {
				return r
			}
		}
		for _, blk := range r.Blocks {
			for _, op := range blk.Ops {
				for _, sub := range op.Regions() {
					if found := find(sub); found != nil {
						return found
					}
				}
			}
		}
		return nil
	}
	return find(b.f.Body)
}

// Br ends the block with a branch to target.
func (b *Builder) Br(target *Block, args ...Value) {
	b.insert(&Branch{Target: target, Args: append([]Value(nil), args...)})
}

// CondBr ends the block with a conditional branch.
func (b *Builder) CondBr(cond Value, t *Block, targs []Value, f *Block, fargs []Value) {
	b.insert(&CondBranch{Cond: cond, True: t, TrueArgs: targs, False: f, FalseArgs: fargs})
}

// Return ends a function body.
func (b *Builder) Return(vals ...Value) {
	b.insert(&Return{Values: append([]Value(nil), vals...)})
}

// Yield ends a nested region.
func (b *Builder) Yield(vals ...Value) {
	b.insert(&Yield{Values: append([]Value(nil), vals...)})
}

// If adds an If whose arms are built by then and els; each must end its arm
// with Yield.
func (b *Builder) If(cond Value, results []Type, then, els func(*Builder)) []Value {
	op := &If{Cond: cond, Then: &Region{Blocks: []*Block{{}}}, Else: &Region{Blocks: []*Block{{}}}}
	for _, t := range results {
		op.Res = append(op.Res, b.NewValue(t))
	}
	b.insert(op)
	tb := &Builder{f: b.f, block: op.Then.Blocks[0], loc: b.loc}
	then(tb)
	eb := &Builder{f: b.f, block: op.Else.Blocks[0], loc: b.loc}
	els(eb)
	return op.Res
}

// Unknown adds an UnknownOp with fresh results of the given types.
func (b *Builder) Unknown(name string, args []Value, results []Type, attrs Attrs) *UnknownOp {
	op := &UnknownOp{OpName: name, Args: append([]Value(nil), args...), Attrs: attrs}
	for _, t := range results {
		op.Res = append(op.Res, b.NewValue(t))
	}
	b.insert(op)
	return op
}

// AddRegion appends a region to op with an entry block whose arguments
// have the given types, and returns a builder for that block.
func (b *Builder) AddRegion(op *UnknownOp, argTypes ...Type) *Builder {
	blk := &Block{}
	for _, t := range argTypes {
		blk.Args = append(blk.Args, b.NewValue(t))
	}
	op.Bodies = append(op.Bodies, &Region{Blocks: []*Block{blk}})
	return &Builder{f: b.f, block: blk, loc: b.loc}
}

// Loop adds op (its operands and scan attributes set, Res and Body unset)
// with fresh results of the given types and a body block whose arguments
// take the types [Loop.BodyArgTypes] gives, and calls body with a builder
// for that block and its arguments. The body must end in Yield.
func (b *Builder) Loop(op *Loop, results []Type, body func(b *Builder, args []Value)) []Value {
	for _, t := range results {
		op.Res = append(op.Res, b.NewValue(t))
	}
	ts, err := op.BodyArgTypes()
	if err != nil {
		panic("niro: BUG: Loop: " + err.Error())
	}
	blk := &Block{}
	for _, t := range ts {
		blk.Args = append(blk.Args, b.NewValue(t))
	}
	op.Body = &Region{Blocks: []*Block{blk}}
	b.insert(op)
	body(&Builder{f: b.f, block: blk, loc: b.loc}, blk.Args)
	return op.Res
}
