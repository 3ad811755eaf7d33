// Command gen writes the real-model corpus, testdata/models/NAME/model.onnx
// and test_data_set_K/input_K.pb: small models built with the patterns the
// real exporters write (paddle2onnx, torch.onnx, keras2onnx/tf2onnx),
// with deterministic pseudo-random weights. Expected outputs come from
// ONNX Runtime (scripts/ort-expected.mjs); testdata/models/README.md lists
// the models.
//
// Run from the repository root: go run ./testdata/models/gen
package main

import (
	"fmt"
	"math"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	og "github.com/niro-dev/niro/internal/onnxgen"
	"github.com/niro-dev/niro/onnxpb"
)

const (
	f32 = onnxpb.TensorProto_FLOAT
	f16 = onnxpb.TensorProto_FLOAT16
	i64 = onnxpb.TensorProto_INT64
	b1  = onnxpb.TensorProto_BOOL
)

const root = "testdata/models"

type vi = *onnxpb.ValueInfoProto

func main() {
	ocr(9)
	ocr(11)
	torchDynShape()
	torchLoRA()
	torchMLP()
	wakeWord()
	kerasNHWC()
	kerasConv1D()
	nestedIf()
	vadIf()
	torchLoop()
	scanRNN()
	fp16Cast()
	fp16Loop()
	convClip()
	mobileNetV3FPN()
	smallCNN()
	denseDepthwise()
	melSpectrogram()
	dupOpset()
}

// write writes the model of graph g under testdata/models/name.
func write(name string, g *onnxpb.GraphProto, ir int64, producer string, opsets ...og.Opset) string {
	dir := filepath.Join(root, name)
	og.WriteOpsets(dir, g, ir, producer, opsets...)
	return dir
}

// input writes input k of data set set: an f32 tensor of values
// center ± scale.
func input(b *og.Builder, dir string, set, k int, name string, dims []int64, center, scale float32) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	og.WriteInput(dir, set, k, og.Tensor(name, dims, b.Floats(int(n), center, scale)))
}

func boolT(name string, v bool) *onnxpb.TensorProto {
	x := byte(0)
	if v {
		x = 1
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(b1)), RawData: []byte{x}}
}

// weight adds a convolution or matmul weight of the given dims, uniform
// ±√(3/fan) so that outputs keep about the inputs' variance.
func weight(b *og.Builder, name string, fan int64, dims ...int64) string {
	return b.Init(name, dims, 0, float32(math.Sqrt(3/float64(fan))))
}

// conv adds a Conv node named node writing out: cin → cout channels,
// kernel kh×kw, the given strides, pads (top, left, bottom, right),
// dilation and group; with a bias initializer when bias is not "".
func conv(b *og.Builder, node, out, x, w, bias string, cin, cout, kh, kw, stride, dil, group int64, pads ...int64) string {
	ins := []string{x, weight(b, w, cin/group*kh*kw, cout, cin/group, kh, kw)}
	if bias != "" {
		ins = append(ins, b.Init(bias, []int64{cout}, 0, 0.1))
	}
	return b.Named(node, "Conv", ins, []string{out}, og.Ints("dilations", dil, dil), og.Int("group", group),
		og.Ints("kernel_shape", kh, kw), og.Ints("pads", pads...), og.Ints("strides", stride, stride))
}

// bn adds an unfused inference BatchNormalization over c channels.
func bn(b *og.Builder, node, out, x, prefix string, c int64) string {
	d := []int64{c}
	return b.Named(node, "BatchNormalization", []string{x,
		b.Init(prefix+".scale", d, 1, 0.25), b.Init(prefix+".bias", d, 0, 0.1),
		b.Init(prefix+".mean", d, 0, 0.2), b.Init(prefix+".var", d, 1, 0.5),
	}, []string{out}, og.Float("epsilon", 1e-5), og.Float("momentum", 0.9))
}

