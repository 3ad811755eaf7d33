// Command genrnn writes the recurrent-op test models: testdata/recurrent/
// CASE/model.onnx with test_data_set_0/input_K.pb, one small LSTM, GRU or
// RNN node per case, covering every direction, both layouts, every
// activation with its alpha and beta (given and defaulted), clip,
// input_forget, peepholes, per-batch sequence lengths shorter than the
// sequence, initial h and c, linear_before_reset, and combinations of
// present and absent optional inputs, every combination of present
// outputs in every direction (outputCombos), and f16 and bf16 nodes
// (narrowCases). With -bench PATH it
// writes only the LSTM speed model (64 steps, hidden 128, input 128,
// batch 1; docs/performance.md) to PATH. Weights and inputs are deterministic pseudo-random values;
// the expected outputs come from ONNX Runtime, which runs neither
// layout 1 nor an f64 LSTM: for those cases CASE/reference.onnx wraps the
// node in Transposes to and from layout 0 and Casts to and from f32, on
// the same inputs. Nor does it run a 16-bit recurrent node (or take bf16
// inputs): for those, CASE/reference.onnx is the node in f32 on
// CASE/reference_data (the inputs widened exactly), and -round writes
// test_data_set_0's outputs from its outputs, rounded once to the 16-bit
// type, which is niro's rule:
//
//	go run ./scripts/genrnn
//	for d in testdata/recurrent/*/; do
//	  m=$d/model.onnx; [ -f $d/reference.onnx ] && m=$d/reference.onnx
//	  data=$d/test_data_set_0; [ -d $d/reference_data ] && data=$d/reference_data
//	  NODE_PATH=/tmp/ort/node_modules node scripts/ort-expected.mjs $m $data
//	done
//	go run ./scripts/genrnn -round
//
// Run from the repository root.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

const root = "testdata/recurrent"

// benchPath is where -bench writes the speed model.
var benchPath string

// rnnCase is one test model: a node of Op with the given attributes. S, N,
// I, H are the steps, batch, inputs and hidden size; Lens, when set, are
// the sequence lengths; the Has* fields say which optional inputs are
// given and Outs which outputs (Y, Y_h, Y_c) are.
type rnnCase struct {
	Name       string
	Op         string
	Dir        string
	Layout     int64
	S, N, I, H int64
	Lens       []int32
	HasB       bool
	HasH0      bool
	HasC0      bool
	HasP       bool
	Outs       [3]bool
	Acts       []string
	Alpha      []float32
	Beta       []float32
	Clip       float32
	Forget     bool
	LBR        bool
	Opset      int64
	Double     bool
	Narrow     string // "f16" or "bf16": a 16-bit model, checked through an f32 reference
}

