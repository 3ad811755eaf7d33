package toolchain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/importer"
)

// BenchmarkScheduleFallback measures, on a few example models, the CPU
// time of the scheduled Lower (the host pipeline's mlir-opt) and of the
// plain compile the fallback ends with (the pipeline without its schedule
// steps, every tag removed, then mlir-translate, opt and llc), and reports
// both with the default budget (DefaultScheduleBudget) and its ratio to
// the plain compile:
//
//	go test -run XXX -bench ScheduleFallback -benchtime 3x ./toolchain
//
// docs/toolchain.md, "When a schedule fails", has the figures.
func BenchmarkScheduleFallback(b *testing.B) {
	tc := needTools(b)
	host := pipeline(b, "host")
	plain := host
	plain.Steps = nil
	for _, s := range host.Steps {
		if s.Schedule == "" {
			plain.Steps = append(plain.Steps, s)
		}
	}
	for _, name := range []string{"mnist", "resnetblock", "mobilenetv2", "unet"} {
		path := filepath.Join("..", "examples", name, "model.onnx")
		if _, err := os.Stat(path); err != nil {
			b.Fatal(err)
		}
		m, _, err := importer.Import(path, importer.Options{})
		if err != nil {
			b.Fatal(err)
		}
		out, err := emit.Module(m, emit.Options{})
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		in := filepath.Join(dir, "in.mlir")
		if err := os.WriteFile(in, []byte(out.MLIR), 0o644); err != nil {
			b.Fatal(err)
		}
		nests, lines, err := scanNests(in)
		if err != nil {
			b.Fatal(err)
		}
		stripped := filepath.Join(dir, "plain.mlir")
		if err := stripTags(in, stripped, func(string) bool { return true }); err != nil {
			b.Fatal(err)
		}
		plainText, err := os.ReadFile(stripped)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var sched, flat time.Duration
			var warn strings.Builder
			tc.Warnings = &warn
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				start := childCPU()
				if _, err := tc.Lower(ctx, out.MLIR, host); err != nil {
					b.Fatal(err)
				}
				sched += childCPU() - start
				// The plain compile, whole: mlir-opt, mlir-translate, opt, llc.
				start = childCPU()
				low, err := tc.Lower(ctx, string(plainText), plain)
				if err != nil {
					b.Fatal(err)
				}
				ll, err := tc.Translate(ctx, low)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tc.Compile(ctx, ll, CompileOptions{Kind: KindObj, OptLevel: plain.OptLevel}); err != nil {
					b.Fatal(err)
				}
				flat += childCPU() - start
			}
			if warn.Len() > 0 {
				b.Errorf("the scheduled Lower fell back: %s", warn.String())
			}
			budget := DefaultScheduleBudget(len(nests), lines)
			n := float64(b.N)
			b.ReportMetric(float64(len(nests)), "nests")
			b.ReportMetric(sched.Seconds()/n, "sched-cpu-s")
			b.ReportMetric(flat.Seconds()/n, "plain-compile-cpu-s")
			b.ReportMetric(budget.Seconds(), "budget-s")
			b.ReportMetric(budget.Seconds()/(flat.Seconds()/n), "budget/plain")
		})
	}
}

// childCPU returns the CPU time (user plus system) of the processes niro
// has waited for so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
