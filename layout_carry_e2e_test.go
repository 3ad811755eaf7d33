package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// lcBuilder collects the nodes and initializers of layoutCarryCases'
// graphs (written as an opModel): deterministic pseudo-random f32
// weights.
type lcBuilder struct {
	rng   *rand.Rand
	nodes []*onnxpb.NodeProto
	inits []*onnxpb.TensorProto
}

// lcValue is a graph input or output: its name and static f32 shape.
type lcValue struct {
	Name string
	Dims []int64
}

func (v lcValue) op() opValue { return opValue{v.Name, onnxpb.TensorProto_FLOAT, v.Dims} }

func (b *lcBuilder) Init(name string, dims []int64, center, scale float32) string {
	raw := make([]byte, 4*numel(dims))
	for i := 0; i < len(raw); i += 4 {
		binary.LittleEndian.PutUint32(raw[i:], math.Float32bits(center+scale*(2*b.rng.Float32()-1)))
	}
	b.inits = append(b.inits, &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw})
	return name
}

func (b *lcBuilder) Values(name string, dims []int64, v ...float32) string {
	b.inits = append(b.inits, &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), FloatData: v})
	return name
}

func (b *lcBuilder) Ints(name string, v ...int64) string {
	b.inits = append(b.inits, &onnxpb.TensorProto{Name: proto.String(name), Dims: []int64{int64(len(v))},
		DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Int64Data: v})
	return name
}

func (b *lcBuilder) Node(op string, ins []string, out string, attrs ...*onnxpb.AttributeProto) string {
	b.nodes = append(b.nodes, opNode(op, ins, []string{out}, attrs...))
	return out
}

// Conv adds a k×k Conv of cin → cout channels with a bias.
func (b *lcBuilder) Conv(name, x string, cin, cout, k, pad int64) string {
	ins := []string{x, b.Init(name+".weight", []int64{cout, cin, k, k}, 0, float32(math.Sqrt(3/float64(cin*k*k)))), b.Init(name+".bias", []int64{cout}, 0, 0.1)}
	return b.Node("Conv", ins, name, attrIs("dilations", 1, 1), attrI("group", 1), attrIs("kernel_shape", k, k),
		attrIs("pads", pad, pad, pad, pad), attrIs("strides", 1, 1))
}

// Write writes path (opset 17).
func (b *lcBuilder) Write(t *testing.T, path, name string, inputs []lcValue, output lcValue) {
	t.Helper()
	m := opModel{name: name, ir: 8, opset: 17, outs: []opValue{output.op()}, nodes: b.nodes, inits: b.inits}
	for _, v := range inputs {
		m.ins = append(m.ins, v.op())
	}
	m.write(t, path)
}

// layoutCarryCase is a small ONNX model whose convolutions are joined by
// an op that carries the channels-last layout (Concat, Resize,
// ConvTranspose, Pad, Slice). Every convolution's output is narrower than
// the row form's 16 columns, so all of them are channels-last ones.
type layoutCarryCase struct {
	name  string
	build func(b *lcBuilder) (inputs []lcValue, output lcValue)
	// want are regular expressions that must match the MLIR (the types
	// of the values between the layers, channels-last); notWant the NCHW
	// types of the same values, which must not appear.
	want, notWant []string
	// direct marks a model with no layout change at its output: its
	// convolutions take the row form and keep NCHW, or it ends with a
	// Transpose to NHWC that reads the channels-last value in order.
	direct bool
}

func convTranspose(b *lcBuilder, name, x string, cin, cout, k, stride, pad, outPad int64) string {
	w := b.Init(name+".weight", []int64{cin, cout, k, k}, 0, 0.3)
	return b.Node("ConvTranspose", []string{x, w, b.Init(name+".bias", []int64{cout}, 0, 0.1)}, name,
		attrIs("dilations", 1, 1), attrI("group", 1), attrIs("kernel_shape", k, k),
		attrIs("pads", pad, pad, pad, pad), attrIs("strides", stride, stride), attrIs("output_padding", outPad, outPad))
}

func resize(b *lcBuilder, name, x, mode string) string {
	return b.Node("Resize", []string{x, "", b.Values(name+".scales", []int64{4}, 1, 1, 2, 2)}, name,
		attrS("mode", mode), attrS("coordinate_transformation_mode", "half_pixel"))
}

