#!/usr/bin/env bash
# Measures `niro emit` on a long chain (docs/performance.md, "Emit on a
# long chain"): a model of N nodes, alternately Add and Relu on a
# 4-element f32 tensor (scripts/genchain), default N = 1,000,000. Prints
# the MLIR size, the wall and user time and the peak resident set
# (/usr/bin/time) of `niro verify` (the ONNX import and Niro IR alone) and
# of `niro emit -o FILE` (import plus emit), each with its ratio to the
# MLIR size. Needs GNU time at /usr/bin/time; no LLVM tools.
#
#   scripts/bench-emit.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
n="${1:-1000000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/niro" .
go run ./scripts/genchain -n "$n" -o "$tmp/chain.onnx"
/usr/bin/time -f '%e %U %M' -o "$tmp/verify.time" "$tmp/niro" verify "$tmp/chain.onnx" >/dev/null
/usr/bin/time -f '%e %U %M' -o "$tmp/emit.time" "$tmp/niro" emit "$tmp/chain.onnx" -o "$tmp/chain.mlir"
text=$(stat -c %s "$tmp/chain.mlir")
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)"
echo "$n nodes: $(stat -c %s "$tmp/chain.onnx") bytes of ONNX, $text bytes of MLIR ($((text / n)) B/node)"
for step in verify emit; do
  read -r wall user kb <"$tmp/$step.time"
  awk -v s="$step" -v w="$wall" -v u="$user" -v kb="$kb" -v t="$text" -v n="$n" 'BEGIN {
    printf "niro %-6s %6.1f s wall %6.1f s user  peak RSS %5.0f MB = %.2f x the MLIR, %.0f B/node\n", s, w, u, kb*1024/1e6, kb*1024/t, kb*1024/n }'
done
