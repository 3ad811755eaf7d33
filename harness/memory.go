package harness

import (
	"fmt"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// CheckMemory checks, before anything is compiled or allocated, that every
// tensor of m's functions with a static shape — each input, each output and
// each intermediate an op defines — fits the tensor size limit
// (tensorio.MaxBytes, niro's --max-memory). The harness allocates the
// inputs and outputs and the compiled model its intermediates; a model that
// declares a tensor too large is an error naming it, not an out-of-memory
// crash.
func CheckMemory(m *niro.Module) error {
	for _, f := range m.Functions {
		for i, t := range f.Type.Inputs {
			if err := checkType(t, func() string { return f.Name + ": input " + ioName(f.InputNames, i) }); err != nil {
				return err
			}
		}
		for i, t := range f.Type.Outputs {
			if err := checkType(t, func() string { return f.Name + ": output " + ioName(f.OutputNames, i) }); err != nil {
				return err
			}
		}
		var err error
		f.Body.Walk(func(op niro.Op) bool {
			for _, v := range op.Results() {
				err = checkType(v.Type, func() string {
					where := ""
					if loc := op.Location(); loc != "" {
						where = fmt.Sprintf(" (%s)", loc)
					}
					return fmt.Sprintf("%s: %s, the result of %s%s", f.Name, v, op.Name(), where)
				})
				if err != nil {
					return false
				}
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func checkType(t niro.Type, what func() string) error {
	tt, ok := t.(niro.TensorType)
	if !ok || !tt.HasStaticShape() {
		return nil
	}
	return tensorio.CheckSize(what(), tt.Elem, tt.Dims)
}

func ioName(names []*string, i int) string {
	if i < len(names) && names[i] != nil {
		return fmt.Sprintf("%q", *names[i])
	}
	return fmt.Sprintf("#%d", i)
}

// checkBuffers checks the sizes of a Spec's buffers against the limit.
func (s *Spec) checkBuffers() error {
	for i, b := range s.Inputs {
		if err := tensorio.CheckBytes(fmt.Sprintf("input %d", i), b.Bytes); err != nil {
			return err
		}
	}
	for i, b := range s.Outputs {
		if err := tensorio.CheckBytes(fmt.Sprintf("output %d", i), b.Bytes); err != nil {
			return err
		}
	}
	return nil
}