var layoutCarryCases = []layoutCarryCase{
	{
		// Conv → Concat (channels) → Conv, and a Concat along the width.
		name: "concat",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Node("Relu", []string{b.Conv("a", "x", 4, 8, 3, 1)}, "relu_a")
			c := b.Conv("c", "x", 4, 6, 1, 0)
			h := b.Node("Concat", []string{a, c}, "cat", attrI("axis", 1))
			h = b.Conv("d", h, 14, 8, 3, 1)
			w := b.Node("Concat", []string{h, a}, "catw", attrI("axis", 3))
			return []lcValue{{Name: "x", Dims: []int64{1, 4, 7, 6}}}, lcValue{Name: b.Conv("e", w, 8, 5, 3, 1), Dims: []int64{1, 5, 7, 12}}
		},
		want:    []string{"tensor<1x7x6x14xf32>", "tensor<1x7x12x8xf32>"},
		notWant: []string{"tensor<1x14x7x6xf32>", "tensor<1x8x7x12xf32>"},
	},
	{
		// A skip connection from a graph input: copied into the
		// channels-last Concat at the edge.
		name: "concat_skip",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 4, 8, 3, 1)
			h := b.Node("Concat", []string{a, "skip"}, "cat", attrI("axis", 1))
			return []lcValue{{Name: "x", Dims: []int64{1, 4, 6, 5}}, {Name: "skip", Dims: []int64{1, 3, 6, 5}}},
				lcValue{Name: b.Conv("d", h, 11, 4, 3, 1), Dims: []int64{1, 4, 6, 5}}
		},
		// The skip input read, NCHW, into its channels-last slot.
		want:    []string{"tensor<1x6x5x11xf32>", `tensor\.extract %1\[[^]]*\] : tensor<1x3x6x5xf32>`},
		notWant: []string{"tensor<1x11x6x5xf32>"},
	},
	{
		// Conv → Resize ×2 linear (f64 taps) → Conv.
		name: "resize_linear",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			r := resize(b, "up", a, "linear")
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 5, 6}}}, lcValue{Name: b.Conv("d", r, 8, 4, 3, 1), Dims: []int64{1, 4, 10, 12}}
		},
		want:    []string{"tensor<1x10x12x8xf64>", "tensor<1x10x12x8xf32>"},
		notWant: []string{"tensor<1x8x10x12xf64>", "tensor<1x8x10x12xf32>"},
	},
	{
		name: "resize_nearest",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			r := resize(b, "up", a, "nearest")
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 5, 6}}}, lcValue{Name: b.Conv("d", r, 8, 4, 3, 1), Dims: []int64{1, 4, 10, 12}}
		},
		want:    []string{"tensor<1x10x12x8xf32>"},
		notWant: []string{"tensor<1x8x10x12xf32>"},
	},
	{
		name: "resize_cubic",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			r := resize(b, "up", a, "cubic")
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 5, 6}}}, lcValue{Name: b.Conv("d", r, 8, 4, 3, 1), Dims: []int64{1, 4, 10, 12}}
		},
		want:    []string{"tensor<1x10x12x8xf64>"},
		notWant: []string{"tensor<1x8x10x12xf64>"},
	},
	{
		// Conv → ConvTranspose 2×2 stride 2 (zero insertion by reshape
		// and pad) → Conv.
		name: "convtranspose",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Node("Relu", []string{b.Conv("a", "x", 3, 8, 3, 1)}, "relu_a")
			u := convTranspose(b, "up", a, 8, 6, 2, 2, 0, 0)
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 5, 6}}}, lcValue{Name: b.Conv("d", u, 6, 4, 3, 1), Dims: []int64{1, 4, 10, 12}}
		},
		want:    []string{"tensor<1x5x1x6x1x8xf32>", "tensor<1x5x2x6x2x8xf32>", "tensor<1x11x13x8xf32>"},
		notWant: []string{"tensor<1x8x5x1x6x1xf32>", "tensor<1x8x5x2x6x2xf32>", "tensor<1x8x11x13xf32>"},
	},
	{
		// ConvTranspose 3×3 stride 2, pads 1, output_padding 1 (its
		// padding crops and extends).
		name: "convtranspose_pads",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			u := convTranspose(b, "up", a, 8, 6, 3, 2, 1, 1)
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 5, 6}}}, lcValue{Name: b.Conv("d", u, 6, 4, 3, 1), Dims: []int64{1, 4, 10, 12}}
		},
		want:    []string{"tensor<1x5x2x6x2x8xf32>"},
		notWant: []string{"tensor<1x8x5x2x6x2xf32>"},
	},
	{
		// Convolutions 16 columns wide take the row form (conv_rows.go)
		// and keep NCHW, so the Concat between them does too.
		name: "rows_nchw",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 4, 8, 3, 1)
			h := b.Node("Concat", []string{a, "x"}, "cat", attrI("axis", 1))
			return []lcValue{{Name: "x", Dims: []int64{1, 4, 5, 16}}}, lcValue{Name: b.Conv("d", h, 12, 4, 3, 1), Dims: []int64{1, 4, 5, 16}}
		},
		want:    []string{"niro.conv2d_rows", "tensor<1x12x5x16xf32>"},
		notWant: []string{"tensor<1x5x16x12xf32>", "tensor<1x5x16x8xf32>"},
		direct:  true,
	},
	{
		// Conv → Slice (every other row and column) → Relu → Transpose
		// to NHWC, returned: the Transpose reads the channels-last value
		// in its own order.
		name: "slice_transpose",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			s := b.Node("Slice", []string{a, b.Ints("starts", 1, 0), b.Ints("ends", 9, 7), b.Ints("axes", 2, 3), b.Ints("steps", 2, 2)}, "slice")
			r := b.Node("Relu", []string{s}, "relu")
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 9, 7}}}, lcValue{Name: b.Node("Transpose", []string{r}, "t", attrIs("perm", 0, 2, 3, 1)), Dims: []int64{1, 4, 4, 8}}
		},
		want:    []string{`tensor\.extract_slice %[0-9]+\[0, 1, 0, 0\] \[1, 4, 4, 8\] \[1, 2, 2, 1\]`},
		notWant: []string{"tensor<1x8x4x4xf32>"},
		direct:  true,
	},
	{
		// Conv → Pad (reflect, spatial) → Conv → Slice (spatial, one
		// step -1) → Conv.
		name: "pad_slice",
		build: func(b *lcBuilder) ([]lcValue, lcValue) {
			a := b.Conv("a", "x", 3, 8, 3, 1)
			p := b.Node("Pad", []string{a, b.Ints("pads", 0, 0, 1, 2, 0, 0, 2, 1)}, "pad", attrS("mode", "reflect"))
			c := b.Conv("c", p, 8, 6, 3, 0)
			s := b.Node("Slice", []string{c, b.Ints("starts", 1, 6), b.Ints("ends", 6, 0), b.Ints("axes", 2, 3), b.Ints("steps", 1, -1)}, "slice")
			return []lcValue{{Name: "x", Dims: []int64{1, 3, 6, 7}}}, lcValue{Name: b.Conv("d", s, 6, 4, 3, 1), Dims: []int64{1, 4, 5, 6}}
		},
		want:    []string{"tensor<1x9x10x8xf32>", "tensor<1x5x6x6xf32>"},
		notWant: []string{"tensor<1x8x9x10xf32>"},
	},
}

