package importer

// The ops mapped since the first importer: Transpose, Identity, Constant
// and If (mapped.go holds their converters; MatMul is in ops_contract.go).

func init() {
	register("Transpose", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"perm"}, Convert: (*nodeCtx).transpose})
	register("Identity", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: (*nodeCtx).identity})
	register("Constant", opSpec{Since: 1, In: [2]int{0, 0}, Out: [2]int{1, 1}, Attrs: []string{anyAttrs}, Convert: (*nodeCtx).constant})
	register("If", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{0, 1 << 20}, Attrs: []string{"then_branch", "else_branch"}, Convert: (*nodeCtx).ifOp})
}
