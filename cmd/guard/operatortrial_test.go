package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/answer-guard/guard/index"
	"testing"
)

// writeHelpCentre writes a small help centre as an operator would keep it: a
// folder of Markdown files, one with front matter, one saved with a
// byte-order mark, and a JSONL file of untitled rows for a second KB.
func writeHelpCentre(t *testing.T) (dir, faq string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"help/billing/refunds.md": "# Refunds\n\nPaid on the website? Ask for a full refund within 14 days of the charge.",
		"help/sharing/links.md":   "---\ntitle: Share links\nupdated: 2026-10-02\n---\n# Share links\n\nA share link can expire after 1, 7 or 30 days; Pro members can add a password.",
		"help/sharing/faces.md":   "\ufeff# Face grouping\n\nFace grouping is off until you turn it on in Settings > Privacy.",
		"faq.jsonl":               `{"id":"faq-6","text":"Gift cards are valid for 2 years.","kb":"faq"}` + "\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "help"), filepath.Join(dir, "faq.jsonl")
}

// TestIndexQueryUnknownPartition: a --tenant or --kb the snapshot lacks (a
// typo) is an error naming the partitions it has, not an empty result.
func TestIndexQueryUnknownPartition(t *testing.T) {
	help, faq := writeHelpCentre(t)
	snap := filepath.Join(t.TempDir(), "snap")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", help, "--corpus", faq, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "index", "query", "--index", snap, "--kb", "faqs", "gift card")
	want := `has no partition tenant "default", kb "faqs"; it has: --tenant default --kb default; --tenant default --kb faq`
	if code != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("unknown kb: exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
	if code, stdout, stderr := runCLI(t, "index", "query", "--index", snap, "--kb", "faq", "gift card"); code != 0 || !strings.Contains(stdout, "faq-6") {
		t.Errorf("known kb: exit %d, stdout %q, stderr %q; want faq-6 found", code, stdout, stderr)
	}
	// The front matter is out of the text, its title in; the BOM is gone.
	code, stdout, stderr = runCLI(t, "index", "query", "--index", snap, "--json", "--k", "3", "share link password")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"title": "Share links"`, `"title": "Face grouping"`, `"text": "Share links\n\nA share link`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("query output lacks %s:\n%s", want, stdout)
		}
	}
	for _, bad := range []string{"updated: 2026", `\ufeff`, "\ufeff"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("query output holds %q:\n%s", bad, stdout)
		}
	}
}

// TestIndexAddDeleteAndCorpusSameID: guard index add given a corpus that
// holds a document and --delete of the same id refuses to guess, and
// writes no snapshot.
func TestIndexAddDeleteAndCorpusSameID(t *testing.T) {
	help, _ := writeHelpCentre(t)
	dir := t.TempDir()
	base, out := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", help, "--out", base); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, _, stderr := runCLI(t, "index", "add", "--index", base, "--corpus", help, "--delete", "billing/refunds.md", "--out", out)
	want := `--delete billing/refunds.md: the corpus also has document "billing/refunds.md" (` + filepath.Join(help, "billing/refunds.md") + ":1): drop one of the two"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		t.Errorf("a snapshot was written to %s", out)
	}
	// Deleting it without the corpus still works.
	if code, stdout, stderr := runCLI(t, "index", "add", "--index", base, "--delete", "billing/refunds.md", "--out", out); code != 0 || !strings.Contains(stdout, "1 removed") {
		t.Errorf("delete alone: exit %d, stdout %q, stderr %q; want 1 removed", code, stdout, stderr)
	}
}

