package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
	"google.golang.org/protobuf/proto"

	"github.com/niro-dev/niro/onnxpb"
)

// asNiroEnv, set to 1, makes the test binary run as niro (see TestMain).
const asNiroEnv = "NIRO_TEST_AS_NIRO"

// fakeTool is every fake LLVM/MLIR tool of the fault tests. It answers
// --version as LLVM 22 (with FAKE_VERSION=child it leaves a child holding
// its output), and otherwise behaves as $FAKE_<TOOL> says (TOOL upper-case,
// - as _), default copy:
//
//	copy     copy the input file to the -o file (after $FAKE_DELAY seconds)
//	fail     print an error and exit 1
//	hang     write its pid and a child's to $FAKE_PIDS, then sleep
//	child    write the output, leave a child holding standard error, exit 0
//	nothing  exit 0 without writing the output
//	loud     print 3 GB to standard error, exit 1
const fakeTool = `#!/bin/sh
name=$(basename "$0")
if [ "$1" = "--version" ]; then
	if [ "$FAKE_VERSION" = child ]; then
		sleep 300 &
		[ -n "$FAKE_PIDS" ] && echo $! >> "$FAKE_PIDS"
	fi
	echo "LLVM version 22.1.0"
	exit 0
fi
var=FAKE_$(echo "$name" | tr 'a-z.-' 'A-Z__')
eval mode=\${$var:-copy}
in=""; out=""; prev=""
for a in "$@"; do
	if [ "$prev" = "-o" ]; then out=$a
	elif [ "$a" != "-o" ] && [ -z "$in" ] && [ "${a#-}" = "$a" ]; then in=$a
	fi
	prev=$a
done
case $mode in
copy)
	[ -n "$FAKE_DELAY" ] && sleep "$FAKE_DELAY"
	if [ -n "$out" ]; then cat "$in" > "$out"; fi
	exit 0 ;;
fail)
	echo "error: fake $name failed" >&2
	exit 1 ;;
hang)
	sleep 300 &
	echo $! >> "$FAKE_PIDS"
	echo $$ >> "$FAKE_PIDS"
	wait
	exit 0 ;;
child)
	[ -n "$out" ] && cat "$in" > "$out"
	sleep 300 &
	echo $! >> "$FAKE_PIDS"
	exit 0 ;;
nothing)
	exit 0 ;;
loud)
	yes "fake $name: warning: this line repeats" | head -c 3000000000 >&2
	exit 1 ;;
esac
echo "fake $name: unknown mode $mode" >&2
exit 2
`

// makeFakeLLVM makes an LLVM prefix dir/bin + dir/lib of fake tools.
func makeFakeLLVM(dir string) error {
	for _, sub := range []string{"bin", "lib"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"mlir-opt", "mlir-translate", "llc", "mlir-runner", "llvm-objcopy", "opt"} {
		if err := os.WriteFile(filepath.Join(dir, "bin", name), []byte(fakeTool), 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"libmlir_runner_utils.so", "libmlir_c_runner_utils.so"} {
		if err := os.WriteFile(filepath.Join(dir, "lib", name), nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeExternalModel writes dir/model.onnx, y = x + w with w (64x64 f32,
// too large to inline) in the external data file dir/weights.
func writeExternalModel(dir, weights string) error {
	const n = 64
	raw := make([]byte, 4*n*n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range raw {
		raw[i] = byte(r.IntN(256) & 0x3f) // finite floats
	}
	vi := func(name string) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: &onnxpb.TensorShapeProto{
				Dim: []*onnxpb.TensorShapeProto_Dimension{
					{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: n}},
					{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: n}}}}}}}}
	}
	w := &onnxpb.TensorProto{
		Name: proto.String("w"), Dims: []int64{n, n}, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)),
		DataLocation: onnxpb.TensorProto_EXTERNAL.Enum(),
		ExternalData: []*onnxpb.StringStringEntryProto{{Key: proto.String("location"), Value: proto.String(weights)}},
	}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("ext"),
			Node:        []*onnxpb.NodeProto{{OpType: proto.String("Add"), Input: []string{"x", "w"}, Output: []string{"y"}}},
			Initializer: []*onnxpb.TensorProto{w},
			Input:       []*onnxpb.ValueInfoProto{vi("x")},
			Output:      []*onnxpb.ValueInfoProto{vi("y")}},
	}
	data, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), data, 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, weights)); err == nil {
		return nil // already there (a FIFO, say)
	}
	return os.WriteFile(filepath.Join(dir, weights), raw, 0o644)
}

// processGone reports whether pid has exited (a zombie counts as gone),
// waiting up to two seconds for it to.
func processGone(pid int) bool {
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return true
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readPids reads the pids a fake tool appended to file.
func readPids(file string) ([]int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a pid", file, f)
		}
		pids = append(pids, p)
	}
	return pids, nil
}

