package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/niro-dev/niro/toolchain"
)

func TestMain(m *testing.M) {
	if os.Getenv(asNiroEnv) == "1" {
		// The test binary standing in for niro (see TestSIGTERMStopsTools).
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	if name := os.Getenv(corpusModelEnv); name != "" {
		// The test binary checking one corpus model (see TestCorpus).
		os.Exit(checkCorpusModel(name, os.Stdout))
	}
	testscript.Main(m, map[string]func(){
		"niro": func() { os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI suites under testdata/script. Scripts that need
// the LLVM/MLIR tools use the condition [tools]; without the tools they
// skip, unless NIRO_REQUIRE_TOOLS is set, in which case they fail.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NIRO_ROOT", root)
			e.Setenv("ONNX_TESTS", onnxTestsRoot())
			for _, k := range []string{"NIRO_LLVM_PREFIX", "NIRO_REQUIRE_TOOLS", "PATH"} {
				if v, ok := os.LookupEnv(k); ok {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits CODE PROG ARGS... runs PROG and checks its exit code.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE PROG [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: bad code %q", args[0])
				}
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "tools":
				ok := toolsInstalled()
				if !ok && os.Getenv("NIRO_REQUIRE_TOOLS") != "" {
					t.Fatalf("NIRO_REQUIRE_TOOLS is set but the LLVM/MLIR 22 tools are missing")
				}
				return ok, nil
			case "onnxtests":
				_, err := os.Stat(filepath.Join(onnxTestsRoot(), "INDEX.tsv"))
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// toolsInstalled reports whether niro's tool discovery finds every
// required LLVM/MLIR tool.
func toolsInstalled() bool {
	_, err := toolchain.Find(context.Background(), toolchain.FindOptions{})
	return err == nil
}
