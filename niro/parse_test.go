package niro_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/niro-dev/niro/niro"
)

// TestParse runs the txtar cases of testdata/niro/parse. A case with a
// want.err section must fail to parse with exactly that file:line:col
// error; a case with a want.niro section must parse and print as that
// text (and round-trip). With -update the sections are rewritten from the
// parser's answer.
func TestParse(t *testing.T) {
	for _, c := range loadCases(t, "parse") {
		t.Run(c.name, func(t *testing.T) {
			m, err := niro.Parse("in.niro", c.mustSection(t, "in.niro"))
			var gotErr, gotNiro string
			if err != nil {
				gotErr = err.Error() + "\n"
				var pe *niro.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("Parse returned %T, want *niro.ParseError: %v", err, err)
				}
				if prefix := fmt.Sprintf("in.niro:%d:%d: ", pe.Line, pe.Col); !strings.HasPrefix(gotErr, prefix) || pe.File != "in.niro" {
					t.Errorf("ParseError fields %+v do not match its text %q", pe, gotErr)
				}
			} else {
				gotNiro = m.String()
				checkRoundTrip(t, m)
			}
			if *update {
				c.setSection(t, "want.err", withNewline(gotErr))
				c.setSection(t, "want.niro", withNewline(gotNiro))
			}
			wantErr, hasErr := c.section("want.err")
			wantNiro, hasNiro := c.section("want.niro")
			if hasErr == hasNiro {
				t.Fatalf("%s: a parse case has exactly one of want.err and want.niro", c.path)
			}
			if diff := cmp.Diff(string(wantErr), gotErr); diff != "" {
				t.Errorf("%s: parse error mismatch (-want +got):\n%s", c.path, diff)
			}
			if diff := cmp.Diff(string(wantNiro), gotNiro); diff != "" {
				t.Errorf("%s: printed form mismatch (-want +got):\n%s", c.path, diff)
			}
		})
	}
}
