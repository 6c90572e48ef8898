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
		// One finding is counted in words (it said "1 finding(s)").
		if tt.code == 1 && !strings.Contains(errOut, "1 finding at or above high") {
			t.Errorf("%s: stderr %q, want it to say 1 finding at or above high", tt.name, errOut)
		}
	}
	if code, _, _ := runCLI(t, "check", "--index", snap, "--fail-on", "severe", filepath.Join(dir, "faithful.md")); code != 2 {
		t.Errorf("--fail-on severe: exit %d, want 2 (usage)", code)
	}
}

// A citation of a document held in another KB (or tenant) of the snapshot
// names where it is and the flags that check against it (it said only
// "names no corpus document: LL-101"); one held nowhere keeps the old
// message.
func TestCheckCitationInAnotherKB(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	const rows = `{"id":"del-1","text":"UK delivery costs 4.95 pounds and is free over 75 pounds."}
{"id":"LL-101","kb":"shop","text":"The Orla brass desk lamp is 42 cm tall and takes one E14 bulb, not included."}
{"id":"r-9","tenant":"rail","text":"Lost property is kept for 30 days at Ashcombe Junction."}
`
	if err := os.WriteFile(corpus, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snap")
	if code, out, errOut := runCLI(t, "index", "build", "--corpus", corpus, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	md := filepath.Join(dir, "answer.md")
	const answer = "# Lamp\n\nThe Orla lamp is 42 cm tall.[^1] Lost property is kept for 30 days.[^2] Returns are free.[^3]\n\n" +
		"[^1]: LL-101\n[^2]: r-9\n[^3]: ret-7\n"
	if err := os.WriteFile(md, []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "check", "--index", snap, "--no-uncited", md)
	if code != 1 {
		t.Fatalf("check: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		`citation [^1] names no document of tenant "default", KB "default": "LL-101" is in tenant "default", KB "shop" (check with --kb shop)`,
		`citation [^2] names no document of tenant "default", KB "default": "r-9" is in tenant "rail", KB "default" (check with --tenant rail --kb default)`,
		`citation [^3] names no corpus document: "ret-7"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, out, errOut := runCLI(t, "check", "--index", snap, "--kb", "shop", "--no-uncited", md); !strings.Contains(out, `"r-9" is in tenant "rail"`) || strings.Contains(out, "[^1] names no") {
		t.Errorf("--kb shop: exit %d\n%s%s", code, out, errOut)
	}
}
