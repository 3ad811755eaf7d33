package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

// schedChainCases are small models whose scheduled forms once failed to
// compile (testdata/sched, made with examples/internal/onnxgen; docs/
// performance.md, "Scheduled chains"): a dense 3×3 convolution in the row
// form feeding a depthwise 3×3 one (with and without the first one's
// bias), whose depthwise steps applied the transfer patterns to the row
// blocks @conv_finish_rows had hoisted and never ended; and a small CNN
// holding the same pair among padded, strided, dilated and grouped
// convolutions, pools and a Gemm (more than 7 minutes in mlir-opt); a
// squeeze-excite block of 40 channels (3×3 convolution, HardSwish, global
// average pool, 1×1 products to 8 and back, HardSigmoid, Mul), whose two
// product blocks of one fill made @conv_steps_mm3 vectorize the fill's
// vector.transfer_write ("Unsupported Op, cannot vectorize").
var schedChainCases = []struct {
	file string
	x    []int64
}{
	{"densedw.onnx", []int64{1, 3, 16, 16}},
	{"densedw_nb1.onnx", []int64{1, 3, 16, 16}},
	{"smallcnn.onnx", []int64{1, 3, 32, 32}},
	{"se_c40.onnx", []int64{1, 40, 2, 2}},
}

// TestConvScheduleChains compiles each model under host and host-O0,
// each build within two minutes (the plain one takes seconds), and
// compares their outputs bit for bit.
func TestConvScheduleChains(t *testing.T) {
	requireTools(t)
	for _, c := range schedChainCases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", "sched", c.file)
			x := tf32(c.x, seq(numel(c.x), 0.25))
			runHostPipelines(t, 2*time.Minute, func() (*niro.Module, error) { return loadModule(path, ShapeFlags{}) }, x)
		})
	}
}

// scheduleTags matches the attribute dictionaries of schedule tags emit
// writes on an op ({niro.conv2d_rows_e}, {niro.conv_epi, niro.epi_rows32}).
var scheduleTags = regexp.MustCompile(`\{niro\.[a-z0-9_]+(, niro\.[a-z0-9_]+)*\}`)

// TestScheduleCompileRatio lowers each model above with the host pipeline
// as emitted and with every schedule tag stripped (each linalg op its
// naive loop nest, the rest of the pipeline the same), logs both times,
// and fails when the scheduled one takes more than ten times the plain one
// (plus two seconds, for the noise of a loaded machine).
func TestScheduleCompileRatio(t *testing.T) {
	requireTools(t)
	tc := testTools(t)
	p, err := lookupPipeline("host")
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	for _, c := range schedChainCases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", "sched", c.file)
			m, err := loadModule(path, ShapeFlags{})
			if err != nil {
				t.Fatal(err)
			}
			if err := env.runPasses(path, m); err != nil {
				t.Fatal(err)
			}
			out, err := emit.Prepare(m, env.emitOptions())
			if err != nil {
				t.Fatal(err)
			}
			text, err := out.Text()
			if err != nil {
				t.Fatal(err)
			}
			plain := scheduleTags.ReplaceAllString(text, "{}")
			if plain == text {
				t.Fatal("no schedule tag in the MLIR")
			}
			lower := func(src string, limit time.Duration) time.Duration {
				ctx, cancel := context.WithTimeout(context.Background(), limit)
				defer cancel()
				start := time.Now()
				if _, err := tc.Lower(ctx, src, p); err != nil {
					t.Fatalf("lower: %v", err)
				}
				return time.Since(start)
			}
			tp := lower(plain, 2*time.Minute)
			limit := 10*tp + 2*time.Second
			ts := lower(text, limit+time.Second)
			t.Logf("mlir-opt: scheduled %v, tags stripped %v (%.1f×)", ts.Round(time.Millisecond), tp.Round(time.Millisecond), float64(ts)/float64(tp))
			if ts > limit {
				t.Errorf("scheduled %v is more than 10× the plain %v", ts, tp)
			}
		})
	}
}

