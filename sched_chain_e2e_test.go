package main

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
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
