package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
	"github.com/answer-guard/guard/retrieve"
)

// derivedFAQ is an FAQ written from the demo handbook: two faithful
// entries, one with a fabricated number (1 GB per 500,000 pages; the
// handbook says 100,000) and one with a sentence the handbook never says.
const derivedFAQ = `{"id":"faq-requirements","title":"FAQ: What does Lanternfish run on?","kind":"faq","sources":["hb-1-2"],"text":"Lanternfish runs on Linux (x86-64 or arm64) with kernel 5.4 or newer. The server needs PostgreSQL 14 or newer for metadata."}
{"id":"faq-install","title":"FAQ: How do I install the package?","kind":"faq","sources":["hb-1-3"],"text":"On Debian and Ubuntu, add the Lanternfish apt repository and run apt install lanternfish. The package installs the systemd unit lanternfish.service."}
{"id":"faq-memory","title":"FAQ: How much memory does the server need?","kind":"faq","sources":["hb-1-2"],"text":"Plan 2 GB of memory for the server process plus 1 GB per 500,000 indexed pages."}
{"id":"faq-restore","title":"FAQ: How do I restore a backup?","kind":"faq","sources":["hb-5-4"],"text":"Stop the service, then run lanternfish restore --from PATH with the path or s3:// URL of a backup. The restore command recreates the database and reports missing files. A restore always finishes within five minutes regardless of the size of the installation."}
`

