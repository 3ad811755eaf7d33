package main

import _ "embed"

// passesText is passes.txt: the named MLIR pass pipelines, one per target,
// which toolchain.ParsePipelines reads.
//
//go:embed passes.txt
var passesText string
