package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/alecthomas/kong"

	"github.com/niro-dev/niro/toolchain"
)

// versionFlag is --version: niro's module version and commit, and the
// LLVM/MLIR version tool discovery finds.
type versionFlag bool

// BeforeApply prints the versions and exits before any command runs (and
// before kong asks for one). It reads --llvm-prefix from the parse, as
// flags are not applied yet.
func (versionFlag) BeforeApply(app *kong.Kong, ctx *kong.Context) error {
	prefix := ""
	for _, f := range ctx.Flags() {
		if f.Name == "llvm-prefix" {
			if v, ok := ctx.FlagValue(f).(string); ok {
				prefix = v
			}
		}
	}
	writeVersion(app.Stdout, prefix)
	app.Exit(exitOK)
	return nil
}

// writeVersion prints niro's version from its build information, and the
// version and path of the mlir-opt that discovery finds under prefix.
func writeVersion(w io.Writer, prefix string) {
	version, commit, modified := "(unknown)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "niro " + version
	if commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		line += ", commit " + commit
		if modified {
			line += " (modified)"
		}
	}
	fmt.Fprintln(w, line)
	for _, ti := range toolchain.Probe(context.Background(), toolchain.FindOptions{Prefix: prefix}) {
		if ti.Name != toolchain.MLIROpt {
			continue
		}
		if ti.Found() {
			fmt.Fprintf(w, "LLVM/MLIR %s (%s)\n", ti.Version, ti.Path)
		} else {
			fmt.Fprintf(w, "LLVM/MLIR: not found (%v); niro doctor tells more\n", ti.Err)
		}
	}
}
