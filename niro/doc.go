// Package niro implements Niro IR: a strongly typed SSA intermediate
// representation with MLIR-style regions and block arguments.
//
// The package holds the whole IR: types ([ScalarType], [TensorType]), values
// ([Value]), literals and attributes, the program structure ([Module],
// [Global], [Function], [Region], [Block]), the closed set of operations
// ([Op]), a [Builder], the verifier ([Verify]), and a textual form with a
// printer ([Print]) and a parser ([Parse]) that round-trip.
//
// Which concrete types play which role:
//
//	type            Type  Op  terminator  has regions
//	ScalarType       ✔
//	TensorType       ✔
//	*Const               ✔
//	*GetGlobal           ✔
//	*Transpose           ✔
//	*TensorExtract       ✔
//	*Add, *Mul           ✔
//	*MatMul              ✔
//	*Call                ✔
//	*Branch              ✔       ✔
//	*CondBranch          ✔       ✔
//	*Return              ✔       ✔ (function bodies)
//	*Yield               ✔       ✔ (nested regions)
//	*If                  ✔                    ✔
//	*Loop                ✔                    ✔ (one body block)
//	*UnknownOp           ✔   with successors  ✔ (any number)
//
// Values are plain {ID, Type} pairs. IDs are unique within a function,
// including its nested regions; an operand refers to its definition by ID and
// repeats its type, and the verifier checks that both agree.
package niro
