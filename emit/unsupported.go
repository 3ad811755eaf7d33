package emit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// notCompilableAttr is the UnknownOp attribute (importer.ReasonAttr) that
// says why a node of an op niro converts in general stays unknown.
const notCompilableAttr = "niro.not_compilable"

// UnsupportedError reports the UnknownOps of a module: the ONNX ops niro
// cannot compile, grouped by op type, once each. [Module] returns it
// before lowering anything, so ops downstream of an unknown one add no
// errors of their own.
type UnsupportedError struct {
	// NotYet lists the op types niro does not convert yet, most nodes
	// first.
	NotYet []UnsupportedOp
	// NotCompilable lists the nodes of ops niro converts in general but
	// not in this instance, grouped by op type and reason: the
	// niro.not_compilable attribute, or an element type with no MLIR
	// lowering.
	NotCompilable []UnsupportedOp
}

// UnsupportedOp is one group of UnknownOps.
type UnsupportedOp struct {
	// Op is the ONNX op type, prefixed with its domain unless it is the
	// default one: "Conv", "com.microsoft.FusedConv".
	Op string
	// Nodes counts the nodes of the group; First is the location (ONNX
	// node name) of the first one in program order.
	Nodes int
	First string
	// Reason says why the op is not compilable here; "" in NotYet.
	Reason string
}

// Unsupported returns an *UnsupportedError naming every UnknownOp of m,
// inside If, Loop and Scan bodies too, or nil when there is none.
func Unsupported(m *niro.Module) error {
	if m == nil {
		return nil
	}
	type key struct{ op, reason string }
	groups := map[key]*UnsupportedOp{}
	var order []key
	for _, f := range m.Functions {
		if f == nil || f.Body == nil {
			continue
		}
		f.Body.Walk(func(op niro.Op) bool {
			u, ok := op.(*niro.UnknownOp)
			if !ok {
				return true
			}
			k := key{op: onnxOpName(u.OpName)}
			if r, ok := u.Attrs[notCompilableAttr].(niro.StringAttr); ok {
				k.reason = string(r)
			} else {
				k.reason = typeReason(u)
			}
			g := groups[k]
			if g == nil {
				g = &UnsupportedOp{Op: k.op, First: u.Location(), Reason: k.reason}
				groups[k] = g
				order = append(order, k)
			}
			g.Nodes++
			return true
		})
	}
	if len(groups) == 0 {
		return nil
	}
	e := &UnsupportedError{}
	for _, k := range order {
		if k.reason == "" {
			e.NotYet = append(e.NotYet, *groups[k])
		} else {
			e.NotCompilable = append(e.NotCompilable, *groups[k])
		}
	}
	byCount := func(s []UnsupportedOp) {
		sort.SliceStable(s, func(i, j int) bool {
			if s[i].Nodes != s[j].Nodes {
				return s[i].Nodes > s[j].Nodes
			}
			return s[i].Op < s[j].Op
		})
	}
	byCount(e.NotYet)
	byCount(e.NotCompilable)
	return e
}

// typeReason names an element type of the op's operands or results that
// has no MLIR lowering: the reason an op niro converts in general stays
// unknown (a Cast to float8), or "".
func typeReason(u *niro.UnknownOp) string {
	for _, v := range append(append([]niro.Value(nil), u.Args...), u.Res...) {
		var elem niro.ScalarType
		switch t := v.Type.(type) {
		case niro.TensorType:
			elem = t.Elem
		case niro.ScalarType:
			elem = t
		default:
			continue
		}
		if elem == niro.InvalidScalar {
			continue
		}
		if _, err := scalarType(elem); err != nil {
			return err.Error()
		}
	}
	return ""
}

// onnxOpName turns an UnknownOp name back into the ONNX op type:
// "onnx.Conv" is Conv; other domains keep their prefix.
func onnxOpName(name string) string {
	if s, ok := strings.CutPrefix(name, "onnx."); ok {
		return s
	}
	return name
}

// Error reads, for example:
//
//	2 ONNX op types are not supported yet: Conv (62 nodes, first "conv1"), NonZero (node "nz"); not compilable in this instance: Reshape (node "r1": input 1 ("shape") must be known at compile time, ...)
func (e *UnsupportedError) Error() string {
	var parts []string
	if n := len(e.NotYet); n > 0 {
		var ops []string
		for _, g := range e.NotYet {
			ops = append(ops, g.Op+" ("+g.where()+")")
		}
		verb := "types are"
		if n == 1 {
			verb = "type is"
		}
		parts = append(parts, fmt.Sprintf("%d ONNX op %s not supported yet: %s", n, verb, strings.Join(ops, ", ")))
	}
	if len(e.NotCompilable) > 0 {
		var ops []string
		for _, g := range e.NotCompilable {
			ops = append(ops, g.Op+" ("+g.where()+": "+g.Reason+")")
		}
		parts = append(parts, "not compilable in this instance: "+strings.Join(ops, ", "))
	}
	return strings.Join(parts, "; ")
}

// where says how many nodes a group has and which comes first.
func (g UnsupportedOp) where() string {
	switch {
	case g.Nodes == 1 && g.First != "":
		return fmt.Sprintf("node %q", g.First)
	case g.Nodes == 1:
		return "1 node"
	case g.First != "":
		return fmt.Sprintf("%d nodes, first %q", g.Nodes, g.First)
	}
	return fmt.Sprintf("%d nodes", g.Nodes)
}