var cases = []rnnCase{
	{Name: "lstm_forward_full", Op: "LSTM", Dir: "forward", S: 5, N: 3, I: 3, H: 4, Lens: []int32{5, 2, 4},
		HasB: true, HasH0: true, HasC0: true, HasP: true, Outs: [3]bool{true, true, true}, Clip: 1.5},
	{Name: "lstm_bidirectional_layout1", Op: "LSTM", Dir: "bidirectional", Layout: 1, S: 4, N: 3, I: 2, H: 3, Lens: []int32{1, 4, 3},
		HasB: true, HasH0: true, HasC0: true, HasP: true, Outs: [3]bool{false, true, true}, Forget: true,
		Acts: []string{"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Elu", "Softsign"}, Alpha: []float32{0.25, 0.8}, Beta: []float32{0.45}},
	{Name: "lstm_reverse_acts", Op: "LSTM", Dir: "reverse", S: 4, N: 2, I: 3, H: 3, Lens: []int32{3, 4},
		HasB: true, Outs: [3]bool{true, false, false},
		Acts: []string{"ScaledTanh", "Affine", "LeakyRelu"}, Alpha: []float32{0.9, 0.5, 0.1}, Beta: []float32{1.1, 0.2}},
	{Name: "lstm_cell_only", Op: "LSTM", Dir: "forward", S: 3, N: 2, I: 2, H: 2, HasC0: true, Outs: [3]bool{false, false, true}},
	{Name: "lstm_y_and_c", Op: "LSTM", Dir: "bidirectional", S: 3, N: 1, I: 2, H: 5, HasB: true, HasP: true, Outs: [3]bool{true, false, true}},
	{Name: "lstm_f64", Op: "LSTM", Dir: "forward", S: 3, N: 2, I: 3, H: 2, Lens: []int32{1, 3}, HasB: true, HasH0: true,
		Outs: [3]bool{true, true, true}, Double: true},
	{Name: "gru_bidirectional_lbr", Op: "GRU", Dir: "bidirectional", S: 4, N: 3, I: 3, H: 4, Lens: []int32{4, 1, 2},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, false}, LBR: true, Clip: 2},
	{Name: "gru_reverse_layout1", Op: "GRU", Dir: "reverse", Layout: 1, S: 5, N: 2, I: 2, H: 3, Lens: []int32{2, 5},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, false}, Acts: []string{"HardSigmoid", "LeakyRelu"}},
	{Name: "gru_acts", Op: "GRU", Dir: "forward", S: 3, N: 2, I: 3, H: 3, HasB: true, Outs: [3]bool{false, true, false},
		Acts: []string{"ThresholdedRelu", "Softplus"}, Alpha: []float32{0.1}},
	{Name: "gru_bidirectional_layout1", Op: "GRU", Dir: "bidirectional", Layout: 1, S: 3, N: 2, I: 2, H: 2, Lens: []int32{3, 2},
		HasH0: true, Outs: [3]bool{true, true, false}},
	{Name: "rnn_bidirectional_layout1", Op: "RNN", Dir: "bidirectional", Layout: 1, S: 4, N: 3, I: 3, H: 3, Lens: []int32{4, 2, 3},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, false}, Acts: []string{"Relu", "Sigmoid"}},
	{Name: "rnn_reverse_clip", Op: "RNN", Dir: "reverse", S: 4, N: 2, I: 2, H: 3, Lens: []int32{3, 1},
		HasB: true, Outs: [3]bool{true, true, false}, Clip: 0.5, Acts: []string{"Softsign"}},
	{Name: "rnn_opset7", Op: "RNN", Dir: "forward", S: 3, N: 2, I: 2, H: 2, HasH0: true, Outs: [3]bool{false, true, false}, Opset: 7},
}

func main() {
	bench := flag.String("bench", "", "write only the LSTM speed model, to this path")
	round := flag.Bool("round", false, "write the 16-bit cases' expected outputs from their f32 reference outputs")
	flag.Parse()
	all := append(append(append([]rnnCase{}, cases...), outputCombos()...), narrowCases...)
	if *round {
		for _, c := range all {
			if c.Narrow != "" {
				roundOutputs(c)
			}
		}
		return
	}
	rng := rand.New(rand.NewPCG(9, 11))
	if *bench == "" {
		for _, c := range all {
			writeCase(rng, c)
		}
		return
	}
	benchPath = *bench
	writeCase(rng, rnnCase{Name: "bench_lstm", Op: "LSTM", Dir: "forward", S: 64, N: 1, I: 128, H: 128,
		HasB: true, HasH0: true, HasC0: true, Outs: [3]bool{true, true, true}})
}

