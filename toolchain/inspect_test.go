package toolchain

import "testing"

func TestInspect(t *testing.T) {
	src := `module {
  llvm.mlir.global private constant @__constant_4xf32(dense<1.0> : tensor<4xf32>) {addr_space = 0 : i64, alignment = 64 : i64} : !llvm.array<4 x f32>
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @f(%arg0: !llvm.ptr) {
    %0 = llvm.mlir.constant(16 : index) : i64
    %1 = llvm.call @malloc(%0) : (i64) -> !llvm.ptr
    llvm.return
  }
}`
	f := Inspect(src)
	if !f.Allocates || len(f.MutableGlobals) != 0 {
		t.Errorf("Inspect = %+v, want Allocates and no mutable globals", f)
	}
	f = Inspect(`  llvm.mlir.global internal @counter(0 : i64) : i64
  llvm.func @malloc(i64) -> !llvm.ptr`)
	if f.Allocates || len(f.MutableGlobals) != 1 || f.MutableGlobals[0] != "counter" {
		t.Errorf("Inspect = %+v, want no allocation and the global counter", f)
	}
}
