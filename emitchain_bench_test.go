package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

// chainModule returns a function of n element-wise adds in a chain, each
// reading the previous result.
func chainModule(tb testing.TB, n int) *niro.Module {
	var b strings.Builder
	b.WriteString("func @chain(tensor<4xf32>) -> (tensor<4xf32>) {\n^bb0(%0: tensor<4xf32>):\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  %%%d = add %%%d, %%0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n", i, i-1)
	}
	fmt.Fprintf(&b, "  return %%%d : tensor<4xf32>\n}\n", n)
	m, err := niro.Parse("chain.niro", []byte(b.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// countingWriter counts the bytes written to it and drops them.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// BenchmarkEmitChain measures emit on a 100,000-node chain, streamed as
// niro emit and niro compile do it, to a writer that counts the text and
// drops it: time, bytes allocated and allocations per node, and the MLIR
// text per node (docs/performance.md, "Emit on a long chain"). "all" is
// emit.Prepare (niro.Verify included) plus Output.WriteMLIR; "write" is
// WriteMLIR alone, the lowering and printing.
func BenchmarkEmitChain(b *testing.B) {
	const n = 100_000
	m := chainModule(b, n)
	run := func(b *testing.B, prepared *emit.Output) {
		var text int64
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out := prepared
			if out == nil {
				var err error
				if out, err = emit.Prepare(m, emit.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			var w countingWriter
			if err := out.WriteMLIR(&w); err != nil {
				b.Fatal(err)
			}
			text = w.n
		}
		b.StopTimer()
		b.ReportMetric(float64(text)/n, "MLIR-B/node")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/node")
	}
	b.Run("all", func(b *testing.B) { run(b, nil) })
	b.Run("write", func(b *testing.B) {
		out, err := emit.Prepare(m, emit.Options{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, out)
	})
}
