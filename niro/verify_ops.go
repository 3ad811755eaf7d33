package niro

// opVerifier reports the type rules of one op.
type opVerifier struct {
	fv    *funcVerifier
	where string
}

func (v *opVerifier) errorf(format string, args ...any) {
	v.fv.add(v.where, format, args...)
}

func (o *Const) verify(v *opVerifier) {
	if msg := literalProblem(o.Result.Type, o.Lit); msg != "" {
		v.errorf("literal does not match the result type: %s", msg)
	}
}

func (o *GetGlobal) verify(v *opVerifier) {
	def, ok := v.fv.syms[o.Global]
	if !ok {
		v.errorf("%s does not name a global of the module", symRef(o.Global))
		return
	}
	g, ok := def.(*Global)
	if !ok {
		v.errorf("%s is a function, not a global", symRef(o.Global))
		return
	}
	if !TypesEqual(g.Type, o.Result.Type) {
		v.errorf("result type %s does not match the type %s of global %s", typeString(o.Result.Type), typeString(g.Type), symRef(o.Global))
	}
}

func (o *Transpose) verify(v *opVerifier) {
	xt, ok := o.X.Type.(TensorType)
	if !ok || xt.Unranked {
		v.errorf("operand %s must be a ranked tensor, has type %s", o.X, typeString(o.X.Type))
		return
	}
	if err := checkPerm(o.Perm, xt.Rank()); err != nil {
		v.errorf("%v", err)
		return
	}
	rt, ok := o.Result.Type.(TensorType)
	if !ok || rt.Unranked || rt.Elem != xt.Elem || rt.Rank() != xt.Rank() {
		want, _ := InferTranspose(xt, o.Perm)
		v.errorf("result type %s does not match the permuted operand type %s", typeString(o.Result.Type), typeString(want))
		return
	}
	for i, p := range o.Perm {
		if !dimsCompatible(rt.Dims[i], xt.Dims[p]) {
			want, _ := InferTranspose(xt, o.Perm)
			v.errorf("result type %s does not match the permuted operand type %s", rt, typeString(want))
			return
		}
	}
}

func (o *TensorExtract) verify(v *opVerifier) {
	xt, ok := o.X.Type.(TensorType)
	if !ok || xt.Unranked {
		v.errorf("operand %s must be a ranked tensor, has type %s", o.X, typeString(o.X.Type))
		return
	}
	if len(o.Indices) != xt.Rank() {
		v.errorf("%d indices for a tensor of rank %d", len(o.Indices), xt.Rank())
	}
	for i, idx := range o.Indices {
		if idx.Type != I32 && idx.Type != I64 {
			v.errorf("index #%d (%s) has type %s, expected i32 or i64", i, idx, typeString(idx.Type))
		}
	}
	if o.Result.Type != Type(xt.Elem) {
		v.errorf("result type %s does not match the element type %s", typeString(o.Result.Type), xt.Elem)
	}
}

func (o *MatMul) verify(v *opVerifier) {
	want, err := InferMatMul(o.LHS.Type, o.RHS.Type)
	if err != nil {
		v.errorf("%v", err)
		return
	}
	wt := want.(TensorType)
	rt, ok := o.Result.Type.(TensorType)
	match := ok && !rt.Unranked && rt.Elem == wt.Elem && rt.Rank() == wt.Rank()
	for i := 0; match && i < rt.Rank(); i++ {
		match = dimsCompatible(rt.Dims[i], wt.Dims[i])
	}
	if !match {
		v.errorf("result type %s does not match the product type %s", typeString(o.Result.Type), wt)
	}
}

func (o *Call) verify(v *opVerifier) {
	def, ok := v.fv.syms[o.Callee]
	if !ok {
		v.errorf("%s does not name a function of the module", symRef(o.Callee))
		return
	}
	f, ok := def.(*Function)
	if !ok {
		v.errorf("%s is a global, not a function", symRef(o.Callee))
		return
	}
	if len(o.Args) != len(f.Type.Inputs) {
		v.errorf("call passes %d arguments, but %s takes %d", len(o.Args), symRef(o.Callee), len(f.Type.Inputs))
	} else {
		for i, a := range o.Args {
			if !TypesEqual(a.Type, f.Type.Inputs[i]) {
				v.errorf("argument #%d (%s) has type %s, but %s expects %s", i, a, typeString(a.Type), symRef(o.Callee), typeString(f.Type.Inputs[i]))
			}
		}
	}
	if len(o.Res) != len(f.Type.Outputs) {
		v.errorf("call has %d results, but %s returns %d", len(o.Res), symRef(o.Callee), len(f.Type.Outputs))
	} else {
		for i, r := range o.Res {
			if !TypesEqual(r.Type, f.Type.Outputs[i]) {
				v.errorf("result #%d (%s) has type %s, but %s returns %s", i, r, typeString(r.Type), symRef(o.Callee), typeString(f.Type.Outputs[i]))
			}
		}
	}
}

// Branch and CondBranch edges are checked with the region.
func (o *Branch) verify(v *opVerifier) {}

func (o *CondBranch) verify(v *opVerifier) {
	if o.Cond.Type != Type(Bool) {
		v.errorf("condition %s has type %s, expected i1", o.Cond, typeString(o.Cond.Type))
	}
}

// Return is checked against the function type with the region.
func (o *Return) verify(v *opVerifier) {}

// Yield is checked by the op that owns its region.
func (o *Yield) verify(v *opVerifier) {}

func (o *If) verify(v *opVerifier) {
	if o.Cond.Type != Type(Bool) {
		v.errorf("condition %s has type %s, expected i1", o.Cond, typeString(o.Cond.Type))
	}
	for _, arm := range []struct {
		name string
		r    *Region
	}{{"then", o.Then}, {"else", o.Else}} {
		if arm.r == nil {
			v.errorf("%s region is missing", arm.name)
			continue
		}
		if len(arm.r.Blocks) != 1 {
			v.errorf("%s region must have exactly one block, has %d", arm.name, len(arm.r.Blocks))
			continue
		}
		b := arm.r.Blocks[0]
		if b == nil {
			continue
		}
		if len(b.Args) != 0 {
			v.errorf("%s block must have no arguments, has %d", arm.name, len(b.Args))
		}
		y, ok := b.Terminator().(*Yield)
		if !ok {
			v.errorf("%s region must end with yield", arm.name)
			continue
		}
		if len(y.Values) != len(o.Res) {
			v.errorf("%s region yields %d values, but if has %d results", arm.name, len(y.Values), len(o.Res))
			continue
		}
		for i, val := range y.Values {
			if !TypesEqual(val.Type, o.Res[i].Type) {
				v.errorf("%s region yields %s of type %s as result #%d, which has type %s", arm.name, val, typeString(val.Type), i, typeString(o.Res[i].Type))
			}
		}
	}
}

func (o *UnknownOp) verify(v *opVerifier) {
	if o.OpName == "" {
		v.errorf("unknown op has an empty name")
	}
	for name, a := range o.Attrs {
		if a == nil {
			v.errorf("attribute %q is nil", name)
		}
	}
}
