package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/niro-dev/niro/emit"
)

// TestConvDWMultForm checks which form the depthwise convolutions with a
// channel multiplier of generalConvCases take: the row form of
// emit/conv_dwmult.go (one niro.dwconv2d generic writing the result as
// [N·C, k, OH, OW] or a column segment of it, no copy of X per output
// channel) unless the output is one column wide. The
// bits are checked by TestE2EConvGeneralExact, the schedule by
// TestConvGeneralScheduled.
func TestConvDWMultForm(t *testing.T) {
	seen := map[bool]int{}
	for i, c := range generalConvCases {
		if len(c.x) != 4 || c.w[1] != 1 || c.groups != c.x[1] || c.w[0] == c.x[1] {
			continue
		}
		for _, e := range []string{"f32", "f64"} {
			t.Run(fmt.Sprintf("%d_%s", i, e), func(t *testing.T) {
				o := c.out()
				want := emit.UsesDWMultRows(c.x[1], c.groups, c.w[0], c.w[1], o[3], e == "f64")
				seen[want]++
				path := filepath.Join(t.TempDir(), "conv.niro")
				if err := os.WriteFile(path, []byte(convProgram(c, e)), 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := emitModel(path, ShapeFlags{}, emit.Options{})
				if err != nil {
					t.Fatal(err)
				}
				acc := regexp.MustCompile(fmt.Sprintf(`outs\(%%t[0-9]+ : tensor<%dx%dx%dx[0-9]+x%s>\) attrs = \{niro\.dwconv2d\}`,
					o[0]*c.x[1], c.w[0]/c.x[1], o[2], e))
				got := acc.MatchString(out.MLIR)
				if got != want {
					t.Errorf("row form taken: %v, want %v (output %v)", got, want, o)
				}
			})
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("cases taking the row form / not: %v", seen)
	}
}
