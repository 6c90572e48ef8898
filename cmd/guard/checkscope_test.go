package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// issue 29: guard check on an answer grounded on one short FAQ note (well
// under verify.min_context_chars) whose one sentence widens the note's
// condition fails with --fail-on high (an alias of critical); the faithful
// answer passes.
func TestCheckWidenedConditionFailOnHigh(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "faq.jsonl")
	const faq = `{"id":"faq-sauna","title":"Spa FAQ: who may use the sauna?","kind":"faq","text":"The sauna is open to guests aged 18 and over, every day from 14:00 to 22:00."}
{"id":"faq-parking","title":"Spa FAQ: parking","kind":"faq","text":"Parking is free for the first 3 hours; after that it costs 2 euros an hour."}
`
	if err := os.WriteFile(corpus, []byte(faq), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snap")
	if code, out, errOut := runCLI(t, "index", "build", "--corpus", corpus, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	for _, tt := range []struct {
		name, answer string
		code         int
	}{
		{"widened", "# Spa visit\n\nThe car park is free all day.[^1]\n\n[^1]: faq-parking\n", 1},
		{"widened age", "# Spa visit\n\nThe sauna is open to everyone aged 12 and over.[^1]\n\n[^1]: faq-sauna\n", 1},
		{"faithful", "# Spa visit\n\nYou can park for free for the first three hours.[^1]\n\n[^1]: faq-parking\n", 0},
	} {
		md := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".md")
		if err := os.WriteFile(md, []byte(tt.answer), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "check", "--index", snap, "--fail-on", "high", "--no-uncited", md)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, code, tt.code, out, errOut)
		}
	}
	if code, _, _ := runCLI(t, "check", "--index", snap, "--fail-on", "severe", filepath.Join(dir, "faithful.md")); code != 2 {
		t.Errorf("--fail-on severe: exit %d, want 2 (usage)", code)
	}
}
