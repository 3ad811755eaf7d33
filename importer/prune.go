package importer

import "github.com/niro-dev/niro/niro"

// prune removes what conversion left unused: ops without side effects
// whose results nothing reads (the inputs of folded computations, a weight
// read only by a transpose that was done at import) and globals that no
// op reads and no input default names, so that the weights blob holds
// only what the compiled code uses.
func (c *converter) prune() {
	for _, f := range c.mod.Functions {
		if f.Body == nil {
			continue
		}
		for {
			uses := useCounts(f)
			removed := false
			var sweep func(r *niro.Region)
			sweep = func(r *niro.Region) {
				for _, b := range r.Blocks {
					kept := b.Ops[:0]
					for _, op := range b.Ops {
						if unused(op, uses) && pure(op) {
							removed = true
							continue
						}
						for _, sub := range op.Regions() {
							sweep(sub)
						}
						kept = append(kept, op)
					}
					b.Ops = kept
				}
			}
			sweep(f.Body)
			if !removed {
				break
			}
		}
	}
	read := map[string]bool{}
	for _, f := range c.mod.Functions {
		if l, ok := f.Attrs["input_defaults"].(niro.ListAttr); ok {
			for _, a := range l {
				if s, ok := a.(niro.StringAttr); ok {
					read[string(s)] = true
				}
			}
		}
		if f.Body == nil {
			continue
		}
		f.Body.Walk(func(op niro.Op) bool {
			if g, ok := op.(*niro.GetGlobal); ok {
				read[g.Global] = true
			}
			return true
		})
	}
	kept := c.mod.Globals[:0]
	for _, g := range c.mod.Globals {
		if read[g.Name] {
			kept = append(kept, g)
		}
	}
	c.mod.Globals = kept
}

// pure reports whether op may be removed when its results are unused.
func pure(op niro.Op) bool {
	switch op.(type) {
	case *niro.Const, *niro.GetGlobal, *niro.Transpose, *niro.TensorExtract, *niro.MatMul:
		return true
	case *niro.UnknownOp, *niro.Call, *niro.If, *niro.Branch, *niro.CondBranch, *niro.Return, *niro.Yield:
		return false
	}
	_, err := niro.InferResults(op) // the generic ops: pure by definition
	return err == nil || len(op.Results()) > 0 && len(op.Regions()) == 0 && len(op.Successors()) == 0
}

func unused(op niro.Op, uses []int32) bool {
	rs := op.Results()
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if int(r.ID) < len(uses) && uses[r.ID] > 0 {
			return false
		}
	}
	return true
}

// useCounts returns, indexed by value ID, how many operands of f's ops
// (nested regions included) read each value: what prune needs of
// niro.Users, in a few bytes a value instead of a map entry and a slice
// per value, which for a graph of a million nodes is the difference
// between 4 MB and 160 MB.
func useCounts(f *niro.Function) []int32 {
	var uses []int32
	f.Body.Walk(func(op niro.Op) bool {
		for _, v := range op.Operands() {
			for int(v.ID) >= len(uses) {
				uses = append(uses, 0)
			}
			uses[v.ID]++
		}
		return true
	})
	return uses
}
