package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/opt"
	"google.golang.org/protobuf/proto"
)

// The benchmarks build, once per process, a model of benchLayers MatMul
// layers whose weights total 100 MiB, stored either in an external data
// file or embedded in model.onnx.
const (
	benchLayers = 25
	benchWidth  = 1024 // each weight is benchWidth² float32 = 4 MiB
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchModels writes external/model.onnx (+ weights.bin) and
// embedded/model.onnx and returns their directory.
func benchModels(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "niro-importer-bench")
		if benchErr != nil {
			return
		}
		weightBytes := int64(benchWidth * benchWidth * 4)
		payload := bytes.Repeat([]byte{0, 0, 0x80, 0x3f}, benchWidth*benchWidth) // 1.0f
		for _, external := range []bool{true, false} {
			sub := "embedded"
			if external {
				sub = "external"
			}
			dir := filepath.Join(benchDir, sub)
			if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
				return
			}
			var nodes []*onnxpb.NodeProto
			var inits []*onnxpb.TensorProto
			var weights *os.File
			if external {
				if weights, benchErr = os.Create(filepath.Join(dir, "weights.bin")); benchErr != nil {
					return
				}
			}
			prev := "x"
			for i := 0; i < benchLayers; i++ {
				w := fmt.Sprintf("layer%d.weight", i)
				out := fmt.Sprintf("h%d", i)
				nodes = append(nodes, node("MatMul", []string{prev, w}, []string{out}))
				prev = out
				dims := []int64{benchWidth, benchWidth}
				if external {
					inits = append(inits, externalTensor(w, dims, "weights.bin", int64(i)*weightBytes, weightBytes))
					if _, benchErr = weights.Write(payload); benchErr != nil {
						return
					}
				} else {
					t := floats(w, dims)
					t.RawData = payload
					inits = append(inits, t)
				}
			}
			if weights != nil {
				if benchErr = weights.Close(); benchErr != nil {
					return
				}
			}
			m := model(13, graph("mlp", nodes,
				[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 1, benchWidth)},
				[]*onnxpb.ValueInfoProto{vi(prev, dtFloat, 1, benchWidth)}, inits...))
			benchErr = os.WriteFile(filepath.Join(dir, "model.onnx"), marshal(b, m), 0o644)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func benchImport(b *testing.B, path string) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, err := Load(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Convert(m, Options{}); err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
	b.ReportMetric(float64(st.Size()), "file-bytes")
}

// BenchmarkImportExternal100MB imports a model whose 100 MiB of weights
// live in an external data file (memory-mapped, never copied).
func BenchmarkImportExternal100MB(b *testing.B) {
	benchImport(b, filepath.Join(benchModels(b), "external", "model.onnx"))
}

// BenchmarkImportEmbedded100MB imports the same model with the weights in
// raw_data inside model.onnx (the file is memory-mapped; raw_data aliases
// the mapping).
func BenchmarkImportEmbedded100MB(b *testing.B) {
	benchImport(b, filepath.Join(benchModels(b), "embedded", "model.onnx"))
}

// BenchmarkImportBytesEmbedded100MB decodes the embedded model from a byte
// slice already in memory, as LoadBytes does.
func BenchmarkImportBytesEmbedded100MB(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(benchModels(b), "embedded", "model.onnx"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := ImportBytes(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "file-bytes")
}

// BenchmarkProtoUnmarshalEmbedded100MB is the baseline the aliasing
// decoder avoids: proto.Unmarshal copies every raw_data payload.
func BenchmarkProtoUnmarshalEmbedded100MB(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(benchModels(b), "embedded", "model.onnx"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var m onnxpb.ModelProto
		if err := proto.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "file-bytes")
}

// BenchmarkImportPasses100MB imports the external-weights model and runs
// the default Niro IR pipeline (opt.DefaultPipeline: simplify, fold, cse,
// dce) on it: the passes allocate in proportion to the IR, never to the
// weights (fold creates results of at most 1 MiB and a result equal to an
// operand shares its bytes; weights stay globals aliasing the mapping).
func BenchmarkImportPasses100MB(b *testing.B) {
	path := filepath.Join(benchModels(b), "external", "model.onnx")
	ps, err := opt.Parse(opt.DefaultPipeline)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, err := Load(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		nm, err := Convert(m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := opt.Run(nm, ps, opt.Options{}); err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}
