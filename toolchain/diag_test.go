package toolchain

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/niro"
)

func TestParseLocation(t *testing.T) {
	for _, c := range []struct {
		loc  string
		want []NodeLoc
	}{
		{`loc("conv1"("conv"))`, []NodeLoc{{"conv1", "conv"}}},
		{`"conv1"("conv")`, []NodeLoc{{"conv1", "conv"}}},
		{`loc("conv1")`, []NodeLoc{{"conv1", ""}}},
		// mlir-opt prints a quote as \22 and a backslash as \\.
		{`loc("mm \221\22\\\C3\A9"("matmul"))`, []NodeLoc{{"mm \"1\"\\é", "matmul"}}},
		{`loc("a\"b\n")`, []NodeLoc{{"a\"b\n", ""}}},
		{`loc(fused["a"("add"), "b"("mul"), "a"("add")])`, []NodeLoc{{"a", "add"}, {"b", "mul"}}},
		{`loc(fused<"meta">["a"("add")])`, []NodeLoc{{"a", "add"}}},
		{`loc(fused<#foo<[1, 2]>>["x"("y"), "input.mlir":3:4])`, []NodeLoc{{"x", "y"}}},
		{`loc(callsite("a"("add") at "b"("call")))`, []NodeLoc{{"a", "add"}, {"b", "call"}}},
		{`loc(callsite("a"("add") at "f.mlir":3:4))`, []NodeLoc{{"a", "add"}}},
		{`loc("f.mlir":3:4)`, nil},
		{`loc("f.mlir":3:4 to 5:6)`, nil},
		{`loc(unknown)`, nil},
		{`loc("x"("f.mlir":1:2))`, []NodeLoc{{"x", ""}}},
		{`loc(fused["a"("add"), bogus])`, []NodeLoc{{"a", "add"}}},
		{`loc("unterminated`, nil},
	} {
		if got := ParseLocation(c.loc); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseLocation(%s) = %v, want %v", c.loc, got, c.want)
		}
	}
}

// stderrOf is what mlir-opt 22 writes for an op that fails to vectorize,
// located as package emit locates it, and a later note and error.
const stderrOf = `<unknown>:0: error: loc("mm \221\22\\\C3\A9"("matmul")): Attempted to vectorize, but failed
<unknown>:0: note: loc("mm \221\22\\\C3\A9"("matmul")): see current operation: %3 = "linalg.generic"(%arg0) ({
^bb0(%in: f32):
  "linalg.yield"(%in) : (f32) -> ()
}) : (tensor<2xf32>) -> tensor<2xf32>
schedule-x.mlir:4:5: error: transform failed
`

func TestParseDiagnostics(t *testing.T) {
	ds := ParseDiagnostics(stderrOf)
	want := []Diagnostic{
		{Where: "<unknown>:0", Severity: "error", Loc: `loc("mm \221\22\\\C3\A9"("matmul"))`, Message: "Attempted to vectorize, but failed", Nodes: []NodeLoc{{"mm \"1\"\\é", "matmul"}}},
		{Where: "<unknown>:0", Severity: "note", Loc: `loc("mm \221\22\\\C3\A9"("matmul"))`, Message: `see current operation: %3 = "linalg.generic"(%arg0) ({`, Nodes: []NodeLoc{{"mm \"1\"\\é", "matmul"}}},
		{Where: "schedule-x.mlir:4:5", Severity: "error", Message: "transform failed"},
	}
	if !reflect.DeepEqual(ds, want) {
		t.Errorf("ParseDiagnostics =\n%#v\nwant\n%#v", ds, want)
	}
}

func TestToolErrorMessageNamesNode(t *testing.T) {
	// A cause other than the exit status stays (the live tests below see
	// the exit status left out).
	e := &ToolError{Stage: "lower", Tool: MLIROpt, Stderr: stderrOf, Err: errors.New("timed out after 1s")}
	first, rest, _ := strings.Cut(e.Error(), "\n")
	if want := `lower: node "mm \"1\"\\é" (matmul): mlir-opt: error: Attempted to vectorize, but failed (timed out after 1s)`; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	if rest != strings.TrimSpace(stderrOf) {
		t.Errorf("the tool's standard error does not follow whole:\n%s", rest)
	}
	fused := `<unknown>:0: error: loc(fused["a"("add"), "b"("mul"), "c"("sub"), "d"("exp"), "e"("max")]): failed to legalize`
	e = &ToolError{Stage: "lower", Tool: MLIROpt, Stderr: fused}
	if got, want := strings.SplitN(e.Error(), "\n", 2)[0], `lower: node "a" (add), node "b" (mul), node "c" (sub), and 2 more: mlir-opt: error: failed to legalize`; got != want {
		t.Errorf("fused: %q, want %q", got, want)
	}
	// No node: the message is as before.
	e = &ToolError{Stage: "lower", Tool: MLIROpt, Stderr: "input.mlir:3:5: error: oops", Err: errors.New("exit status 1")}
	if got, want := e.Error(), "lower: mlir-opt: exit status 1\ninput.mlir:3:5: error: oops"; got != want {
		t.Errorf("without a node: %q, want %q", got, want)
	}
}

// failSchedule is a test-only schedule that fails on the contraction
// generic package emit tags niro.contraction: vectorizing it to one
// vector size for three loops fails, at the op's location.
var failSchedule = Schedule{Name: "test-fail-contraction", Library: "test-fail", EntryPoint: "fail", Text: `
module attributes {transform.with_named_sequence} {
  transform.named_sequence @fail(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} attributes {niro.contraction} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [2] : !transform.any_op
    transform.yield
  }
}
`}

