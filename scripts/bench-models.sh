#!/usr/bin/env bash
# Times the example models (examples/transformer, examples/classifier and
# the convolutional mnist, resnetblock, mobilenetv2 and unet, and
# examples/decoder's prompt and generation steps) with
# `niro bench` and with ONNX Runtime on one thread (scripts/ort-bench.mjs),
# alternating, ROUNDS times each (default 3), on the same inputs: the
# inputs of each model's test_data_set_0, the classifier at batch N (default
# 8; random inputs on both sides). MODELS (default all) picks some of them,
# e.g. MODELS="mnist unet". CNN_RUNS (default 500) is the number of runs per
# median for the convolutional models. Needs the LLVM/MLIR 22 tools and the
# npm package onnxruntime-node under $NODE_PATH (see scripts/ort-expected.mjs).
#
#   NODE_PATH=/tmp/ort/node_modules [MODELS=...] scripts/bench-models.sh [ROUNDS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
rounds="${1:-3}" n="${2:-8}" runs=2000 cnn_runs="${CNN_RUNS:-500}"
models="${MODELS:-transformer classifier mnist resnetblock mobilenetv2 unet decoder}"
has() { [[ " $models " == *" $1 "* ]]; }
bin="$(mktemp -d)/niro"
go build -o "$bin" .
ids=examples/transformer/test_data_set_0/input_0.pb
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $runs runs per median ($cnn_runs for the CNNs)"
for _ in $(seq "$rounds"); do
  if has transformer; then
    echo "transformer niro $("$bin" bench examples/transformer/model.onnx --runs "$runs" --json --input "input_ids=$ids")"
    echo "transformer ort  $(node scripts/ort-bench.mjs examples/transformer/model.onnx "$runs" "input_ids=$ids")"
  fi
  if has classifier; then
    echo "classifier N=$n niro $("$bin" bench examples/classifier/model.onnx --dim "N=$n" --runs "$runs" --json)"
    echo "classifier N=$n ort  $(node scripts/ort-bench.mjs examples/classifier/model.onnx "$runs" "x=${n}x64")"
  fi
  for m in mnist resnetblock mobilenetv2 unet; do
    has "$m" || continue
    d=examples/$m/test_data_set_0 args=("x=$d/input_0.pb")
    if [ "$m" = unet ]; then args+=("skip=$d/input_1.pb"); fi
    echo "$m niro $("$bin" bench "examples/$m/model.onnx" --runs "$cnn_runs" --json "${args[@]/#/--input=}")"
    echo "$m ort  $(node scripts/ort-bench.mjs "examples/$m/model.onnx" "$cnn_runs" "${args[@]}")"
  done
  if has decoder; then
    for k in 0 1; do
      d=examples/decoder/test_data_set_$k step=$([ "$k" = 0 ] && echo prompt || echo generation)
      args=("input_ids=$d/input_0.pb" "position_ids=$d/input_1.pb" "past_key=$d/input_2.pb" "past_value=$d/input_3.pb")
      echo "decoder $step niro $("$bin" bench examples/decoder/model.onnx --runs "$runs" --json "${args[@]/#/--input=}")"
      echo "decoder $step ort  $(node scripts/ort-bench.mjs examples/decoder/model.onnx "$runs" "${args[@]}")"
    done
  fi
done
