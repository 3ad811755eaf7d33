package niro

import "fmt"

// checkRegion applies the region, block, terminator, op and dominance rules
// to r and its nested regions.
func (fv *funcVerifier) checkRegion(r *Region) {
	ri := fv.rinfo[r]
	if ri == nil {
		return
	}
	if len(r.Blocks) == 0 {
		// Unknown ops may own empty regions; If reports its own arms, and
		// an empty function body is reported before the walk.
		return
	}
	fv.computeDominators(r, ri)
	for bi, b := range r.Blocks {
		if b == nil || fv.blockRg[b] != ri {
			continue
		}
		bwhere := fv.where + ": " + fv.blockName(b)
		if bi > 0 && !ri.reachable[b] {
			fv.add(bwhere, "block is unreachable from the entry of its region")
		}
		if len(b.Ops) == 0 {
			fv.add(bwhere, "block has no terminator")
		} else if last := b.Ops[len(b.Ops)-1]; last != nil && !IsTerminator(last) {
			fv.add(bwhere, "block does not end with a terminator (last op is %s)", last.Name())
		}
		for i, op := range b.Ops {
			if op == nil {
				continue
			}
			where := opWhere(bwhere, i, op)
			if IsTerminator(op) && i != len(b.Ops)-1 {
				fv.add(where, "terminator %s must be the last op of its block", op.Name())
			}
			fv.checkTerminatorPlace(op, ri, where)
			fv.checkSuccessors(op, ri, r, where)
			fv.checkOperands(op, b, i, where)
			op.verify(&opVerifier{fv: fv, where: where})
			for _, sub := range op.Regions() {
				if sub != nil && fv.rinfo[sub] != nil && fv.rinfo[sub].owner == op {
					fv.checkRegion(sub)
				}
			}
		}
	}
}

// checkTerminatorPlace checks that exits match the region kind.
func (fv *funcVerifier) checkTerminatorPlace(op Op, ri *regionInfo, where string) {
	_, inIf := ri.owner.(*If)
	arm := "an if arm"
	if _, inLoop := ri.owner.(*Loop); inLoop {
		inIf, arm = true, "a loop body" // a single block, like an if arm
	}
	switch op := op.(type) {
	case *Return:
		if ri.owner != nil {
			fv.add(where, "return is not allowed in a nested region; use yield")
			return
		}
		outs := fv.f.Type.Outputs
		if len(op.Values) != len(outs) {
			fv.add(where, "%d-ary return in a function with %d outputs", len(op.Values), len(outs))
			return
		}
		for i, val := range op.Values {
			if !TypesEqual(val.Type, outs[i]) {
				fv.add(where, "returned value #%d (%s) has type %s, but output #%d is %s", i, val, typeString(val.Type), i, typeString(outs[i]))
			}
		}
	case *Yield:
		if ri.owner == nil {
			fv.add(where, "yield is not allowed in a function body; use return")
		}
	case *Branch, *CondBranch:
		if inIf {
			fv.add(where, "%s is not allowed directly in %s", op.Name(), arm)
		}
	case *UnknownOp:
		if inIf && len(op.Targets) > 0 {
			fv.add(where, "op with successors is not allowed directly in %s", arm)
		}
	}
}

// checkSuccessors checks branch targets and edge arguments.
func (fv *funcVerifier) checkSuccessors(op Op, ri *regionInfo, r *Region, where string) {
	edge := func(label string, target *Block, args []Value, checkArgs bool) {
		if target == nil {
			fv.add(where, "%s target is missing", label)
			return
		}
		if fv.blockRg[target] != ri {
			fv.add(where, "%s target %s is not a block of the same region", label, fv.blockName(target))
			return
		}
		if target == r.Blocks[0] {
			fv.add(where, "%s target %s is the entry block of its region", label, fv.blockName(target))
		}
		if !checkArgs {
			return
		}
		if len(args) != len(target.Args) {
			fv.add(where, "%s passes %d arguments to %s, which has %d", label, len(args), fv.blockName(target), len(target.Args))
			return
		}
		for i, a := range args {
			if !TypesEqual(a.Type, target.Args[i].Type) {
				fv.add(where, "%s argument #%d (%s) has type %s, but %s argument #%d is %s", label, i, a, typeString(a.Type), fv.blockName(target), i, typeString(target.Args[i].Type))
			}
		}
	}
	switch op := op.(type) {
	case *Branch:
		edge("branch", op.Target, op.Args, true)
	case *CondBranch:
		edge("true", op.True, op.TrueArgs, true)
		edge("false", op.False, op.FalseArgs, true)
	case *UnknownOp:
		for i, t := range op.Targets {
			edge(fmt.Sprintf("successor #%d", i), t, nil, false)
		}
	}
}

