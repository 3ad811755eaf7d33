package importer

import (
	"math"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
	"google.golang.org/protobuf/proto"
)

// Helpers for tests that run imported models with the reference
// interpreter and compare the values with Go computations.

// modelOpsets wraps g into a model importing the given domains ("" is
// ai.onnx) at the given opsets.
func modelOpsets(g *onnxpb.GraphProto, opsets map[string]int64) *onnxpb.ModelProto {
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g}
	for d, v := range opsets {
		m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(d), Version: proto.Int64(v)})
	}
	return m
}

// domainNode is node in domain.
func domainNode(domain, op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	n := node(op, ins, outs, attrs...)
	n.Domain = proto.String(domain)
	return n
}

// vals returns a tensor of element type e and shape dims holding vs
// (rounded to e).
func vals(e niro.ScalarType, dims []int64, vs ...float64) tensorio.Tensor {
	k := &known{elem: e, dims: dims}
	for _, v := range vs {
		if e.IsFloat() {
			k.floats = append(k.floats, v)
		} else {
			k.ints = append(k.ints, int64(v))
		}
	}
	return tensorio.Tensor{Elem: e, Dims: dims, Data: k.encode()}
}

// tensorProto returns an initializer or attribute tensor named name.
func tensorProto(name string, t tensorio.Tensor) *onnxpb.TensorProto {
	dt, ok := tensorio.ONNXDataType(t.Elem)
	if !ok {
		panic("no ONNX type for " + t.Elem.String())
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: t.Dims, DataType: proto.Int32(dt), RawData: t.Data}
}

// runValues imports m, runs it with the interpreter on ins and returns
// each output's values as float64s.
func runValues(t *testing.T, m *onnxpb.ModelProto, ins ...tensorio.Tensor) [][]float64 {
	t.Helper()
	mod := mustImport(t, m, Options{})
	for _, op := range entryOps(mod) {
		if u, ok := op.(*niro.UnknownOp); ok {
			t.Fatalf("op %s stays unknown: %v", u.Name(), u.Attrs[ReasonAttr])
		}
	}
	outs, err := interp.Run(mod, ins, interp.Options{})
	if err != nil {
		t.Fatalf("interp: %v", err)
	}
	res := make([][]float64, len(outs))
	for i, o := range outs {
		if o.Elem == niro.F16 {
			for j := 0; j+1 < len(o.Data); j += 2 {
				res[i] = append(res[i], tensorio.F16ToFloat64(uint16(o.Data[j])|uint16(o.Data[j+1])<<8))
			}
			continue
		}
		k := knownOfTensor(o)
		if o.Elem.IsFloat() {
			res[i] = k.floats
		} else {
			for _, v := range k.ints {
				res[i] = append(res[i], float64(v))
			}
		}
	}
	return res
}

// checkClose fails unless got and want have the same length and every
// |got − want| ≤ tol·max(1, |want|) (tol 0: bit-equal values, NaN equal
// to NaN).
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(g) && math.IsNaN(w) {
			continue
		}
		if tol == 0 && g != w || math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			t.Errorf("%s[%d] = %v, want %v", what, i, g, w)
		}
	}
}

// unknownReason imports m and returns the reason of its one UnknownOp.
func unknownReason(t *testing.T, m *onnxpb.ModelProto) string {
	t.Helper()
	for _, op := range entryOps(mustImport(t, m, Options{})) {
		if u, ok := op.(*niro.UnknownOp); ok {
			r, _ := u.Attrs[ReasonAttr].(niro.StringAttr)
			return string(r)
		}
	}
	t.Fatal("no UnknownOp")
	return ""
}

// runRaw runs mod with the interpreter.
func runRaw(t *testing.T, mod *niro.Module, ins ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	outs, err := interp.Run(mod, ins, interp.Options{})
	if err != nil {
		t.Fatalf("interp: %v", err)
	}
	return outs
}
