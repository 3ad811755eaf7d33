package importer

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// boolResultOps produce bool tensors.
var boolResultOps = map[string]bool{
	"Equal": true, "Less": true, "Greater": true, "LessOrEqual": true, "GreaterOrEqual": true,
	"Not": true, "And": true, "Or": true, "Xor": true, "IsNaN": true, "IsInf": true,
}

// int64ResultOps produce int64 tensors (in every output).
var int64ResultOps = map[string]bool{
	"Shape": true, "Size": true, "NonZero": true, "ArgMax": true, "ArgMin": true,
	"NonMaxSuppression": true, "StringLength": true,
}

// int64OutputOf lists ops whose output at a given index is int64 while the
// others follow the first input.
var int64OutputOf = map[string]map[int]bool{
	"TopK":    {1: true},
	"Unique":  {1: true, 2: true, 3: true},
	"MaxPool": {1: true},
}

// nonTensorOps produce values niro does not support (maps). The ops on
// sequences and optionals are resolved at import (ops_sequence.go).
var nonTensorOps = map[string]string{
	"ZipMap": "a sequence of maps",
}

// elemFromInput lists ops whose result element type is that of a given
// input rather than the first.
var elemFromInput = map[string]int{
	"Where":         1,
	"OneHot":        2,
	"QLinearMatMul": 7,
	"QLinearConv":   7,
}

// resultElem decides the element type of output i of an op kept as an
// UnknownOp whose output has no declared element type. The rules cover the
// ONNX ops whose output type is not their first input's; every other op
// takes its first present input's element type.
func (nc *nodeCtx) resultElem(i int) (niro.ScalarType, error) {
	op := nc.n.OpType
	if nc.domain == "" {
		switch {
		case boolResultOps[op]:
			return niro.Bool, nil
		case int64ResultOps[op], int64OutputOf[op][i]:
			return niro.I64, nil
		case nonTensorOps[op] != "":
			return niro.InvalidScalar, nc.errorf("output %q is %s; niro supports tensors only", nc.n.Outputs[i].Name, nonTensorOps[op])
		}
		if j, ok := elemFromInput[op]; ok {
			if x, ok := nc.input(j); ok {
				return tensorOf(x).Elem, nil
			}
		}
		switch op {
		case "MatMulInteger", "ConvInteger":
			return niro.I32, nil
		case "Dropout":
			if i == 1 {
				return niro.Bool, nil
			}
		case "LayerNormalization":
			if i > 0 {
				return nc.dtypeAttr("stash_type", niro.F32)
			}
		case "BitCast":
			return nc.dtypeAttr("to", niro.InvalidScalar)
		case "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix":
			return nc.dtypeAttr("output_datatype", niro.F32)
		case "ImageDecoder":
			return niro.U8, nil
		case "TfIdfVectorizer":
			return niro.F32, nil
		case "Cast":
			return nc.dtypeAttr("to", niro.InvalidScalar)
		case "CastLike":
			if x, ok := nc.input(1); ok {
				return tensorOf(x).Elem, nil
			}
		case "EyeLike", "RandomNormalLike", "RandomUniformLike", "Bernoulli":
			if x, ok := nc.input(0); ok {
				return nc.dtypeAttr("dtype", tensorOf(x).Elem)
			}
		case "RandomNormal", "RandomUniform":
			return nc.dtypeAttr("dtype", niro.F32)
		case "Multinomial":
			return nc.dtypeAttr("dtype", niro.I32)
		case "ConstantOfShape":
			if a := nc.attr("value"); a != nil && a.Tensor != nil {
				if s, ok := ScalarType(a.Tensor.DataType); ok {
					return s, nil
				}
			}
			return niro.F32, nil
		case "QuantizeLinear":
			if nc.attr("output_dtype") != nil {
				return nc.dtypeAttr("output_dtype", niro.U8)
			}
			if zp, ok := nc.input(2); ok {
				return tensorOf(zp).Elem, nil
			}
			return niro.U8, nil
		case "DequantizeLinear":
			if nc.attr("output_dtype") != nil {
				return nc.dtypeAttr("output_dtype", niro.F32)
			}
			if s, ok := nc.input(1); ok {
				return tensorOf(s).Elem, nil
			}
		case "DynamicQuantizeLinear":
			return []niro.ScalarType{niro.U8, niro.F32, niro.U8}[min(i, 2)], nil
		case "If", "Scan":
			// The outputs are the (then) branch's or the body's outputs.
			if elem, ok := nc.yieldElem(0, i); ok {
				return elem, nil
			}
		case "Loop":
			// Outputs: the loop-carried values, then the scan outputs: the
			// body's outputs after its condition.
			if elem, ok := nc.yieldElem(0, i+1); ok {
				return elem, nil
			}
		}
	}
	for j := range nc.args {
		if x, ok := nc.input(j); ok {
			return tensorOf(x).Elem, nil
		}
	}
	name := nc.n.Outputs[i].Name
	return niro.InvalidScalar, nc.errorf("cannot tell the element type of output %q: the op has no inputs and the model declares no type for it", name)
}

// dtypeAttr reads an element-type attribute (an ONNX DataType code).
func (nc *nodeCtx) dtypeAttr(name string, def niro.ScalarType) (niro.ScalarType, error) {
	a := nc.attr(name)
	if a == nil {
		if def == niro.InvalidScalar {
			return def, nc.errorf("attribute %q is required", name)
		}
		return def, nil
	}
	dt := attrDataType(a)
	s, ok := ScalarType(dt)
	if !ok {
		return niro.InvalidScalar, nc.errorf("attribute %s = %s names an element type niro does not support", name, dataTypeName(dt))
	}
	return s, nil
}

// attrDataType reads an element-type attribute: an INT holding the
// TensorProto data type, or, as Cast takes it before opset 6, a STRING
// naming it ("FLOAT", "INT64"; undefined for other names).
func attrDataType(a *Attr) DataType {
	if a.Type != onnxpb.AttributeProto_STRING {
		return DataType(a.Int)
	}
	v, ok := onnxpb.TensorProto_DataType_value[strings.ToUpper(string(a.String))]
	if !ok {
		return dtUndefined
	}
	return DataType(v)
}

// yieldElem returns the element type of the value that region r of the
// node yields at position i.
func (nc *nodeCtx) yieldElem(r, i int) (niro.ScalarType, bool) {
	if r >= len(nc.yields) || i >= len(nc.yields[r]) {
		return niro.InvalidScalar, false
	}
	return tensorOf(nc.yields[r][i]).Elem, true
}

func encodeFloats(fs []float32) []byte {
	out := make([]byte, 4*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func encodeInts(vs []int64) []byte {
	out := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(v))
	}
	return out
}
