package opt

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// maxConstKey bounds the literal bytes cse compares: larger constants
// (weights) are left alone.
const maxConstKey = 4096

// opKey returns a string that two pure ops share exactly when they compute
// the same results from the same operands: the op's Go type and every
// field but its results and location, plus the result types.
func opKey(op niro.Op) (string, bool) {
	if c, ok := op.(*niro.Const); ok {
		if b, ok := c.Lit.(niro.BytesLit); ok && len(b) > maxConstKey {
			return "", false
		}
	}
	res := map[niro.ValueID]bool{}
	var sb strings.Builder
	for _, r := range op.Results() {
		res[r.ID] = true
		sb.WriteString(r.Type.String())
		sb.WriteString(";")
	}
	v := reflect.ValueOf(op).Elem()
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	valueType := reflect.TypeOf(niro.Value{})
	for i := 0; i < cp.NumField(); i++ {
		fld := cp.Field(i)
		switch {
		case fld.Type() == reflect.TypeOf(niro.Loc{}):
			fld.Set(reflect.Zero(fld.Type()))
		case fld.Type() == valueType:
			if val := fld.Interface().(niro.Value); res[val.ID] {
				fld.Set(reflect.Zero(valueType))
			}
		case fld.Kind() == reflect.Slice && fld.Type().Elem() == valueType:
			// Call and If results; operand lists keep their IDs.
			vs := fld.Interface().([]niro.Value)
			if len(vs) > 0 && res[vs[0].ID] {
				fld.Set(reflect.Zero(fld.Type()))
			}
		}
	}
	fmt.Fprintf(&sb, "%T%v", op, cp.Interface())
	return sb.String(), true
}

// cse merges a pure op with an identical earlier one in the same block or
// in a block that encloses it (an If arm sees its owner's values).
func cse(f *niro.Function) error {
	uses := niro.Users(f)
	var walk func(r *niro.Region, outer map[string]niro.Op)
	walk = func(r *niro.Region, outer map[string]niro.Op) {
		for _, b := range r.Blocks {
			seen := map[string]niro.Op{}
			for k, v := range outer {
				seen[k] = v
			}
			kept := b.Ops[:0]
			for _, op := range b.Ops {
				for _, sub := range op.Regions() {
					walk(sub, seen) // the values before op dominate its regions
				}
				if !pure(op) {
					kept = append(kept, op)
					continue
				}
				key, ok := opKey(op)
				if !ok {
					kept = append(kept, op)
					continue
				}
				if prev, dup := seen[key]; dup {
					for i, r := range op.Results() {
						replaceAll(f, uses, r, prev.Results()[i])
					}
					continue
				}
				seen[key] = op
				kept = append(kept, op)
			}
			b.Ops = kept
		}
	}
	walk(f.Body, nil)
	return nil
}
