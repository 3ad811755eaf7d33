package interp

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// TestBitcast checks that cast {bitcast = true} keeps every byte: f32 to
// i32 (a NaN payload, −0, a denormal), f16 to i16, bf16 to ui16 and i64
// to f64 and back.
func TestBitcast(t *testing.T) {
	const src = `
func @f(tensor<4xf32>, tensor<3xf16>, tensor<2xbf16>, tensor<2xi64>) -> (tensor<4xi32>, tensor<3xi16>, tensor<2xui16>, tensor<2xf64>, tensor<2xi64>) {
^bb0(%0: tensor<4xf32>, %1: tensor<3xf16>, %2: tensor<2xbf16>, %3: tensor<2xi64>):
  %4 = cast %0 {bitcast = true} : (tensor<4xf32>) -> tensor<4xi32>
  %5 = cast %1 {bitcast = true} : (tensor<3xf16>) -> tensor<3xi16>
  %6 = cast %2 {bitcast = true} : (tensor<2xbf16>) -> tensor<2xui16>
  %7 = cast %3 {bitcast = true} : (tensor<2xi64>) -> tensor<2xf64>
  %8 = cast %7 {bitcast = true} : (tensor<2xf64>) -> tensor<2xi64>
  return %4, %5, %6, %7, %8 : tensor<4xi32>, tensor<3xi16>, tensor<2xui16>, tensor<2xf64>, tensor<2xi64>
}`
	le := func(vals ...any) []byte {
		var b bytes.Buffer
		for _, v := range vals {
			_ = binary.Write(&b, binary.LittleEndian, v)
		}
		return b.Bytes()
	}
	f32 := le(uint32(0x7fc00001), math.Float32bits(float32(math.Copysign(0, -1))), uint32(1), math.Float32bits(1.5))
	f16 := le(uint16(0x3c00), uint16(0xfbff), uint16(0x8001))
	bf16 := le(uint16(0x3f80), uint16(0xff80))
	i64 := le(int64(-1)<<63, int64(0x3ff0000000000000))
	outs, err := run(t, src,
		tensorio.Tensor{Elem: niro.F32, Dims: []int64{4}, Data: f32},
		tensorio.Tensor{Elem: niro.F16, Dims: []int64{3}, Data: f16},
		tensorio.Tensor{Elem: niro.BF16, Dims: []int64{2}, Data: bf16},
		tensorio.Tensor{Elem: niro.I64, Dims: []int64{2}, Data: i64})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]byte{f32, f16, bf16, i64, i64} {
		if !bytes.Equal(outs[i].Data, want) {
			t.Errorf("output %d (%s) = % x, want % x", i, outs[i].Elem, outs[i].Data, want)
		}
	}
}
