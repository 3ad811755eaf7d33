package importer

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// Helpers that build ONNX models in memory for the tests.

const dyn = -1 // an unknown dimension in vi

// vi declares a tensor value; a negative dim is unknown, and dims given as
// strings via viParam are symbolic.
func vi(name string, elem DataType, dims ...int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		dim := &onnxpb.TensorShapeProto_Dimension{}
		if d >= 0 {
			dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &onnxpb.ValueInfoProto{
		Name: proto.String(name),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(elem)),
			Shape:    shape,
		}}},
	}
}

// viParam declares a tensor value whose dims are symbolic names or, for
// "", unknown.
func viParam(name string, elem DataType, dims ...string) *onnxpb.ValueInfoProto {
	v := vi(name, elem)
	shape := v.Type.GetTensorType().Shape
	for _, d := range dims {
		dim := &onnxpb.TensorShapeProto_Dimension{}
		if d != "" {
			dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return v
}

// viUnranked declares a tensor value of unknown rank.
func viUnranked(name string, elem DataType) *onnxpb.ValueInfoProto {
	v := vi(name, elem)
	v.Type.GetTensorType().Shape = nil
	return v
}

func node(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs}
}

func named(n *onnxpb.NodeProto, name string) *onnxpb.NodeProto {
	n.Name = proto.String(name)
	return n
}

func attrInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func attrFloat(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func attrString(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func attrTensor(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func attrGraph(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
}

// floats returns a FLOAT tensor stored in raw_data.
func floats(name string, dims []int64, vals ...float32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dtFloat)), RawData: raw}
}

// zeros returns a FLOAT tensor of the given shape filled with zeros.
func zeros(name string, dims ...int64) *onnxpb.TensorProto {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return floats(name, dims, make([]float32, n)...)
}

func graph(name string, nodes []*onnxpb.NodeProto, inputs, outputs []*onnxpb.ValueInfoProto, inits ...*onnxpb.TensorProto) *onnxpb.GraphProto {
	return &onnxpb.GraphProto{Name: proto.String(name), Node: nodes, Input: inputs, Output: outputs, Initializer: inits}
}

// model wraps a graph into a model importing ai.onnx at opset.
func model(opset int64, g *onnxpb.GraphProto) *onnxpb.ModelProto {
	return &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph:       g,
	}
}

func marshal(t testing.TB, m *onnxpb.ModelProto) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// importModel serializes m and imports it.
func importModel(t testing.TB, m *onnxpb.ModelProto, opts Options) (*niro.Module, error) {
	t.Helper()
	mod, _, err := ImportBytes(marshal(t, m), opts)
	return mod, err
}

// mustImport imports m and fails the test on error.
func mustImport(t testing.TB, m *onnxpb.ModelProto, opts Options) *niro.Module {
	t.Helper()
	mod, err := importModel(t, m, opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return mod
}

// entryOps returns the ops of the entry function's entry block.
func entryOps(mod *niro.Module) []niro.Op {
	return mod.Entry().Entry().Ops
}