// TestKeyWithoutPartitionWarned: an API key whose tenant or KB the served
// snapshot lacks (a typo) is named by guard config check (a warning, exit
// 0) and in serve's log at start and after a reload that brings one in;
// a key that matches is not.
func TestKeyWithoutPartitionWarned(t *testing.T) {
	help, faq := writeHelpCentre(t)
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", help, "--corpus", faq, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	key := func(name, tenant, kb string) string {
		return fmt.Sprintf("    - {name: %s, sha256: %q, tenant: %s, kbs: [%s]}\n", name, fmt.Sprintf("%x", sha256.Sum256([]byte(name))), tenant, kb)
	}
	head := "server: {addr: 127.0.0.1:0}\npipeline: {index: " + snap + "}\nauth:\n  enabled: true\n  keys:\n" +
		key("help", "default", "default") + key("faq", "default", "faq")
	cfgPath := filepath.Join(dir, "guard.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(head + key("typo", "default", "faqs"))
	code, stdout, _ := runCLI(t, "config", "check", "--config", cfgPath)
	want := "warning: auth.keys[2] (typo): snapshot " + snap + " has no partition default/faqs, so its chats find nothing (it has: default/default, default/faq)"
	if code != 0 || !strings.Contains(stdout, want) || strings.Count(stdout, "warning") != 1 {
		t.Errorf("config check: exit %d, output %q; want 0 and only %q", code, stdout, want)
	}

	write(head)
	_, hup, log := serveInProcess(t, "--config", cfgPath)
	if es := log.entries(t, "API key without a partition"); len(es) != 0 {
		t.Errorf("start: warned %v for keys that all match", es)
	}
	write(head + key("typo", "bta", "faq"))
	if err := hup(); err != nil {
		t.Fatal(err)
	}
	es := log.entries(t, "API key without a partition")
	if len(es) != 1 || !strings.Contains(fmt.Sprint(es[0]["problem"]), "auth.keys[2] (typo): snapshot "+snap+" has no partition bta/faq") {
		t.Errorf("after reload: warnings %v, want one naming bta/faq", es)
	}
}

// TestIndexBuildSaysWhatItLeftOut: files of other types and hidden ones in
// a corpus folder are named on stderr (they were dropped silently), and a
// build that reads no document fails and writes no snapshot.
func TestIndexBuildSaysWhatItLeftOut(t *testing.T) {
	help, _ := writeHelpCentre(t)
	for name, body := range map[string]string{
		"page.pdf":       "%PDF-1.4",
		".drafts/new.md": "# Draft\n\nNot published yet.",
		"notes.MD":       "# Notes\n\nUpper-case extension, read.",
	} {
		p := filepath.Join(help, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := filepath.Join(t.TempDir(), "snap")
	code, stdout, stderr := runCLI(t, "index", "build", "--corpus", help, "--out", snap)
	want := "not indexed: 2 files in the corpus folders are hidden or not " + index.CorpusFileTypes + ": " +
		filepath.Join(help, ".drafts") + ", " + filepath.Join(help, "page.pdf")
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stdout, "snapshot "+snap+": 4 docs") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, 4 docs and %q", code, stdout, stderr, want)
	}

	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "readme.adoc"), []byte("= No\n"), 0o644)
	out := filepath.Join(t.TempDir(), "none")
	code, _, stderr = runCLI(t, "index", "build", "--corpus", empty, "--out", out)
	if code != 1 || !strings.Contains(stderr, "no document was read from "+empty+": nothing indexed, no snapshot written") ||
		!strings.Contains(stderr, "not indexed: 1 file in the corpus folders is hidden or not ") {
		t.Errorf("empty corpus: exit %d, stderr %q; want 1, no document read and 1 file not indexed", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("empty corpus: %s was left behind", out)
	}
}

// TestIndexBuildWarnsOfDanglingMemoryRefs: a pin whose ref names no
// document of its partition (a folder corpus's ids are paths) is named at
// build time; one that resolves is not.
func TestIndexBuildWarnsOfDanglingMemoryRefs(t *testing.T) {
	help, _ := writeHelpCentre(t)
	dir := t.TempDir()
	mem := filepath.Join(dir, "memory.jsonl")
	body := `{"type":"pin","question":"can I get my money back?","refs":["billing/refunds.md"]}
{"type":"note","note":"Refunds take five working days.","triggers":["refund"],"refs":["refunds.md"]}
`
	if err := os.WriteFile(mem, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "index", "build", "--corpus", help, "--memory", mem, "--out", filepath.Join(dir, "snap"))
	want := `warning: memory note "Refunds take five working days." (default/default): ref "refunds.md" is not a document of the partition`
	if code != 0 || !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("exit %d, stderr %q; want 0 and only %q", code, stderr, want)
	}
}

// TestIndexBuildAddFlagsApart: build takes no --index (it starts from
// nothing; the flag was ignored) and add no --demo: each is a usage error.
func TestIndexBuildAddFlagsApart(t *testing.T) {
	help, _ := writeHelpCentre(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"index", "build", "--corpus", help, "--index", dir, "--out", filepath.Join(dir, "a")},
		{"index", "add", "--demo", "--index", dir, "--out", filepath.Join(dir, "b")},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "flag provided but not defined") {
			t.Errorf("guard %q: exit %d, stderr %q; want 2 naming the flag", args, code, stderr)
		}
	}
}