// ocr is paddle2onnx's export of a small text recognizer (CRNN-style
// head) at opset 9 or 11: p2o.Op.K node names, Paddle's tmp value names,
// unfused BatchNormalization, Pad (attribute pads at 9, inputs at 11),
// Relu6 as Clip (attributes at 9, min/max inputs at 11), an Unsqueeze
// with axes attributes, the Shape → Cast → Slice → Concat → Reshape chain
// to a sequence, MatMul + Add + Softmax.
func ocr(opset int64) {
	b := og.New(101, uint64(opset))
	h := conv(b, "p2o.Conv.0", "conv2d_0.tmp_0", "x", "conv2d_0.w_0", "", 3, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	h = bn(b, "p2o.BatchNormalization.0", "batch_norm_0.tmp_2", h, "batch_norm_0", 8)
	h = b.Named("p2o.Relu.0", "Relu", []string{h}, []string{"relu_0.tmp_0"})
	pads := []int64{0, 0, 1, 1, 0, 0, 1, 1}
	if opset < 11 {
		h = b.Named("p2o.Pad.0", "Pad", []string{h}, []string{"pad2d_0.tmp_0"}, og.Ints("pads", pads...), og.String("mode", "constant"), og.Float("value", 0))
	} else {
		h = b.Named("p2o.Pad.0", "Pad", []string{h, b.Int64s("p2o.Pad.0.pads", []int64{8}, pads...), b.Scalar("p2o.Pad.0.value", 0)},
			[]string{"pad2d_0.tmp_0"}, og.String("mode", "constant"))
	}
	h = conv(b, "p2o.Conv.1", "conv2d_1.tmp_0", h, "conv2d_1.w_0", "", 8, 16, 3, 3, 2, 1, 1, 0, 0, 0, 0)
	h = bn(b, "p2o.BatchNormalization.1", "batch_norm_1.tmp_2", h, "batch_norm_1", 16)
	if opset < 11 {
		h = b.Named("p2o.Clip.0", "Clip", []string{h}, []string{"relu6_0.tmp_0"}, og.Float("min", 0), og.Float("max", 6))
	} else {
		h = b.Named("p2o.Clip.0", "Clip", []string{h, b.Scalar("p2o.Clip.0.min", 0), b.Scalar("p2o.Clip.0.max", 6)}, []string{"relu6_0.tmp_0"})
	}
	h = b.Named("p2o.MaxPool.0", "MaxPool", []string{h}, []string{"pool2d_0.tmp_0"}, og.Ints("kernel_shape", 2, 2), og.Ints("strides", 2, 2), og.Ints("pads", 0, 0, 0, 0))
	// A per-channel scale [16] broadcast as [1, 16, 1, 1].
	s := b.Named("p2o.Unsqueeze.0", "Unsqueeze", []string{b.Init("scale_0.w_0", []int64{16}, 1, 0.3)}, []string{"unsqueeze_0.tmp_0"}, og.Ints("axes", 0, 2, 3))
	h = b.Named("p2o.Mul.0", "Mul", []string{h, s}, []string{"elementwise_mul_0"})
	// [N, C, H, W] → [N, W, C, H] → [N, W, C·H]: the sequence of columns.
	h = b.Named("p2o.Transpose.0", "Transpose", []string{h}, []string{"transpose_0.tmp_0"}, og.Ints("perm", 0, 3, 1, 2))
	shp := b.Named("p2o.Shape.0", "Shape", []string{h}, []string{"p2o.Shape.0.out"})
	shp = b.Named("p2o.Cast.0", "Cast", []string{shp}, []string{"p2o.Cast.0.out"}, og.Int("to", int64(i64)))
	if opset < 11 {
		shp = b.Named("p2o.Slice.0", "Slice", []string{shp}, []string{"p2o.Slice.0.out"}, og.Ints("axes", 0), og.Ints("starts", 0), og.Ints("ends", 2))
	} else {
		shp = b.Named("p2o.Slice.0", "Slice", []string{shp, b.Int64s("p2o.Slice.0.starts", []int64{1}, 0), b.Int64s("p2o.Slice.0.ends", []int64{1}, 2), b.Int64s("p2o.Slice.0.axes", []int64{1}, 0)}, []string{"p2o.Slice.0.out"})
	}
	shp = b.Named("p2o.Concat.0", "Concat", []string{shp, b.Int64s("p2o.Concat.0.tail", []int64{1}, -1)}, []string{"p2o.Concat.0.out"}, og.Int("axis", 0))
	h = b.Named("p2o.Reshape.0", "Reshape", []string{h, shp}, []string{"reshape2_0.tmp_0"})
	h = b.Named("p2o.MatMul.0", "MatMul", []string{h, weight(b, "fc_0.w_0", 128, 128, 12)}, []string{"fc_0.tmp_0"})
	h = b.Named("p2o.Add.0", "Add", []string{h, b.Init("fc_0.b_0", []int64{12}, 0, 0.1)}, []string{"fc_0.tmp_1"})
	b.Named("p2o.Softmax.0", "Softmax", []string{h}, []string{"softmax_0.tmp_0"}, og.Int("axis", 2))
	var in, out vi
	if opset < 11 {
		// Older paddle2onnx writes dynamic extents as -1.
		in = og.Info("x", f32, []int64{-1, 3, 32, 64})
		out = og.Info("softmax_0.tmp_0", f32, []int64{-1, -1, 12})
	} else {
		in = og.Info("x", f32, []int64{0, 3, 32, 64}, "p2o.DynamicDimension.0")
		out = og.Info("softmax_0.tmp_0", f32, []int64{0, 0, 12}, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2")
	}
	dir := write(fmt.Sprintf("p2o_ocr_op%d", opset), b.Graph("paddle-infer", []vi{in}, []vi{out}), 6, "PaddlePaddle", og.Opset{Version: opset})
	input(b, dir, 0, 0, "x", []int64{1, 3, 32, 64}, 0, 1)
}

// torchDynShape is torch.onnx's export of a small attention layer with a
// dynamic batch: /module/Op node names, /…_output_0 and onnx:: value
// names, Constant nodes, Shape → Gather → Unsqueeze → Concat feeding
// Reshape and Expand, and value_info for intermediates, some of them
// declared with shapes the ops do not produce (the traced batch of 1, a
// wrong extent), which ONNX Runtime reads as hints.
func torchDynShape() {
	b := og.New(102, 1)
	c := func(name string, t *onnxpb.TensorProto) string {
		return b.Constant(name, name+"_output_0", t)
	}
	h := b.Named("/proj/MatMul", "MatMul", []string{"x", weight(b, "onnx::MatMul_41", 16, 16, 32)}, []string{"/proj/MatMul_output_0"})
	h = b.Named("/proj/Add", "Add", []string{b.Init("proj.bias", []int64{32}, 0, 0.1), h}, []string{"/proj/Add_output_0"})
	shp := b.Named("/Shape", "Shape", []string{h}, []string{"/Shape_output_0"})
	batch := b.Named("/Gather", "Gather", []string{shp, c("/Constant", og.Int64T("", nil, 0))}, []string{"/Gather_output_0"}, og.Int("axis", 0))
	batch1 := b.Named("/Unsqueeze", "Unsqueeze", []string{batch, c("/Constant_1", og.Int64T("", []int64{1}, 0))}, []string{"onnx::Concat_52"})
	heads := b.Named("/Concat", "Concat", []string{batch1, c("/Constant_2", og.Int64T("", []int64{3}, 8, 4, 8))}, []string{"/Concat_output_0"}, og.Int("axis", 0))
	q := b.Named("/Reshape", "Reshape", []string{h, heads}, []string{"/Reshape_output_0"})
	q = b.Named("/Transpose", "Transpose", []string{q}, []string{"/Transpose_output_0"}, og.Ints("perm", 0, 2, 1, 3))
	k := b.Named("/Transpose_1", "Transpose", []string{q}, []string{"/Transpose_1_output_0"}, og.Ints("perm", 0, 1, 3, 2))
	s := b.Named("/MatMul", "MatMul", []string{q, k}, []string{"/MatMul_output_0"})
	s = b.Named("/Div", "Div", []string{s, c("/Constant_3", og.Tensor("", nil, f32bytes(float32(math.Sqrt(8)))))}, []string{"/Div_output_0"})
	p := b.Named("/Softmax", "Softmax", []string{s}, []string{"/Softmax_output_0"}, og.Int("axis", -1))
	o := b.Named("/MatMul_1", "MatMul", []string{p, q}, []string{"/MatMul_1_output_0"})
	o = b.Named("/Transpose_2", "Transpose", []string{o}, []string{"/Transpose_2_output_0"}, og.Ints("perm", 0, 2, 1, 3))
	merge := b.Named("/Concat_1", "Concat", []string{batch1, c("/Constant_4", og.Int64T("", []int64{2}, 8, -1))}, []string{"onnx::Reshape_61"}, og.Int("axis", 0))
	o = b.Named("/Reshape_1", "Reshape", []string{o, merge}, []string{"/Reshape_1_output_0"})
	// A class token expanded to the batch and prepended.
	cls := b.Named("/Concat_2", "Concat", []string{batch1, c("/Constant_5", og.Int64T("", []int64{2}, 1, 32))}, []string{"/Concat_2_output_0"}, og.Int("axis", 0))
	cls = b.Named("/Expand", "Expand", []string{b.Init("cls_token", []int64{1, 1, 32}, 0, 0.5), cls}, []string{"/Expand_output_0"})
	b.Named("/Concat_3", "Concat", []string{cls, o}, []string{"output"}, og.Int("axis", 1))
	batchDim := func(name string, dims ...int64) vi { return og.Info(name, f32, dims, "batch") }
	b.Declare(
		batchDim("/proj/Add_output_0", 0, 8, 32),
		// Deliberately inconsistent, as traced exports leave them: a
		// static traced batch, and a wrong last extent.
		og.Info("/Expand_output_0", f32, []int64{1, 1, 32}),
		og.Info("/Softmax_output_0", f32, []int64{0, 4, 8, 16}, "batch"),
		og.Info("/Gather_output_0", i64, nil),
	)
	g := b.Graph("main_graph", []vi{batchDim("x", 0, 8, 16)}, []vi{batchDim("output", 0, 9, 32)})
	dir := write("torch_dynshape", g, 7, "pytorch", og.Opset{Version: 14})
	input(b, dir, 0, 0, "x", []int64{2, 8, 16}, 0, 1)
}

func f32bytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		bits := math.Float32bits(x)
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
	return out
}

// torchLoRA is a LoRA-adapted linear layer as torch.onnx exports it: the
// base MatMul and the low-rank path x·A·B·scale, two parameter paths
// added, then the bias.
func torchLoRA() {
	b := og.New(103, 1)
	base := b.Named("/base/MatMul", "MatMul", []string{"x", weight(b, "onnx::MatMul_20", 32, 32, 64)}, []string{"/base/MatMul_output_0"})
	a := b.Named("/lora_A/MatMul", "MatMul", []string{"x", weight(b, "onnx::MatMul_21", 32, 32, 4)}, []string{"/lora_A/MatMul_output_0"})
	a = b.Named("/lora_B/MatMul", "MatMul", []string{a, weight(b, "onnx::MatMul_22", 4, 4, 64)}, []string{"/lora_B/MatMul_output_0"})
	a = b.Named("/Mul", "Mul", []string{a, b.Constant("/Constant", "/Constant_output_0", og.Tensor("", nil, f32bytes(0.5)))}, []string{"/Mul_output_0"})
	y := b.Named("/Add", "Add", []string{base, a}, []string{"/Add_output_0"})
	b.Named("/Add_1", "Add", []string{y, b.Init("base.bias", []int64{64}, 0, 0.1)}, []string{"y"})
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{0, 32}, "batch")}, []vi{og.Info("y", f32, []int64{0, 64}, "batch")})
	dir := write("torch_lora", g, 8, "pytorch", og.Opset{Version: 17})
	input(b, dir, 0, 0, "x", []int64{3, 32}, 0, 1)
}

