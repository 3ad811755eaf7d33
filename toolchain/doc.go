// Package toolchain finds the installed LLVM/MLIR tools and drives them:
// it lowers MLIR text through a named pass pipeline (running
// transform-dialect schedules where the pipeline asks for them), translates
// the llvm dialect to LLVM IR, compiles LLVM IR to objects or assembly,
// embeds binary blobs in objects, and JIT-runs modules with mlir-runner.
//
// The package deals in MLIR text, files and processes only; it never looks
// at niro's IR.
//
// # Discovery
//
// [Find] looks for each tool (mlir-opt, mlir-translate, llc, mlir-runner,
// llvm-objcopy, and optionally opt and ld.lld) in this order: the explicit
// prefix ([FindOptions].Prefix, the --llvm-prefix flag), $NIRO_LLVM_PREFIX,
// PATH, then /usr/lib/llvm-NN/bin from the newest NN down. A tool older than
// LLVM [MinVersion] is refused: in PATH and the system directories it is
// skipped (and the skip is reported), in an explicit prefix it is an error,
// as is a required tool the explicit prefix lacks. [Probe] returns the same
// findings without failing, for `niro doctor`.
//
// # Pipelines
//
// [ParsePipelines] reads the pipelines file (passes.txt at the repository
// root, embedded by the niro command); see its documentation for the syntax.
//
// # Running the tools
//
// [Toolchain.Lower], [Toolchain.Translate], [Toolchain.Compile],
// [Toolchain.EmbedBlob], [Toolchain.Link] and [Toolchain.Run] each run one
// stage; [Toolchain.Build] chains them and runs independent jobs in
// parallel. The "contraction" schedules (schedule.mlir, embedded) give
// every matrix product niro tags a register-blocked, vectorized loop nest
// with exactly the bits of the naive one; docs/toolchain.md explains them. Every stage runs under a context.Context in a fresh temporary
// directory (or in [Toolchain.KeepTemps], which then keeps the files). A
// tool that is missing or fails yields a [*ToolError], whose ExitCode is 3.
package toolchain
