#!/usr/bin/env bash
# Measures the contraction schedule: compiles fill + tagged-contraction
# matrix products (the form niro emits) through passes.txt's host pipeline,
# runs them single-threaded with mlir-runner and prints GFLOP/s (best of 5
# timed calls after a warm-up). host-O0 (the naive loop nest) is included
# for scale. Needs LLVM/MLIR 22 (scripts/setup.sh installs it).
#
#   scripts/bench-matmul.sh            # all sizes
#   scripts/bench-matmul.sh 1024x      # only the benchmarks matching a pattern
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
filter="${1:-}"
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores" >&2
exec go test ./toolchain -run '^$' -bench "Matmul//${filter}" -benchtime 1x -count 1
