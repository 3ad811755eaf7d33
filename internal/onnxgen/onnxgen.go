// Package onnxgen builds the small example models (the convolutional
// examples/mnist, resnetblock, mobilenetv2, unet, examples/decoder and
// examples/controlflow) and the real-model corpus (testdata/models/gen)
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
	infos []*onnxpb.ValueInfoProto // the graph's value_info
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
	return &onnxpb.GraphProto{Name: proto.String(name), Initializer: b.inits, Node: b.nodes, Input: inputs, Output: outputs, ValueInfo: b.infos}
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

// The helpers below write the patterns real exporters leave in their
// files (testdata/models/gen): nodes named apart from their outputs,
// value_info entries, Constant nodes, int64 and float16 tensors, and
// several opset_import entries.

// Named adds a node with the given name and outputs.
func (b *Builder) Named(name, op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) string {
	b.nodes = append(b.nodes, &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs})
	return outs[0]
}

// Declare adds value_info entries (declared types of intermediate values,
// which may be wrong: ONNX Runtime reads them as hints).
func (b *Builder) Declare(vs ...*onnxpb.ValueInfoProto) { b.infos = append(b.infos, vs...) }

// Int64T returns an int64 tensor.
func Int64T(name string, dims []int64, v ...int64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), RawData: raw}
}

// Int64s adds an int64 initializer holding v and returns its name.
func (b *Builder) Int64s(name string, dims []int64, v ...int64) string {
	return b.Add(Int64T(name, dims, v...))
}

// TensorAttr is a tensor-valued node attribute.
func TensorAttr(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

// Constant adds a Constant node named name whose value is t and returns
// its output out.
func (b *Builder) Constant(name, out string, t *onnxpb.TensorProto) string {
	t.Name = nil
	return b.Named(name, "Constant", nil, []string{out}, TensorAttr("value", t))
}

// Halves returns n values center ± scale (uniform) as raw little-endian
// float16 (rounded to nearest even).
func (b *Builder) Halves(n int, center, scale float32) []byte {
	out := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(out[2*i:], F16Bits(center+(b.Rng.Float32()*2-1)*scale))
	}
	return out
}

// F16Bits rounds v to the nearest float16 (ties to even) for values in
// the normal and subnormal float16 range; larger ones become infinities.
func F16Bits(v float32) uint16 {
	bits := math.Float32bits(v)
	sign := uint16(bits>>16) & 0x8000
	exp := int32(bits>>23&0xff) - 127 + 15
	man := bits & 0x7fffff
	switch {
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		half := man >> shift
		rem := man & (1<<shift - 1)
		if mid := uint32(1) << (shift - 1); rem > mid || rem == mid && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | man>>13
	if rem := man & 0x1fff; rem > 0x1000 || rem == 0x1000 && half&1 == 1 {
		half++
	}
	return sign | uint16(half)
}

// Init16 adds a float16 initializer of values center ± scale and returns
// its name.
func (b *Builder) Init16(name string, dims []int64, center, scale float32) string {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return b.Add(&onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT16)), RawData: b.Halves(int(n), center, scale)})
}

// Opset is one opset_import entry.
type Opset struct {
	Domain  string
	Version int64
}

// WriteOpsets writes dir/model.onnx holding g with the given IR version,
// producer and opset_import entries (in order, duplicates kept).
func WriteOpsets(dir string, g *onnxpb.GraphProto, ir int64, producer string, opsets ...Opset) {
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(ir), ProducerName: proto.String(producer), Graph: g}
	for _, o := range opsets {
		m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(o.Domain), Version: proto.Int64(o.Version)})
	}
	write(filepath.Join(dir, "model.onnx"), m)
}
