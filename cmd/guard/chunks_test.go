package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexChunks builds operator trial 6's climbing centre (two plain-text
// files on disk) and lists its chunks: each section's chunk with its
// "Title: Heading" title and size, the count line, --doc, --text and --json;
// a partition the snapshot lacks is an error naming those it has.
func TestIndexChunks(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "v1")
	corpus := filepath.Join("..", "..", "bench", "testdata", "trial6", "climbing")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", corpus, "--tenant", "crag", "--kb", "climb", "--out", snap); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "index", "chunks", "--index", snap, "--tenant", "crag", "--kb", "climb")
	if code != 0 {
		t.Fatalf("chunks: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"conditions.txt#4  383    Crag and Chalk Climbing Centre: Conditions of Entry: 3. Safety rules\n",
		"prices.txt#2      351    Crag and Chalk Climbing Centre: Prices 2026: Memberships and passes\n",
		"# 11 chunks in 2 documents (crag/climb)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("chunks output lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = runCLI(t, "index", "chunks", "--index", snap, "--tenant", "crag", "--kb", "climb", "--doc", "prices.txt", "--text")
	if want := "    Memberships and passes\n\n    A monthly membership costs 52 pounds"; !strings.Contains(stdout, want) || strings.Contains(stdout, "conditions.txt") {
		t.Errorf("--doc prices.txt --text: want the price list's chunks only, with %q:\n%s", want, stdout)
	}
	_, stdout, _ = runCLI(t, "index", "chunks", "--index", snap, "--tenant", "crag", "--kb", "climb", "--json")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var c chunkLine
	if len(lines) != 11 || json.Unmarshal([]byte(lines[0]), &c) != nil || c.ID != "conditions.txt#1" || c.DocID != "conditions.txt" || c.Chars != len([]rune(c.Text)) {
		t.Errorf("--json: %d lines, first %+v", len(lines), c)
	}
	code, _, stderr = runCLI(t, "index", "chunks", "--index", snap, "--kb", "climb")
	if want := `has no partition tenant "default", kb "climb"; it has: --tenant crag --kb climb`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("wrong partition: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if code, _, stderr = runCLI(t, "index", "chunks", "--index", snap, "--tenant", "crag", "--kb", "climb", "--doc", "nope.txt"); code != 1 || !strings.Contains(stderr, `no document "nope.txt"`) {
		t.Errorf("unknown --doc: exit %d, stderr %q", code, stderr)
	}
}
