package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestMissingArgumentNamed: a command run without a required argument
// exits 2 and names each one it lacks, not only the first it checked.
func TestMissingArgumentNamed(t *testing.T) {
	tests := []struct {
		args []string
		want string // the first line on stderr
	}{
		{[]string{"index", "build"}, "guard index build: --corpus (or --demo) and --out are required"},
		{[]string{"index", "build", "--corpus", "docs.jsonl"}, "guard index build: --out is required"},
		{[]string{"bench", "answers"}, "guard bench answers: --target, --questions and --out are required"},
		{[]string{"bench", "answers", "--target", "http://127.0.0.1:1/v1"}, "guard bench answers: --questions and --out are required"},
		{[]string{"bench", "answers", "--target", "http://127.0.0.1:1/v1", "--questions", "q.jsonl"}, "guard bench answers: --out is required"},
		{[]string{"gaps", "resolve"}, "guard gaps resolve: want one entry id (the id column of guard gaps), got none"},
		{[]string{"gaps", "dismiss", "a", "b"}, `guard gaps dismiss: want one entry id (the id column of guard gaps), got "a" "b"`},
		{[]string{"config", "check"}, "guard config check: --config is required"},
		{[]string{"index", "add"}, "guard index add: --index, --out and at least one --corpus, --memory or --delete are required"},
		{[]string{"index", "add", "--index", "snap", "--corpus", "docs.jsonl"}, "guard index add: --out is required"},
		{[]string{"judge", "--pairwise", "--a", "a.jsonl"}, "guard judge: --pairwise needs --b (the answers of configuration B)"},
		{[]string{"judge", "--pairwise", "--b", "b.jsonl"}, "guard judge: --pairwise needs --a (the answers of configuration A)"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		first, _, _ := strings.Cut(errb.String(), "\n")
		if code != 2 || first != tc.want {
			t.Errorf("guard %s: exit %d, first stderr line %q; want 2 and %q", strings.Join(tc.args, " "), code, first, tc.want)
		}
	}
}