// gemm adds a Gemm node of nn.Linear (transB = 1): in → out features.
func gemm(b *og.Builder, node, out, x, prefix string, in, n int64) string {
	return b.Named(node, "Gemm", []string{x, weight(b, prefix+".weight", in, n, in), b.Init(prefix+".bias", []int64{n}, 0, 0.1)},
		[]string{out}, og.Float("alpha", 1), og.Float("beta", 1), og.Int("transB", 1))
}

// torchMLP is a three-layer MLP as torch.onnx exports nn.Linear stacks.
func torchMLP() {
	b := og.New(104, 1)
	h := gemm(b, "/fc1/Gemm", "/fc1/Gemm_output_0", "input", "fc1", 64, 96)
	h = b.Named("/act1/Relu", "Relu", []string{h}, []string{"/act1/Relu_output_0"})
	h = gemm(b, "/fc2/Gemm", "/fc2/Gemm_output_0", h, "fc2", 96, 48)
	h = b.Named("/act2/Relu", "Relu", []string{h}, []string{"/act2/Relu_output_0"})
	gemm(b, "/fc3/Gemm", "logits", h, "fc3", 48, 10)
	g := b.Graph("main_graph", []vi{og.Info("input", f32, []int64{0, 64}, "batch_size")}, []vi{og.Info("logits", f32, []int64{0, 10}, "batch_size")})
	dir := write("torch_mlp", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "input", []int64{4, 64}, 0, 1)
}

// layerNorm adds LayerNorm over the last axis as older exporters write
// it: ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt, Div, Mul γ, Add β.
func layerNorm(b *og.Builder, p, x string, n int64) string {
	mean := b.Named(p+"/ReduceMean", "ReduceMean", []string{x}, []string{p + "/ReduceMean_output_0"}, og.Ints("axes", -1), og.Int("keepdims", 1))
	d := b.Named(p+"/Sub", "Sub", []string{x, mean}, []string{p + "/Sub_output_0"})
	sq := b.Named(p+"/Pow", "Pow", []string{d, b.Scalar(p+".two", 2)}, []string{p + "/Pow_output_0"})
	v := b.Named(p+"/ReduceMean_1", "ReduceMean", []string{sq}, []string{p + "/ReduceMean_1_output_0"}, og.Ints("axes", -1), og.Int("keepdims", 1))
	v = b.Named(p+"/Add", "Add", []string{v, b.Scalar(p+".eps", 1e-5)}, []string{p + "/Add_output_0"})
	v = b.Named(p+"/Sqrt", "Sqrt", []string{v}, []string{p + "/Sqrt_output_0"})
	y := b.Named(p+"/Div", "Div", []string{d, v}, []string{p + "/Div_output_0"})
	y = b.Named(p+"/Mul", "Mul", []string{y, b.Init(p+".weight", []int64{n}, 1, 0.2)}, []string{p + "/Mul_output_0"})
	return b.Named(p+"/Add_1", "Add", []string{y, b.Init(p+".bias", []int64{n}, 0, 0.1)}, []string{p + "/Add_1_output_0"})
}

// wakeWord is a wake-word detector's head over 16 frames of 40 mel bins:
// Flatten, Gemms with LayerNorm written out, Relu, Softmax.
func wakeWord() {
	b := og.New(105, 1)
	h := b.Named("/Flatten", "Flatten", []string{"features"}, []string{"/Flatten_output_0"}, og.Int("axis", 1))
	h = gemm(b, "/fc1/Gemm", "/fc1/Gemm_output_0", h, "fc1", 640, 64)
	h = layerNorm(b, "/ln1", h, 64)
	h = b.Named("/Relu", "Relu", []string{h}, []string{"/Relu_output_0"})
	h = gemm(b, "/fc2/Gemm", "/fc2/Gemm_output_0", h, "fc2", 64, 64)
	h = layerNorm(b, "/ln2", h, 64)
	h = b.Named("/Relu_1", "Relu", []string{h}, []string{"/Relu_1_output_0"})
	h = gemm(b, "/fc3/Gemm", "/fc3/Gemm_output_0", h, "fc3", 64, 2)
	b.Named("/Softmax", "Softmax", []string{h}, []string{"probs"}, og.Int("axis", 1))
	g := b.Graph("main_graph", []vi{og.Info("features", f32, []int64{1, 16, 40})}, []vi{og.Info("probs", f32, []int64{1, 2})})
	dir := write("wakeword_head", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "features", []int64{1, 16, 40}, -2, 2)
}

