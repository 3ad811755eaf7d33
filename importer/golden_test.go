package importer

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/importer")

// goldenDir holds the expected Niro text of imported node tests.
const goldenDir = "../testdata/importer"

// goldenTests are node tests whose imported, printed module is compared
// with testdata/importer/NAME.niro.
var goldenTests = []string{
	"node/test_add",
	"node/test_add_bcast",
	"node/test_mul_bcast",
	"node/test_matmul_2d",
	"node/test_matmul_3d", // rank 3: a batched matmul
	"node/test_transpose_default",
	"node/test_transpose_all_permutations_4",
	"node/test_identity",
	"node/test_constant",
	"node/test_if",
	"node/test_loop11",
	"node/test_scan_sum",
	"node/test_leakyrelu",
	"node/test_constantofshape_float_ones",
	"pytorch-converted/test_Linear_no_bias",
	"pytorch-operator/test_operator_addconstant",
}

func TestGolden(t *testing.T) {
	root := onnxTestsDir(t)
	for _, name := range goldenTests {
		t.Run(filepath.Base(name), func(t *testing.T) {
			m, err := Load(filepath.Join(root, name, "model.onnx"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			mod, err := Convert(m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := mod.String()
			if _, err := niro.Parse(name, []byte(got)); err != nil {
				t.Errorf("printed module does not parse: %v", err)
			}
			path := filepath.Join(goldenDir, filepath.Base(name)+".niro")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s differs (-want +got):\n%s", path, diff)
			}
		})
	}
}
