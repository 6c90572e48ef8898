package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench quality --planner: a config without a remote planner, or without
// the upstream that base_url: upstream needs, is refused with a message
// that says what to set, before any suite runs.
func TestBenchQualityPlannerErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	local := write("local.yaml", "gate:\n    planner:\n        mode: local\n")
	noUp := write("noup.yaml", "gate:\n    planner:\n        mode: remote\n        base_url: upstream\n        model: mock-1\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--gate", "--planner", "remote"}, 2, "needs --config FILE"},
		{[]string{"--gate", "--planner", "remote", "--config", local}, 1, "has no remote planner"},
		{[]string{"--gate", "--planner", "remote", "--config", noUp}, 1, "upstream.base_url is empty"},
		{[]string{"--gate", "--planner", "oracle"}, 2, "want remote or simulated"},
		{[]string{"--planner", "simulated"}, 2, "--planner needs --gate"},
		{[]string{"--gate", "--planner", "simulated", "--planner-concurrency", "0"}, 2, "--planner-concurrency must be >= 1"},
		{[]string{"--gate", "--cross-sample", "-4"}, 2, "--cross-sample -4: want 0 (all) or more"},
	} {
		args := append([]string{"bench", "quality", "--out", filepath.Join(dir, "out")}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, firstLine(stderr), c.code, c.want)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
