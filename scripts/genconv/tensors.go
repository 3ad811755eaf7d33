package main

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// floatTensor returns the initializer name of dims whose elements, in
// order, are f's values: f64 when wide, else rounded to f32.
func floatTensor(name string, dims []int64, wide bool, f func() float64) *onnxpb.TensorProto {
	n := 1
	for _, d := range dims {
		n *= int(d)
	}
	if wide {
		raw := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(f()))
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), RawData: raw}
	}
	raw := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(f())))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), RawData: raw}
}

// uniform returns a generator of r's values, uniform in [a, b).
func uniform(r *rand.Rand, a, b float64) func() float64 {
	return func() float64 { return a + (b-a)*r.Float64() }
}
