package toolchain

import (
	"strings"
	"testing"
)

func TestPromoteAccumulators(t *testing.T) {
	loop := func(body string) []string {
		return strings.Split(`    scf.for %k = %c0 to %c8 step %c1 {
`+body+`    }`, "\n")
	}
	ok := loop(`      %a = memref.load %x[%i, %k] : memref<4x8xf32>
      %c = memref.load %acc[%i] : memref<4xf32>
      %s = arith.addf %c, %a : f32
      memref.store %s, %acc[%i] : memref<4xf32>
`)
	got := strings.Join(promoteAccumulators(ok), "\n")
	want := `    %niro_acc0_init = memref.load %acc[%i] : memref<4xf32>
    %niro_acc0 = scf.for %k = %c0 to %c8 step %c1 iter_args(%c = %niro_acc0_init) -> (f32) {
      %a = memref.load %x[%i, %k] : memref<4x8xf32>
      %s = arith.addf %c, %a : f32
      scf.yield %s : f32
    }
    memref.store %niro_acc0, %acc[%i] : memref<4xf32>`
	if got != want {
		t.Errorf("promoted:\n%s\nwant:\n%s", got, want)
	}
	for name, body := range map[string]string{
		"index varies": `      %c = memref.load %acc[%k] : memref<8xf32>
      %s = arith.addf %c, %c : f32
      memref.store %s, %acc[%k] : memref<8xf32>
`,
		"another store": `      %c = memref.load %acc[%i] : memref<4xf32>
      %s = arith.addf %c, %c : f32
      memref.store %s, %y[%i] : memref<4xf32>
      memref.store %s, %acc[%i] : memref<4xf32>
`,
		"another read": `      %c = memref.load %acc[%i] : memref<4xf32>
      %d = memref.load %acc[%j] : memref<4xf32>
      %s = arith.addf %c, %d : f32
      memref.store %s, %acc[%i] : memref<4xf32>
`,
		"other element": `      %c = memref.load %acc[%j] : memref<4xf32>
      %s = arith.addf %c, %c : f32
      memref.store %s, %acc[%i] : memref<4xf32>
`,
	} {
		in := loop(body)
		if got := promoteAccumulators(in); strings.Join(got, "\n") != strings.Join(in, "\n") {
			t.Errorf("%s: promoted:\n%s", name, strings.Join(got, "\n"))
		}
	}
}