// kerasNHWC is tf2onnx's export of a Keras NHWC CNN: Transpose pairs
// around each Conv (perm [0,3,1,2] in, [0,2,3,1] out), `:0` value names,
// a batch of -1, Relu6 as Clip with inputs, ReduceMean keepdims + Squeeze
// with an axes input, MatMul + Add + Softmax.
func kerasNHWC() {
	b := og.New(106, 1)
	nchw := func(node, x string) string {
		return b.Named(node, "Transpose", []string{x}, []string{node + ":0"}, og.Ints("perm", 0, 3, 1, 2))
	}
	nhwc := func(node, x string) string {
		return b.Named(node, "Transpose", []string{x}, []string{node + ":0"}, og.Ints("perm", 0, 2, 3, 1))
	}
	h := nchw("model/conv2d/BiasAdd__6", "input_1")
	h = conv(b, "model/conv2d/BiasAdd", "model/conv2d/BiasAdd_nchw:0", h, "model/conv2d/Conv2D/ReadVariableOp:0", "model/conv2d/BiasAdd/ReadVariableOp:0", 3, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	h = nhwc("model/conv2d/BiasAdd__8", h)
	h = b.Named("model/conv2d/Relu", "Relu", []string{h}, []string{"model/conv2d/Relu:0"})
	h = nchw("model/depthwise_conv2d/depthwise__10", h)
	h = conv(b, "model/depthwise_conv2d/depthwise", "model/depthwise_conv2d/depthwise_nchw:0", h, "model/depthwise_conv2d/depthwise/ReadVariableOp:0", "model/depthwise_conv2d/BiasAdd/ReadVariableOp:0", 8, 8, 3, 3, 2, 1, 8, 0, 0, 1, 1)
	h = nhwc("model/depthwise_conv2d/depthwise__12", h)
	h = b.Named("model/re_lu/Relu6", "Clip", []string{h, b.Scalar("model/re_lu/Relu6/min:0", 0), b.Scalar("model/re_lu/Relu6/max:0", 6)}, []string{"model/re_lu/Relu6:0"})
	h = b.Named("model/global_average_pooling2d/Mean", "ReduceMean", []string{h}, []string{"model/global_average_pooling2d/Mean:0"}, og.Ints("axes", 1, 2), og.Int("keepdims", 1))
	h = b.Named("model/global_average_pooling2d/Mean_Squeeze__14", "Squeeze", []string{h, b.Int64s("const_axes__15", []int64{2}, 1, 2)}, []string{"model/global_average_pooling2d/Mean_Squeeze__14:0"})
	h = b.Named("model/dense/MatMul", "MatMul", []string{h, weight(b, "model/dense/MatMul/ReadVariableOp:0", 8, 8, 10)}, []string{"model/dense/MatMul:0"})
	h = b.Named("model/dense/BiasAdd", "Add", []string{h, b.Init("model/dense/BiasAdd/ReadVariableOp:0", []int64{10}, 0, 0.1)}, []string{"model/dense/BiasAdd:0"})
	b.Named("model/dense/Softmax", "Softmax", []string{h}, []string{"dense"}, og.Int("axis", -1))
	g := b.Graph("tf2onnx", []vi{og.Info("input_1", f32, []int64{-1, 16, 16, 3})}, []vi{og.Info("dense", f32, []int64{-1, 10})})
	dir := write("keras_nhwc_cnn", g, 7, "tf2onnx", og.Opset{Version: 13})
	input(b, dir, 0, 0, "input_1", []int64{2, 16, 16, 3}, 0, 1)
}

// kerasConv1D is keras2onnx's export of a Keras Conv1D classifier at
// opset 11: Unsqueeze/Squeeze with axes attributes around a 1×3 Conv
// with the NHWC Transpose pair, ReduceMax over time, Dense + Sigmoid.
func kerasConv1D() {
	b := og.New(107, 1)
	h := b.Named("conv1d/conv1d/ExpandDims", "Unsqueeze", []string{"input_2"}, []string{"conv1d/conv1d/ExpandDims:0"}, og.Ints("axes", 1))
	h = b.Named("conv1d/conv1d_transpose_in", "Transpose", []string{h}, []string{"conv1d/conv1d_transpose_in:0"}, og.Ints("perm", 0, 3, 1, 2))
	h = conv(b, "conv1d/conv1d", "conv1d/conv1d_nchw:0", h, "conv1d/kernel:0", "conv1d/bias:0", 8, 16, 1, 3, 1, 1, 1, 0, 0, 0, 0)
	h = b.Named("conv1d/conv1d_transpose_out", "Transpose", []string{h}, []string{"conv1d/conv1d_transpose_out:0"}, og.Ints("perm", 0, 2, 3, 1))
	h = b.Named("conv1d/conv1d/Squeeze", "Squeeze", []string{h}, []string{"conv1d/conv1d/Squeeze:0"}, og.Ints("axes", 1))
	h = b.Named("conv1d/Relu", "Relu", []string{h}, []string{"conv1d/Relu:0"})
	h = b.Named("global_max_pooling1d/Max", "ReduceMax", []string{h}, []string{"global_max_pooling1d/Max:0"}, og.Ints("axes", 1), og.Int("keepdims", 0))
	h = b.Named("dense_1/MatMul", "MatMul", []string{h, weight(b, "dense_1/kernel:0", 16, 16, 4)}, []string{"dense_1/MatMul:0"})
	h = b.Named("dense_1/BiasAdd", "Add", []string{h, b.Init("dense_1/bias:0", []int64{4}, 0, 0.1)}, []string{"dense_1/BiasAdd:0"})
	b.Named("dense_1/Sigmoid", "Sigmoid", []string{h}, []string{"dense_1"})
	g := b.Graph("keras2onnx", []vi{og.Info("input_2", f32, []int64{-1, 20, 8})}, []vi{og.Info("dense_1", f32, []int64{-1, 4})})
	dir := write("keras_conv1d", g, 6, "keras2onnx", og.Opset{Version: 11})
	input(b, dir, 0, 0, "input_2", []int64{2, 20, 8}, 0, 1)
}

// nestedIf is If in If in If, each arm capturing outer values, as
// scripted torch exports write them; the two innermost arms both define a
// value "t3" (ONNX Runtime rejects an arm redefining a name of the main
// graph, so the shadowing is between siblings).
func nestedIf() {
	b := og.New(108, 1)
	h := b.Named("/MatMul", "MatMul", []string{"x", weight(b, "W", 4, 4, 4)}, []string{"h"})
	t := b.Named("/Add", "Add", []string{"x", b.Scalar("one", 1)}, []string{"t"})
	arm := func(name string, build func(s *og.Builder) string) *onnxpb.GraphProto {
		s := b.Sub()
		out := build(s)
		return s.Graph(name, nil, []vi{og.Info(out, f32, []int64{2, 4})})
	}
	ifNode := func(s *og.Builder, node, cond, out string, then, els *onnxpb.GraphProto) string {
		return s.Named(node, "If", []string{cond}, []string{out}, og.GraphAttr("then_branch", then), og.GraphAttr("else_branch", els))
	}
	inner := func(s *og.Builder) string {
		then := arm("then3", func(s *og.Builder) string {
			s.Named("/If/If/If/then/Mul", "Mul", []string{h, "x"}, []string{"t3"})
			return s.Named("/If/If/If/then/Add", "Add", []string{"t3", t}, []string{"r3a"})
		})
		els := arm("else3", func(s *og.Builder) string {
			s.Named("/If/If/If/else/Sub", "Sub", []string{h, "x"}, []string{"t3"})
			return s.Named("/If/If/If/else/Tanh", "Tanh", []string{"t3"}, []string{"r3b"})
		})
		return ifNode(s, "/If/If/If", "c3", "r2a", then, els)
	}
	mid := func(s *og.Builder) string {
		then := arm("then2", inner)
		els := arm("else2", func(s *og.Builder) string {
			return s.Named("/If/If/else/Div", "Div", []string{h, t}, []string{"r2b"})
		})
		return ifNode(s, "/If/If", "c2", "r1a", then, els)
	}
	then := arm("then1", mid)
	els := arm("else1", func(s *og.Builder) string {
		return s.Named("/If/else/Relu", "Relu", []string{h}, []string{"r1b"})
	})
	y := ifNode(b, "/If", "c1", "y", then, els)
	b.Named("/Mul", "Mul", []string{y, t}, []string{"out"})
	g := b.Graph("main_graph", []vi{og.Info("c1", b1, nil), og.Info("c2", b1, nil), og.Info("c3", b1, nil), og.Info("x", f32, []int64{2, 4})},
		[]vi{og.Info("out", f32, []int64{2, 4})})
	dir := write("nested_if", g, 8, "pytorch", og.Opset{Version: 13})
	for set, c := range [][3]bool{{true, true, true}, {true, true, false}, {true, false, true}, {false, true, true}} {
		for k, v := range c {
			og.WriteInput(dir, set, k, boolT(fmt.Sprintf("c%d", k+1), v))
		}
		input(b, dir, set, 3, "x", []int64{2, 4}, 0, 1)
	}
}

// vadIf is a Silero-style voice-activity front end: an If on the sample
// rate choosing one of two strided Conv front ends; the 8 kHz arm, not
// taken by the data, declares an output shape it does not produce, as the
// exported models do (ONNX Runtime reads it as a hint).
func vadIf() {
	b := og.New(109, 1)
	arm := func(name, w string, k, pad int64, declared []int64) *onnxpb.GraphProto {
		s := b.Sub()
		x := s.Named(name+"/Reshape", "Reshape", []string{"audio", "audio_shape"}, []string{name + "_x"})
		s.Named(name+"/Conv", "Conv", []string{x, w}, []string{name + "_f"}, og.Ints("kernel_shape", k), og.Ints("strides", 128),
			og.Ints("pads", pad, pad), og.Ints("dilations", 1), og.Int("group", 1))
		return s.Graph(name, nil, []vi{og.Info(name+"_f", f32, declared)})
	}
	b.Int64s("audio_shape", []int64{3}, 1, 1, 512)
	b.Init("stft16.weight", []int64{32, 1, 256}, 0, 1/16.0)
	b.Init("stft8.weight", []int64{32, 1, 128}, 0, 1/11.3)
	is16 := b.Named("/Equal", "Equal", []string{"sr", b.Int64s("sr16k", nil, 16000)}, []string{"/Equal_output_0"})
	f := b.Named("/If", "If", []string{is16}, []string{"/If_output_0"},
		og.GraphAttr("then_branch", arm("then", "stft16.weight", 256, 64, []int64{1, 32, 4})),
		og.GraphAttr("else_branch", arm("else", "stft8.weight", 128, 0, []int64{1, 32, 3})))
	re := "/Split_output_0"
	im := "/Split_output_1"
	b.Named("/Split", "Split", []string{f, b.Int64s("split", []int64{2}, 16, 16)}, []string{re, im}, og.Int("axis", 1))
	re2 := b.Named("/Mul", "Mul", []string{re, re}, []string{"/Mul_output_0"})
	im2 := b.Named("/Mul_1", "Mul", []string{im, im}, []string{"/Mul_1_output_0"})
	m := b.Named("/Add", "Add", []string{re2, im2}, []string{"/Add_output_0"})
	m = b.Named("/Sqrt", "Sqrt", []string{m}, []string{"/Sqrt_output_0"})
	m = b.Named("/Add_1", "Add", []string{m, b.Scalar("eps", 1e-3)}, []string{"/Add_1_output_0"})
	m = b.Named("/Log", "Log", []string{m}, []string{"/Log_output_0"})
	e := b.Named("/encoder/Conv", "Conv", []string{m, b.Init("encoder.weight", []int64{16, 16, 1}, 0, 0.25), b.Init("encoder.bias", []int64{16}, 0, 0.1)},
		[]string{"/encoder/Conv_output_0"}, og.Ints("kernel_shape", 1))
	e = b.Named("/Relu", "Relu", []string{e}, []string{"/Relu_output_0"})
	e = b.Named("/ReduceMean", "ReduceMean", []string{e}, []string{"/ReduceMean_output_0"}, og.Ints("axes", 2), og.Int("keepdims", 0))
	e = b.Named("/decoder/MatMul", "MatMul", []string{e, weight(b, "decoder.weight", 16, 16, 1)}, []string{"/decoder/MatMul_output_0"})
	e = b.Named("/decoder/Add", "Add", []string{e, b.Init("decoder.bias", []int64{1}, 0, 0.1)}, []string{"/decoder/Add_output_0"})
	b.Named("/Sigmoid", "Sigmoid", []string{e}, []string{"prob"})
	g := b.Graph("main_graph", []vi{og.Info("audio", f32, []int64{1, 512}), og.Info("sr", i64, nil)}, []vi{og.Info("prob", f32, []int64{1, 1})})
	dir := write("vad_if", g, 8, "pytorch", og.Opset{Version: 16})
	input(b, dir, 0, 0, "audio", []int64{1, 512}, 0, 0.5)
	og.WriteInput(dir, 0, 1, og.Int64T("sr", nil, 16000))
}

// torchLoop is a scripted torch loop over the rows of x: the trip count
// is Shape → Gather at run time, the body accumulates acc·0.5 + x[i] and
// stacks every acc. The body's carried input is named acc0 like the main
// graph's initial value, which it shadows.
func torchLoop() {
	b := og.New(110, 1)
	shp := b.Named("/Shape", "Shape", []string{"x"}, []string{"/Shape_output_0"})
	n := b.Named("/Gather", "Gather", []string{shp, b.Constant("/Constant", "/Constant_output_0", og.Int64T("", nil, 0))}, []string{"/Gather_output_0"}, og.Int("axis", 0))
	cond := b.Constant("/Constant_1", "/Constant_1_output_0", boolT("", true))
	s := b.Sub()
	row := s.Named("/Loop/Gather", "Gather", []string{"x", "i"}, []string{"row"}, og.Int("axis", 0))
	half := s.Named("/Loop/Mul", "Mul", []string{"acc0", "half"}, []string{"scaled"})
	s.Named("/Loop/Add", "Add", []string{half, row}, []string{"acc_out"})
	s.Named("/Loop/Identity", "Identity", []string{"cond_in"}, []string{"cond_out"})
	s.Named("/Loop/Identity_1", "Identity", []string{"acc_out"}, []string{"acc_scan"})
	body := s.Graph("loop_body",
		[]vi{og.Info("i", i64, nil), og.Info("cond_in", b1, nil), og.Info("acc0", f32, []int64{4})},
		[]vi{og.Info("cond_out", b1, nil), og.Info("acc_out", f32, []int64{4}), og.Info("acc_scan", f32, []int64{4})})
	b.Scalar("half", 0.5)
	b.Named("/Loop", "Loop", []string{n, cond, b.Init("acc0", []int64{4}, 0, 0.5)}, []string{"acc", "accs"}, og.GraphAttr("body", body))
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{3, 4})}, []vi{og.Info("acc", f32, []int64{4}), og.Info("accs", f32, []int64{3, 4})})
	dir := write("torch_loop", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "x", []int64{3, 4}, 0, 1)
}

