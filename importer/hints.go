package importer

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// Declared types are hints (docs/importer.md, "Declared types are hints"):
// the shape a model declares for a value (value_info, a graph output, a
// node output's declaration) refines the shape the importer infers where
// the two agree, and gives way to it, with a warning, where they do not.
// An element type that differs stays an error, as in ONNX Runtime.

// Warnings returns what the importer tolerated in the model: the
// opset_import entries it reconciled when the model was loaded, then the
// declared types the last conversion (Convert, ConvertReleasing) overrode
// with the inferred ones, one line each, in the order they were found.
func (m *Model) Warnings() []string {
	out := make([]string, 0, len(m.loadWarnings)+len(m.convWarnings))
	out = append(out, m.loadWarnings...)
	return append(out, m.convWarnings...)
}

// warnf records a warning of the conversion; a line already recorded
// (a function body inlined twice, a loop body unrolled) is not repeated.
func (c *converter) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.warned[msg] {
		return
	}
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	c.warned[msg] = true
	c.warnings = append(c.warnings, msg)
}

// hint combines the inferred type of a value with its declared type decl
// (of Niro type declared): the declared type refines the inferred one
// where they agree (an unknown rank or a dynamic extent made known); where
// they contradict each other (a rank, a static extent) the inferred type
// is kept and a warning is recorded: "WHERE declared D, inferred I; using
// the inferred type". The caller has checked the element types.
func (c *converter) hint(where string, decl *Type, declared, inferred niro.TensorType) niro.TensorType {
	t, err := refine(inferred, declared)
	if err == nil {
		return t
	}
	if declared.Elem == niro.InvalidScalar {
		declared.Elem = inferred.Elem
	}
	c.warnf("%s declared %s, inferred %s; using the inferred type", where, declared, inferred)
	if c.hinted == nil {
		c.hinted = map[*Type]bool{}
	}
	c.hinted[decl] = true
	return inferred
}

// hintRef names the node for warnings: node "N" (Op), or node #i (Op)
// for an unnamed one, with the subgraph and the function call it is in.
func (nc *nodeCtx) hintRef() string {
	n := nc.n
	op := n.OpType
	if nc.domain != "" {
		op = nc.domain + "." + op
	}
	who := fmt.Sprintf("node %q", n.Name)
	if n.Name == "" {
		who = fmt.Sprintf("node #%d", n.Index)
		if loc := strings.TrimSuffix(nc.sc.anonLoc, "/"); loc != "" {
			who += " of " + loc
		}
	}
	if nc.sc.loc != "" {
		who += " in function call " + strings.TrimSuffix(nc.sc.loc, "/")
	}
	return fmt.Sprintf("%s (%s)", who, op)
}

// outputWhere names output i of the node for warnings.
func (nc *nodeCtx) outputWhere(i int) string {
	return fmt.Sprintf("%s: output %q", nc.hintRef(), nc.n.Outputs[i].Name)
}
