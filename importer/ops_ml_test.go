package importer

import (
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

func TestBinarizer(t *testing.T) {
	for _, e := range []struct {
		dt   DataType
		elem niro.ScalarType
	}{{dtFloat, niro.F32}, {dtInt64, niro.I64}} {
		m := modelOpsets(graph("g",
			[]*onnxpb.NodeProto{domainNode(mlDomain, "Binarizer", []string{"x"}, []string{"y"}, attrFloat("threshold", 1.5))},
			[]*onnxpb.ValueInfoProto{vi("x", e.dt, 5)}, []*onnxpb.ValueInfoProto{vi("y", e.dt, 5)}), map[string]int64{mlDomain: 1})
		in := []float64{-3, 1, 2, 1.5, math.NaN()}
		want := []float64{0, 0, 1, 0, 0}
		if e.elem.IsInt() {
			in, want = []float64{-3, 1, 2, 1, 7}, []float64{0, 0, 1, 0, 1}
		}
		got := runValues(t, m, vals(e.elem, []int64{5}, in...))
		checkClose(t, e.elem.String(), got[0], want, 0)
	}
}

func TestArrayFeatureExtractor(t *testing.T) {
	// A rank-1 X gives a [1, n] result; 2-D indices are flattened.
	m := modelOpsets(graph("g",
		[]*onnxpb.NodeProto{
			domainNode(mlDomain, "ArrayFeatureExtractor", []string{"x", "i"}, []string{"y"}),
			domainNode(mlDomain, "ArrayFeatureExtractor", []string{"v", "j"}, []string{"z"}),
		},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 4), vi("i", dtInt64, 1, 3), vi("v", dtInt32, 4), vi("j", dtInt64, 2)},
		[]*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 3), vi("z", dtInt32, 1, 2)}), map[string]int64{mlDomain: 1})
	got := runValues(t, m,
		vals(niro.F32, []int64{2, 4}, 0, 1, 2, 3, 4, 5, 6, 7), vals(niro.I64, []int64{1, 3}, 3, 0, 3),
		vals(niro.I32, []int64{4}, 10, 20, 30, 40), vals(niro.I64, []int64{2}, 2, 1))
	checkClose(t, "y", got[0], []float64{3, 0, 3, 7, 4, 7}, 0)
	checkClose(t, "z", got[1], []float64{30, 20}, 0)

	// A known index out of range is an error naming it.
	bad := modelOpsets(graph("g",
		[]*onnxpb.NodeProto{domainNode(mlDomain, "ArrayFeatureExtractor", []string{"x", "i"}, []string{"y"})},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 2, 4)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 2, 1)},
		tensorProto("i", vals(niro.I64, []int64{1}, 4))), map[string]int64{mlDomain: 1})
	if _, err := importModel(t, bad, Options{}); err == nil || !strings.Contains(err.Error(), "index 4") {
		t.Errorf("err = %v, want the index out of range", err)
	}
}

// BitCast keeps every bit: a float takes a cast {bitcast = true}, integers
// of one width and bool to an 8-bit integer a plain cast; a change of
// width is an error.
func TestBitCast(t *testing.T) {
	cases := []struct {
		from, to DataType
		fe, te   niro.ScalarType
		in       []float64
		bitcast  bool
	}{
		{dtFloat, dtInt32, niro.F32, niro.I32, []float64{1, -2, math.Inf(1)}, true},
		{dtInt64, dtDouble, niro.I64, niro.F64, []float64{-1, 1 << 62, 0}, true},
		{dtFloat16, onnxpb.TensorProto_UINT16, niro.F16, niro.U16, []float64{1, -0.5, 65504}, true},
		{dtUint8, dtInt8, niro.U8, niro.I8, []float64{255, 128, 7}, false},
		{dtBool, dtUint8, niro.Bool, niro.U8, []float64{1, 0, 1}, false},
	}
	for _, c := range cases {
		m := model(26, graph("g",
			[]*onnxpb.NodeProto{node("BitCast", []string{"x"}, []string{"y"}, attrInt("to", int64(c.to)))},
			[]*onnxpb.ValueInfoProto{vi("x", c.from, 3)}, []*onnxpb.ValueInfoProto{vi("y", c.to, 3)}))
		mod := mustImport(t, m, Options{})
		cast, ok := entryOps(mod)[0].(*niro.Cast)
		if !ok || cast.Bitcast != c.bitcast {
			t.Errorf("%s to %s: first op %v, want a cast with bitcast %v", c.fe, c.te, entryOps(mod)[0], c.bitcast)
			continue
		}
		in := vals(c.fe, []int64{3}, c.in...)
		if c.fe == niro.F16 {
			in.Data = nil
			for _, v := range c.in {
				h := tensorio.F16FromFloat32(float32(v))
				in.Data = append(in.Data, byte(h), byte(h>>8))
			}
		}
		outs := runRaw(t, mod, in)
		if string(outs[0].Data) != string(in.Data) {
			t.Errorf("%s to %s: bytes % x, want % x", c.fe, c.te, outs[0].Data, in.Data)
		}
	}
	bad := model(26, graph("g",
		[]*onnxpb.NodeProto{node("BitCast", []string{"x"}, []string{"y"}, attrInt("to", int64(dtInt64)))},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 3)}, []*onnxpb.ValueInfoProto{vi("y", dtInt64, 3)}))
	if _, err := importModel(t, bad, Options{}); err == nil || !strings.Contains(err.Error(), "changes the bit width") {
		t.Errorf("err = %v, want a bit width error", err)
	}
}
