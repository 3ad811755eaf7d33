#!/usr/bin/env bash
# niro's main job on the bundled example model (examples/mlp, a small MLP
# with a symbolic batch dimension): import, compile to an object and a C
# header, run it, check it against ONNX Runtime's outputs, and time it.
# Installs LLVM/MLIR 22 first if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi

out="${DEMO_OUT:-$(mktemp -d)}"
model=examples/mlp/model.onnx
data=examples/mlp/test_data_set_0

echo "== building niro"
go build -tags osusergo,netgo -o "$out/niro" .
niro="$out/niro"

echo "== niro doctor"
"$niro" doctor

echo "== niro import --summary $model"
"$niro" import --summary "$model"

echo "== niro compile: object with embedded weights, and its C header (batch N=4)"
"$niro" compile "$model" --dim N=4 --emit obj -o "$out/mlp.o"
"$niro" compile "$model" --dim N=4 --emit header -o "$out/mlp.h"
ls -l "$out/mlp.o" "$out/mlp.h"
grep -E '^void mlp' "$out/mlp.h"

echo "== niro run (the batch binds from the input's shape)"
"$niro" run "$model" --input "$data/input_0.pb" --output-dir "$out"

echo "== niro test against ONNX Runtime's expected output"
"$niro" test "$model" "$data"

echo "== niro bench"
"$niro" bench "$model" --dim N=64 --runs 50

echo "demo outputs in $out"
