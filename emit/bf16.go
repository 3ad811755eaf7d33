package emit

import "github.com/niro-dev/niro/niro"

// extHalf writes the widening of the 16-bit float a (of type e, f16 or
// bf16) to f32 and returns it. f16 is arith.extf. bf16 is written as
// integers: its 16 bits become the high half of the f32 (bitcast to i16,
// zero-extend to i32, shift left by 16, bitcast to f32), which is the
// widening exactly, NaN payloads and signs included, and what LLVM
// itself lowers fpext from bfloat to on x86. The reason: LLVM 22's x86
// instruction selection cannot soft-promote an fpext of one element of a
// bfloat vector of an odd width ("Do not know how to soft promote this
// operator's operand"; load <9 x bfloat>, extractelement, fpext — the
// vectorized convolution tiles that broadcast a bf16 bias or per-channel
// BatchNormalization factor over a row, and the contraction blocks of
// some bf16 1×1 convolutions). On i16 the same vector code selects.
// The final rounding to bf16 stays arith.truncf (narrow).
func (fe *funcEmitter) extHalf(e niro.ScalarType, a string) string {
	w := fe.tmp()
	if e != niro.BF16 {
		st, _ := scalarType(e)
		fe.line("%s = arith.extf %s : %s to f32", w, a, st)
		return w
	}
	i, z, s, c := fe.tmp(), fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = arith.bitcast %s : bf16 to i16", i, a)
	fe.line("%s = arith.extui %s : i16 to i32", z, i)
	fe.line("%s = arith.constant 16 : i32", c)
	fe.line("%s = arith.shli %s, %s : i32", s, z, c)
	fe.line("%s = arith.bitcast %s : i32 to f32", w, s)
	return w
}

// extProduct is the widening of a 16-bit float operand of a product the
// contraction schedule blocks (niro.contraction, niro.mm_e generics):
// arith.extf, also for bf16, because the schedule's vector code for a
// bf16 product widened as integers runs more than ten times slower (a
// 784×128 by 128×128 MatMul: 11 ms against 0.63 ms). Its vector code
// selects: what failed was the bias and epilogue arithmetic in and after
// the block, which extHalf writes.
func (fe *funcEmitter) extProduct(e niro.ScalarType, a string) string {
	if !isHalf(e) {
		return a
	}
	st, _ := scalarType(e)
	w := fe.tmp()
	fe.line("%s = arith.extf %s : %s to f32", w, a, st)
	return w
}