// checkOperands checks that every operand names a visible definition of the
// same type that dominates the use.
func (fv *funcVerifier) checkOperands(op Op, b *Block, idx int, where string) {
	for i, val := range op.Operands() {
		def, ok := fv.defs.get(val.ID)
		if !ok {
			fv.add(where, "operand #%d (%s) is not defined in this function", i, val)
			continue
		}
		if !TypesEqual(val.Type, def.typ) {
			fv.add(where, "operand #%d (%s) has type %s, but it is defined with type %s", i, val, typeString(val.Type), typeString(def.typ))
		}
		switch fv.visible(def, b, idx) {
		case notInScope:
			fv.add(where, "operand #%d (%s) is defined inside a region that does not enclose this use", i, val)
		case notDominating:
			fv.add(where, "operand #%d (%s) does not dominate this use", i, val)
		}
	}
}

type visibility int

const (
	visibleOK visibility = iota
	notInScope
	notDominating
)

func (fv *funcVerifier) visible(def defSite, useBB *Block, useIdx int) visibility {
	defRg := fv.blockRg[def.block]
	bb, idx := useBB, useIdx
	for {
		ri := fv.blockRg[bb]
		if ri == nil {
			return notInScope
		}
		if ri == defRg {
			break
		}
		if ri.owner == nil {
			return notInScope
		}
		bb, idx = ri.ownerBB, ri.ownerIdx
	}
	if def.block == bb {
		if int(def.index) < idx {
			return visibleOK
		}
		return notDominating
	}
	if !defRg.reachable[bb] || !defRg.reachable[def.block] {
		// Unreachable blocks are reported on their own.
		return visibleOK
	}
	for x := bb; x != nil; x = defRg.idom[x] {
		if x == def.block {
			return visibleOK
		}
		if defRg.idom[x] == x {
			break
		}
	}
	return notDominating
}

// computeDominators finds the blocks reachable from the entry and their
// immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm),
// so loops, including loops with no exit, are handled.
func (fv *funcVerifier) computeDominators(r *Region, ri *regionInfo) {
	entry := r.Blocks[0]
	if entry == nil {
		// Reported by collect; every other block is then unreachable.
		ri.reachable = map[*Block]bool{}
		ri.idom = map[*Block]*Block{}
		return
	}
	succs := func(b *Block) []*Block {
		t := b.Terminator()
		if t == nil {
			return nil
		}
		var out []*Block
		for _, s := range t.Successors() {
			if s != nil && fv.blockRg[s] == ri {
				out = append(out, s)
			}
		}
		return out
	}
	// Reverse postorder by iterative DFS.
	order := map[*Block]int{}
	var post []*Block
	visited := map[*Block]bool{entry: true}
	type frame struct {
		b    *Block
		next int
		s    []*Block
	}
	stack := []frame{{b: entry, s: succs(entry)}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.s) {
			s := top.s[top.next]
			top.next++
			if !visited[s] {
				visited[s] = true
				stack = append(stack, frame{b: s, s: succs(s)})
			}
			continue
		}
		post = append(post, top.b)
		stack = stack[:len(stack)-1]
	}
	rpo := make([]*Block, len(post))
	for i, b := range post {
		rpo[len(post)-1-i] = b
		order[b] = len(post) - 1 - i
	}
	preds := map[*Block][]*Block{}
	for _, b := range rpo {
		for _, s := range succs(b) {
			preds[s] = append(preds[s], b)
		}
	}
	idom := map[*Block]*Block{entry: entry}
	intersect := func(a, b *Block) *Block {
		for a != b {
			for order[a] > order[b] {
				a = idom[a]
			}
			for order[b] > order[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range rpo[1:] {
			var nd *Block
			for _, p := range preds[b] {
				if idom[p] == nil {
					continue
				}
				if nd == nil {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd != nil && idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	ri.reachable = visited
	ri.idom = idom
}
