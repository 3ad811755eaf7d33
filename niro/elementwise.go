package niro

import (
	"fmt"
	"slices"
	"strings"
)

// The element-wise families: Binary, Unary, Compare, Cast and Select. Each
// family is one Go type with a kind, and one table row per kind holds the
// kind's mnemonic, its MLIR spellings for float, signed, unsigned and bool
// elements, and the element types it is defined on. Adding an element-wise
// op is one constant and one row (see docs/ops.md).

// ElemClass is a set of element-type classes.
type ElemClass uint8

// The element-type classes.
const (
	ClassFloat    ElemClass = 1 << iota // f16, bf16, f32, f64
	ClassSigned                         // i8 … i64
	ClassUnsigned                       // ui8 … ui64
	ClassBool                           // i1

	ClassInt     = ClassSigned | ClassUnsigned
	ClassNumeric = ClassFloat | ClassInt
	ClassAll     = ClassNumeric | ClassBool
)

// ClassOf returns the class of an element type, or 0 for types outside the
// element-wise families (complex, float8, 4- and 2-bit types).
func ClassOf(s ScalarType) ElemClass {
	switch s {
	case Bool:
		return ClassBool
	case I8, I16, I32, I64:
		return ClassSigned
	case U8, U16, U32, U64:
		return ClassUnsigned
	case F16, BF16, F32, F64:
		return ClassFloat
	}
	return 0
}

func (c ElemClass) String() string {
	var parts []string
	for _, x := range []struct {
		c ElemClass
		s string
	}{{ClassFloat, "float"}, {ClassSigned, "signed integer"}, {ClassUnsigned, "unsigned integer"}, {ClassBool, "bool"}} {
		if c&x.c != 0 {
			parts = append(parts, x.s)
		}
	}
	if len(parts) == 0 {
		return "no"
	}
	return strings.Join(parts, ", ")
}

// Spelling is a kind's MLIR operation for each class of element type. An
// empty spelling means the emitter composes the operation from several
// ops (or, outside Types, that it is undefined).
type Spelling struct {
	Float, Signed, Unsigned, Bool string
}

// For returns the spelling for elements of type s.
func (sp Spelling) For(s ScalarType) string {
	switch ClassOf(s) {
	case ClassFloat:
		return sp.Float
	case ClassSigned:
		return sp.Signed
	case ClassUnsigned:
		return sp.Unsigned
	case ClassBool:
		return sp.Bool
	}
	return ""
}

// KindInfo is one row of a family's table.
type KindInfo struct {
	// Name is the mnemonic.
	Name string
	// MLIR spells the kind per element class.
	MLIR Spelling
	// Types lists the element classes the kind is defined on.
	Types ElemClass
}

// BinaryKind selects the operation of a [Binary].
type BinaryKind uint8

// The binary kinds. Div on integers truncates toward zero; Rem takes the
// sign of the dividend (C fmod, ONNX Mod with fmod=1); Mod takes the sign
// of the divisor (ONNX Mod with fmod=0, Python's %); Max and Min propagate
// NaN; Shr is arithmetic on signed and logical on unsigned integers.
const (
	Add BinaryKind = iota
	Sub
	Mul
	Div
	Rem
	Mod
	Pow
	Max
	Min
	And
	Or
	Xor
	Shl
	Shr
	numBinaryKinds
)

var binaryInfos = [numBinaryKinds]KindInfo{
	Add: {"add", Spelling{"arith.addf", "arith.addi", "arith.addi", ""}, ClassNumeric},
	Sub: {"sub", Spelling{"arith.subf", "arith.subi", "arith.subi", ""}, ClassNumeric},
	Mul: {"mul", Spelling{"arith.mulf", "arith.muli", "arith.muli", ""}, ClassNumeric},
	Div: {"div", Spelling{"arith.divf", "arith.divsi", "arith.divui", ""}, ClassNumeric},
	Rem: {"rem", Spelling{"arith.remf", "arith.remsi", "arith.remui", ""}, ClassNumeric},
	Mod: {"mod", Spelling{"", "", "arith.remui", ""}, ClassNumeric},
	Pow: {"pow", Spelling{"math.powf", "", "", ""}, ClassFloat},
	Max: {"max", Spelling{"arith.maximumf", "arith.maxsi", "arith.maxui", "arith.ori"}, ClassAll},
	Min: {"min", Spelling{"arith.minimumf", "arith.minsi", "arith.minui", "arith.andi"}, ClassAll},
	And: {"and", Spelling{"", "arith.andi", "arith.andi", "arith.andi"}, ClassInt | ClassBool},
	Or:  {"or", Spelling{"", "arith.ori", "arith.ori", "arith.ori"}, ClassInt | ClassBool},
	Xor: {"xor", Spelling{"", "arith.xori", "arith.xori", "arith.xori"}, ClassInt | ClassBool},
	Shl: {"shl", Spelling{"", "arith.shli", "arith.shli", ""}, ClassInt},
	Shr: {"shr", Spelling{"", "arith.shrsi", "arith.shrui", ""}, ClassInt},
}

