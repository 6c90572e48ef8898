package main

import (
	"regexp"
	"strings"
	"testing"
)

// guard --version names the version, the commit (or why there is none),
// the Go version and a sha256 for each of the six embedded model files.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, errOut := runCLI(t, arg)
		if code != 0 || errOut != "" {
			t.Fatalf("guard %s: exit %d, stderr %q", arg, code, errOut)
		}
		for _, want := range []string{"guard ", "\ncommit   ", "\ngo       go1.", "answerability", "verifier", "USE-lite", "GloVe", "coherence background"} {
			if !strings.Contains(out, want) {
				t.Errorf("guard %s: output lacks %q:\n%s", arg, want, out)
			}
		}
		if n := len(regexp.MustCompile(`(?m)^  [0-9a-f]{64}  `).FindAllString(out, -1)); n != 6 {
			t.Errorf("guard %s: %d model checksums, want 6:\n%s", arg, n, out)
		}
	}
}

// The top-level help names every command and subcommand an operator
// needs, so none has to be found by reading the source.
func TestTopLevelHelpIsComplete(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"serve", "index", "build|add|query|calibrate|chunks|audit", "bench", "load|quality|chaos|answers",
		"config check", "judge", "--pairwise", "gaps", "check", "mockllm", "--version"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}
