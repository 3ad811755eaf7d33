package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
	"github.com/niro-dev/niro/toolchain"
)

// writeDenseDW writes dir/model.onnx, a dense 3×3 Conv "c1" (3 → 16
// channels, pads 1, bias) feeding a depthwise 3×3 Conv "y" (16 groups,
// pads 1, bias) on 1×3×16×16, and dir/x.pb, an input for it. In MLIR 22
// the convolution schedule's greedy patterns did not terminate on this
// pair.
func writeDenseDW(t *testing.T, dir string) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	floats := func(n int, scale float64) []byte {
		b := make([]byte, 0, 4*n)
		for i := 0; i < n; i++ {
			b = appendF32(b, float32((r.Float64()*2-1)*scale))
		}
		return b
	}
	f32 := proto.Int32(int32(onnxpb.TensorProto_FLOAT))
	init := func(name string, dims ...int64) *onnxpb.TensorProto {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: f32, RawData: floats(int(n), 0.3)}
	}
	attrs := func(group int64) []*onnxpb.AttributeProto {
		return []*onnxpb.AttributeProto{
			{Name: proto.String("group"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(group)},
			{Name: proto.String("kernel_shape"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{3, 3}},
			{Name: proto.String("pads"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: []int64{1, 1, 1, 1}},
		}
	}
	info := func(name string, dims ...int64) *onnxpb.ValueInfoProto {
		var ds []*onnxpb.TensorShapeProto_Dimension
		for _, d := range dims {
			ds = append(ds, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: f32, Shape: &onnxpb.TensorShapeProto{Dim: ds}}}}}
	}
	g := &onnxpb.GraphProto{Name: proto.String("densedw"),
		Node: []*onnxpb.NodeProto{
			{Name: proto.String("c1"), OpType: proto.String("Conv"), Input: []string{"x", "w1", "b1"}, Output: []string{"c1"}, Attribute: attrs(1)},
			{Name: proto.String("y"), OpType: proto.String("Conv"), Input: []string{"c1", "w2", "b2"}, Output: []string{"y"}, Attribute: attrs(16)},
		},
		Initializer: []*onnxpb.TensorProto{init("w1", 16, 3, 3, 3), init("b1", 16), init("w2", 16, 1, 3, 3), init("b2", 16)},
		Input:       []*onnxpb.ValueInfoProto{info("x", 1, 3, 16, 16)},
		Output:      []*onnxpb.ValueInfoProto{info("y", 1, 16, 16, 16)},
	}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(8), Graph: g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}}}
	x := &onnxpb.TensorProto{Name: proto.String("x"), Dims: []int64{1, 3, 16, 16}, DataType: f32, RawData: floats(3*16*16, 1)}
	for name, msg := range map[string]proto.Message{"model.onnx": m, "x.pb": x} {
		data, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func appendF32(b []byte, v float32) []byte {
	return append(b, f32s(v)...)
}

// failingSchedulePrefix makes an LLVM prefix whose mlir-opt exits 1 on
// every pipeline that runs a transform schedule and is the real one
// otherwise; the other tools and the runner libraries are the real ones.
func failingSchedulePrefix(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"bin", "lib"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range toolchain.Probe(context.Background(), toolchain.FindOptions{}) {
		if !ti.Found() {
			continue
		}
		sub := "bin"
		if ti.Name == toolchain.RunnerUtils || ti.Name == toolchain.CRunnerUtils {
			sub = "lib"
		}
		link := filepath.Join(dir, sub, filepath.Base(ti.Path))
		if ti.Name == toolchain.MLIROpt {
			script := fmt.Sprintf(`#!/bin/sh
case "$*" in *transform-interpreter*) echo "input.mlir:1:1: error: forced schedule failure" >&2; exit 1 ;; esac
exec %q "$@"
`, ti.Path)
			if err := os.WriteFile(filepath.Join(dir, "bin", toolchain.MLIROpt), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.Symlink(ti.Path, link); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestScheduleFallbackEndToEnd compiles and runs the dense-then-depthwise
// model with every schedule failing (a prefix whose mlir-opt refuses any
// transform schedule, so the test keeps testing the fallback whatever the
// schedules do): niro says which nests fell back, in one line, and the
// result has host-O0's bits. With the real tools and the default budget it
// finishes too, with the same bits, whether the schedule terminates or
// falls back.
func TestScheduleFallbackEndToEnd(t *testing.T) {
	requireTools(t)
	dir := t.TempDir()
	writeDenseDW(t, dir)
	model, input := filepath.Join(dir, "model.onnx"), "x="+filepath.Join(dir, "x.pb")
	runOut := func(name string, args ...string) ([]byte, string, int, time.Duration) {
		t.Helper()
		out := filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(append(args, "--output-dir", out), &stdout, &stderr)
		elapsed := time.Since(start)
		data, _ := os.ReadFile(filepath.Join(out, "y.npy"))
		return data, stderr.String(), code, elapsed
	}
	want, stderr, code, _ := runOut("o0", "run", model, "--input", input, "--pipeline", "host-O0")
	if code != 0 || len(want) == 0 {
		t.Fatalf("host-O0: exit %d: %s", code, stderr)
	}

	prefix := failingSchedulePrefix(t)
	got, stderr, code, elapsed := runOut("forced", "--llvm-prefix", prefix, "run", model, "--input", input)
	if code != 0 {
		t.Fatalf("forced failure: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var warn []string
	for _, l := range lines {
		if strings.HasPrefix(l, "niro: warning:") {
			warn = append(warn, l)
		}
	}
	if len(warn) != 1 {
		t.Fatalf("want one warning line, got %q", stderr)
	}
	for _, s := range []string{"mlir-opt exited with status 1: error: forced schedule failure", "compiled without schedules",
		"4 of 4 tagged loop nests", `niro.conv2d_rows_e "c1"`, `niro.dwconv2d_e "y"`} {
		if !strings.Contains(warn[0], s) {
			t.Errorf("warning %q does not say %q", warn[0], s)
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the fallback's result differs from host-O0's")
	}
	if elapsed > time.Minute {
		t.Errorf("the forced fallback took %v", elapsed)
	}

	// --strict-schedule: the failure is an error, exit 3.
	_, stderr, code, _ = runOut("strict", "--llvm-prefix", prefix, "--strict-schedule", "run", model, "--input", input)
	if code != exitToolErr || !strings.Contains(stderr, "--strict-schedule") {
		t.Errorf("--strict-schedule: exit %d, want %d: %s", code, exitToolErr, stderr)
	}

	// The real tools, the default budget: done within it either way.
	got, stderr, code, elapsed = runOut("real", "run", model, "--input", input)
	if code != 0 {
		t.Fatalf("host: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("host's result differs from host-O0's (%s)", stderr)
	}
	t.Logf("host: %v; %s", elapsed, strings.TrimSpace(stderr))
	if elapsed > time.Minute {
		t.Errorf("host took %v", elapsed)
	}
}
