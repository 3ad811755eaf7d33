package emit

import (
	"bufio"
	"strconv"

	"github.com/niro-dev/niro/internal/mlirtext"
	"github.com/niro-dev/niro/niro"
)

// Every MLIR op emitted while lowering a Niro op carries that op's
// location, so that a tool's diagnostic names the ONNX node: a NameLoc
// whose name is the node (niro.Op.Location) and whose child is a NameLoc
// holding the Niro op's name, loc("conv1"("conv")). Each distinct
// location is written once, as an alias defined after the module,
//
//	%3 = linalg.generic {...} ... } -> tensor<1x8x8x8xf32> loc(#loc2)
//	...
//	#loc2 = loc("conv1"("conv"))
//
// so that a line grows by a few bytes however long the node's name is
// (docs/emit.md, "Locations").

// locSpelling returns the location attribute of a Niro op named opName at
// node loc: "NODE"("OP"), both escaped as MLIR strings.
func locSpelling(loc, opName string) string {
	return mlirtext.Quote(loc) + "(" + mlirtext.Quote(opName) + ")"
}

// opLoc returns the suffix " loc(#locN)" for the lines of op, defining
// the alias on its first use; nil for an op without a location.
func (e *emitter) opLoc(op niro.Op) []byte {
	l := op.Location()
	if l == "" {
		return nil
	}
	key := locKey{l, op.Name()}
	id, ok := e.locIDs[key]
	if !ok {
		if e.locIDs == nil {
			e.locIDs = map[locKey]int{}
		}
		id = len(e.locList)
		e.locIDs[key] = id
		e.locList = append(e.locList, key)
	}
	return append(strconv.AppendInt(append(make([]byte, 0, 16), " loc(#loc"...), int64(id), 10), ')')
}

// locKey is a node's location and the name of a Niro op at it.
type locKey struct{ loc, op string }

// writeLocs writes the location aliases after the module.
func (e *emitter) writeLocs(w *bufio.Writer) {
	var b []byte
	for i, k := range e.locList {
		b = append(b[:0], "#loc"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, " = loc("...)
		b = append(b, locSpelling(k.loc, k.op)...)
		b = append(b, ")\n"...)
		w.Write(b)
	}
}
