#!/usr/bin/env bash
# Runs every fuzz target of the module for a fixed number of executions,
# starting from its seed corpus (the f.Add seeds and testdata/fuzz/NAME). CI
# runs it after the tests. A failing input is written to the package's
# testdata/fuzz/NAME directory, where the next `go test` replays it as a
# regression test.
#
# The budget is a count, not a duration: with a duration, Go 1.26's fuzz
# coordinator can report "context deadline exceeded" at the end of a clean
# run on a loaded machine (golang/go#75804, fixed in Go 1.27), which fails
# CI with no input to blame. A count has no deadline to race. Each target
# gets FUZZCOUNT executions (default 100000) unless a comment line
# "// fuzzcount: N" directly above its func sets its own (slow targets, such
# as one that compiles every input, set a small N). FUZZTIME=DURATION
# overrides every budget with a duration, for longer runs by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
default=${FUZZCOUNT:-100000}
found=0
while IFS=: read -r file lineno line; do
	name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
	pkg=./$(dirname "$file")
	budget=${default}x
	if [ "$lineno" -gt 1 ]; then
		prev=$(sed -n "$((lineno - 1))p" "$file")
		if [[ $prev =~ ^//\ fuzzcount:\ ([0-9]+)$ ]]; then
			budget=${BASH_REMATCH[1]}x
		fi
	fi
	if [ -n "${FUZZTIME:-}" ]; then budget=$FUZZTIME; fi
	echo "== fuzz $pkg $name ($budget)" >&2
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" "$pkg"
	found=$((found + 1))
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . | sed 's|^\./||' | sort)
if [ "$found" -eq 0 ]; then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "== $found fuzz targets ran" >&2
