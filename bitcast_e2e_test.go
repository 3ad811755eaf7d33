package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// TestBitCastE2E compiles ONNX BitCast from each float type to an integer
// of its width and back, and checks that both results keep every byte of
// the input: all 2^16 f16 and bf16 patterns, and f32 and f64 patterns
// spread over the whole range (NaN payloads, signed zeros, denormals and
// infinities included).
func TestBitCastE2E(t *testing.T) {
	requireTools(t)
	run := hostRunner(t)
	cases := []struct {
		float, int onnxpb.TensorProto_DataType
		elem       niro.ScalarType
		width      int
	}{
		{onnxpb.TensorProto_FLOAT16, onnxpb.TensorProto_INT16, niro.F16, 2},
		{onnxpb.TensorProto_BFLOAT16, onnxpb.TensorProto_UINT16, niro.BF16, 2},
		{onnxpb.TensorProto_FLOAT, onnxpb.TensorProto_INT32, niro.F32, 4},
		{onnxpb.TensorProto_DOUBLE, onnxpb.TensorProto_UINT64, niro.F64, 8},
	}
	for _, c := range cases {
		t.Run(c.elem.String(), func(t *testing.T) {
			var data []byte
			if c.width == 2 {
				for v := 0; v < 1<<16; v++ {
					data = binary.LittleEndian.AppendUint16(data, uint16(v))
				}
			} else {
				// Patterns a large odd step apart, plus the top and bottom.
				const n = 1 << 14
				step := uint64(1)<<(8*c.width-14) | 1
				for i := uint64(0); i < n; i++ {
					v := i * step
					if c.width == 4 {
						data = binary.LittleEndian.AppendUint32(data, uint32(v))
					} else {
						data = binary.LittleEndian.AppendUint64(data, v)
					}
				}
				data = append(data, bytes.Repeat([]byte{0xFF}, c.width)...)
			}
			count := int64(len(data) / c.width)
			bitcast := func(in, out string, to onnxpb.TensorProto_DataType) *onnxpb.NodeProto {
				return &onnxpb.NodeProto{OpType: proto.String("BitCast"), Input: []string{in}, Output: []string{out},
					Attribute: []*onnxpb.AttributeProto{{Name: proto.String("to"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(int64(to))}}}
			}
			g := &onnxpb.GraphProto{Name: proto.String("bitcast"),
				Node:   []*onnxpb.NodeProto{bitcast("x", "y", c.int), bitcast("y", "z", c.float)},
				Input:  []*onnxpb.ValueInfoProto{f8ValueInfo("x", c.float, count)},
				Output: []*onnxpb.ValueInfoProto{f8ValueInfo("y", c.int, count), f8ValueInfo("z", c.float, count)}}
			m := &onnxpb.ModelProto{IrVersion: proto.Int64(13), Graph: g,
				OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(26)}}}
			raw, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "bitcast.onnx")
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			got := run(t, path, tensorio.Tensor{Elem: c.elem, Dims: []int64{count}, Data: data})
			for i, o := range got {
				if !bytes.Equal(o.Data, data) {
					bad := 0
					for j := 0; j+c.width <= len(data); j += c.width {
						if !bytes.Equal(o.Data[j:j+c.width], data[j:j+c.width]) {
							if bad < 5 {
								t.Errorf("output %d, element %d: % x, want % x", i, j/c.width, o.Data[j:j+c.width], data[j:j+c.width])
							}
							bad++
						}
					}
					t.Errorf("output %d: %d of %d elements differ", i, bad, count)
				}
			}
		})
	}
}
