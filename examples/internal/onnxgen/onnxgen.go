// Package onnxgen builds the small example models (the convolutional
// examples/mnist, resnetblock, mobilenetv2, unet, and examples/decoder)
// with the onnxpb types:
// a graph of nodes with deterministic pseudo-random f32 weights, written
// as model.onnx and test_data_set_K/input_K.pb like the ONNX test data.
// Expected outputs come from ONNX Runtime (scripts/ort-expected.mjs).
package onnxgen

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// Builder accumulates a graph's nodes and initializers.
type Builder struct {
	Rng   *rand.Rand
	nodes []*onnxpb.NodeProto
	inits []*onnxpb.TensorProto
}

// New returns a builder whose weights come from PCG(seed1, seed2).
func New(seed1, seed2 uint64) *Builder {
	return &Builder{Rng: rand.New(rand.NewPCG(seed1, seed2))}
}

// Floats returns n values center ± scale (uniform) as raw little-endian f32.
func (b *Builder) Floats(n int, center, scale float32) []byte {
	out := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := center + (b.Rng.Float32()*2-1)*scale
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

// Tensor returns an f32 TensorProto.
func Tensor(name string, dims []int64, raw []byte) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw}
}

// Init adds an f32 initializer of values center ± scale and returns its name.
func (b *Builder) Init(name string, dims []int64, center, scale float32) string {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	b.inits = append(b.inits, Tensor(name, dims, b.Floats(int(n), center, scale)))
	return name
}

// Scalar adds an f32 scalar initializer and returns its name.
func (b *Builder) Scalar(name string, v float32) string {
	b.inits = append(b.inits, &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), FloatData: []float32{v}})
	return name
}

// Values adds an f32 initializer holding v and returns its name.
func (b *Builder) Values(name string, dims []int64, v ...float32) string {
	b.inits = append(b.inits, &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), FloatData: v})
	return name
}

// Node adds a node named after its output and returns the output's name.
func (b *Builder) Node(op string, ins []string, out string, attrs ...*onnxpb.AttributeProto) string {
	b.nodes = append(b.nodes, &onnxpb.NodeProto{Name: proto.String(out), OpType: proto.String(op), Input: ins, Output: []string{out}, Attribute: attrs})
	return out
}