const demoCorpus = "../../index/demo/corpus.jsonl"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func readManifest(t *testing.T, dir string) index.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m index.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHaluGateDerivedFAQ builds the demo handbook with a derived FAQ and
// checks the whole HaluGate path: the build's summary, the audit (text,
// json, github; --fail-on), retrieval (the fabricated entry is never
// retrieved, the faithful ones are) and an incremental add that checks
// only what changed.
func TestHaluGateDerivedFAQ(t *testing.T) {
	dir := t.TempDir()
	faq := filepath.Join(dir, "faq.jsonl")
	if err := os.WriteFile(faq, []byte(derivedFAQ), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "v1")
	code, out, errOut := runCLI(t, "index", "build", "--corpus", demoCorpus, "--corpus", faq, "--out", snap)
	if code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "halugate: 4 derived entries (4 checked, 0 unchanged)") {
		t.Errorf("build summary:\n%s", out)
	}

	// The audit lists both flagged claims with the source passage.
	code, out, errOut = runCLI(t, "index", "audit", "--index", snap)
	if code != 0 {
		t.Fatalf("audit without --fail-on: exit %d, want 0\n%s%s", code, out, errOut)
	}
	t.Logf("audit:\n%s", out)
	for _, want := range []string{
		`faq-memory [high risk, kept out of retrieval]`,
		`"Plan 2 GB of memory for the server process plus 1 GB per 500,000 indexed pages."`,
		`source hb-1-2:`, `100,000`,
		`faq-restore [medium risk]`,
		`"A restore always finishes within five minutes regardless of the size of the installation."`,
		`source hb-5-4:`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("audit text lacks %q", want)
		}
	}
	for _, faithful := range []string{"faq-requirements", "faq-install"} {
		if strings.Contains(out, faithful) {
			t.Errorf("audit flags faithful entry %s", faithful)
		}
	}
	code, _, _ = runCLI(t, "index", "audit", "--index", snap, "--fail-on", "high")
	if code != 1 {
		t.Errorf("audit --fail-on high: exit %d, want 1", code)
	}
	code, _, _ = runCLI(t, "index", "audit", "--index", snap, "--fail-on", "medium")
	if code != 1 {
		t.Errorf("audit --fail-on medium: exit %d, want 1", code)
	}
	code, out, _ = runCLI(t, "index", "audit", "--index", snap, "--format", "github")
	if code != 0 || !strings.Contains(out, "::error file=") || !strings.Contains(out, "::warning file=") || !strings.Contains(out, "faq.jsonl,line=3,") {
		t.Errorf("audit --format github: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "index", "audit", "--index", snap, "--format", "json")
	var js struct {
		Entries []struct {
			ID       string `json:"id"`
			Risk     string `json:"risk"`
			Excluded bool   `json:"excluded"`
			Claims   []struct {
				Verdict  string `json:"verdict"`
				Flagged  bool   `json:"flagged"`
				SourceID string `json:"source_id"`
				Evidence string `json:"evidence"`
			} `json:"claims"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &js); code != 0 || err != nil {
		t.Fatalf("audit --format json: exit %d, %v\n%s", code, err, out)
	}
	risks := map[string]string{}
	for _, e := range js.Entries {
		risks[e.ID] = e.Risk
	}
	want := map[string]string{"faq-requirements": "low", "faq-install": "low", "faq-memory": "high", "faq-restore": "medium"}
	for id, r := range want {
		if risks[id] != r {
			t.Errorf("%s: risk %q, want %q (all: %v)", id, risks[id], r, risks)
		}
	}

	// Retrieval: the fabricated entry is not retrieved (and not citable),
	// the faithful ones are.
	retrieved := func(snapDir, q string) []string {
		t.Helper()
		cfg := proxy.DefaultConfig().Stages
		s, err := index.Load(snapDir)
		if err != nil {
			t.Fatal(err)
		}
		eng, err := retrieve.New(cfg.Retrieve, cfg.Index, s, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		res, err := eng.Retrieve(context.Background(), retrieve.Query{Tenant: "default", KB: "default", Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Candidates {
			ids = append(ids, c.DocID)
		}
		if p := s.Partition("default", "default"); snapDir == snap && p.Contains("faq-memory") {
			t.Errorf("faq-memory is in the citable catalog")
		}
		return ids
	}
	for _, tc := range []struct{ q, want, not string }{
		{"How much memory does the server need per indexed page?", "hb-1-2", "faq-memory"},
		{"faq-memory", "", "faq-memory"},
		{"What does Lanternfish run on? Which kernel and PostgreSQL?", "faq-requirements", ""},
		{"How do I install the package with apt?", "faq-install", ""},
	} {
		ids := retrieved(snap, tc.q)
		if tc.want != "" && !slices.Contains(ids, tc.want) {
			t.Errorf("%q: retrieved %v, want %s among them", tc.q, ids, tc.want)
		}
		if tc.not != "" && slices.Contains(ids, tc.not) {
			t.Errorf("%q: retrieved %v, want no %s", tc.q, ids, tc.not)
		}
	}

	// Incremental: a new derived entry is the only one checked.
	add1 := filepath.Join(dir, "add1.jsonl")
	os.WriteFile(add1, []byte(`{"id":"faq-port","title":"FAQ: Which port?","kind":"faq","sources":["hb-1-3"],"text":"Start the service with systemctl enable --now lanternfish and open port 8420 in a browser."}`+"\n"), 0o644)
	v2 := filepath.Join(dir, "v2")
	if code, out, errOut := runCLI(t, "index", "add", "--index", snap, "--corpus", add1, "--out", v2); code != 0 {
		t.Fatalf("add: exit %d\n%s%s", code, out, errOut)
	}
	if h := readManifest(t, v2).HaluGate; h == nil || h.Checked != 1 || h.Reused != 0 || h.Derived != 5 || h.High != 1 || h.Excluded != 1 {
		t.Errorf("add of one new entry: halugate %+v, want 1 checked, 5 derived, 1 high excluded", h)
	}
	// An unchanged entry given again is not checked again; a changed one is.
	lines := strings.Split(derivedFAQ, "\n")
	fixed := strings.Replace(lines[2], "500,000", "100,000", 1)
	add2 := filepath.Join(dir, "add2.jsonl")
	os.WriteFile(add2, []byte(lines[0]+"\n"+fixed+"\n"), 0o644)
	v3 := filepath.Join(dir, "v3")
	if code, out, errOut := runCLI(t, "index", "add", "--index", v2, "--corpus", add2, "--out", v3); code != 0 {
		t.Fatalf("add: exit %d\n%s%s", code, out, errOut)
	}
	if h := readManifest(t, v3).HaluGate; h == nil || h.Checked != 1 || h.Reused != 1 || h.High != 0 || h.Excluded != 0 {
		t.Errorf("add of an unchanged and a corrected entry: halugate %+v, want 1 checked, 1 reused, none high", h)
	}
	if ids := retrieved(v3, "How much memory does the server need per indexed page?"); !slices.Contains(ids, "faq-memory") {
		t.Errorf("corrected faq-memory not retrieved: %v", ids)
	}
	// Changing a source checks the entries derived from it again.
	var hb13 string
	b, _ := os.ReadFile(demoCorpus)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"id": "hb-1-3"`) {
			hb13 = strings.ReplaceAll(l, "8420", "9000")
		}
	}
	add3 := filepath.Join(dir, "add3.jsonl")
	os.WriteFile(add3, []byte(hb13+"\n"), 0o644)
	v4 := filepath.Join(dir, "v4")
	if code, out, errOut := runCLI(t, "index", "add", "--index", v3, "--corpus", add3, "--out", v4); code != 0 {
		t.Fatalf("add: exit %d\n%s%s", code, out, errOut)
	}
	h := readManifest(t, v4).HaluGate
	if h == nil || h.Checked != 2 || h.Reused != 0 || h.High != 1 {
		t.Errorf("add of a changed source: halugate %+v, want faq-install and faq-port checked again, faq-port now high", h)
	}
	if ids := retrieved(v4, "Which port do I open in a browser after starting the service?"); slices.Contains(ids, "faq-port") {
		t.Errorf("faq-port (now contradicted by its source) retrieved: %v", ids)
	}
}