// TestLayoutCarriedOps checks that Concat, Resize (linear, nearest,
// cubic), ConvTranspose's decomposition, Pad and Slice between two
// convolutions keep the channels-last layout (layout.go): the values
// between the layers have channels-last types, none of their NCHW types
// appears, and the only layout change is the last convolution's NCHW
// result (and a graph input that a Concat reads into its channels-last
// slot). The results must have the bits of host-O0 and of the
// interpreter (which knows no layouts, so the arithmetic is the one
// before the layout was carried).
func TestLayoutCarriedOps(t *testing.T) {
	for _, c := range layoutCarryCases {
		t.Run(c.name, func(t *testing.T) {
			b := &lcBuilder{rng: rand.New(rand.NewPCG(7, uint64(len(c.name))))}
			ins, out := c.build(b)
			path := filepath.Join(t.TempDir(), "model.onnx")
			b.Write(t, path, "layout_"+c.name, ins, out)
			res, err := emitModel(path, ShapeFlags{}, emit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mlir := res.MLIR
			for _, w := range c.want {
				if !regexp.MustCompile(w).MatchString(mlir) {
					t.Errorf("no match for %s in the MLIR", w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(mlir, w) {
					t.Errorf("%s in the MLIR", w)
				}
			}
			// A 4-D generic reading NCHW into channels-last order, and
			// one writing channels-last back to NCHW.
			if n := strings.Count(mlir, "-> (d0, d3, d1, d2)>"); n != 0 {
				t.Errorf("%d NCHW → channels-last copies, want none", n)
			}
			backs := 1 // the last convolution's result
			if c.direct {
				backs = 0
			}
			if n := strings.Count(mlir, "-> (d0, d2, d3, d1)>"); n != backs {
				t.Errorf("%d channels-last → NCHW copies, want %d", n, backs)
			}
			if t.Failed() {
				t.Logf("MLIR:\n%s", mlir)
			}

			requireTools(t)
			var inputs []tensorio.Tensor
			for i, v := range ins {
				inputs = append(inputs, tf32(v.Dims, seq(numel(v.Dims), 0.5+0.25*float32(i))))
			}
			first := runHostPipelines(t, 0, func() (*niro.Module, error) { return loadModule(path, ShapeFlags{}) }, inputs...)
			m, err := loadModule(path, ShapeFlags{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := interp.Run(m, inputs, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if string(want[0].Data) != string(first[0].Data) {
				t.Errorf("host and the interpreter differ")
			}
		})
	}
}
