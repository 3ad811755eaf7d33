package emit

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/niro-dev/niro/niro"
)

// eachOp calls fn on every op of m, nested regions included, in walk
// order, with the index of its function in m.Functions.
func eachOp(m *niro.Module, fn func(int, niro.Op)) {
	fi := 0
	var region func(r *niro.Region)
	region = func(r *niro.Region) {
		if r == nil {
			return
		}
		for _, b := range r.Blocks {
			if b == nil {
				continue
			}
			for _, op := range b.Ops {
				if op == nil {
					continue
				}
				fn(fi, op)
				for _, sub := range op.Regions() {
					region(sub)
				}
			}
		}
	}
	for i, f := range m.Functions {
		if f != nil {
			fi = i
			region(f.Body)
		}
	}
}

var (
	locRefRE   = regexp.MustCompile(` loc\((#loc\d+)\)$`)
	locAliasRE = regexp.MustCompile(`^(#loc\d+) = loc\((.*)\)$`)
	niroDefRE  = regexp.MustCompile(`^\s*(%\d+(?:, %\d+)*) = `)
	indexCstRE = regexp.MustCompile(`^    %c\d+ = arith\.constant -?\d+ : index$`)
)

// splitLocs splits emitted text into its lines without their location
// suffix, the alias each line refers to ("" for none), and the aliases'
// definitions.
func splitLocs(t *testing.T, text string) (lines, refs []string, aliases map[string]string) {
	t.Helper()
	aliases = map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if m := locAliasRE.FindStringSubmatch(l); m != nil {
			if _, dup := aliases[m[1]]; dup {
				t.Errorf("alias %s defined twice", m[1])
			}
			aliases[m[1]] = m[2]
			continue
		}
		ref := ""
		if m := locRefRE.FindStringSubmatchIndex(l); m != nil {
			ref = l[m[2]:m[3]]
			l = l[:m[0]]
		}
		lines, refs = append(lines, l), append(refs, ref)
	}
	return lines, refs, aliases
}

// isOpLine reports whether a line of a function body ends an MLIR op
// that lowering a Niro op writes: not a block label, not a line that
// opens a region, not a hoisted index constant, not the function's
// signature or closing brace.
func isOpLine(l string) bool {
	switch {
	case strings.HasPrefix(l, "  func.func"), l == "  }", l == "module {", l == "}",
		strings.HasPrefix(l, "  memref.global"), indexCstRE.MatchString(l):
		return false
	}
	return !strings.HasSuffix(l, "{") && !strings.HasSuffix(l, ":")
}

// TestLocations checks, for every golden module, that the locations are
// added to the text and change nothing else, and that every op line is
// attributed to the Niro op that wrote it: with only op X located, the
// located lines are exactly X's; over all ops, every op line is located
// exactly once. The node names hold a quote, a backslash and non-ASCII
// bytes, escaped as MLIR strings.
func TestLocations(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var src string
		hasMLIR, hasOptions := false, false
		for _, f := range ar.Files {
			switch f.Name {
			case "in.niro":
				src = string(f.Data)
			case "want.mlir":
				hasMLIR = true
			case "options":
				hasOptions = true // TestGolden covers the other inline limits
			}
		}
		if !hasMLIR || hasOptions {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			m, err := niro.Parse(file, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var ops []niro.Op
			var opFunc []int
			eachOp(m, func(fi int, op niro.Op) {
				op.SetLocation("")
				ops = append(ops, op)
				opFunc = append(opFunc, fi)
			})
			plain, err := Module(m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantLines, _, _ := splitLocs(t, plain.MLIR)
			owner := make([]int, len(wantLines)) // op index + 1 that located each line
			for i, op := range ops {
				node := fmt.Sprintf("n%d \"%s\"\\é", i, op.Name())
				op.SetLocation(node)
				out, err := Module(m, Options{})
				op.SetLocation("")
				if err != nil {
					t.Fatal(err)
				}
				lines, refs, aliases := splitLocs(t, out.MLIR)
				if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
					t.Fatalf("op %d (%s): the text without locations differs from the text of the unlocated module:\n%s", i, op.Name(), out.MLIR)
				}
				spelled := locSpelling(node, op.Name())
				if want := `"n` + fmt.Sprint(i) + ` \22` + op.Name() + `\22\5C\C3\A9"("` + op.Name() + `")`; spelled != want {
					t.Fatalf("location spelled %s, want %s", spelled, want)
				}
				for _, body := range aliases {
					if body != spelled {
						t.Errorf("op %d (%s): alias %s, want %s", i, op.Name(), body, spelled)
					}
				}
				for j, r := range refs {
					if r == "" {
						continue
					}
					if _, ok := aliases[r]; !ok {
						t.Errorf("line %d refers to undefined %s", j+1, r)
					}
					if !isOpLine(lines[j]) {
						t.Errorf("op %d (%s): a location on a line that ends no op: %q", i, op.Name(), lines[j])
					}
					if owner[j] != 0 {
						t.Errorf("line %d located by op %d and op %d: %q", j+1, owner[j]-1, i, lines[j])
					}
					owner[j] = i + 1
				}
			}
			// A line defining a Niro value (%N), or the line that closes
			// the region op it opens, is the defining op's.
			type fnValue struct {
				fn int
				v  string
			}
			def := map[fnValue]int{}
			for i, op := range ops {
				for _, r := range op.Results() {
					def[fnValue{opFunc[i], name(r)}] = i + 1
				}
			}
			fn := -1
			for j, l := range wantLines {
				if strings.HasPrefix(l, "  func.func") {
					fn++
				}
				m := niroDefRE.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				end := j
				if strings.HasSuffix(l, "{") {
					indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
					for end = j + 1; end < len(wantLines); end++ {
						e := wantLines[end]
						if strings.HasPrefix(e, indent+"}") && !strings.HasSuffix(e, "{") {
							break
						}
					}
				}
				for _, v := range strings.Split(m[1], ", ") {
					if d, ok := def[fnValue{fn, v}]; ok && end < len(owner) && owner[end] != d {
						t.Errorf("line %d (%q), which ends the op defining %s, is located by op %d, not op %d", end+1, wantLines[end], v, owner[end]-1, d-1)
					}
				}
			}
			// Only the prologue (the unpacking of packed or empty inputs,
			// before the body's first op) belongs to no op.
			inBody := false
			for j, l := range wantLines {
				switch {
				case strings.HasPrefix(l, "  func.func"):
					inBody = false
				case owner[j] != 0:
					inBody = true
				case isOpLine(l) && inBody:
					t.Errorf("line %d is located by no op: %q", j+1, l)
				}
			}
		})
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d golden modules checked", checked)
	}
}
