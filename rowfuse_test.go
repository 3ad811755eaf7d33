package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/tensorio"
)

// TestRowFuseExact checks that the row-fusion schedule (toolchain/
// schedule.mlir, @niro_rowfuse: a row consumer tiled by 16 rows with its
// reductions and element-wise producers fused into the row loop) gives the
// bits of the naive loop nests (host-O0) on Softmax-shaped chains, at row
// counts 16 does and does not divide and at reduced extents that 16 does
// and does not divide; and that the schedule fired on Softmax and
// LogSoftmax and LayerNormalization (a 16-row tile in the host IR).
func TestRowFuseExact(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		op   string
		dims []int64
	}{
		{"Softmax", []int64{37, 1000}},
		{"Softmax", []int64{64, 1024}},
		{"LogSoftmax", []int64{37, 1000}},
		{"LayerNormalization", []int64{37, 1000}},
		{"LayerNormalization", []int64{64, 1024}},
	} {
		name := strings.ToLower(c.op)
		t.Run(fmt.Sprintf("%s_%dx%d", name, c.dims[0], c.dims[1]), func(t *testing.T) {
			node := fusionNode(c.op, "y", "x")
			var inits []*onnxpb.TensorProto
			if c.op == "LayerNormalization" {
				node = fusionNode(c.op, "y", "x", "s", "b")
				inits = []*onnxpb.TensorProto{fusionInit("s", c.dims[1]), fusionInit("b", c.dims[1])}
			}
			path := fusionModel(t, name, c.dims, []*onnxpb.NodeProto{node}, inits...)
			n := c.dims[0] * c.dims[1]
			data := make([]byte, 4*n)
			for i := int64(0); i < n; i++ {
				v := float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(8))))
				binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
			}
			mf, err := openModel(path, ShapeFlags{})
			if err != nil {
				t.Fatal(err)
			}
			defer mf.close()
			m, inputs, err := mf.forInputs([]namedTensor{{t: tensorio.Tensor{Elem: niro.F32, Dims: c.dims, Data: data}}})
			if err != nil {
				t.Fatal(err)
			}
			var first []byte
			for _, p := range []string{"host", "host-O0"} {
				hm, err := env.buildHost(ctx, tc, m, p)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
				hm.cleanup()
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if first == nil {
					first = res.Outputs[0].Data
					continue
				}
				if string(first) != string(res.Outputs[0].Data) {
					bad := 0
					for i := 0; i < len(first); i += 4 {
						if string(first[i:i+4]) != string(res.Outputs[0].Data[i:i+4]) {
							bad++
						}
					}
					t.Errorf("%d elements differ between host and host-O0", bad)
				}
			}
			ir := fusedIRThrough(t, path, "rowfuse")
			if !strings.Contains(ir, "tensor<16x") || !strings.Contains(ir, "scf.for") {
				t.Errorf("no 16-row tile after the rowfuse schedule: it did not fire")
			}
		})
	}
}
