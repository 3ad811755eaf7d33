package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// opValue declares a graph input or output of an ONNX test model. With
// opNode, the attr* helpers and opModel it builds the root tests' small
// one-graph models in the test itself (internal/onnxgen builds the
// committed example and corpus models).
type opValue struct {
	name string
	elem onnxpb.TensorProto_DataType
	dims []int64
}

func (v opValue) info() *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range v.dims {
		shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(v.name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(v.elem)), Shape: shape}}}}
}

// opNode returns an ONNX node with the given attributes.
func opNode(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{Name: proto.String(outs[0]), OpType: proto.String(op), Input: ins, Output: outs, Attribute: attrs}
}

func attrF(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func attrI(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func attrT(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func attrIs(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func attrS(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

// opModel is a one-graph ONNX test model importing the default domain.
type opModel struct {
	name      string // the graph's
	ir, opset int64  // the IR version and the opset
	ins, outs []opValue
	nodes     []*onnxpb.NodeProto
	inits     []*onnxpb.TensorProto
}

// write writes the model to path.
func (m opModel) write(t *testing.T, path string) {
	t.Helper()
	g := &onnxpb.GraphProto{Name: proto.String(m.name), Node: m.nodes, Initializer: m.inits}
	for _, v := range m.ins {
		g.Input = append(g.Input, v.info())
	}
	for _, v := range m.outs {
		g.Output = append(g.Output, v.info())
	}
	mp := &onnxpb.ModelProto{IrVersion: proto.Int64(m.ir), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(m.opset)}}}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(mp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runOpModel writes an ONNX model of the default domain at opset, compiles
// it for the host and runs it on inputs.
func runOpModel(t *testing.T, opset int64, ins, outs []opValue, nodes []*onnxpb.NodeProto, inputs ...tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	requireTools(t)
	path := filepath.Join(t.TempDir(), "model.onnx")
	opModel{name: "g", ir: 10, opset: opset, ins: ins, outs: outs, nodes: nodes}.write(t, path)
	mf, err := openModel(path, ShapeFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer mf.close()
	mod, err := mf.module(nil)
	if err != nil {
		t.Fatal(err)
	}
	return compileAndRun(t, mod, inputs)
}

// splitMix returns output c of the generator docs/ops.md specifies
// ("Random ops") for the seed: SplitMix64 started at the seed's bits as
// a double.
func splitMix(seed float32, c uint64) uint64 {
	z := math.Float64bits(float64(seed)) + (c+1)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// moments returns the mean and the (population) variance of xs.
func moments(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs))
}

// TestRandomOps compiles the random ops and checks, on the compiled code,
// that the values are exactly the documented generator's (RandomUniform,
// bit for bit against a Go model of it), deterministic (two runs and two
// nodes with the same seed agree, another seed differs), in range, and
// have the distribution's mean and variance.
func TestRandomOps(t *testing.T) {
	const n = 64 * 64
	f32, f64, f16, i64 := onnxpb.TensorProto_FLOAT, onnxpb.TensorProto_DOUBLE, onnxpb.TensorProto_FLOAT16, onnxpb.TensorProto_INT64
	dims := []int64{64, 64}
	nodes := []*onnxpb.NodeProto{
		opNode("RandomUniform", nil, []string{"u"}, attrF("low", -2), attrF("high", 5), attrF("seed", 3), attrIs("shape", dims...)),
		opNode("RandomUniform", nil, []string{"u_same"}, attrF("low", -2), attrF("high", 5), attrF("seed", 3), attrIs("shape", dims...)),
		opNode("RandomUniform", nil, []string{"u_other"}, attrF("low", -2), attrF("high", 5), attrF("seed", 4), attrIs("shape", dims...)),
		// More elements than the importer folds: the counters are computed
		// at run time.
		opNode("RandomUniform", nil, []string{"u_big"}, attrF("seed", -0.5), attrIs("shape", 80, 64), attrI("dtype", int64(f64))),
		// Dropout in training mode: a mask from the generator.
		opNode("Constant", nil, []string{"ratio"}, attrT("value", &onnxpb.TensorProto{DataType: proto.Int32(int32(f32)), FloatData: []float32{0.25}})),
		opNode("Constant", nil, []string{"training"}, attrT("value", &onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_BOOL)), Int32Data: []int32{1}})),
		opNode("Dropout", []string{"p", "ratio", "training"}, []string{"drop", "keep"}, attrI("seed", 9)),
		opNode("RandomNormal", nil, []string{"nrm"}, attrF("mean", 1), attrF("scale", 2), attrF("seed", 7), attrIs("shape", dims...)),
		opNode("RandomNormalLike", []string{"p"}, []string{"nrm64"}, attrI("dtype", int64(f64))),
		opNode("RandomUniformLike", []string{"p"}, []string{"u16"}, attrI("dtype", int64(f16)), attrF("seed", 1)),
		opNode("Bernoulli", []string{"p"}, []string{"b"}, attrF("seed", 11)),
		opNode("Multinomial", []string{"logits"}, []string{"m"}, attrI("sample_size", 4000), attrI("dtype", int64(i64)), attrF("seed", 5)),
	}
	ins := []opValue{{"p", f32, dims}, {"logits", f32, []int64{2, 3}}}
	outs := []opValue{{"u", f32, dims}, {"u_same", f32, dims}, {"u_other", f32, dims}, {"nrm", f32, dims},
		{"nrm64", f64, dims}, {"u16", f16, dims}, {"b", f32, dims}, {"m", i64, []int64{2, 4000}}, {"u_big", f64, []int64{80, 64}},
		{"drop", f32, dims}, {"keep", onnxpb.TensorProto_BOOL, dims}}
	p := make([]float32, n)
	for i := range p {
		p[i] = 0.3
	}
	probs := [2][3]float64{{0.2, 0.3, 0.5}, {0.7, 0.1, 0.2}}
	var logits []float32
	for _, row := range probs {
		for _, q := range row {
			logits = append(logits, float32(math.Log(q)))
		}
	}
	inputs := []tensorio.Tensor{tf32(dims, p), tf32([]int64{2, 3}, logits)}
	got := runOpModel(t, 22, ins, outs, nodes, inputs...)
	again := runOpModel(t, 22, ins, outs, nodes, inputs...)
	for i := range got {
		if string(got[i].Data) != string(again[i].Data) {
			t.Errorf("output %s differs between two compilations and runs", outs[i].name)
		}
	}
	vals := make([][]float64, len(got))
	for i, g := range got {
		v, err := tensorio.Float64s(g)
		if err != nil {
			t.Fatalf("output %s: %v", outs[i].name, err)
		}
		vals[i] = v
	}

	// RandomUniform: bit for bit the documented generator.
	for i, v := range vals[0] {
		u := float32(splitMix(3, uint64(i))>>40) * 0x1p-24
		want := float32(u*7) + -2
		if float32(v) != want {
			t.Fatalf("RandomUniform element %d = %v, the generator gives %v", i, v, want)
		}
	}
	for i, v := range vals[8] {
		if want := float64(splitMix(-0.5, uint64(i))>>11) * 0x1p-53; v != want {
			t.Fatalf("RandomUniform f64 element %d = %v, the generator gives %v", i, v, want)
		}
	}
	if string(got[0].Data) != string(got[1].Data) {
		t.Error("two RandomUniform nodes with the same seed differ")
	}
	same := 0
	for i := range vals[0] {
		if vals[0][i] == vals[2][i] {
			same++
		}
	}
	if same > 8 {
		t.Errorf("seeds 3 and 4 agree on %d of %d elements", same, n)
	}
	// checkMoments checks the range and the first two moments of a sample
	// against a distribution of mean mu and variance v: the mean within
	// 5 standard errors, the variance within 10%.
	checkMoments := func(name string, xs []float64, lo, hi, mu, v float64) {
		t.Helper()
		for i, x := range xs {
			if !(x >= lo && x < hi) {
				t.Fatalf("%s element %d = %v is outside [%v, %v)", name, i, x, lo, hi)
			}
		}
		m, s2 := moments(xs)
		if math.Abs(m-mu) > 5*math.Sqrt(v/float64(len(xs))) {
			t.Errorf("%s: mean %v, want %v", name, m, mu)
		}
		if math.Abs(s2-v) > 0.1*v {
			t.Errorf("%s: variance %v, want %v", name, s2, v)
		}
	}
	checkMoments("RandomUniform", vals[0], -2, 5, 1.5, 49.0/12)
	checkMoments("RandomNormal", vals[3], math.Inf(-1), math.Inf(1), 1, 4)
	checkMoments("RandomNormalLike f64", vals[4], math.Inf(-1), math.Inf(1), 0, 1)
	checkMoments("RandomUniformLike f16", vals[5], 0, 1.0001, 0.5, 1.0/12)
	checkMoments("Bernoulli", vals[6], 0, 1.5, 0.3, 0.21)
	for i, x := range vals[6] {
		if x != 0 && x != 1 {
			t.Fatalf("Bernoulli element %d = %v", i, x)
		}
	}
	// Multinomial: class frequencies per row within 5 standard errors.
	for b, row := range probs {
		var count [3]float64
		for _, x := range vals[7][b*4000 : (b+1)*4000] {
			if x < 0 || x > 2 || x != math.Trunc(x) {
				t.Fatalf("Multinomial row %d drew %v", b, x)
			}
			count[int(x)]++
		}
		for c, q := range row {
			if f := count[c] / 4000; math.Abs(f-q) > 5*math.Sqrt(q*(1-q)/4000) {
				t.Errorf("Multinomial row %d: class %d drawn %v of the time, want %v", b, c, f, q)
			}
		}
	}
	// Dropout: the mask is u ≥ ratio for the generator's uniforms, the
	// output (mask·x)·(1/(1 − ratio)).
	for i, k := range vals[10] {
		u := float32(splitMix(9, uint64(i))>>40) * 0x1p-24
		keep := u >= 0.25
		want := float32(0)
		if keep {
			want = p[i] * float32(1/0.75)
		}
		if (k == 1) != keep || float32(vals[9][i]) != want {
			t.Fatalf("Dropout element %d: mask %v, output %v; want %v, %v", i, k, vals[9][i], keep, want)
		}
	}
	checkMoments("Dropout mask", vals[10], 0, 1.5, 0.75, 0.75*0.25)
}
