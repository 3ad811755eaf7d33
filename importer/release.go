package importer

import "github.com/niro-dev/niro/niro"

// ConvertReleasing is [Convert] for a model that is converted once, as
// `niro emit` and `niro compile` convert it: it lets go of the main graph's
// nodes as it converts them, and of each node output once the last node
// reading it is converted, so that the decoded graph and the Niro IR made
// from it are not both held whole (for a chain of a million nodes they
// would be about 360 and 220 bytes a node; docs/performance.md, "Emit on a
// long chain"). The module is the one Convert makes.
//
// Afterwards the model's main graph keeps its inputs, outputs and
// initializers but has no nodes, the values' Uses are cleared, and the
// model cannot be converted again: Convert and ConvertReleasing fail on
// it. It still owns the memory maps the module's tensor data aliases;
// close it only when the module is no longer used.
func ConvertReleasing(m *Model, opts Options) (*niro.Module, error) {
	return convert(m, opts, true)
}

// memHook, when set (by tests), is called at the points where the import
// of a large main graph holds the most: once the main graph's nodes and
// outputs are made, before their inputs are resolved (the decoded nodes'
// input names and attributes are still held), and halfway through
// ConvertReleasing.
var memHook func(stage string)

// convertReleasing converts the main graph's nodes, releasing them as it
// goes (ConvertReleasing). outputSet holds the graph outputs, whose values
// are kept to the end.
func (c *converter) convertReleasing(g *Graph, e *emitter, sc *scope, outputSet map[*Value]bool) error {
	// Nothing reads a value's uses or the graph's name table from here on;
	// the uses would keep every converted node that reads a value alive
	// for as long as the value is (a graph input read by every node keeps
	// them all).
	g.scope = nil
	for _, v := range g.Inputs {
		v.Uses = nil
	}
	for _, v := range g.Initializers {
		v.Uses = nil
	}
	for _, n := range g.Nodes {
		for _, v := range n.Outputs {
			if v != nil {
				v.Uses = nil
			}
		}
		for _, v := range n.Inputs {
			if v != nil {
				v.pending++
			}
		}
		for _, v := range n.Implicit {
			v.pending++
		}
	}
	done := func(v *Value) {
		if v.pending--; v.pending == 0 && !outputSet[v] {
			delete(sc.vals, v)
			delete(sc.comps, v)
		}
	}
	for i, n := range g.Nodes {
		if memHook != nil && i == len(g.Nodes)/2 {
			memHook("half converted")
		}
		if err := c.convertNode(n, e, sc); err != nil {
			return err
		}
		for _, v := range n.Inputs {
			if v != nil {
				done(v)
			}
		}
		for _, v := range n.Implicit {
			done(v)
		}
		for _, v := range n.Outputs {
			if v != nil && v.pending == 0 && !outputSet[v] {
				delete(sc.vals, v)
				delete(sc.comps, v)
			}
		}
		// The node's output values keep it (as their Producer) until they
		// are released; what it refers to goes now.
		n.Inputs, n.Outputs, n.Attrs, n.Implicit = nil, nil, nil, nil
		g.Nodes[i] = nil
	}
	g.Nodes = nil
	return nil
}
