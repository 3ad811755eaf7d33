package importer

import "github.com/niro-dev/niro/niro"

// InputDefaultsAttr is the entry function attribute that names, for each
// graph input, the global holding its default: an ONNX initializer that is
// also a graph input may be left out by the caller, and then takes the
// initializer's value. An empty string means the input has no default.
const InputDefaultsAttr = "input_defaults"

// InputDefault returns the type and bytes of entry input i's default, as
// the importer recorded it in InputDefaultsAttr, and whether it has one.
func InputDefault(m *niro.Module, f *niro.Function, i int) (niro.TensorType, []byte, bool) {
	defaults, _ := f.Attrs[InputDefaultsAttr].(niro.ListAttr)
	if i >= len(defaults) {
		return niro.TensorType{}, nil, false
	}
	name, _ := defaults[i].(niro.StringAttr)
	if name == "" {
		return niro.TensorType{}, nil, false
	}
	g, _ := m.Lookup(string(name))
	if g == nil {
		return niro.TensorType{}, nil, false
	}
	t, ok1 := g.Type.(niro.TensorType)
	data, ok2 := g.Init.(niro.BytesLit)
	if !ok1 || !ok2 {
		return niro.TensorType{}, nil, false
	}
	return t, data, true
}

// CheckOptions reports a --shape entry that names no graph input of m and
// a --dim entry that names no dimension parameter of m, as Convert does,
// so that a caller can tell these usage errors apart before converting.
func CheckOptions(m *Model, opts Options) error { return checkOptions(m, opts) }
