package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexBuildTrial7 builds operator trial 7's campsite (two Markdown
// files) and adds its bakery (a CSV of untitled rows) as a second tenant, as
// bench/testdata/trial7/run.sh does: every `##` section is a chunk titled
// "Page title: Section heading", every row a chunk of its own; each
// calibration line says that the gate does not apply it by default; and
// `index query --k 1` lists the two notes the library reserve keeps, as its
// help says.
func TestIndexBuildTrial7(t *testing.T) {
	data := filepath.Join("..", "..", "bench", "testdata", "trial7")
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	code, stdout, stderr := runCLI(t, "index", "build", "--corpus", filepath.Join(data, "campsite"), "--tenant", "heron", "--kb", "park", "--out", v1)
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if want := "calibration heron/park: "; !strings.Contains(stdout, want) || !strings.Contains(stdout, "not applied: gate.corpus_calibration is false)\n") {
		t.Errorf("build stdout: want %q ending in the note that it is not applied:\n%s", want, stdout)
	}
	code, stdout, stderr = runCLI(t, "index", "add", "--index", v1, "--corpus", filepath.Join(data, "bakery", "faq.csv"), "--tenant", "sugarloaf", "--kb", "cakes", "--out", v2)
	if code != 0 || !strings.Contains(stdout, "documents: 30 added, 0 replaced, 0 unchanged, 0 removed\n") {
		t.Fatalf("add: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stdout, _ = runCLI(t, "index", "chunks", "--index", v2, "--tenant", "heron", "--kb", "park")
	for _, want := range []string{
		"booking-conditions.md#6   910    Heron Water Holiday Park: Booking Conditions 2027: 5. Prices 2027\n",
		"site-rules.md#5           520    Heron Water Holiday Park: Site Rules: Fires, barbecues and gas\n",
		"# 20 chunks in 2 documents (heron/park)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("campsite chunks lack %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = runCLI(t, "index", "chunks", "--index", v2, "--tenant", "sugarloaf", "--kb", "cakes")
	if want := "# 30 chunks in 30 documents (sugarloaf/cakes)\n"; !strings.Contains(stdout, want) {
		t.Errorf("bakery chunks lack %q:\n%s", want, stdout)
	}
	code, stdout, _ = runCLI(t, "index", "query", "--index", v2, "--tenant", "sugarloaf", "--kb", "cakes", "--k", "1", "--json", "cupcakes")
	if code != 0 || strings.Count(stdout, `"rank":`) != 2 || !strings.Contains(stdout, `"id": "b19"`) {
		t.Errorf("query --k 1: exit %d; want two notes (top 1 + the library reserve), b19 among them:\n%s", code, stdout)
	}
}
