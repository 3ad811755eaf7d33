#!/usr/bin/env bash
# Installs what niro's commands and tests need on Debian 12, when missing:
# LLVM/MLIR 22 from Debian's packages. Go itself must already be installed.
set -euo pipefail

need_tools() {
	for t in mlir-opt mlir-translate mlir-runner llc llvm-objcopy; do
		[ -x "/usr/lib/llvm-22/bin/$t" ] || return 0
	done
	return 1
}

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
	echo "setup: Go is not installed; install Go 1.26 or newer first (https://go.dev/doc/install)" >&2
	exit 1
fi

if need_tools; then
	SUDO=""
	if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
	echo "setup: installing mlir-22-tools and llvm-22 from Debian's packages" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mlir-22-tools llvm-22 >/dev/null
fi
