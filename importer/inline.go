package importer

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
)

// inline expands a call of a model-local function in place: the body's
// nodes are converted with the call's inputs and attributes bound.
func (c *converter) inline(nc *nodeCtx, fn *Function) error {
	if c.active[fn] {
		return nc.errorf("function %s calls itself (recursion cannot be inlined)", fn)
	}
	if nc.sc.depth > maxNesting {
		return nc.errorf("function calls nested more than %d levels", maxNesting)
	}
	c.active[fn] = true
	defer delete(c.active, fn)

	body := fn.Body
	if len(nc.args) > len(body.Inputs) {
		return nc.errorf("passes %d inputs to function %s, which takes %d", len(nc.args), fn, len(body.Inputs))
	}
	if len(nc.n.Outputs) > len(body.Outputs) {
		return nc.errorf("expects %d outputs from function %s, which returns %d", len(nc.n.Outputs), fn, len(body.Outputs))
	}
	opsets := Opsets{}
	for d, v := range c.m.Opsets {
		opsets[d] = v
	}
	for d, v := range fn.Opsets {
		opsets[d] = v
	}
	sc := &scope{
		vals:     map[*Value]niro.Value{},
		comps:    map[*Value]*composite{},
		absent:   map[*Value]bool{},
		opsets:   opsets,
		bindings: map[string]*Attr{},
		loc:      nc.e.loc + "/",
		depth:    nc.sc.depth + 1,
	}
	for i, in := range body.Inputs {
		if i < len(nc.args) && nc.comps[i] != nil {
			sc.comps[in] = nc.comps[i]
		} else if i < len(nc.args) && nc.have[i] {
			sc.vals[in] = nc.args[i]
		} else {
			sc.absent[in] = true
		}
	}
	for _, d := range fn.Defaults {
		sc.bindings[d.Name] = d
	}
	for _, a := range nc.attrs {
		sc.bindings[a.Name] = a
	}
	e := &emitter{blk: nc.e.blk}
	for _, n := range body.Nodes {
		if err := c.convertNode(n, e, sc); err != nil {
			return err
		}
	}
	for i, out := range nc.n.Outputs {
		if out == nil {
			continue
		}
		it, ok := sc.lookupItem(body.Outputs[i])
		if !ok {
			return nc.errorf("function %s output %q has no value", fn, body.Outputs[i].Name)
		}
		if err := c.checkItem(out.Type, it, nc.hintRef(), fmt.Sprintf("value %q", out.Name)); err != nil {
			return nc.errorf("%w", err)
		}
		nc.sc.bind(out, it)
	}
	return nil
}

// findFunction returns the model-local function a node calls, or nil.
func (c *converter) findFunction(n *Node) *Function {
	return c.m.funcs[funcKey{n.Domain, n.OpType, n.Overload}]
}
