// Package opt holds niro's passes over Niro IR modules and a small pass
// manager that verifies the module after every pass, as cmd/compile's
// checkFunc runs after every pass with checks on.
//
// Passes: dce (dead-code elimination), cse (common-subexpression
// elimination of pure ops), fold (constant folding through the reference
// interpreter, bounded by the result size) and simplify (algebraic
// identities that are exact in IEEE arithmetic). docs/passes.md describes
// each one.
package opt

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// Pass is one transformation of a module.
type Pass struct {
	Name string
	Doc  string
	Run  func(m *niro.Module, o Options) error
}

// Options configure the passes.
type Options struct {
	// FoldLimit bounds the bytes of a result that fold creates; 0 means
	// DefaultFoldLimit.
	FoldLimit int64
}

// DefaultFoldLimit is fold's default bound on a folded result (1 MiB), so
// that folding never blows up weights.
const DefaultFoldLimit = 1 << 20

// DefaultPipeline is the pipeline `niro opt` runs without -p.
const DefaultPipeline = "simplify,fold,cse,dce"

var passes = []Pass{
	{"dce", "remove pure ops whose results are unused", func(m *niro.Module, o Options) error { return forFuncs(m, dce) }},
	{"cse", "merge identical pure ops on the same operands", func(m *niro.Module, o Options) error { return forFuncs(m, cse) }},
	{"fold", "evaluate ops whose operands are all constants (interpreter; bounded size)", fold},
	{"simplify", "exact algebraic identities: x·1, x+0 (integers), x+(−0), x−(+0), casts to the same type, reshape of reshape, transpose of transpose, no-op reshape/broadcast", func(m *niro.Module, o Options) error { return forFuncs(m, simplify) }},
}

// Passes returns every pass.
func Passes() []Pass { return append([]Pass(nil), passes...) }

// Parse returns the passes named in a comma-separated list.
func Parse(list string) ([]Pass, error) {
	var out []Pass
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, p := range passes {
			if p.Name == name {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			var names []string
			for _, p := range passes {
				names = append(names, p.Name)
			}
			return nil, fmt.Errorf("unknown pass %q (passes: %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Run runs the passes in order and verifies the module after each one; a
// pass that leaves the module invalid is reported by name.
func Run(m *niro.Module, ps []Pass, o Options) error {
	if err := niro.Verify(m); err != nil {
		return fmt.Errorf("before the passes: %w", err)
	}
	for _, p := range ps {
		if err := p.Run(m, o); err != nil {
			return fmt.Errorf("pass %s: %w", p.Name, err)
		}
		if err := niro.Verify(m); err != nil {
			return fmt.Errorf("pass %s left an invalid module: %w", p.Name, err)
		}
	}
	return nil
}

func forFuncs(m *niro.Module, fn func(f *niro.Function) error) error {
	for _, f := range m.Functions {
		if f.Body == nil {
			continue
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("@%s: %w", f.Name, err)
		}
	}
	return nil
}

// pure reports whether op computes its results from its operands alone,
// with no regions or control flow: it may be removed when unused and
// merged with an identical op.
func pure(op niro.Op) bool {
	switch op.(type) {
	case *niro.Call, *niro.If, *niro.Branch, *niro.CondBranch, *niro.Return, *niro.Yield, *niro.UnknownOp:
		return false
	}
	return true
}

// replaceAll makes every use of from (by ID) read to, in f.
func replaceAll(f *niro.Function, uses map[niro.ValueID][]niro.Use, from, to niro.Value) {
	for _, u := range uses[from.ID] {
		niro.SetOperand(u.Op, u.Index, to)
	}
	uses[to.ID] = append(uses[to.ID], uses[from.ID]...)
	delete(uses, from.ID)
}

// eachBlock calls fn for every block of the region, nested ones after
// their owner's block.
func eachBlock(r *niro.Region, fn func(b *niro.Block)) {
	if r == nil {
		return
	}
	for _, b := range r.Blocks {
		fn(b)
		for _, op := range b.Ops {
			for _, sub := range op.Regions() {
				eachBlock(sub, fn)
			}
		}
	}
}

// dce removes unused pure ops until none is left.
func dce(f *niro.Function) error {
	for {
		uses := niro.Users(f)
		removed := false
		eachBlock(f.Body, func(b *niro.Block) {
			kept := b.Ops[:0]
			for _, op := range b.Ops {
				if pure(op) && unused(op, uses) {
					removed = true
					continue
				}
				kept = append(kept, op)
			}
			b.Ops = kept
		})
		if !removed {
			return nil
		}
	}
}

func unused(op niro.Op, uses map[niro.ValueID][]niro.Use) bool {
	for _, r := range op.Results() {
		if len(uses[r.ID]) > 0 {
			return false
		}
	}
	return true
}