// TestToolErrorNamesNodeOfEmittedOp lowers what package emit writes for a
// small model with a pipeline that first fuses the element-wise ops (the
// Add into the Mul) and then fails on the MatMul: mlir-opt's error names
// the node, and so does the ToolError.
func TestToolErrorNamesNodeOfEmittedOp(t *testing.T) {
	tc := needTools(t)
	m, err := niro.Parse("model.niro", []byte(`func @main(tensor<2x3xf32>, tensor<3x4xf32>) -> (tensor<2x4xf32>) {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>):
  %2 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("/l.0/MatMul \"q\"\\é")
  %3 = add %2, %2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("post")
  %4 = mul %3, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("post2")
  return %4 : tensor<2x4xf32>
}
`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Prepare(m, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schedules[failSchedule.Name] = failSchedule
	defer delete(schedules, failSchedule.Name)
	p := Pipeline{Name: "test", Steps: []Step{{Pass: "linalg-fuse-elementwise-ops"}, {Pass: "canonicalize"}, {Schedule: failSchedule.Name}}}
	strict := *tc
	strict.StrictSchedule = true // the failure itself, not the fallback's recompile
	_, err = strict.LowerFrom(context.Background(), out.WriteMLIR, p)
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *ToolError", err)
	}
	first, _, _ := strings.Cut(te.Error(), "\n")
	if want := `lower: node "/l.0/MatMul \"q\"\\é" (matmul): mlir-opt: error: Attempted to vectorize, but failed (`; !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want %q\nfull:\n%s", first, want, te.Error())
	}
}

// TestToolErrorNamesNodeOfInputLine: a diagnostic at a line of the input
// file (a parse error) names that line's node, read from the file's
// location aliases before the stage removes it; forms the transforms
// make (fused, callsite) name their nodes.
func TestToolErrorNamesNodeOfInputLine(t *testing.T) {
	tc := needTools(t)
	p := Pipeline{Name: "test", Steps: []Step{{Pass: "canonicalize"}}}
	for _, c := range []struct{ mlir, want string }{
		{`module {
  func.func @f(%a: f32) -> f32 {
    %0 = arith.bogus %a : f32 loc(#loc1)
    func.return %0 : f32
  }
}
#loc0 = loc("other"("add"))
#loc1 = loc("n\22\C3\A9"("neg"))
`, `lower: node "n\"é" (neg): mlir-opt: error: custom op 'arith.bogus' is unknown`},
		{`module {
  func.func @f(%a: i32) -> i32 {
    %0 = arith.addf %a, %a : i32 loc(fused["x"("add"), "y"("mul")])
    func.return %0 : i32
  }
}
`, `lower: node "x" (add), node "y" (mul): mlir-opt: error: 'arith.addf' op operand #0 must be floating-point-like, but got 'i32'`},
		{`module {
  func.func @f(%a: i32) -> i32 {
    %0 = arith.addf %a, %a : i32 loc(callsite("inner"("add") at "outer"("call")))
    func.return %0 : i32
  }
}
`, `lower: node "inner" (add), node "outer" (call): mlir-opt: error: 'arith.addf' op operand #0 must be floating-point-like, but got 'i32'`},
	} {
		_, err := tc.LowerFrom(context.Background(), func(w io.Writer) error {
			_, err := io.WriteString(w, c.mlir)
			return err
		}, p)
		var te *ToolError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a *ToolError", err)
		}
		if first, _, _ := strings.Cut(te.Error(), "\n"); first != c.want {
			t.Errorf("first line %q, want %q\nfull:\n%s", first, c.want, te.Error())
		}
	}
}

// TestLineLocs reads the nodes of emitted text's lines: op lines through
// their aliases, and the first line of a region op (a tagged generic, an
// scf.if), which carries no location, through the line that closes it.
func TestLineLocs(t *testing.T) {
	m, err := niro.Parse("model.niro", []byte(`func @main(tensor<2x3xf32>, tensor<3x4xf32>, i1) -> (tensor<2x4xf32>) {
^bb0(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>, %2: i1):
  %3 = matmul %0, %1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("mm\"é")
  %4 = if %2 : i1 -> (tensor<2x4xf32>) {
    %5 = sub %3, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("if/sub")
    yield %5 : tensor<2x4xf32> loc("if")
  } else {
    yield %3 : tensor<2x4xf32> loc("if")
  } loc("if")
  return %4 : tensor<2x4xf32>
}
`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := emit.Module(m, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	locs, err := LineLocs(strings.NewReader(out.MLIR))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]NodeLoc{
		"attrs = {niro.contraction}":       {"mm\"é", "matmul"},
		"tensor.empty() : tensor<2x4xf32>": {"mm\"é", "matmul"},
		"= scf.if":                         {"if", "if"},
		"arith.subf":                       {"if/sub", "sub"},
		"scf.yield":                        {"if", "yield"},
		"} else {":                         {},
		"func.func":                        {},
	}
	for i, l := range strings.Split(out.MLIR, "\n") {
		for frag, w := range want {
			if !strings.Contains(l, frag) {
				continue
			}
			got := locs[i+1]
			if w == (NodeLoc{}) {
				if got != nil {
					t.Errorf("line %d %q: %v, want none", i+1, l, got)
				}
			} else if len(got) != 1 || got[0] != w {
				t.Errorf("line %d %q: %v, want %v", i+1, l, got, w)
			}
			delete(want, frag)
		}
	}
	for frag := range want {
		t.Errorf("no line holds %q:\n%s", frag, out.MLIR)
	}
}
