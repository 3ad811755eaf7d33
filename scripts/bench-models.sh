#!/usr/bin/env bash
# Times the example models (examples/transformer, examples/classifier) with
# `niro bench` and with ONNX Runtime on one thread (scripts/ort-bench.mjs),
# alternating, ROUNDS times each (default 3), on the same inputs: the
# transformer's test_data_set_0 token ids, the classifier at batch N (default
# 8; random inputs on both sides). Needs the LLVM/MLIR 22 tools and the npm
# package onnxruntime-node under $NODE_PATH (see scripts/ort-expected.mjs).
#
#   NODE_PATH=/tmp/ort/node_modules scripts/bench-models.sh [ROUNDS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
rounds="${1:-3}" n="${2:-8}" runs=2000
bin="$(mktemp -d)/niro"
go build -o "$bin" .
ids=examples/transformer/test_data_set_0/input_0.pb
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $runs runs per median"
for _ in $(seq "$rounds"); do
  echo "transformer niro $("$bin" bench examples/transformer/model.onnx --runs "$runs" --json --input "input_ids=$ids")"
  echo "transformer ort  $(node scripts/ort-bench.mjs examples/transformer/model.onnx "$runs" "input_ids=$ids")"
  echo "classifier N=$n niro $("$bin" bench examples/classifier/model.onnx --dim "N=$n" --runs "$runs" --json)"
  echo "classifier N=$n ort  $(node scripts/ort-bench.mjs examples/classifier/model.onnx "$runs" "x=${n}x64")"
done
