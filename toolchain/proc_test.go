package toolchain

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone reports whether pid has exited or is a zombie, waiting up to 2 s.
func gone(pid int) bool {
	for deadline := time.Now().Add(2 * time.Second); ; {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func childPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestRunProcessTimeout: a program past its time-out is killed with the
// child it started, and the error says it timed out.
func TestRunProcessTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! > "$0"; wait`, pidFile)
	start := time.Now()
	err := runProcess(context.Background(), cmd, 300*time.Millisecond)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Fatalf("runProcess = %v, want a TimeoutError", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if pid := childPid(t, pidFile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d outlived the time-out", pid)
	}
}

// TestRunProcessCancel: cancelling the context (niro's signal) kills the
// group and reports the cancellation, not a time-out.
func TestRunProcessCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! > "$0"; wait`, pidFile)
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err := runProcess(ctx, cmd, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("runProcess = %v, want context.Canceled", err)
	}
	if pid := childPid(t, pidFile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d outlived the cancellation", pid)
	}
}

// TestRunProcessChildHoldsStderr: a program that exits 0 while its child
// holds standard error open returns promptly, keeping what it wrote, and
// the child is killed.
func TestRunProcessChildHoldsStderr(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	var stderr limitedBuffer
	stderr.max = 1 << 10
	cmd := exec.Command("/bin/sh", "-c", `echo note >&2; sleep 300 & echo $! > "$0"; exit 0`, pidFile)
	cmd.Stderr = &stderr
	start := time.Now()
	if err := runProcess(context.Background(), cmd, time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > waitDelay+5*time.Second {
		t.Errorf("took %v", d)
	}
	if !strings.Contains(stderr.String(), "note") {
		t.Errorf("stderr %q lost", stderr.String())
	}
	if pid := childPid(t, pidFile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d outlived the program", pid)
	}
}

// TestToolWritesNothing: a stage whose tool exits 0 without its output is
// a *ToolError (exit 3) naming the tool.
func TestToolWritesNothing(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "mlir-translate")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tc := &Toolchain{tools: map[string]ToolInfo{MLIRTranslate: {Name: MLIRTranslate, Path: tool}}}
	_, err := tc.Translate(context.Background(), "module {}")
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != MLIRTranslate || !strings.Contains(err.Error(), "exited 0 without writing its output module.ll") {
		t.Fatalf("Translate = %v, want a ToolError naming mlir-translate", err)
	}
}