// outputCombos returns a case for every combination of present outputs
// (Y, Y_h and, for LSTM, Y_c) in every direction that the cases above do
// not cover, each with short sequence lengths, biases and initial states
// so that Y_h and Y_c differ from Y's last step.
func outputCombos() []rnnCase {
	covered := map[string]bool{}
	key := func(op, dir string, outs [3]bool) string { return fmt.Sprint(op, dir, outs) }
	for _, c := range cases {
		covered[key(c.Op, c.Dir, c.Outs)] = true
	}
	var out []rnnCase
	for _, op := range []string{"LSTM", "GRU", "RNN"} {
		n := 3
		if op != "LSTM" {
			n = 2
		}
		for _, dir := range []string{"forward", "reverse", "bidirectional"} {
			for mask := 1; mask < 1<<n; mask++ {
				var outs [3]bool
				name := "outs_" + strings.ToLower(op) + "_" + dir
				for i, s := range []string{"y", "yh", "yc"}[:n] {
					if outs[i] = mask&(1<<i) != 0; outs[i] {
						name += "_" + s
					}
				}
				if covered[key(op, dir, outs)] {
					continue
				}
				c := rnnCase{Name: name, Op: op, Dir: dir, S: 3, N: 2, I: 2, H: 3, Lens: []int32{3, 2},
					HasB: true, HasH0: true, Outs: outs}
				if op == "LSTM" {
					c.HasC0, c.HasP = true, mask%2 == 1
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// narrowCases are f16 and bf16 nodes, which niro computes in f32 and
// rounds once per output.
var narrowCases = []rnnCase{
	{Name: "lstm_f16_bidirectional", Op: "LSTM", Dir: "bidirectional", S: 4, N: 2, I: 3, H: 3, Lens: []int32{4, 2},
		HasB: true, HasH0: true, HasC0: true, HasP: true, Outs: [3]bool{true, true, true}, Clip: 1.5, Narrow: "f16"},
	{Name: "lstm_bf16_reverse", Op: "LSTM", Dir: "reverse", S: 3, N: 2, I: 2, H: 4, Lens: []int32{2, 3},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, true}, Narrow: "bf16"},
	{Name: "gru_f16_lbr", Op: "GRU", Dir: "forward", S: 4, N: 2, I: 3, H: 3, Lens: []int32{3, 4},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, false}, LBR: true, Narrow: "f16"},
	{Name: "gru_bf16_bidirectional", Op: "GRU", Dir: "bidirectional", S: 3, N: 2, I: 2, H: 3,
		HasB: true, Outs: [3]bool{true, true, false}, Narrow: "bf16"},
	{Name: "rnn_f16_reverse", Op: "RNN", Dir: "reverse", S: 4, N: 3, I: 2, H: 3, Lens: []int32{4, 1, 3},
		HasB: true, HasH0: true, Outs: [3]bool{true, true, false}, Narrow: "f16"},
	{Name: "rnn_bf16", Op: "RNN", Dir: "forward", S: 3, N: 2, I: 3, H: 2, HasH0: true, Outs: [3]bool{true, true, false},
		Acts: []string{"Relu"}, Narrow: "bf16"},
}

func writeCase(rng *rand.Rand, c rnnCase) {
	elem := int32(onnxpb.TensorProto_FLOAT)
	switch {
	case c.Double:
		elem = int32(onnxpb.TensorProto_DOUBLE)
	case c.Narrow == "f16":
		elem = int32(onnxpb.TensorProto_FLOAT16)
	case c.Narrow == "bf16":
		elem = int32(onnxpb.TensorProto_BFLOAT16)
	}
	if c.Narrow != "" && c.Layout != 0 {
		log.Fatalf("%s: a 16-bit case must use layout 0", c.Name)
	}
	values := func(n int64, scale float64) []byte {
		w := 4
		switch {
		case c.Double:
			w = 8
		case c.Narrow != "":
			w = 2
		}
		b := make([]byte, int(n)*w)
		for i := 0; i < int(n); i++ {
			v := (rng.Float64()*2 - 1) * scale
			switch {
			case c.Double:
				binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
			case c.Narrow == "f16":
				binary.LittleEndian.PutUint16(b[2*i:], tensorio.F16FromFloat32(float32(v)))
			case c.Narrow == "bf16":
				binary.LittleEndian.PutUint16(b[2*i:], tensorio.BF16FromFloat32(float32(v)))
			default:
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
			}
		}
		return b
	}
	tensor := func(name string, dims []int64, et int32, raw []byte) *onnxpb.TensorProto {
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(et), RawData: raw}
	}
	vi := func(name string, et int32, dims ...int64) *onnxpb.ValueInfoProto {
		var ds []*onnxpb.TensorShapeProto_Dimension
		for _, d := range dims {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(et), Shape: &onnxpb.TensorShapeProto{Dim: ds}},
		}}}
	}
	G := map[string]int64{"LSTM": 4, "GRU": 3, "RNN": 1}[c.Op]
	D := int64(1)
	if c.Dir == "bidirectional" {
		D = 2
	}
	S, N, I, H := c.S, c.N, c.I, c.H
	scale := 1 / math.Sqrt(float64(H))
	batchMajor := func(a, b, h int64) []int64 { // [a, b, h] in layout 0
		if c.Layout == 1 {
			return []int64{b, a, h}
		}
		return []int64{a, b, h}
	}
	var inits []*onnxpb.TensorProto
	var inputs []*onnxpb.ValueInfoProto
	type feed struct {
		name string
		dims []int64
		et   int32
		raw  []byte
	}
	var feeds []feed
	xDims := batchMajor(S, N, I)
	inputs = append(inputs, vi("X", elem, xDims...))
	feeds = append(feeds, feed{name: "X", dims: xDims, et: elem, raw: values(S*N*I, 1)})
	inits = append(inits,
		tensor("W", []int64{D, G * H, I}, elem, values(D*G*H*I, scale)),
		tensor("R", []int64{D, G * H, H}, elem, values(D*G*H*H, scale)))
	nodeIns := []string{"X", "W", "R", "", "", "", "", ""}
	if c.HasB {
		inits = append(inits, tensor("B", []int64{D, 2 * G * H}, elem, values(D*2*G*H, 0.5)))
		nodeIns[3] = "B"
	}
	if c.Lens != nil {
		raw := make([]byte, 4*len(c.Lens))
		for i, l := range c.Lens {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(l))
		}
		inputs = append(inputs, vi("sequence_lens", int32(onnxpb.TensorProto_INT32), N))
		feeds = append(feeds, feed{name: "sequence_lens", dims: []int64{N}, et: int32(onnxpb.TensorProto_INT32), raw: raw})
		nodeIns[4] = "sequence_lens"
	}
	stateDims := batchMajor(D, N, H)
	if c.HasH0 {
		inputs = append(inputs, vi("initial_h", elem, stateDims...))
		feeds = append(feeds, feed{name: "initial_h", dims: stateDims, et: elem, raw: values(D*N*H, 0.5)})
		nodeIns[5] = "initial_h"
	}
	if c.HasC0 {
		inputs = append(inputs, vi("initial_c", elem, stateDims...))
		feeds = append(feeds, feed{name: "initial_c", dims: stateDims, et: elem, raw: values(D*N*H, 0.5)})
		nodeIns[6] = "initial_c"
	}
	if c.HasP {
		inits = append(inits, tensor("P", []int64{D, 3 * H}, elem, values(D*3*H, 0.5)))
		nodeIns[7] = "P"
	}
	maxIns := 6
	if c.Op == "LSTM" {
		maxIns = 8
	}
	nodeIns = nodeIns[:maxIns]
	for len(nodeIns) > 3 && nodeIns[len(nodeIns)-1] == "" {
		nodeIns = nodeIns[:len(nodeIns)-1]
	}
	names := []string{"Y", "Y_h", "Y_c"}
	nOuts := 2
	if c.Op == "LSTM" {
		nOuts = 3
	}
	var nodeOuts []string
	var outputs []*onnxpb.ValueInfoProto
	for i := 0; i < nOuts; i++ {
		if !c.Outs[i] {
			nodeOuts = append(nodeOuts, "")
			continue
		}
		nodeOuts = append(nodeOuts, names[i])
		dims := stateDims
		if i == 0 {
			dims = []int64{S, D, N, H}
			if c.Layout == 1 {
				dims = []int64{N, S, D, H}
			}
		}
		outputs = append(outputs, vi(names[i], elem, dims...))
	}
	for len(nodeOuts) > 0 && nodeOuts[len(nodeOuts)-1] == "" {
		nodeOuts = nodeOuts[:len(nodeOuts)-1]
	}
	attrs := []*onnxpb.AttributeProto{
		{Name: proto.String("hidden_size"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(H)},
		{Name: proto.String("direction"), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(c.Dir)},
	}
	if c.Layout != 0 {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("layout"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(c.Layout)})
	}
	if c.Acts != nil {
		a := &onnxpb.AttributeProto{Name: proto.String("activations"), Type: onnxpb.AttributeProto_STRINGS.Enum()}
		for _, s := range c.Acts {
			a.Strings = append(a.Strings, []byte(s))
		}
		attrs = append(attrs, a)
	}
	if c.Alpha != nil {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("activation_alpha"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: c.Alpha})
	}
	if c.Beta != nil {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("activation_beta"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: c.Beta})
	}
	if c.Clip != 0 {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("clip"), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(c.Clip)})
	}
	if c.Forget {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("input_forget"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)})
	}
	if c.LBR {
		attrs = append(attrs, &onnxpb.AttributeProto{Name: proto.String("linear_before_reset"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)})
	}
	opset := c.Opset
	if opset == 0 {
		opset = 22
	}
	g := &onnxpb.GraphProto{
		Name:        proto.String(c.Name),
		Initializer: inits,
		Node:        []*onnxpb.NodeProto{{Name: proto.String("rnn"), OpType: proto.String(c.Op), Input: nodeIns, Output: nodeOuts, Attribute: attrs}},
		Input:       inputs,
		Output:      outputs,
	}
	m := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(8),
		ProducerName: proto.String("niro scripts/genrnn"),
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph:        g,
	}
	if c.Layout == 1 || c.Double {
		// ONNX Runtime runs neither layout 1 nor a double LSTM: the
		// reference model takes the same inputs, transposes them to layout
		// 0 and casts them to f32, runs the node there, and casts and
		// transposes the outputs back.
		var pre, post []*onnxpb.NodeProto
		refIns := append([]string(nil), nodeIns...)
		for i, n := range refIns {
			if n == "" || n == "sequence_lens" {
				continue
			}
			if c.Layout == 1 && (n == "X" || n == "initial_h" || n == "initial_c") {
				t := n + "_l0"
				pre = append(pre, &onnxpb.NodeProto{OpType: proto.String("Transpose"), Input: []string{n}, Output: []string{t},
					Attribute: []*onnxpb.AttributeProto{{Name: proto.String("perm"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{1, 0, 2}}}})
				n = t
			}
			if c.Double {
				t := n + "_f32"
				pre = append(pre, &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{n}, Output: []string{t},
					Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(1)}}})
				n = t
			}
			refIns[i] = n
		}
		refOuts := append([]string(nil), nodeOuts...)
		for i, n := range refOuts {
			if n == "" {
				continue
			}
			cur := n + "_ref"
			refOuts[i] = cur
			if c.Double {
				t := cur + "_f64"
				post = append(post, &onnxpb.NodeProto{OpType: proto.String("Cast"), Input: []string{cur}, Output: []string{t},
					Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(11)}}})
				cur = t
			}
			if c.Layout == 1 {
				perm := []int64{1, 0, 2}
				if i == 0 {
					perm = []int64{2, 0, 1, 3}
				}
				post = append(post, &onnxpb.NodeProto{OpType: proto.String("Transpose"), Input: []string{cur}, Output: []string{cur + "_l1"},
					Attribute: []*onnxpb.AttributeProto{{Name: proto.String("perm"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: perm}}})
				cur += "_l1"
			}
			post = append(post, &onnxpb.NodeProto{OpType: proto.String("Identity"), Input: []string{cur}, Output: []string{n}})
		}
		var refAttrs []*onnxpb.AttributeProto
		for _, a := range attrs {
			if a.GetName() != "layout" {
				refAttrs = append(refAttrs, a)
			}
		}
		refNode := &onnxpb.NodeProto{Name: proto.String("rnn"), OpType: proto.String(c.Op), Input: refIns, Output: refOuts, Attribute: refAttrs}
		ref := &onnxpb.ModelProto{
			IrVersion:    proto.Int64(8),
			ProducerName: proto.String("niro scripts/genrnn (reference)"),
			OpsetImport:  m.OpsetImport,
			Graph: &onnxpb.GraphProto{Name: proto.String(c.Name + "_reference"), Initializer: inits,
				Node: append(append(pre, refNode), post...), Input: inputs, Output: outputs},
		}
		write(filepath.Join(root, c.Name, "reference.onnx"), ref)
	}
	if c.Narrow != "" {
		// The f32 reference: the same graph on the 16-bit values widened
		// (exactly) to f32, with its own copy of the inputs; -round then
		// rounds its outputs once to the 16-bit type, which is niro's rule
		// (computed in f32, rounded once per op).
		f32 := int32(onnxpb.TensorProto_FLOAT)
		ref := proto.Clone(m).(*onnxpb.ModelProto)
		ref.ProducerName = proto.String("niro scripts/genrnn (f32 reference)")
		ref.Graph.Name = proto.String(c.Name + "_reference")
		for _, t := range ref.Graph.Initializer {
			t.RawData, t.DataType = widen(c.Narrow, t.RawData), proto.Int32(f32)
		}
		for _, v := range append(append([]*onnxpb.ValueInfoProto{}, ref.Graph.Input...), ref.Graph.Output...) {
			if tt := v.GetType().GetTensorType(); tt.GetElemType() == elem {
				tt.ElemType = proto.Int32(f32)
			}
		}
		write(filepath.Join(root, c.Name, "reference.onnx"), ref)
		for i, f := range feeds {
			raw, et := f.raw, f.et
			if et == elem {
				raw, et = widen(c.Narrow, raw), f32
			}
			write(filepath.Join(root, c.Name, "reference_data", "input_"+itoa(i)+".pb"), tensor(f.name, f.dims, et, raw))
		}
	}
	if c.Name == "bench_lstm" {
		write(benchPath, m)
		return
	}
	dir := filepath.Join(root, c.Name)
	write(filepath.Join(dir, "model.onnx"), m)
	for i, f := range feeds {
		write(filepath.Join(dir, "test_data_set_0", "input_"+itoa(i)+".pb"), tensor(f.name, f.dims, f.et, f.raw))
	}
}