// Info returns the kind's table row.
func (k BinaryKind) Info() KindInfo {
	if k >= numBinaryKinds {
		return KindInfo{Name: fmt.Sprintf("<binary %d>", k)}
	}
	return binaryInfos[k]
}

func (k BinaryKind) String() string { return k.Info().Name }

// BinaryKinds returns every binary kind.
func BinaryKinds() []BinaryKind {
	out := make([]BinaryKind, numBinaryKinds)
	for i := range out {
		out[i] = BinaryKind(i)
	}
	return out
}

// Binary is an element-wise (broadcasting) or scalar operation of two
// operands of the same element type.
//
// Example printed form:
//
//	%2 = add %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
type Binary struct {
	Loc
	noRegions
	noSuccessors
	Kind     BinaryKind
	Result   Value
	LHS, RHS Value
}

// UnaryKind selects the operation of a [Unary].
type UnaryKind uint8

// The unary kinds. Round rounds half to even; Sign gives -1, 0 or 1 (and
// NaN for NaN); Not is logical negation of bool, BitNot the bitwise
// complement of integers.
const (
	Neg UnaryKind = iota
	Abs
	Sqrt
	Exp
	Log
	Tanh
	Erf
	Floor
	Ceil
	Round
	Sign
	Sin
	Cos
	Tan
	Asin
	Acos
	Atan
	Sinh
	Cosh
	Asinh
	Acosh
	Atanh
	Not
	BitNot
	numUnaryKinds
)

var unaryInfos = [numUnaryKinds]KindInfo{
	Neg:    {"neg", Spelling{"arith.negf", "", "", ""}, ClassFloat | ClassSigned},
	Abs:    {"abs", Spelling{"math.absf", "math.absi", "", ""}, ClassNumeric},
	Sqrt:   {"sqrt", Spelling{"math.sqrt", "", "", ""}, ClassFloat},
	Exp:    {"exp", Spelling{"math.exp", "", "", ""}, ClassFloat},
	Log:    {"log", Spelling{"math.log", "", "", ""}, ClassFloat},
	Tanh:   {"tanh", Spelling{"math.tanh", "", "", ""}, ClassFloat},
	Erf:    {"erf", Spelling{"math.erf", "", "", ""}, ClassFloat},
	Floor:  {"floor", Spelling{"math.floor", "", "", ""}, ClassFloat},
	Ceil:   {"ceil", Spelling{"math.ceil", "", "", ""}, ClassFloat},
	Round:  {"round", Spelling{"math.roundeven", "", "", ""}, ClassFloat},
	Sign:   {"sign", Spelling{"", "", "", ""}, ClassNumeric},
	Sin:    {"sin", Spelling{"math.sin", "", "", ""}, ClassFloat},
	Cos:    {"cos", Spelling{"math.cos", "", "", ""}, ClassFloat},
	Tan:    {"tan", Spelling{"math.tan", "", "", ""}, ClassFloat},
	Asin:   {"asin", Spelling{"math.asin", "", "", ""}, ClassFloat},
	Acos:   {"acos", Spelling{"math.acos", "", "", ""}, ClassFloat},
	Atan:   {"atan", Spelling{"math.atan", "", "", ""}, ClassFloat},
	Sinh:   {"sinh", Spelling{"math.sinh", "", "", ""}, ClassFloat},
	Cosh:   {"cosh", Spelling{"math.cosh", "", "", ""}, ClassFloat},
	Asinh:  {"asinh", Spelling{"math.asinh", "", "", ""}, ClassFloat},
	Acosh:  {"acosh", Spelling{"math.acosh", "", "", ""}, ClassFloat},
	Atanh:  {"atanh", Spelling{"math.atanh", "", "", ""}, ClassFloat},
	Not:    {"not", Spelling{"", "", "", ""}, ClassBool},
	BitNot: {"bitnot", Spelling{"", "", "", ""}, ClassInt},
}

