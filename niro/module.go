package niro

// Module owns globals and functions, which share one symbol namespace.
type Module struct {
	Globals   []*Global
	Functions []*Function
	// Attrs holds module metadata. The attribute "entry" (a StringAttr)
	// names the entry function of a compiled model.
	Attrs Attrs
}

// Global is an immutable, initialized module value. A tensor global's
// initializer is a BytesLit holding exactly the packed bytes of its static
// shape; a scalar global's initializer follows the rules of Const.
type Global struct {
	Name string
	Type Type
	Init Literal
}

// Function is a named function with a signature and an optional body. A
// function without a body is declared here and implemented elsewhere.
type Function struct {
	Name string
	Type FunctionType
	// Body is nil for a declaration. Its entry block's arguments are the
	// function's inputs.
	Body *Region
	// InputNames and OutputNames optionally name the public interface. A
	// present slice has one entry per input (output); a nil entry is an
	// unnamed item.
	InputNames  []*string
	OutputNames []*string
	Attrs       Attrs

	nextID ValueID
}

// Region owns blocks. The first block is the entry.
type Region struct {
	Blocks []*Block
}

// Block holds arguments followed by an ordered list of operations, the last
// of which is its terminator.
type Block struct {
	Args []Value
	Ops  []Op
}

// NewModule returns an empty module.
func NewModule() *Module { return &Module{} }

// AddGlobal appends a global to the module and returns it.
func (m *Module) AddGlobal(name string, t Type, init Literal) *Global {
	g := &Global{Name: name, Type: t, Init: init}
	m.Globals = append(m.Globals, g)
	return g
}

// AddFunction appends a function with a body whose entry block has one
// fresh argument per input.
func (m *Module) AddFunction(name string, ft FunctionType) *Function {
	f := &Function{Name: name, Type: ft}
	entry := &Block{}
	for _, t := range ft.Inputs {
		entry.Args = append(entry.Args, f.NewValue(t))
	}
	f.Body = &Region{Blocks: []*Block{entry}}
	m.Functions = append(m.Functions, f)
	return f
}

// DeclareFunction appends a function without a body.
func (m *Module) DeclareFunction(name string, ft FunctionType) *Function {
	f := &Function{Name: name, Type: ft}
	m.Functions = append(m.Functions, f)
	return f
}

// Lookup finds the global or function named name.
func (m *Module) Lookup(name string) (*Global, *Function) {
	for _, g := range m.Globals {
		if g.Name == name {
			return g, nil
		}
	}
	for _, f := range m.Functions {
		if f.Name == name {
			return nil, f
		}
	}
	return nil, nil
}

// Entry returns the module's entry function: the function named by the
// "entry" module attribute, or else the first function with a body. It
// returns nil if there is none.
func (m *Module) Entry() *Function {
	if name, ok := m.Attrs["entry"].(StringAttr); ok {
		_, f := m.Lookup(string(name))
		return f
	}
	for _, f := range m.Functions {
		if f.Body != nil {
			return f
		}
	}
	return nil
}

// NewValue returns a value of type t with a fresh ID.
func (f *Function) NewValue(t Type) Value {
	v := Value{ID: f.nextID, Type: t}
	f.nextID++
	return v
}

// reserveIDs makes later fresh IDs larger than id.
func (f *Function) reserveID(id ValueID) {
	if id >= f.nextID {
		f.nextID = id + 1
	}
}

// Entry returns the entry block of the body, or nil for a declaration.
func (f *Function) Entry() *Block {
	if f.Body == nil || len(f.Body.Blocks) == 0 {
		return nil
	}
	return f.Body.Blocks[0]
}

// Args returns the entry block's arguments: the function's inputs.
func (f *Function) Args() []Value {
	if e := f.Entry(); e != nil {
		return e.Args
	}
	return nil
}

// Terminator returns the block's last op if it is a terminator, else nil.
func (b *Block) Terminator() Op {
	if len(b.Ops) == 0 {
		return nil
	}
	if last := b.Ops[len(b.Ops)-1]; IsTerminator(last) {
		return last
	}
	return nil
}

// Name returns a pointer to s, for InputNames and OutputNames.
func Name(s string) *string { return &s }

// Walk calls fn for every op of the region in order, descending into nested
// regions after their owning op. It stops early when fn returns false.
func (r *Region) Walk(fn func(op Op) bool) bool {
	if r == nil {
		return true
	}
	for _, b := range r.Blocks {
		if b == nil {
			continue
		}
		for _, op := range b.Ops {
			if op == nil {
				continue
			}
			if !fn(op) {
				return false
			}
			for _, sub := range op.Regions() {
				if !sub.Walk(fn) {
					return false
				}
			}
		}
	}
	return true
}
