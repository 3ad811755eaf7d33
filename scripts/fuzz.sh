#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time, starting from its
# seed corpus (the f.Add seeds and testdata/fuzz/NAME). CI runs it after the
# tests; FUZZTIME (default 10s) sets the time per target. A failing input is
# written to the package's testdata/fuzz/NAME directory, where the next
# `go test` replays it as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
fuzztime=${FUZZTIME:-10s}
found=0
while IFS=: read -r file _ line; do
	name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
	pkg=./$(dirname "$file")
	echo "== fuzz $pkg $name ($fuzztime)" >&2
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"
	found=$((found + 1))
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . | sed 's|^\./||' | sort)
if [ "$found" -eq 0 ]; then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "== $found fuzz targets ran" >&2