// Info returns the kind's table row.
func (k UnaryKind) Info() KindInfo {
	if k >= numUnaryKinds {
		return KindInfo{Name: fmt.Sprintf("<unary %d>", k)}
	}
	return unaryInfos[k]
}

func (k UnaryKind) String() string { return k.Info().Name }

// UnaryKinds returns every unary kind.
func UnaryKinds() []UnaryKind {
	out := make([]UnaryKind, numUnaryKinds)
	for i := range out {
		out[i] = UnaryKind(i)
	}
	return out
}

// Unary is an element-wise or scalar operation of one operand; the result
// has the operand's type.
//
// Example printed form:
//
//	%1 = exp %0 : (tensor<4xf32>) -> tensor<4xf32>
type Unary struct {
	Loc
	noRegions
	noSuccessors
	Kind   UnaryKind
	Result Value
	X      Value
}

// Predicate selects the relation of a [Compare].
type Predicate uint8

// The predicates. On floats every predicate but Ne is ordered (false when
// an operand is NaN) and Ne is unordered (true when an operand is NaN), so
// Ne(x, x) tests for NaN. Bool compares as unsigned (false < true).
const (
	Eq Predicate = iota
	Ne
	Lt
	Le
	Gt
	Ge
	numPredicates
)

var predicateInfos = [numPredicates]KindInfo{
	Eq: {"eq", Spelling{"oeq", "eq", "eq", "eq"}, ClassAll},
	Ne: {"ne", Spelling{"une", "ne", "ne", "ne"}, ClassAll},
	Lt: {"lt", Spelling{"olt", "slt", "ult", "ult"}, ClassAll},
	Le: {"le", Spelling{"ole", "sle", "ule", "ule"}, ClassAll},
	Gt: {"gt", Spelling{"ogt", "sgt", "ugt", "ugt"}, ClassAll},
	Ge: {"ge", Spelling{"oge", "sge", "uge", "uge"}, ClassAll},
}

// Info returns the predicate's table row; its spellings are the arith.cmpf
// and arith.cmpi predicate names.
func (p Predicate) Info() KindInfo {
	if p >= numPredicates {
		return KindInfo{Name: fmt.Sprintf("<predicate %d>", p)}
	}
	return predicateInfos[p]
}

func (p Predicate) String() string { return p.Info().Name }

// Predicates returns every predicate.
func Predicates() []Predicate {
	out := make([]Predicate, numPredicates)
	for i := range out {
		out[i] = Predicate(i)
	}
	return out
}

// Compare relates two operands of the same element type element by
// element (broadcasting); the result holds i1.
//
// Example printed form:
//
//	%2 = cmp_lt %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
type Compare struct {
	Loc
	noRegions
	noSuccessors
	Pred     Predicate
	Result   Value
	LHS, RHS Value
}

