package niro

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Diagnostic is one verifier finding. Where names the function, block and
// op in MLIR-like words, for example "func @main: ^bb1: op 3 (add)".
type Diagnostic struct {
	Where string
	Msg   string
}

// String returns "where: message", or the message alone when Where is "".
func (d Diagnostic) String() string {
	if d.Where == "" {
		return d.Msg
	}
	return d.Where + ": " + d.Msg
}

// VerifyError holds every diagnostic the verifier found.
type VerifyError struct {
	Diags []Diagnostic
}

// Error returns the diagnostics one per line.
func (e *VerifyError) Error() string {
	lines := make([]string, len(e.Diags))
	for i, d := range e.Diags {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// maxDiags bounds the diagnostics of one verification.
const maxDiags = 1000

// Verify checks every validity rule of Niro IR and returns nil or a
// *VerifyError listing all problems found.
func Verify(m *Module) error {
	v := &verifier{m: m}
	v.module()
	if len(v.diags) == 0 {
		return nil
	}
	return &VerifyError{Diags: v.diags}
}

type verifier struct {
	m     *Module
	diags []Diagnostic
	syms  map[string]any // *Global or *Function, first definition
}

func (v *verifier) add(where, format string, args ...any) {
	if len(v.diags) >= maxDiags {
		return
	}
	v.diags = append(v.diags, Diagnostic{Where: where, Msg: fmt.Sprintf(format, args...)})
	if len(v.diags) == maxDiags {
		v.diags = append(v.diags, Diagnostic{Msg: "too many errors; stopping"})
	}
}

func symRef(name string) string {
	if isIdent(name) {
		return "@" + name
	}
	return fmt.Sprintf("@%q", name)
}

func (v *verifier) module() {
	if v.m == nil {
		v.add("", "module is nil")
		return
	}
	v.syms = map[string]any{}
	for i, g := range v.m.Globals {
		if g == nil {
			v.add("module", "global #%d is nil", i)
			continue
		}
		v.symbol("global", i, g.Name, g)
	}
	for i, f := range v.m.Functions {
		if f == nil {
			v.add("module", "function #%d is nil", i)
			continue
		}
		v.symbol("function", i, f.Name, f)
	}
	if e, ok := v.m.Attrs["entry"]; ok {
		name, isStr := e.(StringAttr)
		if !isStr {
			v.add("module", "attribute entry must be a string naming a function")
		} else if _, f := v.m.Lookup(string(name)); f == nil {
			v.add("module", "attribute entry names %s, which is not a function of the module", symRef(string(name)))
		}
	}
	for _, g := range v.m.Globals {
		if g != nil {
			v.global(g)
		}
	}
	for _, f := range v.m.Functions {
		if f != nil {
			v.function(f)
		}
	}
}

func (v *verifier) symbol(kind string, index int, name string, def any) {
	if name == "" {
		v.add("module", "%s #%d has an empty name", kind, index)
		return
	}
	if _, dup := v.syms[name]; dup {
		v.add("module", "symbol %s is defined more than once", symRef(name))
		return
	}
	v.syms[name] = def
}

// typeProblem describes what is wrong with a type, or "".
func typeProblem(t Type) string {
	switch t := t.(type) {
	case nil:
		return "missing type"
	case ScalarType:
		if !t.Valid() {
			return fmt.Sprintf("invalid scalar type %d", uint8(t))
		}
	case TensorType:
		if !t.Elem.Valid() {
			return fmt.Sprintf("invalid element type %d", uint8(t.Elem))
		}
		if !t.Unranked {
			for _, d := range t.Dims {
				if d < 0 && d != Dynamic {
					return fmt.Sprintf("type %s has negative dimension %d", t, d)
				}
			}
		}
	default:
		panic(fmt.Sprintf("niro: unhandled type %T", t))
	}
	return ""
}

// literalProblem describes why lit does not match type t, or "".
func literalProblem(t Type, lit Literal) string {
	if lit == nil {
		return "missing literal"
	}
	switch t := t.(type) {
	case nil:
		return "missing type"
	case ScalarType:
		switch lit := lit.(type) {
		case BoolLit:
			if t != Bool {
				return fmt.Sprintf("bool literal does not match type %s", t)
			}
		case IntLit:
			if !t.IsInt() {
				return fmt.Sprintf("integer literal %d does not match type %s", lit, t)
			}
			lo, hi := t.IntRange()
			if t.IsSigned() && (int64(lit) < lo || int64(lit) > int64(hi)) ||
				!t.IsSigned() && t.Bits() < 64 && (lit < 0 || uint64(lit) > hi) {
				return fmt.Sprintf("integer literal %d is out of range for %s", lit, t)
			}
		case FloatLit:
			if !t.IsFloat() {
				return fmt.Sprintf("float literal %s does not match type %s", formatFloat(float64(lit)), t)
			}
			if limit, ok := floatOverflow[t]; ok && math.Abs(float64(lit)) >= limit && !math.IsInf(float64(lit), 0) {
				return fmt.Sprintf("float literal %s overflows %s", formatFloat(float64(lit)), t)
			}
		case BytesLit:
			return fmt.Sprintf("bytes literal does not match scalar type %s", t)
		default:
			panic(fmt.Sprintf("niro: unhandled literal %T", lit))
		}
	case TensorType:
		b, ok := lit.(BytesLit)
		if !ok {
			return fmt.Sprintf("tensor %s needs a bytes literal", t)
		}
		if !t.HasStaticShape() {
			return fmt.Sprintf("tensor literal needs a static shape, type is %s", t)
		}
		want := PackedBytes(t.Elem, t.NumElements())
		if want < 0 {
			return fmt.Sprintf("tensor %s is too large", t)
		}
		if int64(len(b)) != want {
			return fmt.Sprintf("tensor literal has %d bytes, but %s needs %d", len(b), t, want)
		}
	default:
		panic(fmt.Sprintf("niro: unhandled type %T", t))
	}
	return ""
}

// floatOverflow holds, for the float types narrower than f64, the smallest
// magnitude that rounds past the largest finite value under
// round-to-nearest-even: the largest finite value plus half a unit in the
// last place (plus a little more for f8E4M3FN, whose largest finite value
// has an even significand, so the halfway point rounds down). Infinities
// and NaNs are written as such and are not overflows. f8E8M0FNU, which
// holds only powers of two, is not checked.
var floatOverflow = map[ScalarType]float64{
	F32:        0x1.ffffffp127, // max 0x1.fffffep127
	BF16:       0x1.ffp127,     // max 0x1.fep127
	F16:        0x1.ffep15,     // max 65504
	F8E4M3FN:   0x1.d00001p8,   // max 448; 464 rounds to 448
	F8E4M3FNUZ: 0x1.fp7,        // max 240
	F8E5M2:     0x1.ep15,       // max 57344
	F8E5M2FNUZ: 0x1.ep15,       // max 57344
	F4E2M1FN:   7,              // max 6
}

func (v *verifier) global(g *Global) {
	where := "global " + symRef(g.Name)
	if msg := typeProblem(g.Type); msg != "" {
		v.add(where, "%s", msg)
		return
	}
	if g.Init == nil {
		v.add(where, "global has no initializer")
		return
	}
	if msg := literalProblem(g.Type, g.Init); msg != "" {
		v.add(where, "initializer does not match the type: %s", msg)
	}
}

// Function verification.

type defSite struct {
	typ   Type
	block *Block
	index int32 // op index in block; -1 for a block argument
	ok    bool  // the entry records a definition
}

// defTable maps value IDs to their definitions. IDs are dense in practice
// (Function.NewValue counts up), so they index a slice: 32 bytes a value
// instead of a map entry's 100 or so, which for a function of a million
// ops is most of what the verifier holds. An ID far beyond the number of
// definitions recorded so far (possible in hand-written IR text) goes to a
// map, so that a sparse numbering cannot make the slice large: the slice
// never holds more than 2·n + denseSlack entries for n definitions (a
// bound on the slice's own length would let IDs that each double it, a
// few dozen values, reach gigabytes).
type defTable struct {
	dense  []defSite
	sparse map[ValueID]defSite
	n      int64 // definitions recorded
}

// denseSlack is how far beyond twice the number of recorded definitions
// an ID may be and still extend the dense table.
const denseSlack = 1024

func (t *defTable) get(id ValueID) (defSite, bool) {
	if int64(id) < int64(len(t.dense)) && t.dense[id].ok {
		return t.dense[id], true
	}
	d, ok := t.sparse[id] // an ID recorded before the slice reached it
	return d, ok
}

// reserve sizes the table for f's values, which Function.NewValue
// numbers from 0: up to the next ID f would give, when that is not far
// beyond the values its body's top-level blocks define (hand-written text
// may number sparsely), so the table is allocated once instead of grown.
func (t *defTable) reserve(f *Function) {
	n := 0
	for _, b := range f.Body.Blocks {
		if b != nil {
			n += len(b.Args) + len(b.Ops)
		}
	}
	if want := int64(f.nextID); want <= 2*int64(n)+denseSlack && want > int64(cap(t.dense)) {
		t.dense = make([]defSite, 0, want)
	}
}

// set records d for id, which get does not find.
func (t *defTable) set(id ValueID, d defSite) {
	d.ok = true
	t.n++
	if int64(id) < int64(len(t.dense)) || int64(id) < 2*t.n+denseSlack {
		if int64(id) >= int64(len(t.dense)) {
			t.dense = append(t.dense, make([]defSite, int(id)+1-len(t.dense))...)
		}
		t.dense[id] = d
		return
	}
	if t.sparse == nil {
		t.sparse = map[ValueID]defSite{}
	}
	t.sparse[id] = d
}

type regionInfo struct {
	parent    *regionInfo
	owner     Op     // nil for the function body
	ownerBB   *Block // block holding owner
	ownerIdx  int
	blocks    map[*Block]bool
	reachable map[*Block]bool
	idom      map[*Block]*Block
}

type funcVerifier struct {
	*verifier
	f       *Function
	where   string
	num     *printer // block numbering, as printed
	defs    defTable
	blockRg map[*Block]*regionInfo
	seenRg  map[*Region]bool
	rinfo   map[*Region]*regionInfo
}

func (fv *funcVerifier) blockName(b *Block) string {
	return fmt.Sprintf("^bb%d", fv.num.blockNum(b))
}

// opWhere returns "func @f: ^bbN: op I (name)" for op I of a block whose
// place bwhere is ("func @f: ^bbN"). It runs for every op, so it builds
// the string in one allocation.
func opWhere(bwhere string, i int, op Op) string {
	var buf [128]byte
	b := append(buf[:0], bwhere...)
	b = append(b, ": op "...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, " ("...)
	b = append(b, op.Name()...)
	b = append(b, ')')
	return string(b)
}

func (v *verifier) function(f *Function) {
	fv := &funcVerifier{
		verifier: v,
		f:        f,
		where:    "func " + symRef(f.Name),
		num:      &printer{blocks: map[*Block]int{}},
		blockRg:  map[*Block]*regionInfo{},
		seenRg:   map[*Region]bool{},
		rinfo:    map[*Region]*regionInfo{},
	}
	for i, t := range f.Type.Inputs {
		if msg := typeProblem(t); msg != "" {
			v.add(fv.where, "input #%d: %s", i, msg)
		}
	}
	for i, t := range f.Type.Outputs {
		if msg := typeProblem(t); msg != "" {
			v.add(fv.where, "output #%d: %s", i, msg)
		}
	}
	fv.names("input_names", f.InputNames, len(f.Type.Inputs))
	fv.names("output_names", f.OutputNames, len(f.Type.Outputs))
	if f.Body == nil {
		return
	}
	fv.num.numberRegion(f.Body)
	if len(f.Body.Blocks) == 0 || f.Body.Blocks[0] == nil {
		v.add(fv.where, "function body has no entry block")
		return
	}
	entry := f.Body.Blocks[0]
	if len(entry.Args) != len(f.Type.Inputs) {
		v.add(fv.where, "entry block has %d arguments, but the function type has %d inputs", len(entry.Args), len(f.Type.Inputs))
	} else {
		for i, a := range entry.Args {
			if !TypesEqual(a.Type, f.Type.Inputs[i]) {
				v.add(fv.where, "entry block argument #%d (%s) has type %s, but the function type says %s", i, a, typeString(a.Type), typeString(f.Type.Inputs[i]))
			}
		}
	}
	fv.defs.reserve(f)
	// Pass 1: structure, ownership and definitions. The body counts as
	// owned, so an op that also claims it is reported instead of walked
	// twice.
	fv.seenRg[f.Body] = true
	fv.collect(f.Body, nil, nil, nil, -1)
	// Pass 2: per-region rules, per-op rules and dominance.
	fv.checkRegion(f.Body)
}

func (fv *funcVerifier) names(what string, names []*string, n int) {
	if names == nil {
		return
	}
	if len(names) != n {
		fv.add(fv.where, "%s has %d entries for %d %ss", what, len(names), n, strings.TrimSuffix(what, "_names"))
	}
	for i, s := range names {
		if s != nil && *s == "" {
			fv.add(fv.where, "%s[%d] is empty; use none for an unnamed item", what, i)
		}
	}
}

func (fv *funcVerifier) define(val Value, b *Block, idx int, where string) {
	if msg := typeProblem(val.Type); msg != "" {
		fv.add(where, "%s: %s", val, msg)
	}
	if _, dup := fv.defs.get(val.ID); dup {
		fv.add(where, "value %s is defined more than once", val)
		return
	}
	fv.defs.set(val.ID, defSite{typ: val.Type, block: b, index: int32(idx)})
}

// collect walks r, recording ownership and definitions.
func (fv *funcVerifier) collect(r *Region, parent *regionInfo, owner Op, ownerBB *Block, ownerIdx int) {
	ri := &regionInfo{parent: parent, owner: owner, ownerBB: ownerBB, ownerIdx: ownerIdx, blocks: map[*Block]bool{}}
	fv.rinfo[r] = ri
	for _, b := range r.Blocks {
		if b == nil {
			fv.add(fv.where, "region holds a nil block")
			continue
		}
		if _, dup := fv.blockRg[b]; dup {
			fv.add(fv.where, "block %s is owned by more than one region", fv.blockName(b))
			continue
		}
		fv.blockRg[b] = ri
		ri.blocks[b] = true
		bwhere := fv.where + ": " + fv.blockName(b)
		for _, a := range b.Args {
			fv.define(a, b, -1, bwhere)
		}
		for i, op := range b.Ops {
			if op == nil {
				fv.add(bwhere, "op %d is nil", i)
				continue
			}
			where := opWhere(bwhere, i, op)
			for _, res := range op.Results() {
				fv.define(res, b, i, where)
			}
			for j, sub := range op.Regions() {
				if sub == nil {
					fv.add(where, "region #%d is nil", j)
					continue
				}
				if fv.seenRg[sub] {
					fv.add(where, "region #%d is owned by more than one op", j)
					continue
				}
				fv.seenRg[sub] = true
				fv.collect(sub, ri, op, b, i)
			}
		}
	}
}
