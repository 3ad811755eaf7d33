package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress returns where progress lines go: standard error with -v, or
// when it is a terminal; nil otherwise.
func (env *Env) progress() io.Writer {
	if env.Verbose {
		return env.Stderr
	}
	if f, ok := env.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// progressf prints one progress line when progress lines are wanted.
func (env *Env) progressf(format string, args ...any) {
	if w := env.progress(); w != nil {
		fmt.Fprintf(w, "niro: "+format+"\n", args...)
	}
}

// timed runs f and reports it as what took, when it took longer than a
// second or with -v.
func (env *Env) timed(what string, f func() error) error {
	start := time.Now()
	err := f()
	if d := time.Since(start); err == nil && (env.Verbose || d > time.Second) {
		env.progressf("%s done in %.2fs", what, d.Seconds())
	}
	return err
}