// scanRNN is an Elman RNN as a Scan (opset 11): h = tanh(x·W + h·U + b)
// over 5 steps, the last state and every state as outputs.
func scanRNN() {
	b := og.New(111, 1)
	w := weight(b, "W", 8, 8, 16)
	u := weight(b, "U", 16, 16, 16)
	bias := b.Init("b", []int64{16}, 0, 0.1)
	s := b.Sub()
	xw := s.Named("scan/MatMul", "MatMul", []string{"x_t", w}, []string{"xw"})
	hu := s.Named("scan/MatMul_1", "MatMul", []string{"h_in", u}, []string{"hu"})
	a := s.Named("scan/Add", "Add", []string{xw, hu}, []string{"a0"})
	a = s.Named("scan/Add_1", "Add", []string{a, bias}, []string{"a1"})
	s.Named("scan/Tanh", "Tanh", []string{a}, []string{"h_out"})
	s.Named("scan/Identity", "Identity", []string{"h_out"}, []string{"h_scan"})
	body := s.Graph("scan_body", []vi{og.Info("h_in", f32, []int64{1, 16}), og.Info("x_t", f32, []int64{1, 8})},
		[]vi{og.Info("h_out", f32, []int64{1, 16}), og.Info("h_scan", f32, []int64{1, 16})})
	b.Named("Scan_0", "Scan", []string{"h0", "xs"}, []string{"h_last", "hs"}, og.Int("num_scan_inputs", 1), og.GraphAttr("body", body))
	g := b.Graph("rnn", []vi{og.Info("h0", f32, []int64{1, 16}), og.Info("xs", f32, []int64{5, 1, 8})},
		[]vi{og.Info("h_last", f32, []int64{1, 16}), og.Info("hs", f32, []int64{5, 1, 16})})
	dir := write("scan_rnn", g, 6, "onnx", og.Opset{Version: 11})
	input(b, dir, 0, 0, "h0", []int64{1, 16}, 0, 0.5)
	input(b, dir, 0, 1, "xs", []int64{5, 1, 8}, 0, 1)
}

