#!/usr/bin/env bash
# Runs niro's whole test suite, installing LLVM/MLIR 22 first if missing.
# With NIRO_REQUIRE_TOOLS=1 (as CI sets it) tests fail instead of skipping
# when a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi

echo "== gofmt" >&2
unformatted=$(find . -name '*.go' -not -path './.git/*' -print0 | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt needed on:" >&2
	echo "$unformatted" >&2
	exit 1
fi
echo "== go vet" >&2
go vet ./...
echo "== go test" >&2
go test -timeout 25m "$@" ./...
echo "== fuzz (seed corpus, short)" >&2
FUZZTIME=${FUZZTIME:-10s} scripts/fuzz.sh