// TestFaultScripts runs testdata/script/faults: niro against fake tools,
// special files, outputs that are inputs, and signals. It needs no real
// LLVM tools.
func TestFaultScripts(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script/faults",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NIRO_ROOT", root)
			e.Setenv("PATH", os.Getenv("PATH"))
			llvm := filepath.Join(e.WorkDir, "llvm")
			e.Setenv("FAKE_LLVM", llvm)
			e.Setenv("FAKE_PIDS", filepath.Join(e.WorkDir, "pids"))
			if err := makeFakeLLVM(llvm); err != nil {
				return err
			}
			if err := writeExternalModel(filepath.Join(e.WorkDir, "ext"), "model.weights"); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(e.WorkDir, "fifoext"), 0o755); err != nil {
				return err
			}
			if err := syscall.Mkfifo(filepath.Join(e.WorkDir, "fifoext", "w.bin"), 0o644); err != nil {
				return err
			}
			return writeExternalModel(filepath.Join(e.WorkDir, "fifoext"), "w.bin")
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits CODE PROG ARGS... runs PROG, checks its exit code, and
			// that it took under 20 s (no fault may hang niro).
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE PROG [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: bad code %q", args[0])
				}
				start := time.Now()
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
				if d := time.Since(start); d > 20*time.Second {
					ts.Fatalf("took %v", d)
				}
			},
			// gone: every pid in $FAKE_PIDS has exited; the file is then
			// removed.
			"gone": func(ts *testscript.TestScript, neg bool, args []string) {
				file := ts.Getenv("FAKE_PIDS")
				pids, err := readPids(file)
				ts.Check(err)
				if len(pids) == 0 {
					ts.Fatalf("no pids in %s", file)
				}
				for _, p := range pids {
					if !processGone(p) {
						syscall.Kill(p, syscall.SIGKILL)
						ts.Fatalf("process %d outlived niro", p)
					}
				}
				ts.Check(os.Remove(file))
			},
			// empty DIR: DIR holds nothing (a temporary directory niro
			// must have cleaned).
			"empty": func(ts *testscript.TestScript, neg bool, args []string) {
				ents, err := os.ReadDir(ts.MkAbs(args[0]))
				ts.Check(err)
				var names []string
				for _, e := range ents {
					// A failing tool's full message is kept, on purpose,
					// in a file whose path niro printed.
					if m, _ := filepath.Match("niro-*-error-*.txt", e.Name()); !m {
						names = append(names, e.Name())
					}
				}
				if (len(names) == 0) == neg {
					ts.Fatalf("%s holds %v", args[0], names)
				}
			},
			// count N DIR GLOB: DIR has N entries matching GLOB.
			"count": func(ts *testscript.TestScript, neg bool, args []string) {
				m, err := filepath.Glob(filepath.Join(ts.MkAbs(args[1]), args[2]))
				ts.Check(err)
				if strconv.Itoa(len(m)) != args[0] {
					ts.Fatalf("%d entries match %s in %s (%v), want %s", len(m), args[2], args[1], m, args[0])
				}
			},
			// mkfifo PATH makes a FIFO.
			"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
			},
			// mkchardev PATH MAJOR MINOR makes a character device, or skips
			// the script where that is not allowed.
			"mkchardev": func(ts *testscript.TestScript, neg bool, args []string) {
				maj, _ := strconv.Atoi(args[1])
				mnr, _ := strconv.Atoi(args[2])
				if err := syscall.Mknod(ts.MkAbs(args[0]), syscall.S_IFCHR|0o666, maj<<8|mnr); err != nil {
					ts.Logf("cannot make a character device here: %v", err)
					ts.Fatalf("mkchardev needs root; guard the script with [root]")
				}
			},
			// chardev PATH: PATH is (still) a character device.
			"chardev": func(ts *testscript.TestScript, neg bool, args []string) {
				st, err := os.Lstat(ts.MkAbs(args[0]))
				ts.Check(err)
				if st.Mode()&os.ModeCharDevice == 0 {
					ts.Fatalf("%s is %v, not a character device", args[0], st.Mode())
				}
			},
			// maxsize N FILE: FILE (or stdout/stderr) is at most N bytes.
			"maxsize": func(ts *testscript.TestScript, neg bool, args []string) {
				n, _ := strconv.Atoi(args[0])
				data := ts.ReadFile(args[1])
				if len(data) > n {
					ts.Fatalf("%s is %d bytes, over %d", args[1], len(data), n)
				}
			},
			// permmodel FILE N writes an ONNX Transpose of a rank-1 input
			// with an N-entry perm.
			"permmodel": func(ts *testscript.TestScript, neg bool, args []string) {
				n, _ := strconv.Atoi(args[1])
				perm := make([]int64, n)
				for i := range perm {
					perm[i] = int64(i)
				}
				vi := func(name string) *onnxpb.ValueInfoProto {
					return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
						TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: &onnxpb.TensorShapeProto{
							Dim: []*onnxpb.TensorShapeProto_Dimension{{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 2}}}}}}}}
				}
				m := &onnxpb.ModelProto{IrVersion: proto.Int64(8),
					OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
					Graph: &onnxpb.GraphProto{Name: proto.String("g"),
						Node: []*onnxpb.NodeProto{{OpType: proto.String("Transpose"), Input: []string{"x"}, Output: []string{"y"},
							Attribute: []*onnxpb.AttributeProto{{Name: proto.String("perm"), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: perm}}}},
						Input:  []*onnxpb.ValueInfoProto{vi("x")},
						Output: []*onnxpb.ValueInfoProto{vi("y")}}}
				data, err := proto.Marshal(m)
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
			},
			// bignpy FILE RANK writes a one-element f32 .npy of rank RANK.
			"bignpy": func(ts *testscript.TestScript, neg bool, args []string) {
				rank, _ := strconv.Atoi(args[1])
				shape := "(" + strings.Repeat("1, ", rank) + ")"
				hdr := "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }"
				for (10+len(hdr)+1)%64 != 0 {
					hdr += " "
				}
				hdr += "\n"
				var b bytes.Buffer
				b.WriteString("\x93NUMPY\x02\x00")
				b.Write([]byte{byte(len(hdr)), byte(len(hdr) >> 8), byte(len(hdr) >> 16), byte(len(hdr) >> 24)})
				b.WriteString(hdr)
				b.Write([]byte{0, 0, 0x80, 0x3f})
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
			},
		},
	})
}

