package importer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// DataType is an ONNX tensor element type (TensorProto.DataType).
type DataType = onnxpb.TensorProto_DataType

// ONNX element types, as short names.
const (
	dtUndefined  = onnxpb.TensorProto_UNDEFINED
	dtFloat      = onnxpb.TensorProto_FLOAT
	dtUint8      = onnxpb.TensorProto_UINT8
	dtInt8       = onnxpb.TensorProto_INT8
	dtUint16     = onnxpb.TensorProto_UINT16
	dtInt16      = onnxpb.TensorProto_INT16
	dtInt32      = onnxpb.TensorProto_INT32
	dtInt64      = onnxpb.TensorProto_INT64
	dtString     = onnxpb.TensorProto_STRING
	dtBool       = onnxpb.TensorProto_BOOL
	dtFloat16    = onnxpb.TensorProto_FLOAT16
	dtDouble     = onnxpb.TensorProto_DOUBLE
	dtUint32     = onnxpb.TensorProto_UINT32
	dtUint64     = onnxpb.TensorProto_UINT64
	dtComplex64  = onnxpb.TensorProto_COMPLEX64
	dtComplex128 = onnxpb.TensorProto_COMPLEX128
	dtBfloat16   = onnxpb.TensorProto_BFLOAT16
	dtF8E4M3FN   = onnxpb.TensorProto_FLOAT8E4M3FN
	dtF8E4M3FNUZ = onnxpb.TensorProto_FLOAT8E4M3FNUZ
	dtF8E5M2     = onnxpb.TensorProto_FLOAT8E5M2
	dtF8E5M2FNUZ = onnxpb.TensorProto_FLOAT8E5M2FNUZ
	dtUint4      = onnxpb.TensorProto_UINT4
	dtInt4       = onnxpb.TensorProto_INT4
	dtFloat4E2M1 = onnxpb.TensorProto_FLOAT4E2M1
	dtF8E8M0     = onnxpb.TensorProto_FLOAT8E8M0
	dtUint2      = onnxpb.TensorProto_UINT2
	dtInt2       = onnxpb.TensorProto_INT2
)

// scalarTypes maps every numeric ONNX element type to its Niro scalar type.
var scalarTypes = map[DataType]niro.ScalarType{
	dtFloat:      niro.F32,
	dtUint8:      niro.U8,
	dtInt8:       niro.I8,
	dtUint16:     niro.U16,
	dtInt16:      niro.I16,
	dtInt32:      niro.I32,
	dtInt64:      niro.I64,
	dtBool:       niro.Bool,
	dtFloat16:    niro.F16,
	dtDouble:     niro.F64,
	dtUint32:     niro.U32,
	dtUint64:     niro.U64,
	dtComplex64:  niro.C64,
	dtComplex128: niro.C128,
	dtBfloat16:   niro.BF16,
	dtF8E4M3FN:   niro.F8E4M3FN,
	dtF8E4M3FNUZ: niro.F8E4M3FNUZ,
	dtF8E5M2:     niro.F8E5M2,
	dtF8E5M2FNUZ: niro.F8E5M2FNUZ,
	dtUint4:      niro.U4,
	dtInt4:       niro.I4,
	dtFloat4E2M1: niro.F4E2M1FN,
	dtF8E8M0:     niro.F8E8M0FNU,
	dtUint2:      niro.U2,
	dtInt2:       niro.I2,
}

// ScalarType returns the Niro scalar type of an ONNX element type, and
// false for STRING, UNDEFINED and codes ONNX does not define.
func ScalarType(dt DataType) (niro.ScalarType, bool) {
	s, ok := scalarTypes[dt]
	return s, ok
}

// dataTypeOf is the inverse of ScalarType.
func dataTypeOf(s niro.ScalarType) DataType {
	for dt, st := range scalarTypes {
		if st == s {
			return dt
		}
	}
	return dtUndefined
}

// dataTypeName spells an element type as ONNX's Python API does: float,
// float16, int64, bool, string… Unknown codes print as their number.
func dataTypeName(dt DataType) string {
	if _, ok := onnxpb.TensorProto_DataType_name[int32(dt)]; !ok {
		return "data type " + strconv.Itoa(int(dt))
	}
	return strings.ToLower(dt.String())
}

// validDataType reports whether dt is a defined ONNX element type.
func validDataType(dt DataType) bool {
	_, ok := onnxpb.TensorProto_DataType_name[int32(dt)]
	return ok && dt != dtUndefined
}

// TypeKind tells which ONNX type a [Type] is.
type TypeKind uint8

// Type kinds.
const (
	TensorKind TypeKind = iota + 1
	SequenceKind
	MapKind
	OptionalKind
	SparseTensorKind
	OpaqueKind
)

