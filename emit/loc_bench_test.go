package emit

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// BenchmarkEmitLocations measures what the locations cost: a chain of
// 20,000 element-wise adds, each its own node with a name as long as an
// exported transformer's ("/model/layers.N/mlp/act_fn/Add"), emitted with
// and without the locations; it reports the text per node.
func BenchmarkEmitLocations(b *testing.B) {
	const n = 20_000
	var sb strings.Builder
	sb.WriteString("func @chain(tensor<4xf32>) -> (tensor<4xf32>) {\n^bb0(%0: tensor<4xf32>):\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "  %%%d = add %%%d, %%0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(\"/model/layers.%d/mlp/act_fn/Add\")\n", i, i-1, i)
	}
	fmt.Fprintf(&sb, "  return %%%d : tensor<4xf32>\n}\n", n)
	for _, located := range []bool{false, true} {
		m, err := niro.Parse("chain.niro", []byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}
		if !located {
			eachOp(m, func(_ int, op niro.Op) { op.SetLocation("") })
		}
		b.Run(fmt.Sprintf("located=%v", located), func(b *testing.B) {
			out, err := Prepare(m, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var w countWriter
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w = 0
				if err := out.WriteMLIR(&w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w)/n, "B/node")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/node")
		})
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
