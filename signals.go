package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/niro-dev/niro/internal/cleanup"
)

// signalGrace is how long niro waits, after SIGINT or SIGTERM, for the
// command to stop its tools and remove its files by itself before it does
// so from the cleanup registry and exits.
const signalGrace = 3 * time.Second

// runMain runs the command line as run does, with niro's signal handling:
// on SIGINT or SIGTERM the command's context is cancelled, which kills the
// running tool's process group; every temporary file and directory still
// registered with package cleanup is removed; and the exit code is 128 plus
// the signal's number (130 for SIGINT, 143 for SIGTERM), as shells expect.
func runMain(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan int, 1)
	go func() { done <- runContext(ctx, args, stdout, stderr) }()
	select {
	case code := <-done:
		return code
	case sig := <-sigs:
		cancel()
		select {
		case <-done:
		case <-sigs: // a second signal: stop now
		case <-time.After(signalGrace):
		}
		cleanup.Run()
		n := 1
		if s, ok := sig.(syscall.Signal); ok {
			n = int(s)
		}
		fmt.Fprintf(stderr, "niro: stopped by %v\n", sig)
		return 128 + n
	}
}
