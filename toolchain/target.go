package toolchain

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
)

// PortableCPU returns the CPU that objects meant for other machines are
// compiled for by default on the host's architecture: "x86-64-v2" on
// x86-64 (SSE4.2 and POPCNT, which every x86-64 CPU since 2009 has, and
// the baseline of current Linux distributions), "generic" elsewhere (on
// AArch64, Armv8.0-A).
func PortableCPU() string {
	if runtime.GOARCH == "amd64" {
		return "x86-64-v2"
	}
	return "generic"
}

// targetArgs returns the -mcpu and -mattr flags of opt and llc.
func (tc *Toolchain) targetArgs() []string {
	cpu := tc.CPU
	if cpu == "" {
		cpu = "native"
	}
	args := []string{"-mcpu=" + cpu}
	if tc.Features != "" {
		args = append(args, "-mattr="+tc.Features)
	}
	return args
}

// TargetError reports a CPU or feature name that llc does not know. Its
// ExitCode is 2: the name came from the command line.
type TargetError struct{ Msg string }

func (e *TargetError) Error() string { return e.Msg }

// ExitCode returns 2 (bad usage).
func (e *TargetError) ExitCode() int { return 2 }

// CheckTarget compiles an empty module with llc under tc.CPU and
// tc.Features and returns a *TargetError when llc does not recognize one
// of them (llc only warns, and would compile for its default CPU).
func (tc *Toolchain) CheckTarget(ctx context.Context) error {
	if tc.CPU == "" && tc.Features == "" || tc.CPU == "native" && tc.Features == "" {
		return nil
	}
	const stage = "target"
	ws, err := tc.workspace(stage)
	if err != nil {
		return err
	}
	defer ws.close()
	if err := ws.write(stage, "target.ll", []byte("define void @niro_target_check() {\n  ret void\n}\n")); err != nil {
		return err
	}
	var stderr bytes.Buffer
	args := append([]string{"-O0"}, tc.targetArgs()...)
	if triple := hostTriple(); triple != "" {
		args = append(args, "-mtriple="+triple)
	}
	args = append(args, "-filetype=obj", "target.ll", "-o", "target.o")
	runErr := tc.run(ctx, ws, command{stage: stage, tool: LLC, args: args, stderr: &stderr})
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "is not a recognized processor") {
			return &TargetError{Msg: fmt.Sprintf("--target-cpu %s: llc does not know this CPU (llc-22 -mcpu=help lists them)", tc.CPU)}
		}
		if strings.Contains(line, "is not a recognized feature") {
			return &TargetError{Msg: fmt.Sprintf("--target-features %s: %s (llc-22 -mattr=help lists them)", tc.Features, strings.TrimSpace(line))}
		}
	}
	return runErr
}
