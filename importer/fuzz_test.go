package importer

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// fuzzSeedModels are small node tests whose models seed FuzzImportBytes
// (besides the corpus in testdata/fuzz/FuzzImportBytes).
var fuzzSeedModels = []string{
	"node/test_add", "node/test_add_bcast", "node/test_matmul_2d", "node/test_transpose_default",
	"node/test_transpose_all_permutations_3", "node/test_identity", "node/test_if", "node/test_loop11",
	"node/test_scan_sum", "node/test_constant", "node/test_leakyrelu", "node/test_cast_FLOAT_to_INT4",
	"pytorch-converted/test_Linear_no_bias", "pytorch-operator/test_operator_add_broadcast",
}

// FuzzImportBytes feeds arbitrary bytes through the decoder and the
// importer: they must return a module that verifies or an error, and
// never panic, hang or allocate without bound.
func FuzzImportBytes(f *testing.F) {
	if root, ok := findONNXTests(); ok {
		for _, name := range fuzzSeedModels {
			data, err := os.ReadFile(filepath.Join(root, name, "model.onnx"))
			if err != nil {
				continue
			}
			f.Add(data)
		}
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		mod, sum, err := ImportBytes(data, Options{})
		if err != nil {
			if errors.Is(err, errInvalidIR) {
				t.Fatal(err)
			}
			return
		}
		if err := niro.Verify(mod); err != nil {
			t.Fatalf("imported module does not verify: %v", err)
		}
		_ = mod.String()
		_ = sum.String()
	})
}

var updateFuzz = flag.Bool("update-fuzz-corpus", false, "rewrite testdata/fuzz/FuzzImportBytes from the seed models")

// TestWriteFuzzCorpus regenerates the committed seed corpus: small real
// models, truncated and with flipped bits (run with -update-fuzz-corpus).
func TestWriteFuzzCorpus(t *testing.T) {
	if !*updateFuzz {
		t.Skip("run with -update-fuzz-corpus to rewrite the corpus")
	}
	root := onnxTestsDir(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzImportBytes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range fuzzSeedModels {
		data, err := os.ReadFile(filepath.Join(root, name, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(name)
		write(base, data)
		write(base+"_truncated_half", data[:len(data)/2])
		write(base+"_truncated_last", data[:len(data)-1])
		flipped := append([]byte(nil), data...)
		for _, pos := range []int{len(data) / 3, len(data) / 2, 2 * len(data) / 3} {
			flipped[pos] ^= 1 << (pos % 8)
		}
		write(base+"_bitflip", flipped)
	}
}