// fp16Cast is a mixed-precision export: the f32 input cast to float16, a
// float16 Conv + Relu + Add of a float16 constant + GlobalAveragePool,
// cast back to f32.
func fp16Cast() {
	b := og.New(112, 1)
	h := b.Named("/Cast", "Cast", []string{"x"}, []string{"/Cast_output_0"}, og.Int("to", int64(f16)))
	h = b.Named("/conv/Conv", "Conv", []string{h, b.Init16("conv.weight", []int64{8, 4, 3, 3}, 0, 0.29), b.Init16("conv.bias", []int64{8}, 0, 0.1)},
		[]string{"/conv/Conv_output_0"}, og.Ints("kernel_shape", 3, 3), og.Ints("pads", 1, 1, 1, 1))
	h = b.Named("/Relu", "Relu", []string{h}, []string{"/Relu_output_0"})
	h = b.Named("/Add", "Add", []string{h, b.Init16("offset", []int64{8, 1, 1}, 0, 0.5)}, []string{"/Add_output_0"})
	h = b.Named("/GlobalAveragePool", "GlobalAveragePool", []string{h}, []string{"/GlobalAveragePool_output_0"})
	b.Named("/Cast_1", "Cast", []string{h}, []string{"y"}, og.Int("to", int64(f32)))
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{1, 4, 8, 8})}, []vi{og.Info("y", f32, []int64{1, 8, 1, 1})})
	dir := write("fp16_cast", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "x", []int64{1, 4, 8, 8}, 0, 1)
}

// fp16Loop is a Loop carrying a float16 state: s = s·w + x (w, x
// float16, captured) for 3 iterations, the final state and every state
// cast back to f32.
func fp16Loop() {
	b := og.New(113, 1)
	x := b.Named("/Cast", "Cast", []string{"x"}, []string{"x16"}, og.Int("to", int64(f16)))
	w := b.Init16("w16", []int64{4}, 0.5, 0.3)
	s := b.Sub()
	m := s.Named("/Loop/Mul", "Mul", []string{"s_in", w}, []string{"sw"})
	s.Named("/Loop/Add", "Add", []string{m, x}, []string{"s_out"})
	s.Named("/Loop/Identity", "Identity", []string{"cond_in"}, []string{"cond_out"})
	s.Named("/Loop/Identity_1", "Identity", []string{"s_out"}, []string{"s_scan"})
	body := s.Graph("loop_body",
		[]vi{og.Info("i", i64, nil), og.Info("cond_in", b1, nil), og.Info("s_in", f16, []int64{4})},
		[]vi{og.Info("cond_out", b1, nil), og.Info("s_out", f16, []int64{4}), og.Info("s_scan", f16, []int64{4})})
	b.Named("/Loop", "Loop", []string{b.Int64s("trip", nil, 3), b.Add(boolT("cond", true)), b.Init16("s0", []int64{4}, 0, 0.5)},
		[]string{"s16", "ss16"}, og.GraphAttr("body", body))
	b.Named("/Cast_1", "Cast", []string{"s16"}, []string{"s"}, og.Int("to", int64(f32)))
	b.Named("/Cast_2", "Cast", []string{"ss16"}, []string{"ss"}, og.Int("to", int64(f32)))
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{4})}, []vi{og.Info("s", f32, []int64{4}), og.Info("ss", f32, []int64{3, 4})})
	dir := write("fp16_loop", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "x", []int64{4}, 0, 1)
}

