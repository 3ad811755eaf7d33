package toolchain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchMatmul compiles an m x n x k matmul (fill + tagged contraction, as
// niro emits it; with batch > 0, batch of them in one rank-4 contraction)
// through the named pipeline, runs it with mlir-runner on
// random data, and reports the best of several timed calls (after a
// warm-up call) as seconds and GFLOP/s, single-threaded. Each benchmark
// iteration is one mlir-runner process.
func benchMatmul(b *testing.B, pipelineName string, batch, m, n, k int, elem string) {
	tc := needTools(b)
	p := pipeline(b, pipelineName)
	ctx := context.Background()
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	size, encode := int64(4), encodeF32
	if elem == "f64" {
		size, encode = 8, encodeF64
	}
	pa, pb, pc := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin"), filepath.Join(dir, "c.bin")
	batches := max(batch, 1)
	if err := os.WriteFile(pa, encode(randomValues(r, batches*m*k)), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(pb, encode(randomValues(r, batches*k*n)), 0o644); err != nil {
		b.Fatal(err)
	}
	lowered, err := tc.Lower(ctx, matmulModule("matmul", batch, m, n, k, elem), p)
	if err != nil {
		b.Fatal(err)
	}
	const timed = 5
	prog := joinModule(b, lowered, ioMain(lowered, []ioCall{{
		fn: "matmul", inputs: []string{pa, pb}, outputs: []string{pc},
		inBytes:  []int64{int64(batches*m*k) * size, int64(batches*k*n) * size},
		outBytes: []int64{int64(batches*m*n) * size},
	}}, timed))
	best := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := tc.Run(ctx, prog, RunOptions{OptLevel: p.OptLevel})
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.Fields(string(out))
		if len(lines) != timed {
			b.Fatalf("want %d timings, got %q", timed, out)
		}
		for _, l := range lines {
			s, err := strconv.ParseFloat(l, 64)
			if err != nil {
				b.Fatalf("bad timing %q: %v", l, err)
			}
			if best == 0 || s < best {
				best = s
			}
		}
	}
	b.ReportMetric(best, "s/matmul")
	b.ReportMetric(2*float64(batches)*float64(m)*float64(n)*float64(k)/best/1e9, "GFLOP/s")
}

// BenchmarkMatmul measures scheduled matrix products single-threaded.
// Run: go test ./toolchain -run '^$' -bench Matmul -benchtime 1x
// (or scripts/bench-matmul.sh).
func BenchmarkMatmul(b *testing.B) {
	for _, c := range []struct {
		pipeline       string
		batch, m, n, k int
		elem           string
	}{
		{"host", 0, 1024, 1024, 1024, "f32"},
		{"host", 0, 1024, 1024, 1024, "f64"},
		{"host", 0, 512, 512, 512, "f32"},
		{"host", 0, 2048, 2048, 2048, "f32"}, // past L2: the MC row block's case
		{"host", 0, 1000, 1000, 1000, "f32"}, // not a multiple of the block
		{"host", 8, 256, 256, 256, "f32"},    // batched: one rank-4 contraction
		{"host", 8, 512, 512, 512, "f32"},    // batched, the work of 1024³
		{"host", 0, 3136, 64, 576, "f32"},    // the work of the ResNet 3x3 conv (56x56, 64 -> 64)
		{"host-O0", 0, 512, 512, 512, "f32"}, // the naive loop nest, for scale
	} {
		name := fmt.Sprintf("%s/%dx%dx%d_%s", c.pipeline, c.m, c.n, c.k, c.elem)
		if c.batch > 0 {
			name = fmt.Sprintf("%s/%dx%dx%dx%d_%s", c.pipeline, c.batch, c.m, c.n, c.k, c.elem)
		}
		b.Run(name, func(b *testing.B) { benchMatmul(b, c.pipeline, c.batch, c.m, c.n, c.k, c.elem) })
	}
}
