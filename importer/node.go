package importer

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// nodeCtx carries what the op handlers need about one node.
type nodeCtx struct {
	c     *converter
	n     *Node
	e     *emitter
	sc    *scope
	opset int64
	args  []niro.Value // one per declared input; zero Value where absent
	have  []bool
	// comps holds, per input of sequence or optional type, its value
	// (composite.go); have is true and args holds no value there.
	comps  []*composite
	attrs  []*Attr // with function attribute references resolved
	domain string
	// yields holds, per region of an op kept as an UnknownOp, the values
	// its subgraph yields.
	yields [][]niro.Value
	// err is the first error of a registered converter (see fail).
	err error
	// reason says why a registered op stays an UnknownOp (see notYet).
	reason string
}

// errorf returns an error naming the node, its op type and its opset.
func (nc *nodeCtx) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", nc.ref(), fmt.Errorf(format, args...))
}

func (nc *nodeCtx) ref() string {
	n := nc.n
	op := n.OpType
	if nc.domain != "" {
		op = nc.domain + "." + op
	}
	var who string
	if n.Name != "" {
		who = fmt.Sprintf("node %q", n.Name)
	} else {
		who = fmt.Sprintf("node #%d", n.Index)
	}
	if nc.sc.loc != "" {
		who = fmt.Sprintf("%s in function call %s", who, strings.TrimSuffix(nc.sc.loc, "/"))
	}
	if nc.opset == 0 {
		return fmt.Sprintf("%s (%s, domain not imported)", who, op)
	}
	return fmt.Sprintf("%s (%s, opset %d)", who, op, nc.opset)
}

// attr returns the node attribute named name, or nil.
func (nc *nodeCtx) attr(name string) *Attr {
	for _, a := range nc.attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// input returns the Niro value of input i, and whether it is present.
func (nc *nodeCtx) input(i int) (niro.Value, bool) {
	if i >= len(nc.args) || !nc.have[i] {
		return niro.Value{}, false
	}
	return nc.args[i], true
}

// setResult records the Niro value of node output i.
func (nc *nodeCtx) setResult(i int, v niro.Value) {
	if i < len(nc.n.Outputs) && nc.n.Outputs[i] != nil {
		nc.sc.vals[nc.n.Outputs[i]] = v
	}
}

// declared returns the declared Niro type of output i, if it has one that
// is a tensor type.
func (nc *nodeCtx) declared(i int) (niro.TensorType, bool, error) {
	if i >= len(nc.n.Outputs) || nc.n.Outputs[i] == nil || nc.n.Outputs[i].Type == nil {
		return niro.TensorType{}, false, nil
	}
	v := nc.n.Outputs[i]
	t, err := nc.c.tensorType(v.Type, fmt.Sprintf("value %q", v.Name))
	if err != nil {
		return niro.TensorType{}, false, err
	}
	return t, true, nil
}

// resultType combines an inferred result type with output i's declared
// type, a hint (hints.go): only an element type that differs is an error.
func (nc *nodeCtx) resultType(i int, inferred niro.TensorType) (niro.TensorType, error) {
	d, ok, err := nc.declared(i)
	if err != nil {
		return inferred, nc.errorf("%v", err)
	}
	if !ok {
		return inferred, nil
	}
	name := nc.n.Outputs[i].Name
	if d.Elem != niro.InvalidScalar && d.Elem != inferred.Elem {
		return inferred, nc.errorf("output %q is declared with element type %s, but the op produces %s", name, d.Elem, inferred.Elem)
	}
	return nc.c.hint(nc.outputWhere(i), nc.n.Outputs[i].Type, d, inferred), nil
}

// tensorOf returns the tensor type of a value.
func tensorOf(v niro.Value) niro.TensorType {
	t, _ := v.Type.(niro.TensorType)
	return t
}

// checkAttrs rejects attributes the op does not define at this opset.
func (nc *nodeCtx) checkAttrs(allowed ...string) error {
	for _, a := range nc.attrs {
		ok := false
		for _, name := range allowed {
			ok = ok || a.Name == name
		}
		if !ok {
			return nc.errorf("attribute %q is not defined for %s at opset %d", a.Name, nc.n.OpType, nc.opset)
		}
	}
	return nil
}

func (nc *nodeCtx) checkNewest() error {
	if nc.opset > newestOpset {
		return nc.errorf("opset %d is newer than the newest opset niro knows (%d)", nc.opset, newestOpset)
	}
	return nil
}