// TestIndexAddWarnsOfTheSameFileTwice: add given a subfolder of the folder
// the base was built from adds its files again under shorter ids; each is
// named with the id it duplicates. The folder itself adds nothing.
func TestIndexAddWarnsOfTheSameFileTwice(t *testing.T) {
	help, _ := writeHelpCentre(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "v1")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", help, "--out", base); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "index", "add", "--index", base, "--corpus", filepath.Join(help, "billing"), "--out", filepath.Join(dir, "v2"))
	want := `warning: added "refunds.md" (default/default) has the text of "billing/refunds.md" already there`
	if code != 0 || !strings.Contains(stdout, "1 added") || !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("subfolder: exit %d, stdout %q, stderr %q; want 0, 1 added and only %q", code, stdout, stderr, want)
	}
	code, stdout, stderr = runCLI(t, "index", "add", "--index", base, "--corpus", help, "--out", filepath.Join(dir, "v3"))
	if code != 0 || !strings.Contains(stdout, "0 added, 0 replaced, 3 unchanged") || strings.Contains(stderr, "warning:") {
		t.Errorf("same folder: exit %d, stdout %q, stderr %q; want 3 unchanged, no warning", code, stdout, stderr)
	}
}

// TestNotASnapshot: a corpus folder or file, or a missing directory, given
// where a snapshot is expected is named as what it is, with the command
// that makes a snapshot, by serve and by the index commands alike.
func TestNotASnapshot(t *testing.T) {
	help, faq := writeHelpCentre(t)
	missing := filepath.Join(t.TempDir(), "idx", "v1")
	corpus := "this is a corpus, not an index snapshot (it has no manifest.json): build one with guard index build --corpus "
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--index", help, "--addr", "127.0.0.1:0"}, "index " + help + ": " + corpus + help + " --out DIR, then pass DIR"},
		{[]string{"serve", "--index", faq, "--addr", "127.0.0.1:0"}, "index " + faq + ": " + corpus + faq},
		{[]string{"serve", "--index", missing, "--addr", "127.0.0.1:0"}, "index " + missing + ": no such snapshot directory (guard index build --corpus PATH --out " + missing + " makes one)"},
		{[]string{"index", "query", "--index", help, "question"}, "index " + help + ": " + corpus},
		{[]string{"index", "calibrate", "--index", help}, "index " + help + ": " + corpus},
		{[]string{"index", "audit", "--index", help}, "index " + help + ": " + corpus},
		{[]string{"index", "add", "--index", help, "--corpus", faq, "--out", filepath.Join(t.TempDir(), "o")}, "index " + help + ": " + corpus},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("guard %q: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestGapsSaysWhereTheKeyComesFrom: guard gaps against a server with auth
// on, with no key in its variable, says which variable to set; with the
// admin key there it lists the queue.
func TestGapsSaysWhereTheKeyComesFrom(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "guard.yaml")
	body := "auth:\n  enabled: true\n  keys:\n    - {name: chat, sha256: \"" + fmt.Sprintf("%x", sha256.Sum256([]byte("chat-key"))) + "\", tenant: default, kbs: [default]}\n" +
		"  admin_keys:\n    - {name: ops, sha256: \"" + fmt.Sprintf("%x", sha256.Sum256([]byte("ops-key"))) + "\"}\n"
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _, _ := serveInProcess(t, "--config", cfgPath)
	t.Setenv("TRIAL_ADMIN_KEY", "")
	code, _, stderr := runCLI(t, "gaps", "--addr", "http://"+addr, "--key-env", "TRIAL_ADMIN_KEY")
	want := "401 Unauthorized: "
	hint := "(no key was sent: put an admin key (auth.admin_keys) in $TRIAL_ADMIN_KEY, or name another variable with --key-env)"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, hint) {
		t.Errorf("no key: exit %d, stderr %q; want 1 with %q", code, stderr, hint)
	}
	t.Setenv("TRIAL_ADMIN_KEY", "ops-key")
	if code, stdout, stderr := runCLI(t, "gaps", "--addr", "http://"+addr, "--key-env", "TRIAL_ADMIN_KEY"); code != 0 || !strings.Contains(stdout, "0 of 0 entries") {
		t.Errorf("admin key: exit %d, stdout %q, stderr %q; want the (empty) list", code, stdout, stderr)
	}
}