// chainForm is one convolution of a two-convolution chain: its filter
// dimensions and groups on C = 16 channels of 16 × 16 pixels, and the
// schedule tag emit gives it (each convolution's Relu epilogue fused, so
// the tag carries _e).
type chainForm struct {
	name string
	w    []int64 // [M, C/group, KH, KW]
	pads []int64
	grp  int64
	tag  string
}

var chainForms = []chainForm{
	{"rows", []int64{16, 16, 3, 3}, []int64{1, 1, 1, 1}, 1, "niro.conv2d_rows_e"},
	{"dw", []int64{16, 1, 3, 3}, []int64{1, 1, 1, 1}, 16, "niro.dwconv2d_e"},
	{"mm", []int64{16, 16, 1, 1}, []int64{0, 0, 0, 0}, 1, "niro.mm_e"},
	{"grouped", []int64{16, 8, 3, 3}, []int64{1, 1, 1, 1}, 2, "niro.conv2dg_e"},
	// Four channels per group: one convolution of padded channels.
	{"padded", []int64{16, 4, 3, 3}, []int64{1, 1, 1, 1}, 4, "niro.conv2d_e"},
}

// TestConvFormChains runs pairs of the forms above, one feeding the
// other with a bias and Relu after each (so both epilogues are fused
// into their blocks and every form's steps meet the other's blocks in
// one function: the row form's finishing steps after the depthwise
// steps never ended before they were made to run last), checks each
// convolution's tag, and compares host with host-O0 bit for bit, each
// build within two minutes.
func TestConvFormChains(t *testing.T) {
	requireTools(t)
	for _, a := range chainForms {
		for _, b := range chainForms {
			// The pairs that hold a row-form or depthwise block (whose
			// steps apply the transfer patterns to the whole function),
			// the row form after itself included.
			if a.name == b.name && a.name != "rows" || a.name != "rows" && a.name != "dw" && b.name != "rows" && b.name != "dw" {
				continue
			}
			t.Run(a.name+"_"+b.name, func(t *testing.T) {
				x := []int64{1, 16, 16, 16}
				xt := dimsText(x, "f32")
				conv := func(v, w, bias, res string, f chainForm) string {
					return fmt.Sprintf("  %s = conv %s, %s, %s {dilations = [1, 1], group = %d, pads = %s, strides = [1, 1]} : (%s, %s, tensor<16xf32>) -> %s\n",
						res, v, w, bias, f.grp, intsText(f.pads), xt, dimsText(f.w, "f32"), xt)
				}
				src := fmt.Sprintf("func @chain(%s, %s, tensor<16xf32>, %s, tensor<16xf32>) -> (%s) {\n^bb0(%%0: %s, %%1: %s, %%2: tensor<16xf32>, %%3: %s, %%4: tensor<16xf32>):\n",
					xt, dimsText(a.w, "f32"), dimsText(b.w, "f32"), xt, xt, dimsText(a.w, "f32"), dimsText(b.w, "f32")) +
					conv("%0", "%1", "%2", "%5", a) +
					"  %6 = const 0x00000000 : tensor<f32>\n" +
					fmt.Sprintf("  %%7 = max %%5, %%6 : (%s, tensor<f32>) -> %s\n", xt, xt) +
					conv("%7", "%3", "%4", "%8", b) +
					fmt.Sprintf("  %%9 = max %%8, %%6 : (%s, tensor<f32>) -> %s\n  return %%9 : %s\n}", xt, xt, xt)
				path := filepath.Join(t.TempDir(), "chain.niro")
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, tag := range []string{a.tag, b.tag} {
					if !strings.Contains(out.MLIR, tag+"}") {
						t.Errorf("no %s in the MLIR", tag)
					}
				}
				runNiroWithin(t, 2*time.Minute, src,
					tf32(x, seq(numel(x), 0.5)), tf32(a.w, seq(numel(a.w), 0.25)), tf32([]int64{16}, seq(16, 0.1)),
					tf32(b.w, seq(numel(b.w), 0.3)), tf32([]int64{16}, seq(16, 0.2)))
			})
		}
	}
}