// convClip is Conv + Clip at opset 11 (min/max inputs; the second Clip
// has its max omitted), as torch.onnx wrote ReLU6 and clamp_min.
func convClip() {
	b := og.New(114, 1)
	h := conv(b, "Conv_0", "input.4", "input", "features.0.weight", "features.0.bias", 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	h = b.Named("Clip_1", "Clip", []string{h, b.Scalar("onnx::Clip_9", 0), b.Scalar("onnx::Clip_10", 6)}, []string{"input.8"})
	h = conv(b, "Conv_2", "input.12", h, "features.2.weight", "features.2.bias", 16, 8, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	b.Named("Clip_3", "Clip", []string{h, b.Scalar("onnx::Clip_13", 0.1), ""}, []string{"output"})
	g := b.Graph("torch-jit-export", []vi{og.Info("input", f32, []int64{1, 8, 12, 12})}, []vi{og.Info("output", f32, []int64{1, 8, 12, 12})})
	dir := write("conv_clip_op11", g, 6, "pytorch", og.Opset{Version: 11})
	input(b, dir, 0, 0, "input", []int64{1, 8, 12, 12}, 0, 1)
}

// mobileNetV3FPN is a MobileNetV3 block (1×1 expand + HardSwish,
// depthwise 3×3 stride 2, squeeze-excite with HardSigmoid, 1×1 project,
// each with BatchNormalization) under an FPN top-down step: a lateral
// 1×1, Resize ×2 nearest, Add with the finer lateral, a 3×3 smoothing
// Conv, and a ConvTranspose 2×2 stride 2 path.
func mobileNetV3FPN() {
	b := og.New(115, 1)
	h := conv(b, "/block/expand/Conv", "/block/expand/Conv_output_0", "x", "block.expand.weight", "", 16, 48, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	h = bn(b, "/block/expand_bn/BatchNormalization", "/block/expand_bn/BatchNormalization_output_0", h, "block.expand_bn", 48)
	h = b.Named("/block/act1/HardSwish", "HardSwish", []string{h}, []string{"/block/act1/HardSwish_output_0"})
	h = conv(b, "/block/dw/Conv", "/block/dw/Conv_output_0", h, "block.dw.weight", "", 48, 48, 3, 3, 2, 1, 48, 1, 1, 1, 1)
	h = bn(b, "/block/dw_bn/BatchNormalization", "/block/dw_bn/BatchNormalization_output_0", h, "block.dw_bn", 48)
	se := b.Named("/block/se/GlobalAveragePool", "GlobalAveragePool", []string{h}, []string{"/block/se/GlobalAveragePool_output_0"})
	se = conv(b, "/block/se/fc1/Conv", "/block/se/fc1/Conv_output_0", se, "block.se.fc1.weight", "block.se.fc1.bias", 48, 12, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	se = b.Named("/block/se/Relu", "Relu", []string{se}, []string{"/block/se/Relu_output_0"})
	se = conv(b, "/block/se/fc2/Conv", "/block/se/fc2/Conv_output_0", se, "block.se.fc2.weight", "block.se.fc2.bias", 12, 48, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	se = b.Named("/block/se/HardSigmoid", "HardSigmoid", []string{se}, []string{"/block/se/HardSigmoid_output_0"}, og.Float("alpha", 1.0/6), og.Float("beta", 0.5))
	h = b.Named("/block/se/Mul", "Mul", []string{h, se}, []string{"/block/se/Mul_output_0"})
	h = b.Named("/block/act2/HardSwish", "HardSwish", []string{h}, []string{"/block/act2/HardSwish_output_0"})
	h = conv(b, "/block/project/Conv", "/block/project/Conv_output_0", h, "block.project.weight", "", 48, 24, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	c2 := bn(b, "/block/project_bn/BatchNormalization", "/block/project_bn/BatchNormalization_output_0", h, "block.project_bn", 24)
	p2 := conv(b, "/fpn/lateral2/Conv", "p_top", c2, "fpn.lateral2.weight", "fpn.lateral2.bias", 24, 16, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	up := b.Named("/fpn/Resize", "Resize", []string{p2, "", b.Values("/fpn/Constant_output_0", []int64{4}, 1, 1, 2, 2)}, []string{"/fpn/Resize_output_0"},
		og.String("mode", "nearest"), og.String("coordinate_transformation_mode", "asymmetric"), og.String("nearest_mode", "floor"))
	lat := conv(b, "/fpn/lateral1/Conv", "/fpn/lateral1/Conv_output_0", "x", "fpn.lateral1.weight", "fpn.lateral1.bias", 16, 16, 1, 1, 1, 1, 1, 0, 0, 0, 0)
	p1 := b.Named("/fpn/Add", "Add", []string{up, lat}, []string{"/fpn/Add_output_0"})
	p1 = conv(b, "/fpn/smooth/Conv", "/fpn/smooth/Conv_output_0", p1, "fpn.smooth.weight", "fpn.smooth.bias", 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	ct := b.Named("/fpn/up/ConvTranspose", "ConvTranspose", []string{c2, b.Init("fpn.up.weight", []int64{24, 16, 2, 2}, 0, float32(math.Sqrt(3.0/24))), b.Init("fpn.up.bias", []int64{16}, 0, 0.1)},
		[]string{"/fpn/up/ConvTranspose_output_0"}, og.Ints("dilations", 1, 1), og.Int("group", 1), og.Ints("kernel_shape", 2, 2), og.Ints("pads", 0, 0, 0, 0), og.Ints("strides", 2, 2))
	b.Named("/fpn/Add_1", "Add", []string{p1, ct}, []string{"p_out"})
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{1, 16, 16, 16})},
		[]vi{og.Info("p_top", f32, []int64{1, 16, 8, 8}), og.Info("p_out", f32, []int64{1, 16, 16, 16})})
	dir := write("mobilenetv3_fpn", g, 8, "pytorch", og.Opset{Version: 14})
	input(b, dir, 0, 0, "x", []int64{1, 16, 16, 16}, 0, 1)
}

// smallCNN is a small classifier CNN: Conv with pads + BatchNormalization
// + Relu + MaxPool, a depthwise Conv, a strided dilated Conv, AveragePool,
// a grouped 1×1 Conv, GlobalAveragePool, Flatten and Gemm.
func smallCNN() {
	b := og.New(116, 1)
	h := conv(b, "/conv1/Conv", "/conv1/Conv_output_0", "input", "conv1.weight", "", 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	h = bn(b, "/bn1/BatchNormalization", "/bn1/BatchNormalization_output_0", h, "bn1", 16)
	h = b.Named("/relu/Relu", "Relu", []string{h}, []string{"/relu/Relu_output_0"})
	h = b.Named("/pool/MaxPool", "MaxPool", []string{h}, []string{"/pool/MaxPool_output_0"}, og.Ints("kernel_shape", 2, 2), og.Ints("strides", 2, 2), og.Ints("pads", 0, 0, 0, 0))
	h = conv(b, "/dw/Conv", "/dw/Conv_output_0", h, "dw.weight", "dw.bias", 16, 16, 3, 3, 1, 1, 16, 1, 1, 1, 1)
	h = b.Named("/relu_1/Relu", "Relu", []string{h}, []string{"/relu_1/Relu_output_0"})
	h = conv(b, "/dil/Conv", "/dil/Conv_output_0", h, "dil.weight", "dil.bias", 16, 32, 3, 3, 2, 2, 1, 2, 2, 2, 2)
	h = b.Named("/relu_2/Relu", "Relu", []string{h}, []string{"/relu_2/Relu_output_0"})
	h = b.Named("/avg/AveragePool", "AveragePool", []string{h}, []string{"/avg/AveragePool_output_0"}, og.Ints("kernel_shape", 2, 2), og.Ints("strides", 2, 2), og.Ints("pads", 0, 0, 0, 0), og.Int("ceil_mode", 0))
	h = conv(b, "/grouped/Conv", "/grouped/Conv_output_0", h, "grouped.weight", "grouped.bias", 32, 32, 1, 1, 1, 1, 4, 0, 0, 0, 0)
	h = b.Named("/relu_3/Relu", "Relu", []string{h}, []string{"/relu_3/Relu_output_0"})
	h = b.Named("/gap/GlobalAveragePool", "GlobalAveragePool", []string{h}, []string{"/gap/GlobalAveragePool_output_0"})
	h = b.Named("/Flatten", "Flatten", []string{h}, []string{"/Flatten_output_0"}, og.Int("axis", 1))
	gemm(b, "/fc/Gemm", "logits", h, "fc", 32, 10)
	g := b.Graph("main_graph", []vi{og.Info("input", f32, []int64{1, 3, 32, 32})}, []vi{og.Info("logits", f32, []int64{1, 10})})
	dir := write("small_cnn", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "input", []int64{1, 3, 32, 32}, 0, 1)
}

// denseDepthwise is a dense 3×3 Conv feeding a depthwise 3×3 Conv.
func denseDepthwise() {
	b := og.New(117, 1)
	h := conv(b, "/conv/Conv", "/conv/Conv_output_0", "x", "conv.weight", "conv.bias", 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1)
	h = b.Named("/Relu", "Relu", []string{h}, []string{"/Relu_output_0"})
	h = conv(b, "/dw/Conv", "/dw/Conv_output_0", h, "dw.weight", "dw.bias", 16, 16, 3, 3, 1, 1, 16, 1, 1, 1, 1)
	b.Named("/Relu_1", "Relu", []string{h}, []string{"y"})
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{1, 8, 16, 16})}, []vi{og.Info("y", f32, []int64{1, 16, 16, 16})})
	dir := write("dense_dw3x3", g, 8, "pytorch", og.Opset{Version: 13})
	input(b, dir, 0, 0, "x", []int64{1, 8, 16, 16}, 0, 1)
}

// melSpectrogram is a Whisper-style log-mel front end: the STFT as a 1-D
// Conv (kernel 512, stride 160, the real and imaginary halves of 40
// bins), power, the mel MatMul, Clip at 1e-10, log10, the dynamic-range
// clamp against ReduceMax − 8 and (x + 4)/4.
func melSpectrogram() {
	b := og.New(118, 1)
	const bins, mels = 40, 16
	h := b.Named("/stft/Conv", "Conv", []string{"audio", b.Init("stft.weight", []int64{2 * bins, 1, 512}, 0, 1.0/16)}, []string{"/stft/Conv_output_0"},
		og.Ints("kernel_shape", 512), og.Ints("strides", 160), og.Ints("pads", 0, 0), og.Ints("dilations", 1), og.Int("group", 1))
	h = b.Named("/Pow", "Pow", []string{h, b.Scalar("two", 2)}, []string{"/Pow_output_0"})
	h = b.Named("/Reshape", "Reshape", []string{h, b.Int64s("ri_shape", []int64{4}, 1, 2, bins, -1)}, []string{"/Reshape_output_0"})
	h = b.Named("/ReduceSum", "ReduceSum", []string{h, b.Int64s("axis1", []int64{1}, 1)}, []string{"/ReduceSum_output_0"}, og.Int("keepdims", 0))
	h = b.Named("/Transpose", "Transpose", []string{h}, []string{"/Transpose_output_0"}, og.Ints("perm", 0, 2, 1))
	h = b.Named("/MatMul", "MatMul", []string{h, b.Init("mel_filters", []int64{bins, mels}, 0.05, 0.05)}, []string{"/MatMul_output_0"})
	h = b.Named("/Clip", "Clip", []string{h, b.Scalar("clip_min", 1e-10), ""}, []string{"/Clip_output_0"})
	h = b.Named("/Log", "Log", []string{h}, []string{"/Log_output_0"})
	h = b.Named("/Div", "Div", []string{h, b.Scalar("ln10", float32(math.Ln10))}, []string{"/Div_output_0"})
	mx := b.Named("/ReduceMax", "ReduceMax", []string{h}, []string{"/ReduceMax_output_0"}, og.Int("keepdims", 1))
	mx = b.Named("/Sub", "Sub", []string{mx, b.Scalar("eight", 8)}, []string{"/Sub_output_0"})
	h = b.Named("/Max", "Max", []string{h, mx}, []string{"/Max_output_0"})
	h = b.Named("/Add", "Add", []string{h, b.Scalar("four", 4)}, []string{"/Add_output_0"})
	b.Named("/Div_1", "Div", []string{h, "four"}, []string{"log_mel"})
	g := b.Graph("main_graph", []vi{og.Info("audio", f32, []int64{1, 1, 1952})}, []vi{og.Info("log_mel", f32, []int64{1, 10, mels})})
	dir := write("melspec", g, 8, "pytorch", og.Opset{Version: 17})
	input(b, dir, 0, 0, "audio", []int64{1, 1, 1952}, 0, 0.5)
}

// dupOpset has two opset_import entries for the default domain, ai.onnx
// 1 and then "" 21, as model merges leave them: ONNX Runtime uses the
// later one (the graph uses Gelu, of opset 20).
func dupOpset() {
	b := og.New(119, 1)
	h := b.Named("/fc/MatMul", "MatMul", []string{"x", weight(b, "fc.weight", 8, 8, 16)}, []string{"/fc/MatMul_output_0"})
	h = b.Named("/fc/Add", "Add", []string{h, b.Init("fc.bias", []int64{16}, 0, 0.1)}, []string{"/fc/Add_output_0"})
	h = b.Named("/Gelu", "Gelu", []string{h}, []string{"/Gelu_output_0"})
	b.Named("/ReduceSum", "ReduceSum", []string{h, b.Int64s("axes", []int64{1}, 1)}, []string{"y"}, og.Int("keepdims", 1))
	g := b.Graph("main_graph", []vi{og.Info("x", f32, []int64{2, 8})}, []vi{og.Info("y", f32, []int64{2, 1})})
	dir := write("dup_opset", g, 10, "onnx-merge", og.Opset{Domain: "ai.onnx", Version: 1}, og.Opset{Version: 21})
	input(b, dir, 0, 0, "x", []int64{2, 8}, 0, 1)
}
