package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/niro-dev/niro/tensorio"
	"github.com/niro-dev/niro/toolchain"
)

// TestModels runs the bundled example models as `niro test` does, against
// the expected outputs ONNX Runtime wrote (scripts/ort-expected.mjs), and
// checks that the scheduled code (host) gives the bits of the naive loop
// nests (host-O0).
//
//   - examples/transformer: a pre-LN transformer encoder block (token and
//     position Gathers, LayerNormalization, 4-head causal attention with
//     Split, Reshape/Transpose to heads, Range/Less/Where mask and Softmax,
//     erf GELU MLP, residuals; the exporter's Shape → Gather → Unsqueeze →
//     Concat → Reshape arithmetic), ids of shape [2, 16] and [1, 7].
//   - examples/classifier: Gemm (transB) → Relu → Gemm → Softmax, with the
//     batch bound by --dim N=8.
//   - examples/mnist: an MNIST-style CNN, Conv 5×5 → Relu → MaxPool twice,
//     Flatten, Gemm, Softmax, input [1, 1, 28, 28].
//   - examples/resnetblock: a ResNet basic block with a stride-2 1×1
//     downsample shortcut (Conv 3×3, BatchNormalization, Relu, Add),
//     [1, 16, 16, 16] → [1, 32, 8, 8].
//   - examples/mobilenetv2: an inverted residual block, 1×1 expand, Relu6
//     (Clip), depthwise 3×3 (group 64), HardSwish, 1×1 project, each with
//     BatchNormalization, and the residual Add, [1, 16, 14, 14].
//   - examples/unet: a U-Net decoder step, ConvTranspose stride 2 and
//     Resize ×2 linear of the coarse input, Concat with the skip input, two
//     Conv 3×3 → Relu, [1, 16, 16, 16].
//   - examples/decoder: a Llama-style decoder block (RMSNormalization,
//     RotaryEmbedding with position_ids, grouped-query causal Attention
//     with past_key/past_value and present outputs, SiLU-gated MLP, LM
//     head): set 0 a prompt of 8 tokens with an empty cache, set 1 one
//     generated token whose cache is set 0's present_key/present_value.
//   - examples/grutagger: Embedding Gather, a bidirectional GRU
//     (linear_before_reset) with per-row sequence_lens, Linear and
//     LogSoftmax over 9 tags, ids [3, 10] with two sets of lengths.
//   - examples/vad: a streaming voice-activity detector, an If on the
//     run-time sample rate choosing one of two strided Conv front ends
//     (outer-scope captures), magnitude and log, Conv 1×1, an LSTM whose
//     state is an input and an output, Sigmoid; one data set per arm.
//   - examples/controlflow/if, loop, scan: If arms capturing outer values,
//     a nested If, arms of different extents (a dynamic result extent);
//     Loop with a run-time trip count, a condition and scan outputs, and
//     with a constant trip count; Scan with inputs and outputs in both
//     directions; an If whose output shape depends on its condition, an
//     input, which niro test binds; Scan-8 over a batch of 3 with and
//     without sequence_lens; a Loop with a condition only whose scan
//     outputs grow as it runs (examples/controlflow/gen).
//
// Besides niro test's default tolerances (rtol 1e-3, atol 1e-7) each model
// holds a tighter one, which the test checks too: the differences from
// ONNX Runtime come from its FMA, its order of summation and its own exp
// and erf.
func TestModels(t *testing.T) {
	requireTools(t)
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name       string
		flags      ShapeFlags
		rtol, atol float64 // the tighter tolerance that holds
	}{
		{"transformer", ShapeFlags{}, 1e-5, 1e-6},
		{"classifier", ShapeFlags{Dim: []string{"N=8"}}, 1e-6, 0},
		{"mnist", ShapeFlags{}, 1e-6, 0},
		{"resnetblock", ShapeFlags{}, 1e-5, 1e-6},
		{"mobilenetv2", ShapeFlags{}, 1e-5, 1e-6},
		{"unet", ShapeFlags{}, 1e-5, 1e-6},
		{"decoder", ShapeFlags{}, 1e-5, 1e-6},
		{"grutagger", ShapeFlags{}, 1e-5, 1e-6},
		{"vad", ShapeFlags{}, 1e-5, 1e-6},
		{"controlflow/if", ShapeFlags{}, 1e-6, 1e-7},
		{"controlflow/ifshape", ShapeFlags{}, 0, 0},
		{"controlflow/loop", ShapeFlags{}, 0, 0},
		{"controlflow/scan", ShapeFlags{}, 0, 0},
		{"controlflow/scan8", ShapeFlags{}, 0, 0},
		{"controlflow/loopcond", ShapeFlags{}, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join("examples", tt.name)
			mf, err := openModel(filepath.Join(dir, "model.onnx"), tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			defer mf.close()
			sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
			if len(sets) == 0 {
				t.Fatalf("%s: no test data sets", dir)
			}
			for _, set := range sets {
				runModelSet(t, env, tc, mf, set, tt.rtol, tt.atol)
			}
		})
	}
}

// runModelSet runs one data set of a model on host and host-O0, checks
// that both give the same bits and compares the host's outputs with the
// expected ones at niro test's default tolerances and at rtol, atol.
func runModelSet(t *testing.T, env *Env, tc *toolchain.Toolchain, mf *modelFile, set string, rtol, atol float64) {
	t.Helper()
	ctx := context.Background()
	ins, err := readNumbered(set, "input")
	if err != nil {
		t.Fatal(err)
	}
	wants, err := readNumbered(set, "output")
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) == 0 || len(wants) == 0 {
		t.Fatalf("%s: no inputs or no expected outputs", set)
	}
	m, inputs, err := mf.forInputs(ins)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(set)
	var first []tensorio.Tensor
	for _, p := range []string{"host", "host-O0"} {
		hm, err := env.buildHost(ctx, tc, m, p)
		if err != nil {
			t.Fatalf("%s %s: %v", base, p, err)
		}
		res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
		hm.cleanup()
		if err != nil {
			t.Fatalf("%s %s: %v", base, p, err)
		}
		if len(res.Outputs) != len(wants) {
			t.Fatalf("%s %s: %d outputs, want %d", base, p, len(res.Outputs), len(wants))
		}
		if first != nil {
			for i := range first {
				if string(first[i].Data) != string(res.Outputs[i].Data) {
					t.Errorf("%s output %d differs between host and %s", base, i, p)
				}
			}
			continue
		}
		first = res.Outputs
		for i, w := range wants {
			for _, tol := range [][2]float64{{1e-3, 1e-7}, {rtol, atol}} {
				r, err := tensorio.Compare(res.Outputs[i], w.t, tol[0], tol[1])
				if err != nil {
					t.Fatalf("%s output %d: %v", base, i, err)
				}
				if !r.OK {
					t.Errorf("%s output %d, rtol %g atol %g: %s", base, i, tol[0], tol[1], r)
				}
			}
			r, _ := tensorio.Compare(res.Outputs[i], w.t, 0, 0)
			t.Logf("%s output %d: max abs %.3g, max rel %.3g against ONNX Runtime", base, i, r.MaxAbs, r.MaxRel)
		}
	}
}
