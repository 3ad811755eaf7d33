package niro_test

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// docBlock is a fenced code block of docs/ir-text.md.
type docBlock struct {
	info string // the fence's info string: niro, niro-invalid, diagnostics…
	line int    // line of the opening fence
	text string
}

func docBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	return blocks
}

// TestDocExamples checks docs/ir-text.md: every niro block is a valid
// module in printed form, every niro-invalid block gets exactly the
// diagnostics of the diagnostics block after it, and the examples show
// every op kind.
func TestDocExamples(t *testing.T) {
	const path = "../docs/ir-text.md"
	blocks := docBlocks(t, path)
	seen := map[string]bool{}
	valid := 0
	for i, b := range blocks {
		switch b.info {
		case "niro":
			valid++
			m, err := niro.Parse("doc.niro", []byte(b.text))
			if err != nil {
				t.Errorf("%s:%d: %v", path, b.line, err)
				continue
			}
			if err := niro.Verify(m); err != nil {
				t.Errorf("%s:%d: example does not verify:\n%v", path, b.line, err)
			}
			if diff := cmp.Diff(b.text, m.String()); diff != "" {
				t.Errorf("%s:%d: example is not in printed form (-doc +printed):\n%s", path, b.line, diff)
			}
			for _, f := range m.Functions {
				f.Body.Walk(func(op niro.Op) bool {
					seen[opTypeName(op)] = true
					return true
				})
			}
		case "niro-invalid":
			if i+1 >= len(blocks) || blocks[i+1].info != "diagnostics" {
				t.Errorf("%s:%d: a niro-invalid block is followed by a diagnostics block", path, b.line)
				continue
			}
			m, err := niro.Parse("doc.niro", []byte(b.text))
			if err != nil {
				t.Errorf("%s:%d: %v", path, b.line, err)
				continue
			}
			if diff := cmp.Diff(blocks[i+1].text, verifyText(t, m)); diff != "" {
				t.Errorf("%s:%d: diagnostics mismatch (-doc +got):\n%s", path, b.line, diff)
			}
		}
	}
	if valid == 0 {
		t.Fatalf("%s: no niro examples found", path)
	}
	for _, kind := range niro.OpKinds() {
		if !seen[opTypeName(kind)] {
			t.Errorf("%s: no example shows %s", path, opTypeName(kind))
		}
	}
}