// Int, Ints and Float are node attributes.
func Int(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func Ints(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func String(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func Float(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

// Conv adds a k×k Conv of cin → cout channels (W uniform ±√(3/fan_in),
// fan_in = cin/group·k², so outputs keep about the inputs' variance), with
// a bias when bias is set, as torch.onnx writes nn.Conv2d (the bias is
// absent where a BatchNormalization follows).
func (b *Builder) Conv(name, x string, cin, cout, k, stride, pad, group int64, bias bool) string {
	fan := float64(cin / group * k * k)
	ins := []string{x, b.Init(name+".weight", []int64{cout, cin / group, k, k}, 0, float32(math.Sqrt(3/fan)))}
	if bias {
		ins = append(ins, b.Init(name+".bias", []int64{cout}, 0, 0.1))
	}
	return b.Node("Conv", ins, name, Ints("dilations", 1, 1), Int("group", group), Ints("kernel_shape", k, k),
		Ints("pads", pad, pad, pad, pad), Ints("strides", stride, stride))
}

// BatchNorm adds an inference BatchNormalization over c channels: scale
// 1 ± 0.25, bias ± 0.1, running mean ± 0.2, running variance 1 ± 0.5.
func (b *Builder) BatchNorm(name, x string, c int64) string {
	d := []int64{c}
	return b.Node("BatchNormalization", []string{x,
		b.Init(name+".weight", d, 1, 0.25), b.Init(name+".bias", d, 0, 0.1),
		b.Init(name+".running_mean", d, 0, 0.2), b.Init(name+".running_var", d, 1, 0.5),
	}, name, Float("epsilon", 1e-5), Float("momentum", 0.9))
}

// Value is a graph input or output: its name and static f32 shape.
type Value struct {
	Name string
	Dims []int64
}

func (v Value) info() *onnxpb.ValueInfoProto {
	var dims []*onnxpb.TensorShapeProto_Dimension
	for _, d := range v.Dims {
		dims = append(dims, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(v.Name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: &onnxpb.TensorShapeProto{Dim: dims}},
	}}}
}

// Write writes dir/model.onnx (opset 17) with the given inputs and
// outputs.
func (b *Builder) Write(dir, name string, inputs, outputs []Value) {
	g := &onnxpb.GraphProto{Name: proto.String(name), Initializer: b.inits, Node: b.nodes}
	for _, v := range inputs {
		g.Input = append(g.Input, v.info())
	}
	for _, v := range outputs {
		g.Output = append(g.Output, v.info())
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro " + dir + "/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph:        g,
	}
	write(filepath.Join(dir, "model.onnx"), m)
}

// WriteInput writes dir/test_data_set_<set>/input_<i>.pb: v with values
// center ± scale (uniform).
func (b *Builder) WriteInput(dir string, set, i int, v Value, center, scale float32) {
	n := int64(1)
	for _, d := range v.Dims {
		n *= d
	}
	write(filepath.Join(dir, fmt.Sprintf("test_data_set_%d", set), fmt.Sprintf("input_%d.pb", i)),
		Tensor(v.Name, v.Dims, b.Floats(int(n), center, scale)))
}

func write(path string, msg proto.Message) {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// NodeOuts adds a node with several outputs (an empty name omits one),
// named after its first output.
func (b *Builder) NodeOuts(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) {
	b.nodes = append(b.nodes, &onnxpb.NodeProto{Name: proto.String(outs[0]), OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs})
}

// Add adds an initializer given whole.
func (b *Builder) Add(t *onnxpb.TensorProto) string {
	b.inits = append(b.inits, t)
	return t.GetName()
}

// Info is a graph input or output of element type elem (a
// TensorProto_DataType) whose extents are dims, or, where syms[i] is not
// "", the symbolic dimension syms[i].
func Info(name string, elem onnxpb.TensorProto_DataType, dims []int64, syms ...string) *onnxpb.ValueInfoProto {
	var ds []*onnxpb.TensorShapeProto_Dimension
	for i, d := range dims {
		if i < len(syms) && syms[i] != "" {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: syms[i]}})
			continue
		}
		ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(elem)), Shape: &onnxpb.TensorShapeProto{Dim: ds}},
	}}}
}

// WriteModel writes dir/model.onnx at the given opset and IR version with
// the given graph inputs and outputs.
func (b *Builder) WriteModel(dir, name string, opset, ir int64, inputs, outputs []*onnxpb.ValueInfoProto) {
	g := &onnxpb.GraphProto{Name: proto.String(name), Initializer: b.inits, Node: b.nodes, Input: inputs, Output: outputs}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(ir),
		ProducerName: proto.String("niro " + dir + "/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph:        g,
	}
	write(filepath.Join(dir, "model.onnx"), m)
}

// WriteTensor writes a TensorProto to path.
func WriteTensor(path string, t *onnxpb.TensorProto) { write(path, t) }

// WriteInput writes dir/test_data_set_<set>/input_<i>.pb.
func WriteInput(dir string, set, i int, t *onnxpb.TensorProto) {
	write(filepath.Join(dir, fmt.Sprintf("test_data_set_%d", set), fmt.Sprintf("input_%d.pb", i)), t)
}

// The helpers below build models with subgraphs (examples/controlflow):
// graph attributes, subgraph builders, and graphs written with any opset.

// GraphAttr is a graph-valued node attribute.
func GraphAttr(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
}

// Graph returns the builder's nodes and initializers as a graph.
func (b *Builder) Graph(name string, inputs, outputs []*onnxpb.ValueInfoProto) *onnxpb.GraphProto {
	return &onnxpb.GraphProto{Name: proto.String(name), Initializer: b.inits, Node: b.nodes, Input: inputs, Output: outputs}
}

// Sub returns a builder for a subgraph that shares b's random numbers.
func (b *Builder) Sub() *Builder { return &Builder{Rng: b.Rng} }

// WriteGraph writes dir/model.onnx holding g at the given opset.
func WriteGraph(dir string, g *onnxpb.GraphProto, opset int64) {
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro " + dir + "/gen"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph:        g,
	}
	write(filepath.Join(dir, "model.onnx"), m)
}