// Type is an ONNX value type (TypeProto).
type Type struct {
	Kind TypeKind
	// Elem is the element type of a tensor or sparse tensor.
	Elem DataType
	// Ranked is false when the shape is unknown; Dims then is nil.
	Ranked bool
	Dims   []Dim
	// Key is a map's key type; Inner is a map's value type or the element
	// type of a sequence or optional.
	Key   DataType
	Inner *Type
	// Opaque names an opaque type as domain.name.
	Opaque string
}

// Dim is one dimension of a tensor shape: a static extent (Value >= 0), a
// named symbolic extent (Param), or unknown (Value < 0, Param "").
type Dim struct {
	Value int64
	Param string
}

// String spells a dimension: its extent, its parameter name, or "?".
func (d Dim) String() string {
	switch {
	case d.Value >= 0:
		return strconv.FormatInt(d.Value, 10)
	case d.Param != "":
		return d.Param
	default:
		return "?"
	}
}

// String spells a type compactly: float[N,3], float[*] (unknown rank),
// seq<float[2]>, optional<...>, map<int64,float[?]>.
func (t *Type) String() string {
	if t == nil {
		return "<untyped>"
	}
	switch t.Kind {
	case TensorKind, SparseTensorKind:
		var sb strings.Builder
		if t.Kind == SparseTensorKind {
			sb.WriteString("sparse ")
		}
		sb.WriteString(dataTypeName(t.Elem))
		if !t.Ranked {
			sb.WriteString("[*]")
			return sb.String()
		}
		sb.WriteByte('[')
		for i, d := range t.Dims {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(d.String())
		}
		sb.WriteByte(']')
		return sb.String()
	case SequenceKind:
		return "seq<" + t.Inner.String() + ">"
	case OptionalKind:
		return "optional<" + t.Inner.String() + ">"
	case MapKind:
		return "map<" + dataTypeName(t.Key) + "," + t.Inner.String() + ">"
	case OpaqueKind:
		return "opaque<" + t.Opaque + ">"
	default:
		return "<invalid type>"
	}
}

// typeFromProto converts a TypeProto; it returns nil for a type with no
// variant set. A negative dim_value is an unknown dimension, as ONNX
// Runtime reads it (exporters write -1 for a dynamic one).
func typeFromProto(tp *onnxpb.TypeProto, depth int) (*Type, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("type nested more than %d levels", maxNesting)
	}
	switch v := tp.GetValue().(type) {
	case *onnxpb.TypeProto_TensorType:
		return tensorTypeFromProto(TensorKind, v.TensorType.GetElemType(), v.TensorType.GetShape())
	case *onnxpb.TypeProto_SparseTensorType:
		return tensorTypeFromProto(SparseTensorKind, v.SparseTensorType.GetElemType(), v.SparseTensorType.GetShape())
	case *onnxpb.TypeProto_SequenceType:
		inner, err := innerType(v.SequenceType.GetElemType(), depth)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: SequenceKind, Inner: inner}, nil
	case *onnxpb.TypeProto_OptionalType:
		inner, err := innerType(v.OptionalType.GetElemType(), depth)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: OptionalKind, Inner: inner}, nil
	case *onnxpb.TypeProto_MapType:
		inner, err := innerType(v.MapType.GetValueType(), depth)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: MapKind, Key: DataType(v.MapType.GetKeyType()), Inner: inner}, nil
	case *onnxpb.TypeProto_OpaqueType:
		return &Type{Kind: OpaqueKind, Opaque: v.OpaqueType.GetDomain() + "." + v.OpaqueType.GetName()}, nil
	default:
		return nil, nil
	}
}

func innerType(tp *onnxpb.TypeProto, depth int) (*Type, error) {
	t, err := typeFromProto(tp, depth+1)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("element type is missing")
	}
	return t, nil
}

func tensorTypeFromProto(kind TypeKind, elem int32, shape *onnxpb.TensorShapeProto) (*Type, error) {
	t := &Type{Kind: kind, Elem: DataType(elem)}
	if shape == nil {
		return t, nil
	}
	t.Ranked = true
	t.Dims = make([]Dim, len(shape.GetDim()))
	for i, d := range shape.GetDim() {
		switch v := d.GetValue().(type) {
		case *onnxpb.TensorShapeProto_Dimension_DimValue:
			t.Dims[i] = Dim{Value: max(v.DimValue, -1)}
		case *onnxpb.TensorShapeProto_Dimension_DimParam:
			t.Dims[i] = Dim{Value: -1, Param: v.DimParam}
		default:
			t.Dims[i] = Dim{Value: -1}
		}
	}
	return t, nil
}

// tensorTypeOf returns the ONNX type of a tensor constant.
func tensorTypeOf(t *Tensor) *Type {
	ty := &Type{Kind: TensorKind, Elem: t.DataType, Ranked: true, Dims: make([]Dim, len(t.Dims))}
	for i, d := range t.Dims {
		ty.Dims[i] = Dim{Value: d}
	}
	return ty
}