// Cast converts each element to the element type To, keeping the shape. A
// float to integer conversion truncates toward zero; a conversion to a
// narrower float rounds to nearest even; integers widen by their own
// signedness and narrow by dropping high bits; bool converts to 0 or 1, and
// a value converts to bool as "not zero".
//
// Cast is also the one op defined on the 8-bit floats (f8E4M3FN,
// f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ), which other ops only move. A
// conversion to one rounds to nearest even and saturates: a magnitude
// beyond the largest finite value, infinity included, becomes ±max. With
// NoSaturate (printed {no_saturate = true}, allowed only then) it becomes
// ±infinity where the format has one (f8E5M2) and NaN elsewhere. NaN stays
// NaN, and the FNUZ formats, which have no −0, give +0 for a zero.
//
// f8E8M0FNU (2^(code − 127), code 255 NaN, no sign or zero) is castable
// too. A conversion to it rounds up, as ONNX's default round_mode "up":
// the code is the biased exponent of |x| plus one when x is not a power
// of two, clamped at 0 below (zero and the smallest magnitudes give code
// 0) and at 254 above, or 255 (NaN) past it with NoSaturate. NaN gives
// 255.
//
// The 4- and 2-bit integers (i4, ui4, i2, ui2) are castable as well: a
// cast to one wraps like any narrowing integer cast (a float converts
// toward zero first), a cast from one reads its value.
//
// With Bitcast (printed {bitcast = true}) the cast converts nothing: each
// element's bits are reinterpreted as To, which must have the operand's
// bit width; bool and the types only Cast computes on are excluded.
//
// Example printed form:
//
//	%1 = cast %0 : (tensor<4xf32>) -> tensor<4xi64>
type Cast struct {
	Loc
	noRegions
	noSuccessors
	To         ScalarType
	NoSaturate bool
	Bitcast    bool
	Result     Value
	X          Value
}

// IsFloat8 reports whether s is one of the 8-bit floats Cast converts to
// and from (f8E8M0FNU is not among them).
func IsFloat8(s ScalarType) bool {
	switch s {
	case F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ:
		return true
	}
	return false
}

// IsCastOnly reports whether s is an element type Cast converts to and
// from while other ops only move it: the 8-bit floats (IsFloat8),
// f8E8M0FNU, the power of two 2^(code − 127) (code 255 is NaN), and the
// 4- and 2-bit integers.
func IsCastOnly(s ScalarType) bool {
	switch s {
	case F8E8M0FNU, F4E2M1FN, I4, U4, I2, U2:
		return true
	}
	return IsFloat8(s)
}

// saturable reports whether a cast to s may carry NoSaturate.
func saturable(s ScalarType) bool { return IsFloat8(s) || s == F8E8M0FNU }

// castable reports whether Cast converts to and from s.
func castable(s ScalarType) bool { return ClassOf(s) != 0 || IsCastOnly(s) }

// Select picks, element by element (broadcasting all three), X where Cond
// holds and Y elsewhere.
//
// Example printed form:
//
//	%3 = select %0, %1, %2 : (tensor<4xi1>, tensor<4xf32>, f32) -> tensor<4xf32>
//
// (scalar and tensor operands do not mix; the example's f32 would be a
// rank-0 tensor in valid IR.)
type Select struct {
	Loc
	noRegions
	noSuccessors
	Result Value
	Cond   Value
	X, Y   Value
}

func (*Binary) isOp()  {}
func (*Unary) isOp()   {}
func (*Compare) isOp() {}
func (*Cast) isOp()    {}
func (*Select) isOp()  {}

func (o *Binary) Name() string  { return o.Kind.Info().Name }
func (o *Unary) Name() string   { return o.Kind.Info().Name }
func (o *Compare) Name() string { return "cmp_" + o.Pred.Info().Name }
func (*Cast) Name() string      { return "cast" }
func (*Select) Name() string    { return "select" }

func (o *Binary) refs() []*Value  { return []*Value{&o.LHS, &o.RHS} }
func (o *Unary) refs() []*Value   { return []*Value{&o.X} }
func (o *Compare) refs() []*Value { return []*Value{&o.LHS, &o.RHS} }
func (o *Cast) refs() []*Value    { return []*Value{&o.X} }
func (o *Select) refs() []*Value  { return []*Value{&o.Cond, &o.X, &o.Y} }

func (o *Binary) Operands() []Value  { return valuesOf(o.refs()) }
func (o *Unary) Operands() []Value   { return valuesOf(o.refs()) }
func (o *Compare) Operands() []Value { return valuesOf(o.refs()) }
func (o *Cast) Operands() []Value    { return valuesOf(o.refs()) }
func (o *Select) Operands() []Value  { return valuesOf(o.refs()) }

func (o *Binary) Results() []Value  { return []Value{o.Result} }
func (o *Unary) Results() []Value   { return []Value{o.Result} }
func (o *Compare) Results() []Value { return []Value{o.Result} }
func (o *Cast) Results() []Value    { return []Value{o.Result} }
func (o *Select) Results() []Value  { return []Value{o.Result} }

