package emit

import (
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// successor returns ^bbN(%a, %b : ta, tb) for a branch to b with args.
func (fe *funcEmitter) successor(op niro.Op, b *niro.Block, args []niro.Value) (string, bool) {
	i, ok := fe.blocks[b]
	if !ok || i == 0 {
		fe.opErrorf(op, "%s targets a block that is not a non-entry block of the function body", op.Name())
		return "", false
	}
	s := "^bb" + strconv.Itoa(i)
	if len(args) > 0 {
		s += "(" + names(args) + " : " + fe.types(args) + ")"
	}
	return s, true
}

// branch lowers Branch to cf.br.
func (fe *funcEmitter) branch(op *niro.Branch) {
	if s, ok := fe.successor(op, op.Target, op.Args); ok {
		fe.line("cf.br %s", s)
	}
}

// condBranch lowers CondBranch to cf.cond_br.
func (fe *funcEmitter) condBranch(op *niro.CondBranch) {
	if !fe.isBool(op, op.Cond) {
		return
	}
	t, ok1 := fe.successor(op, op.True, op.TrueArgs)
	f, ok2 := fe.successor(op, op.False, op.FalseArgs)
	if ok1 && ok2 {
		fe.line("cf.cond_br %s, %s, %s", name(op.Cond), t, f)
	}
}

// isBool checks that a condition is a scalar BOOL.
func (fe *funcEmitter) isBool(op niro.Op, v niro.Value) bool {
	if s, ok := v.Type.(niro.ScalarType); ok && s == niro.Bool {
		return true
	}
	fe.opErrorf(op, "%s condition %s has type %s, want i1", op.Name(), name(v), typeName(v.Type))
	return false
}

// ifOp lowers If to scf.if; each arm is one argument-free block ending in
// Yield, which becomes scf.yield.
func (fe *funcEmitter) ifOp(op *niro.If) {
	if !fe.isBool(op, op.Cond) {
		return
	}
	for _, r := range []*niro.Region{op.Then, op.Else} {
		if r == nil || len(r.Blocks) != 1 || r.Blocks[0] == nil || len(r.Blocks[0].Args) != 0 {
			fe.opErrorf(op, "if: each region must hold exactly one block without arguments")
			return
		}
	}
	var sb strings.Builder
	if len(op.Res) > 0 {
		sb.WriteString(names(op.Res) + " = ")
	}
	sb.WriteString("scf.if " + name(op.Cond))
	if len(op.Res) > 0 {
		sb.WriteString(" -> (" + fe.types(op.Res) + ")")
	}
	fe.line("%s {", sb.String())
	fe.indent++
	fe.block(op.Then.Blocks[0], regionIf)
	fe.indent--
	fe.line("} else {")
	fe.indent++
	fe.block(op.Else.Blocks[0], regionIf)
	fe.indent--
	fe.line("}")
}

// yield lowers Yield to scf.yield.
func (fe *funcEmitter) yield(op *niro.Yield) {
	if len(op.Values) == 0 {
		fe.line("scf.yield")
		return
	}
	fe.line("scf.yield %s : %s", names(op.Values), fe.types(op.Values))
}
