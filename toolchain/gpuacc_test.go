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

func TestUnrollJamBlocks(t *testing.T) {
	nest := func(tm string) []string {
		return strings.Split(`      scf.for %i = %c0 to `+tm+` step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %niro_acc0_init = memref.load %C[%i, %j] : memref<4x2xf32>
        %niro_acc0 = scf.for %k = %c0 to %c8 step %c1 iter_args(%4 = %niro_acc0_init) -> (f32) {
          %2 = memref.load %A[%i, %k] : memref<4x8xf32>
          %3 = memref.load %B[%k, %j] : memref<8x2xf32>
          %5 = arith.mulf %2, %3 : f32
          %6 = arith.addf %4, %5 : f32
          scf.yield %6 : f32
        }
        memref.store %niro_acc0, %C[%i, %j] : memref<4x2xf32>
      }
      }`, "\n")
	}
	consts := map[string]int64{"%c0": 0, "%c1": 1, "%c2": 2, "%c4": 4, "%c5": 5, "%c8": 8}
	got := strings.Join(unrollJamBlocks(nest("%c4"), consts, 0), "\n")
	for _, want := range []string{
		"%niro_uj0_r:8 = scf.for %k = %c0 to %c8 step %c1 iter_args(%niro_uj0_v4_0_0 = %niro_uj0_init_0_0,",
		"%niro_uj0_v2_3_1 = memref.load %A[%niro_uj0_i3, %k] : memref<4x8xf32>",
		"%niro_uj0_v6_3_1 = arith.addf %niro_uj0_v4_3_1, %niro_uj0_v5_3_1 : f32",
		"scf.yield %niro_uj0_v6_0_0, %niro_uj0_v6_0_1, %niro_uj0_v6_1_0,",
		"memref.store %niro_uj0_r#7, %C[%niro_uj0_i3, %niro_uj0_j1] : memref<4x2xf32>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Count(got, "memref.store") != 8 || strings.Contains(got, "scf.for %i") {
		t.Errorf("not one loop over k with 8 stores after it:\n%s", got)
	}
	// More than 4 rows: left alone.
	if in := nest("%c5"); strings.Join(unrollJamBlocks(in, consts, 0), "\n") != strings.Join(in, "\n") {
		t.Error("a 5 x 2 block was unrolled")
	}
}
