package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/niro-dev/niro/toolchain"
)

// DoctorCmd is `niro doctor`.
type DoctorCmd struct{}

// Run prints what tool discovery found. It exits 3 when a required tool is
// missing.
func (c *DoctorCmd) Run(env *Env) error {
	ctx := env.context()
	report := toolchain.Probe(ctx, toolchain.FindOptions{Prefix: env.LLVMPrefix})
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tVERSION\tPATH\tFROM")
	missing := 0
	for _, ti := range report {
		if !ti.Found() {
			req := "optional"
			if ti.Required {
				req = "required"
				missing++
			}
			fmt.Fprintf(tw, "%s\t-\tmissing (%s): %v\t\n", ti.Name, req, ti.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ti.Name, ti.Version, ti.Path, ti.Source)
		for _, s := range ti.Skipped {
			fmt.Fprintf(tw, "\t\t  skipped %s\t\n", s)
		}
	}
	tw.Flush()
	ps, err := pipelines()
	if err != nil {
		return fmt.Errorf("passes.txt: %w", err)
	}
	fmt.Fprintf(env.Stdout, "pipelines: %s\n", strings.Join(ps.Names(), ", "))
	fmt.Fprintln(env.Stdout, interpStatus)
	if missing > 0 {
		fmt.Fprintf(env.Stdout, "%d required tools missing: install LLVM/MLIR 22 (Debian 12: apt-get install -y mlir-22-tools llvm-22)\n", missing)
		return &silentError{code: exitToolErr}
	}
	fmt.Fprintln(env.Stdout, "all required tools found")
	return nil
}