func (o *Binary) setResults(vs []Value)  { o.Result = vs[0] }
func (o *Unary) setResults(vs []Value)   { o.Result = vs[0] }
func (o *Compare) setResults(vs []Value) { o.Result = vs[0] }
func (o *Cast) setResults(vs []Value)    { o.Result = vs[0] }
func (o *Select) setResults(vs []Value)  { o.Result = vs[0] }

func (*Binary) params() Attrs  { return nil }
func (*Unary) params() Attrs   { return nil }
func (*Compare) params() Attrs { return nil }
func (o *Cast) params() Attrs {
	switch {
	case o.NoSaturate:
		return Attrs{"no_saturate": BoolAttr(true)}
	case o.Bitcast:
		return Attrs{"bitcast": BoolAttr(true)}
	}
	return nil
}
func (*Select) params() Attrs { return nil }

func (o *Binary) print(p *printer)  { p.generic(o) }
func (o *Unary) print(p *printer)   { p.generic(o) }
func (o *Compare) print(p *printer) { p.generic(o) }
func (o *Cast) print(p *printer)    { p.generic(o) }
func (o *Select) print(p *printer)  { p.generic(o) }

func (o *Binary) verify(v *opVerifier)  { verifyGeneric(v, o) }
func (o *Unary) verify(v *opVerifier)   { verifyGeneric(v, o) }
func (o *Compare) verify(v *opVerifier) { verifyGeneric(v, o) }
func (o *Cast) verify(v *opVerifier)    { verifyGeneric(v, o) }
func (o *Select) verify(v *opVerifier)  { verifyGeneric(v, o) }

// elemOf returns the element type of a scalar or tensor type.
func elemOf(t Type) ScalarType {
	switch t := t.(type) {
	case ScalarType:
		return t
	case TensorType:
		return t.Elem
	}
	return InvalidScalar
}

// ElemOf returns the element type of a scalar or tensor type, or
// InvalidScalar.
func ElemOf(t Type) ScalarType { return elemOf(t) }

// InferBroadcast returns the type that element-wise broadcasting of the
// given operand types gives, with element type elem: all scalars, or all
// tensors whose shapes broadcast (an unranked one makes the result
// unranked).
func InferBroadcast(elem ScalarType, ts ...Type) (Type, error) {
	nScalar := 0
	for _, t := range ts {
		switch t.(type) {
		case ScalarType:
			nScalar++
		case TensorType:
		default:
			return nil, fmt.Errorf("operand type %s is not a scalar or tensor", typeString(t))
		}
	}
	if nScalar == len(ts) {
		return elem, nil
	}
	if nScalar > 0 {
		return nil, fmt.Errorf("operand types %s mix scalars and tensors", typeList(ts))
	}
	var dims []int64
	for i, t := range ts {
		tt := t.(TensorType)
		if tt.Unranked {
			return UnrankedTensor(elem), nil
		}
		if i == 0 {
			dims = append([]int64{}, tt.Dims...)
			continue
		}
		d, err := BroadcastShape(dims, tt.Dims)
		if err != nil {
			return nil, fmt.Errorf("operand shapes %s are not broadcast-compatible: %v", typeList(ts), err)
		}
		dims = d
	}
	// A result of an operand's type shares that operand's (immutable)
	// type, so that a long chain of element-wise ops does not hold one
	// copy of the same type per op.
	for _, t := range ts {
		if tt := t.(TensorType); tt.Elem == elem && slices.Equal(tt.Dims, dims) {
			return t, nil
		}
	}
	return TensorType{Elem: elem, Dims: dims}, nil
}

// sameElem checks that every operand has element type of the first and
// that the class is one of allowed; it returns that element type.
func sameElem(what string, allowed ElemClass, ts ...Type) (ScalarType, error) {
	e := elemOf(ts[0])
	for _, t := range ts[1:] {
		if elemOf(t) != e {
			return 0, fmt.Errorf("operand types %s have different element types", typeList(ts))
		}
	}
	if ClassOf(e)&allowed == 0 {
		return 0, fmt.Errorf("%s is not defined on element type %s (only on %s)", what, typeString(e), allowed)
	}
	return e, nil
}

