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
echo "== static binary" >&2
# The install instructions' build (README): with the osusergo and netgo
# tags no package needs cgo, so the binary is static even where gcc is.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -tags osusergo,netgo -o "$bin/niro" .
readelf=$(command -v readelf || command -v llvm-readelf-22 || true)
if [ -z "$readelf" ]; then
	echo "no readelf to check that niro is static" >&2
	exit 1
fi
if "$readelf" -lW "$bin/niro" | grep -qE '^\s*(INTERP|DYNAMIC)\b'; then
	echo "niro is not a static binary:" >&2
	"$readelf" -lW "$bin/niro" | grep -E 'INTERP|DYNAMIC|interpreter' >&2
	exit 1
fi
echo "== go test" >&2
go test -timeout 45m "$@" ./...
echo "== fuzz (seed corpus, a fixed count per target)" >&2
scripts/fuzz.sh
