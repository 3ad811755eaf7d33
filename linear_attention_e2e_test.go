package main

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// TestLinearAttentionLongSequence compiles a gated-delta LinearAttention
// with grouped-query heads and a past state over 600 steps, which the
// importer lowers to one loop over time (no op of the imported module
// grows with the sequence), and checks it on host and host-O0 (bit for
// bit) against a direct evaluation of the recurrence in Go (float32 with
// in-order sums; Go's exp against niro's polynomial, hence rtol 1e-5,
// atol 1e-6).
func TestLinearAttentionLongSequence(t *testing.T) {
	requireTools(t)
	const (
		B, T, HQ, HKV, DK, DV = 1, 600, 4, 2, 4, 3
		group                 = HQ / HKV
	)
	rng := rand.New(rand.NewPCG(27, 5))
	vals := func(n int, lo, hi float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = lo + (hi-lo)*rng.Float32()
		}
		return out
	}
	q := vals(B*T*HQ*DK, -1, 1)
	k := vals(B*T*HKV*DK, -0.5, 0.5)
	v := vals(B*T*HKV*DV, -1, 1)
	past := vals(B*HKV*DK*DV, -0.5, 0.5)
	decay := vals(B*T*HKV, -0.4, -0.01)
	beta := vals(B*T*HKV, 0.1, 0.6)

	// The reference recurrence.
	scale := float32(1 / math.Sqrt(DK))
	s := append([]float32(nil), past...) // [B, HKV, DK, DV]
	out := make([]float32, B*T*HQ*DV)
	for b := 0; b < B; b++ {
		for tt := 0; tt < T; tt++ {
			for h := 0; h < HKV; h++ {
				st := s[(b*HKV+h)*DK*DV:][:DK*DV]
				a := float32(math.Exp(float64(decay[(b*T+tt)*HKV+h])))
				for i := range st {
					st[i] *= a
				}
				kt := k[((b*T+tt)*HKV+h)*DK:][:DK]
				vt := v[((b*T+tt)*HKV+h)*DV:][:DV]
				bt := beta[(b*T+tt)*HKV+h]
				vn := make([]float32, DV)
				for j := 0; j < DV; j++ {
					var ks float32
					for i := 0; i < DK; i++ {
						ks += kt[i] * st[i*DV+j]
					}
					vn[j] = bt * (vt[j] - ks)
				}
				for i := 0; i < DK; i++ {
					for j := 0; j < DV; j++ {
						st[i*DV+j] += kt[i] * vn[j]
					}
				}
				for g := 0; g < group; g++ {
					qh := h*group + g
					qt := q[((b*T+tt)*HQ+qh)*DK:][:DK]
					for j := 0; j < DV; j++ {
						var acc float32
						for i := 0; i < DK; i++ {
							acc += qt[i] * st[i*DV+j]
						}
						out[((b*T+tt)*HQ+qh)*DV+j] = scale * acc
					}
				}
			}
		}
	}

	f32 := int32(onnxpb.TensorProto_FLOAT)
	vi := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		shape := &onnxpb.TensorShapeProto{}
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(f32), Shape: shape}}}}
	}
	ins := []*onnxpb.ValueInfoProto{vi("q", B, T, HQ*DK), vi("k", B, T, HKV*DK), vi("v", B, T, HKV*DV),
		vi("past", B, HKV, DK, DV), vi("decay", B, T, HKV), vi("beta", B, T, HKV)}
	outs := []*onnxpb.ValueInfoProto{vi("o", B, T, HQ*DV), vi("state", B, HKV, DK, DV)}
	node := &onnxpb.NodeProto{Name: proto.String("la"), OpType: proto.String("LinearAttention"),
		Input: []string{"q", "k", "v", "past", "decay", "beta"}, Output: []string{"o", "state"},
		Attribute: []*onnxpb.AttributeProto{
			{Name: proto.String("q_num_heads"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(HQ)},
			{Name: proto.String("kv_num_heads"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(HKV)},
		}}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(11), Graph: &onnxpb.GraphProto{Name: proto.String("linear_attention_long"),
		Node: []*onnxpb.NodeProto{node}, Input: ins, Output: outs},
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(27)}}}
	dir := t.TempDir()
	write := func(path string, msg proto.Message) {
		data, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tensor := func(name string, dims []int64, xs []float32) *onnxpb.TensorProto {
		raw := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(f32), RawData: raw}
	}
	path := filepath.Join(dir, "model.onnx")
	write(path, m)
	set := filepath.Join(dir, "test_data_set_0")
	if err := os.Mkdir(set, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, in := range []struct {
		name string
		dims []int64
		xs   []float32
	}{{"q", []int64{B, T, HQ * DK}, q}, {"k", []int64{B, T, HKV * DK}, k}, {"v", []int64{B, T, HKV * DV}, v},
		{"past", []int64{B, HKV, DK, DV}, past}, {"decay", []int64{B, T, HKV}, decay}, {"beta", []int64{B, T, HKV}, beta}} {
		write(filepath.Join(set, "input_"+string(rune('0'+i))+".pb"), tensor(in.name, in.dims, in.xs))
	}
	write(filepath.Join(set, "output_0.pb"), tensor("o", []int64{B, T, HQ * DV}, out))
	write(filepath.Join(set, "output_1.pb"), tensor("state", []int64{B, HKV, DK, DV}, s))

	mf, err := openModel(path, ShapeFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer mf.close()
	mod, err := mf.module(nil)
	if err != nil {
		t.Fatal(err)
	}
	loops, top := 0, 0
	for _, op := range mod.Entry().Body.Blocks[0].Ops {
		top++
		if _, ok := op.(*niro.Loop); ok {
			loops++
		}
	}
	if loops != 1 || top > 40 {
		t.Errorf("the imported function has %d ops and %d loops; want one loop over time and a handful of ops around it", top, loops)
	}
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runModelSet(t, env, tc, mf, set, 1e-5, 1e-6)
}