// TestSIGTERMStopsTools sends SIGTERM (and SIGINT) to a niro compile while
// its tool sleeps, and checks the exit code (143, 130), that no process the
// tool started survives, and that no temporary directory is left.
func TestSIGTERMStopsTools(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			work := t.TempDir()
			llvm, tmp := filepath.Join(work, "llvm"), filepath.Join(work, "tmp")
			pids := filepath.Join(work, "pids")
			if err := makeFakeLLVM(llvm); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			model := filepath.Join(work, "add.niro")
			if err := os.WriteFile(model, []byte(addNiro), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "compile", model, "--emit", "ll", "-o", filepath.Join(work, "add.ll"), "--llvm-prefix", llvm)
			cmd.Env = append(os.Environ(), asNiroEnv+"=1", "TMPDIR="+tmp, "FAKE_MLIR_OPT=hang", "FAKE_PIDS="+pids)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the tool and its child to be running.
			deadline := time.Now().Add(30 * time.Second)
			for {
				if p, _ := readPids(pids); len(p) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the fake tool never started; stderr:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("niro did not stop within 20 s of %v", tc.sig)
			}
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", got, tc.code, stderr.String())
			}
			ps, err := readPids(pids)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if !processGone(p) {
					syscall.Kill(p, syscall.SIGKILL)
					t.Errorf("tool process %d survived %v", p, tc.sig)
				}
			}
			ents, _ := os.ReadDir(tmp)
			for _, e := range ents {
				t.Errorf("left behind in TMPDIR: %s", e.Name())
			}
			if _, err := os.Stat(filepath.Join(work, "add.ll")); err == nil {
				t.Errorf("an output was written despite the signal")
			}
		})
	}
}

const addNiro = `func @add(tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>) {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3xf32>):
  %2 = add %0, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
`

// TestCapMessage checks the bound on printed messages.
func TestCapMessage(t *testing.T) {
	var perm []string
	for i := 0; i < 500_000; i++ {
		perm = append(perm, strconv.Itoa(i))
	}
	msg := capMessage("node t: perm [" + strings.Join(perm, ", ") + "] is not a permutation")
	want := "node t: perm [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … and 499,990 more] is not a permutation"
	if msg != want {
		t.Errorf("got %.200q\nwant %q", msg, want)
	}
	shape := "tensor<" + strings.Repeat("1x", 100_000) + "f32>"
	if got := capMessage("input a: got " + shape); len(got) > 200 || !strings.Contains(got, "and 99,990 more dimensions") {
		t.Errorf("shape not capped: %.300q", got)
	}
	if got := capMessage(strings.Repeat("é", 1<<20)); len(got) > maxMessageBytes+64 {
		t.Errorf("message of %d bytes not cut", len(got))
	}
}

// FuzzCapMessage checks that capMessage never panics, never makes a
// message longer than the bound, and keeps valid UTF-8 valid.
// fuzzcount: 10000
func FuzzCapMessage(f *testing.F) {
	f.Add("perm [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] of node t")
	f.Add("got tensor<1x1x1x1x1x1x1x1x1x1x1x1xf32>, want tensor<2x3xf32>")
	f.Add("bytes [9223372036854775807, -9223372036854775785)")
	f.Add("-1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12, 13,14,15x16x")
	f.Fuzz(func(t *testing.T, msg string) {
		got := capMessage(msg)
		if len(got) > max(len(msg), maxMessageBytes)+64 {
			t.Fatalf("capMessage made %d bytes of %d", len(got), len(msg))
		}
		if utf8.ValidString(msg) && !utf8.ValidString(got) {
			t.Fatalf("capMessage broke UTF-8: %q", got)
		}
	})
}
