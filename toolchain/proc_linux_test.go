//go:build linux

package toolchain

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestToolDiesWithNiro: a tool outlives no niro killed by SIGKILL (a
// test's time-out, the OOM killer), which cannot clean up after itself.
// The test runs itself as the "niro" that starts a tool (a shell that
// writes its pid and sleeps), kills that process, and waits for the tool
// to be gone.
func TestToolDiesWithNiro(t *testing.T) {
	if pidFile := os.Getenv("NIRO_TEST_DEATH_PIDFILE"); pidFile != "" {
		cmd := exec.Command("sh", "-c", "echo $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+" && exec sleep 60")
		_ = runLimited(context.Background(), cmd, time.Minute, limits{})
		return
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	self := exec.Command(os.Args[0], "-test.run=^TestToolDiesWithNiro$")
	self.Env = append(os.Environ(), "NIRO_TEST_DEATH_PIDFILE="+pidFile)
	if err := self.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			_ = self.Process.Kill()
			t.Fatal("the tool never started")
		}
	}
	_ = self.Process.Kill()
	_ = self.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
			t.Fatalf("tool %d outlived the process that started it", pid)
		}
	}
}

// alive reports whether pid is a running (not a zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
