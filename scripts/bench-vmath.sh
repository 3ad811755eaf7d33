#!/usr/bin/env bash
# Times the transcendental-heavy ops with niro's polynomials (--math=poly),
# with libm (--math=libm) and under ONNX Runtime (one thread), side by side
# in one run, and prints a markdown table with the ratios. Models come from
# scripts/genact (softmax and layernorm 64×1024, the rest 1024×1024 f32).
#
#   NODE_PATH=/tmp/ort/node_modules scripts/bench-vmath.sh [RUNS] [MODEL...]
#
# Without NODE_PATH (onnxruntime-node) the ORT column is left empty.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"; shift || true
models=("$@"); [ ${#models[@]} -gt 0 ] || models=(softmax sigmoid tanh gelu gelu_tanh exp log erf layernorm)
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
go build -o "$dir/niro" . && go run ./scripts/genact -o "$dir"
med() { sed -n 's/.*"median_us":\([0-9.]*\).*/\1/p'; }
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores" >&2
echo "| model | poly µs | libm µs | ORT µs | libm/poly | ORT/poly |"
echo "|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  shape=x=1024x1024; case "$m" in softmax|layernorm) shape=x=64x1024;; esac
  p=$("$dir/niro" --math=poly bench "$dir/$m.onnx" --runs "$runs" --json | med)
  l=$("$dir/niro" --math=libm bench "$dir/$m.onnx" --runs "$runs" --json | med)
  o=""
  if [ -n "${NODE_PATH:-}" ]; then o=$(node scripts/ort-bench.mjs "$dir/$m.onnx" "$runs" "$shape" | med); fi
  awk -v m="$m" -v p="$p" -v l="$l" -v o="$o" 'BEGIN {
    r = (o == "") ? "" : sprintf("%.2f", o / p)
    printf "| %s | %.0f | %.0f | %s | %.2f | %s |\n", m, p, l, (o == "" ? "" : sprintf("%.0f", o)), l / p, r }'
done