func (o *Binary) inferTypes() ([]Type, error) {
	info := o.Kind.Info()
	if o.Kind >= numBinaryKinds {
		return nil, fmt.Errorf("invalid binary kind %d", o.Kind)
	}
	e, err := sameElem(info.Name, info.Types, o.LHS.Type, o.RHS.Type)
	if err != nil {
		return nil, err
	}
	t, err := InferBroadcast(e, o.LHS.Type, o.RHS.Type)
	return []Type{t}, err
}

func (o *Unary) inferTypes() ([]Type, error) {
	info := o.Kind.Info()
	if o.Kind >= numUnaryKinds {
		return nil, fmt.Errorf("invalid unary kind %d", o.Kind)
	}
	e, err := sameElem(info.Name, info.Types, o.X.Type)
	if err != nil {
		return nil, err
	}
	t, err := InferBroadcast(e, o.X.Type)
	return []Type{t}, err
}

func (o *Compare) inferTypes() ([]Type, error) {
	if o.Pred >= numPredicates {
		return nil, fmt.Errorf("invalid predicate %d", o.Pred)
	}
	if _, err := sameElem(o.Name(), o.Pred.Info().Types, o.LHS.Type, o.RHS.Type); err != nil {
		return nil, err
	}
	t, err := InferBroadcast(Bool, o.LHS.Type, o.RHS.Type)
	return []Type{t}, err
}

func (o *Cast) inferTypes() ([]Type, error) {
	from := elemOf(o.X.Type)
	if !castable(from) {
		return nil, fmt.Errorf("cast from element type %s is not supported", typeString(from))
	}
	if !castable(o.To) {
		return nil, fmt.Errorf("cast to element type %s is not supported", typeString(o.To))
	}
	if o.NoSaturate && !saturable(o.To) {
		return nil, fmt.Errorf("no_saturate applies only to a cast to an 8-bit float or f8E8M0FNU, not to %s", typeString(o.To))
	}
	if o.Bitcast {
		if o.NoSaturate {
			return nil, fmt.Errorf("bitcast and no_saturate exclude each other")
		}
		for _, s := range []ScalarType{from, o.To} {
			if ClassOf(s) == 0 || s == Bool {
				return nil, fmt.Errorf("bitcast applies to the integer and float types of 8 to 64 bits, not to %s", typeString(s))
			}
		}
		if from.Bits() != o.To.Bits() {
			return nil, fmt.Errorf("bitcast from %s to %s changes the bit width", typeString(from), typeString(o.To))
		}
	}
	t, err := InferBroadcast(o.To, o.X.Type)
	return []Type{t}, err
}

func (o *Select) inferTypes() ([]Type, error) {
	if elemOf(o.Cond.Type) != Bool {
		return nil, fmt.Errorf("condition %s has type %s, expected i1 elements", o.Cond, typeString(o.Cond.Type))
	}
	e, err := sameElem("select", ClassAll, o.X.Type, o.Y.Type)
	if err != nil {
		return nil, err
	}
	t, err := InferBroadcast(e, o.Cond.Type, o.X.Type, o.Y.Type)
	return []Type{t}, err
}

func init() {
	for _, k := range BinaryKinds() {
		defineOp(k.Info().Name, &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			return &Binary{Kind: k, LHS: ins[0], RHS: ins[1]}, readAttrs(a).done(k.Info().Name)
		}})
	}
	for _, k := range UnaryKinds() {
		defineOp(k.Info().Name, &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			return &Unary{Kind: k, X: ins[0]}, readAttrs(a).done(k.Info().Name)
		}})
	}
	for _, p := range Predicates() {
		name := "cmp_" + p.Info().Name
		defineOp(name, &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
			return &Compare{Pred: p, LHS: ins[0], RHS: ins[1]}, readAttrs(a).done(name)
		}})
	}
	defineOp("cast", &opDef{results: 1, operands: 1, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &Cast{To: elemOf(outs[0].Type), NoSaturate: r.bool("no_saturate"), Bitcast: r.bool("bitcast"), X: ins[0]}, r.done("cast")
	}})
	defineOp("select", &opDef{results: 1, operands: 3, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		return &Select{Cond: ins[0], X: ins[1], Y: ins[2]}, readAttrs(a).done("select")
	}})
}
