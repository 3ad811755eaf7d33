package importer

// The ops mapped since the first importer: MatMul, Transpose, Identity,
// Constant and If (mapped.go holds their converters).

func init() {
	register("MatMul", opSpec{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).matmul})
	register("Transpose", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"perm"}, Convert: (*nodeCtx).transpose})
	register("Identity", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).identity})
	register("Constant", opSpec{Since: 1, In: [2]int{0, 0}, Out: [2]int{1, 1}, Attrs: []string{anyAttrs}, Convert: (*nodeCtx).constant})
	register("If", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{0, 1 << 20}, Attrs: []string{"then_branch", "else_branch"}, Convert: (*nodeCtx).ifOp})
}
