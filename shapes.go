package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/importer"
	"github.com/niro-dev/niro/niro"
)

// declaredDims returns the dimensions an ONNX model declares for its graph
// input name, with their parameter names ("N"), or nil when the model is not
// ONNX, has no such input or declares no shape for it.
func (mf *modelFile) declaredDims(name string) []importer.Dim {
	if mf.onnx == nil || mf.onnx.Graph == nil || name == "" {
		return nil
	}
	for _, in := range mf.onnx.Graph.Inputs {
		if in.Name == name && in.Type != nil && in.Type.Ranked {
			return in.Type.Dims
		}
	}
	return nil
}

// wantShape spells the shape the model wants for entry input i, as the
// model declares it ("Nx64"), else as its Niro type has it ("?x64").
func (mf *modelFile) wantShape(f *niro.Function, i int) string {
	if dims := mf.declaredDims(inputName(f, i)); dims != nil {
		parts := make([]string, len(dims))
		for j, d := range dims {
			parts[j] = d.String()
		}
		return shapeString(parts)
	}
	if t, ok := f.Type.Inputs[i].(niro.TensorType); ok {
		return niroShape(t)
	}
	return f.Type.Inputs[i].String()
}

// shapeString joins dimensions as 2x3; rank 0 is "scalar".
func shapeString(parts []string) string {
	if len(parts) == 0 {
		return "scalar"
	}
	return strings.Join(parts, "x")
}

// niroShape spells a tensor type's shape as 2x?x3.
func niroShape(t niro.TensorType) string {
	parts := make([]string, len(t.Dims))
	for j, d := range t.Dims {
		if d == niro.Dynamic {
			parts[j] = "?"
		} else {
			parts[j] = strconv.FormatInt(d, 10)
		}
	}
	return shapeString(parts)
}

// displayName names entry input or output i for messages: its quoted name,
// else #i.
func displayName(names []*string, i int) string {
	if i < len(names) && names[i] != nil && *names[i] != "" {
		return strconv.Quote(*names[i])
	}
	return "#" + strconv.Itoa(i)
}

// requireStatic fails, before anything is lowered, when an input or output
// of m's entry function has a dynamic dimension: niro compiles static shapes
// only. The error is one line naming the input, the dimension and the flag
// that binds it.
func (mf *modelFile) requireStatic(m *niro.Module) error {
	f := m.Entry()
	if f == nil {
		return fmt.Errorf("%s: no entry function", mf.path)
	}
	for i, ty := range f.Type.Inputs {
		t, ok := ty.(niro.TensorType)
		if !ok || t.HasStaticShape() {
			continue
		}
		name := inputName(f, i)
		if t.Unranked {
			return fmt.Errorf("%s: input %s has an unknown rank; niro compiles static shapes only: fix it with --shape %s=DIMS", mf.path, displayName(f.InputNames, i), flagName(name, i))
		}
		declared := mf.declaredDims(name)
		for j, d := range t.Dims {
			if d != niro.Dynamic {
				continue
			}
			if j < len(declared) && declared[j].Param != "" {
				p := declared[j].Param
				return fmt.Errorf("%s: input %s has dynamic dimension %s (axis %d of %s); niro compiles static shapes only: bind it with --dim %s=VALUE or --shape %s=DIMS",
					mf.path, displayName(f.InputNames, i), p, j, mf.wantShape(f, i), p, flagName(name, i))
			}
			if mf.onnx == nil {
				return fmt.Errorf("%s: input %s has a dynamic dimension (axis %d of %s); niro compiles static shapes only: give the function a static type", mf.path, displayName(f.InputNames, i), j, niroShape(t))
			}
			return fmt.Errorf("%s: input %s has an unnamed dynamic dimension (axis %d of %s); niro compiles static shapes only: fix it with --shape %s=DIMS",
				mf.path, displayName(f.InputNames, i), j, mf.wantShape(f, i), flagName(name, i))
		}
	}
	for i, ty := range f.Type.Outputs {
		if t, ok := ty.(niro.TensorType); ok && !t.HasStaticShape() {
			return fmt.Errorf("%s: output %s has dynamic shape %s although every input's shape is static (its extent depends on values computed at run time); niro compiles static shapes only",
				mf.path, displayName(f.OutputNames, i), niroShape(t))
		}
	}
	return nil
}

// flagName is how --shape names entry input i.
func flagName(name string, i int) string {
	if name == "" {
		return "INPUT" + strconv.Itoa(i)
	}
	return name
}
