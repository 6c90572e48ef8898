package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexBuildCSV: the trial-5 coffee FAQ as a spreadsheet export builds
// as its JSON lines do; a CSV with a bad row is built without it, the row
// named as file:line on stderr and exit 1, as for a bad JSON line.
func TestIndexBuildCSV(t *testing.T) {
	faq := filepath.Join("..", "..", "bench", "testdata", "trial5", "coffee", "faq.csv")
	snap := filepath.Join(t.TempDir(), "snap")
	code, stdout, stderr := runCLI(t, "index", "build", "--corpus", faq, "--tenant", "kettle", "--kb", "shop", "--out", snap)
	if code != 0 || !strings.Contains(stdout, "snapshot "+snap+": 28 docs, 28 chunks, 1 partition,") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and 28 docs", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "index", "query", "--index", snap, "--tenant", "kettle", "--kb", "shop", "--k", "1", "can you grind it for my french press")
	if code != 0 || !strings.Contains(stdout, "c7 ") {
		t.Errorf("query: exit %d, stdout %q; want c7 (the grinding row) first", code, stdout)
	}

	bad := filepath.Join(t.TempDir(), "faq.csv")
	if err := os.WriteFile(bad, []byte("id,text\nc1,Beans are 7.50.\n,No id here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "index", "build", "--corpus", bad, "--out", filepath.Join(t.TempDir(), "snap"))
	if code != 1 || !strings.Contains(stderr, bad+":3: missing id") || !strings.Contains(stdout, ": 1 doc, 1 chunk, 1 partition, 0 memory entries, 1 bad line, ") {
		t.Errorf("bad row: exit %d, stdout %q, stderr %q; want 1, the counts singular where one (1 doc, 1 chunk, 1 partition, 1 bad line), and %s:3 named", code, stdout, stderr, bad)
	}
}
