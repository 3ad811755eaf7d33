package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// readStatistical parses testdata/conformance/statistical.txt: the
// conformance tests whose outputs are random draws, each with the check
// mode (niro test --check) that replaces the element-wise comparison.
//
//	SUITE/TEST CHECK # reason
func readStatistical(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		body, comment, _ := strings.Cut(line, "#")
		f := strings.Fields(body)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || strings.TrimSpace(comment) == "" {
			return nil, fmt.Errorf("%s:%d: want SUITE/TEST CHECK # reason", path, i+1)
		}
		switch f[1] {
		case "bernoulli", "bernoulli-complement", "dropout":
		default:
			return nil, fmt.Errorf("%s:%d: unknown check %q", path, i+1, f[1])
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, i+1, f[0])
		}
		out[f[0]] = f[1]
	}
	return out, nil
}

// TestReadStatistical checks the list of statistically checked tests
// parses, and that the parser rejects malformed lines.
func TestReadStatistical(t *testing.T) {
	got, err := readStatistical("testdata/conformance/statistical.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got["node/test_bernoulli"] != "bernoulli" || got["node/test_bernoulli_expanded"] != "bernoulli-complement" {
		t.Errorf("statistical.txt: got %v", got)
	}
	dir := t.TempDir()
	for _, bad := range []string{"node/test_a bernoulli\n", "node/test_a # r\n", "node/test_a gauss # r\n", "node/test_a bernoulli # r\nnode/test_a bernoulli # r\n"} {
		p := dir + "/s.txt"
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readStatistical(p); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
