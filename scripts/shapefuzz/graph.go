package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// opset is the ONNX opset every drawn model imports (ReduceX, Pad and
// Resize take their axes, pads and scales as inputs; Resize has
// half_pixel_symmetric).
const opset = 19

// graph accumulates the nodes, initializers, inputs and outputs of one or
// more draws; each draw names its values with its own prefix, so that
// several independent draws share one model (one compile).
type graph struct {
	nodes  []*onnxpb.NodeProto
	inits  []*onnxpb.TensorProto
	ins    []*onnxpb.ValueInfoProto
	outs   []*onnxpb.ValueInfoProto
	owners []int // per output: the index of the draw it belongs to
}

// builder writes one draw into a graph: its random source, its name
// prefix, and a counter for fresh value names.
type builder struct {
	g      *graph
	r      *rand.Rand
	prefix string
	draw   int
	n      int
	seed   uint64 // for initializer data
}

func (b *builder) fresh(what string) string {
	b.n++
	return fmt.Sprintf("%s%s%d", b.prefix, what, b.n)
}

// input declares a graph input of the given type and shape.
func (b *builder) input(elem onnxpb.TensorProto_DataType, dims ...int64) string {
	name := b.fresh("x")
	b.g.ins = append(b.g.ins, valueInfo(name, elem, dims))
	return name
}

// output marks name as a graph output (its shape is inferred).
func (b *builder) output(name string, elem onnxpb.TensorProto_DataType) {
	b.g.outs = append(b.g.outs, valueInfo(name, elem, nil))
	b.g.owners = append(b.g.owners, b.draw)
}

// node adds a node of op type op reading ins and returns its output.
func (b *builder) node(op string, ins []string, attrs ...*onnxpb.AttributeProto) string {
	out := b.fresh(strings.ToLower(op))
	b.g.nodes = append(b.g.nodes, &onnxpb.NodeProto{Name: proto.String(out), OpType: proto.String(op),
		Input: ins, Output: []string{out}, Attribute: attrs})
	return out
}

// weight adds a random initializer in [-1, 1).
func (b *builder) weight(elem onnxpb.TensorProto_DataType, dims ...int64) string {
	b.seed++
	t, err := tensorio.Random(scalar(elem), dims, b.seed)
	if err != nil {
		panic(err)
	}
	return b.init(elem, dims, t.Data)
}

// floats adds an initializer holding vals in elem.
func (b *builder) floats(elem onnxpb.TensorProto_DataType, dims []int64, vals []float64) string {
	return b.init(elem, dims, floatBytes(scalar(elem), vals))
}

// ints adds an int64 initializer.
func (b *builder) ints(vals ...int64) string {
	data := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
	}
	return b.init(onnxpb.TensorProto_INT64, []int64{int64(len(vals))}, data)
}

func (b *builder) init(elem onnxpb.TensorProto_DataType, dims []int64, raw []byte) string {
	name := b.fresh("w")
	b.g.inits = append(b.g.inits, &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(elem)),
		Dims: append([]int64{}, dims...), RawData: raw})
	return name
}

// pick returns one of xs at random.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// chance is true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func valueInfo(name string, elem onnxpb.TensorProto_DataType, dims []int64) *onnxpb.ValueInfoProto {
	tt := &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem))}
	if dims != nil {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		tt.Shape = shape
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}}
}

func attrI(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrF(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func attrIs(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func attrS(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

// model serializes g as an ONNX model.
func (g *graph) model(name string) ([]byte, error) {
	gp := &onnxpb.GraphProto{Name: proto.String(name), Node: g.nodes, Initializer: g.inits, Input: g.ins, Output: g.outs}
	mp := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: gp,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}}}
	return proto.MarshalOptions{Deterministic: true}.Marshal(mp)
}

var (
	f32 = onnxpb.TensorProto_FLOAT
	f64 = onnxpb.TensorProto_DOUBLE
	f16 = onnxpb.TensorProto_FLOAT16
)

func scalar(elem onnxpb.TensorProto_DataType) niro.ScalarType {
	switch elem {
	case f64:
		return niro.F64
	case f16:
		return niro.F16
	case onnxpb.TensorProto_INT64:
		return niro.I64
	}
	return niro.F32
}

func elemName(elem onnxpb.TensorProto_DataType) string { return scalar(elem).String() }

// floatBytes encodes vals little-endian in elem (f16 rounded to nearest
// even).
func floatBytes(elem niro.ScalarType, vals []float64) []byte {
	switch elem {
	case niro.F64:
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	case niro.F16:
		b := make([]byte, 2*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint16(b[2*i:], tensorio.F16FromFloat32(float32(v)))
		}
		return b
	}
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	return b
}

func dimsString(d []int64) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "×")
}

func prod(d []int64) int64 {
	n := int64(1)
	for _, v := range d {
		n *= v
	}
	return n
}