// widen converts f16 or bf16 data to f32, exactly.
func widen(narrow string, raw []byte) []byte {
	out := make([]byte, 2*len(raw))
	for i := 0; i < len(raw)/2; i++ {
		h := binary.LittleEndian.Uint16(raw[2*i:])
		var f float32
		if narrow == "bf16" {
			f = math.Float32frombits(uint32(h) << 16)
		} else {
			f = float32(tensorio.F16ToFloat64(h))
		}
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// roundOutputs writes a 16-bit case's expected outputs: its f32
// reference outputs (reference_data/output_K.pb, from ONNX Runtime)
// rounded to nearest even in the case's type.
func roundOutputs(c rnnCase) {
	et := int32(onnxpb.TensorProto_FLOAT16)
	if c.Narrow == "bf16" {
		et = int32(onnxpb.TensorProto_BFLOAT16)
	}
	for i := 0; ; i++ {
		data, err := os.ReadFile(filepath.Join(root, c.Name, "reference_data", "output_"+itoa(i)+".pb"))
		if os.IsNotExist(err) && i > 0 {
			return
		}
		if err != nil {
			log.Fatal(err)
		}
		t := &onnxpb.TensorProto{}
		if err := proto.Unmarshal(data, t); err != nil {
			log.Fatal(err)
		}
		if t.GetDataType() != int32(onnxpb.TensorProto_FLOAT) || len(t.RawData)%4 != 0 {
			log.Fatalf("%s output %d: want f32 raw data", c.Name, i)
		}
		raw := make([]byte, len(t.RawData)/2)
		for k := 0; k < len(raw)/2; k++ {
			f := math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*k:]))
			h := tensorio.F16FromFloat32(f)
			if c.Narrow == "bf16" {
				h = tensorio.BF16FromFloat32(f)
			}
			binary.LittleEndian.PutUint16(raw[2*k:], h)
		}
		t.RawData, t.DataType = raw, proto.Int32(et)
		write(filepath.Join(root, c.Name, "test_data_set_0", "output_"+itoa(i)+".pb"), t)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

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
