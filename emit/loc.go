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
// holding the Niro op's name, loc("conv1"("conv")). The location is
// written once per op (once per run of consecutive ops of one node and op
// name), as an alias defined after the module,
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
	return string(appendLocSpelling(nil, loc, opName))
}

func appendLocSpelling(b []byte, loc, opName string) []byte {
	b = mlirtext.AppendQuote(b, loc)
	b = append(b, '(')
	b = mlirtext.AppendQuote(b, opName)
	return append(b, ')')
}

// opLoc returns 1 + the number of the location alias for the lines of
// op, defining it on first use: consecutive ops of one node and op name
// share one; 0 for an op without a location. No map: most nodes' ops follow
// each other, and an alias defined twice costs only its line.
func (e *emitter) opLoc(op niro.Op) int {
	l := op.Location()
	if l == "" {
		return 0
	}
	name := op.Name()
	if n := len(e.locList); n > 0 && e.locList[n-1].loc == l && e.locList[n-1].op == name {
		return n
	}
	e.locList = append(e.locList, locKey{l, name})
	return len(e.locList)
}

// locKey is a node's location and the name of a Niro op at it.
type locKey struct{ loc, op string }

// appendLocRef appends " loc(#locN)" for opLoc's ref = N + 1.
func appendLocRef(b []byte, ref int) []byte {
	b = append(b, " loc(#loc"...)
	return append(strconv.AppendInt(b, int64(ref-1), 10), ')')
}

// writeLocs writes the location aliases after the module.
func (e *emitter) writeLocs(w *bufio.Writer) {
	var b []byte
	for i, k := range e.locList {
		b = append(b[:0], "#loc"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, " = loc("...)
		b = appendLocSpelling(b, k.loc, k.op)
		b = append(b, ")\n"...)
		w.Write(b)
	}
}
