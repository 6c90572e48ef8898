package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitCodes runs every command in-process for the three outcomes the
// CLI promises: --help prints usage on stdout and exits 0, a usage error
// (unknown flag, bad value, missing argument) prints on stderr and exits 2,
// and a runtime failure exits 1 (check keeps its documented 2 for an
// unreadable config, since its 1 means "findings at or above --fail-on").
func TestExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.yaml")
	out := filepath.Join(t.TempDir(), "out")
	tests := []struct {
		args       []string
		want       int
		wantStdout bool // usage or output expected on stdout, nothing on stderr
	}{
		{[]string{"--help"}, 0, true},
		{nil, 2, false},
		{[]string{"nosuch"}, 2, false},

		{[]string{"serve", "--help"}, 0, true},
		{[]string{"serve", "--bogus"}, 2, false},
		{[]string{"serve", "stray"}, 2, false},
		{[]string{"serve", "--config", missing}, 1, false},

		{[]string{"index", "--help"}, 0, true},
		{[]string{"index"}, 2, false},
		{[]string{"index", "nosuch"}, 2, false},
		{[]string{"index", "build", "--help"}, 0, true},
		{[]string{"index", "build", "--bogus"}, 2, false},
		{[]string{"index", "build", "--out", out}, 2, false},
		{[]string{"index", "build", "--corpus", missing, "--out", out}, 1, false},
		{[]string{"index", "add", "--help"}, 0, true},
		{[]string{"index", "add", "--strict=maybe"}, 2, false},
		{[]string{"index", "query", "--help"}, 0, true},
		{[]string{"index", "query", "--k", "many", "q"}, 2, false},
		{[]string{"index", "query", "--index", missing, "question"}, 1, false},
		{[]string{"index", "calibrate", "--help"}, 0, true},
		{[]string{"index", "calibrate", "--questions", "0", "--index", out}, 2, false},
		{[]string{"index", "calibrate"}, 2, false},
		{[]string{"index", "calibrate", "--index", missing}, 1, false},
		{[]string{"index", "audit", "--help"}, 0, true},
		{[]string{"index", "audit", "--bogus"}, 2, false},
		{[]string{"index", "audit"}, 2, false},
		{[]string{"index", "audit", "--index", out, "--fail-on", "low"}, 2, false},
		{[]string{"index", "audit", "--index", missing}, 1, false},

		{[]string{"bench", "--help"}, 0, true},
		{[]string{"bench"}, 2, false},
		{[]string{"bench", "nosuch"}, 2, false},
		{[]string{"bench", "load", "--help"}, 0, true},
		{[]string{"bench", "load", "--rate", "fast"}, 2, false},
		{[]string{"bench", "load"}, 2, false},
		{[]string{"bench", "load", "--config", missing, "--self"}, 1, false},
		{[]string{"bench", "load", "--self", "--target", "http://127.0.0.1:1/v1"}, 2, false},
		{[]string{"bench", "quality", "--help"}, 0, true},
		{[]string{"bench", "quality", "--bogus"}, 2, false},
		{[]string{"bench", "chaos", "--help"}, 0, true},
		{[]string{"bench", "chaos", "--bogus"}, 2, false},
		{[]string{"bench", "chaos", "--only", "nosuch"}, 1, false},

		{[]string{"check", "--help"}, 0, true},
		{[]string{"check", "--bogus"}, 2, false},
		{[]string{"check"}, 2, false},
		{[]string{"check", "--config", missing, "a.md"}, 2, false},

		{[]string{"judge", "--help"}, 0, true},
		{[]string{"judge", "--bogus"}, 2, false},
		{[]string{"judge"}, 2, false},
		{[]string{"judge", "--pairs", missing}, 1, false},
		{[]string{"judge", "--pairwise"}, 2, false},
		{[]string{"judge", "--pairwise", "--a", missing, "--b", missing}, 1, false},
		{[]string{"bench", "answers", "--help"}, 0, true},
		{[]string{"bench", "answers", "--bogus"}, 2, false},
		{[]string{"bench", "answers"}, 2, false},
		{[]string{"bench", "answers", "--target", "http://127.0.0.1:1/v1", "--questions", missing, "--out", out}, 1, false},

		{[]string{"gaps", "--help"}, 0, true},
		{[]string{"gaps", "--bogus"}, 2, false},
		{[]string{"gaps", "stray"}, 2, false},
		{[]string{"gaps", "--addr", "127.0.0.1:1"}, 1, false},
		{[]string{"gaps", "resolve", "--help"}, 0, true},
		{[]string{"gaps", "resolve"}, 2, false},
		{[]string{"gaps", "dismiss", "--bogus"}, 2, false},
		{[]string{"gaps", "dismiss", "x", "--addr", "127.0.0.1:1"}, 1, false},

		{[]string{"config", "--help"}, 0, true},
		{[]string{"config"}, 2, false},
		{[]string{"config", "check", "--help"}, 0, true},
		{[]string{"config", "check", "--bogus"}, 2, false},
		{[]string{"config", "check"}, 2, false},

		{[]string{"mockllm", "--help"}, 0, true},
		{[]string{"mockllm", "--pace", "soon"}, 2, false},
		{[]string{"mockllm", "--faults", "bogus=1"}, 2, false},
		{[]string{"mockllm", "--config", missing}, 1, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(tt.args, &stdout, &stderr)
			if got != tt.want {
				t.Fatalf("guard %v: exit %d, want %d\nstdout: %s\nstderr: %s", tt.args, got, tt.want, stdout.String(), stderr.String())
			}
			if tt.wantStdout {
				// the usage opens with the command line it takes, not the
				// flag package's bare "Usage of NAME:"
				if u := stdout.String(); !strings.HasPrefix(u, "usage:") || !strings.Contains(u, "guard ") {
					t.Errorf("guard %v: stdout %q, want the usage with the command line", tt.args, u)
				}
				if stderr.Len() != 0 {
					t.Errorf("guard %v: stderr %q, want nothing", tt.args, stderr.String())
				}
			} else if stderr.Len() == 0 {
				t.Errorf("guard %v: nothing on stderr, want the problem", tt.args)
			}
		})
	}
}
