#!/usr/bin/env bash
# Runs niro on every ONNX backend test and writes the scoreboard,
# docs/conformance.md: the overall count, each op's tests passed of the
# tests that use it, and every failure class with its reasons.
#
#   scripts/conformance.sh [-j JOBS] [-timeout 10m] [-o FILE]
#
# The test data come from $NIRO_ONNX_TESTS (default ../shared/onnx-tests
# beside the repository). Tests run in parallel, one per core by default.
# Needs the LLVM/MLIR 22 tools (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
suite=${NIRO_ONNX_TESTS:-../shared/onnx-tests}
if [ ! -f "$suite/INDEX.tsv" ]; then
	echo "conformance: no ONNX test data at $suite (set NIRO_ONNX_TESTS)" >&2
	exit 1
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/niro" .
go build -o "$bin/conformance" ./scripts/conformance
"$bin/niro" doctor >/dev/null || { echo "conformance: the LLVM/MLIR tools are missing (run scripts/setup.sh)" >&2; exit 3; }
start=$(date +%s)
"$bin/conformance" -niro "$bin/niro" -suite "$suite" "$@"
echo "conformance: took $(($(date +%s) - start)) s" >&2
