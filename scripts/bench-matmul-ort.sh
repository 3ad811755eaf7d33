#!/usr/bin/env bash
# Times matrix products under niro and ONNX Runtime side by side, both
# single-threaded, alternated in the same run (the machine is shared and
# noisy: compare ratios within a round, then medians over the rounds).
# Needs LLVM/MLIR 22 and onnxruntime-node:
#   mkdir -p /tmp/ort && cd /tmp/ort && echo onnxruntime-node-install=skip > .npmrc && npm install onnxruntime-node
#
#   scripts/bench-matmul-ort.sh [ROUNDS] [CASE ...]
#
# CASE is KIND:SIZE with KIND one of mm_f32, mm_f64, bmm_f32 (SIZE PxN:
# P products of N³), gemm_tb_f32 (Gemm with transB), e.g. mm_f32:2048 or
# bmm_f32:8x256. Default: mm_f32 at 512, 1024, 2048, 4096. Each round runs
# niro bench (median of RUNS calls after a warm-up) then ort-bench.mjs
# (the same); RUNS is $RUNS or a size-dependent default. With
# NIRO_BASE=/path/to/another/niro, that binary is timed in each round too.
# Prints one line per round and a summary: the median over the rounds of
# each side's per-round median, the median of the per-round ratios, and
# each side's best single call over all rounds (the least disturbed by
# other jobs on a shared machine).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
export NODE_PATH="${NODE_PATH:-/tmp/ort/node_modules}"
rounds="${1:-3}"
shift || true
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(mm_f32:512 mm_f32:1024 mm_f32:2048 mm_f32:4096)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go run ./scripts/genmatmul -o "$work"
go build -o "$work/niro" .
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)," \
  "family $(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -1)" \
  "model $(sed -n 's/^model\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
us() { sed -n 's/.*"median_us":\([0-9.]*\),"min_us":\([0-9.]*\).*/\1 \2/p'; }
summary=()
for c in "${cases[@]}"; do
  kind="${c%%:*}" size="${c#*:}"
  case "$kind" in
    bmm_f32) p="${size%x*}" n="${size#*x}"; shapes=(a=${p}x${n}x${n} b=${p}x${n}x${n}); flops=$((2*p*n*n*n)) ;;
    *) n="$size"; shapes=(a=${n}x${n} b=${n}x${n}); flops=$((2*n*n*n)) ;;
  esac
  runs="${RUNS:-$(( n >= 4096 ? 3 : n >= 2048 ? 5 : 20 ))}"
  niro_args=()
  for s in "${shapes[@]}"; do niro_args+=(--shape "$s"); done
  : > "$work/n" ; : > "$work/o" ; : > "$work/b" ; : > "$work/r" ; : > "$work/nm" ; : > "$work/om"
  for r in $(seq "$rounds"); do
    line="$c round $r:"
    if [ -n "${NIRO_BASE:-}" ]; then
      tb=$("$NIRO_BASE" bench "$work/$kind.onnx" --runs "$runs" --json "${niro_args[@]}" | us | cut -d' ' -f1)
      echo "$tb" >> "$work/b"; line="$line base ${tb} us"
    fi
    read -r tn tnm < <("$work/niro" bench "$work/$kind.onnx" --runs "$runs" --json "${niro_args[@]}" | us)
    read -r to tom < <(node scripts/ort-bench.mjs "$work/$kind.onnx" "$runs" "${shapes[@]}" | us)
    echo "$tn" >> "$work/n"; echo "$to" >> "$work/o"; echo "$tnm" >> "$work/nm"; echo "$tom" >> "$work/om"
    ratio=$(awk -v a="$tn" -v b="$to" 'BEGIN {printf "%.2f", b/a}')
    echo "$ratio" >> "$work/r"
    echo "$line niro ${tn} us, ort ${to} us, ort/niro ${ratio}"
  done
  mn=$(med < "$work/n") mo=$(med < "$work/o") mr=$(med < "$work/r")
  bn=$(sort -g "$work/nm" | head -1) bo=$(sort -g "$work/om" | head -1)
  s=$(awk -v c="$c" -v n="$mn" -v o="$mo" -v r="$mr" -v f="$flops" -v bn="$bn" -v bo="$bo" 'BEGIN {
    printf "%-16s median: niro %9.1f ms %6.1f GFLOP/s, ort %9.1f ms %6.1f GFLOP/s, ort/niro %.2f | best: niro %9.1f ms %6.1f GFLOP/s, ort %9.1f ms %6.1f GFLOP/s, ort/niro %.2f",
      c, n/1e3, f/n/1e3, o/1e3, f/o/1e3, r, bn/1e3, f/bn/1e3, bo/1e3, f/bo/1e3, bo/bn }')
  if [ -n "${NIRO_BASE:-}" ]; then
    mb=$(med < "$work/b")
    s="$s | base $(awk -v b="$mb" -v f="$flops" 'BEGIN {printf "%.1f ms %.1f GFLOP/s", b/1e3, f/b/1e3}')"
  fi
  summary+=("$s")
done
echo "summary over $rounds rounds (ort/niro > 1: niro faster):"
printf '%s\n' "${summary[@]}"
