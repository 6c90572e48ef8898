package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexBuildPartitionFlags: --tenant and --kb place the documents and
// memory entries that name no partition (a folder of text files, JSONL
// rows without "kb"), so two KBs can be built from two folders; a row that
// names its KB keeps it; a bad name is a usage error.
func TestIndexBuildPartitionFlags(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"rail/conditions.txt": "6. Luggage, bicycles and animals\n\n6.2 Folding bicycles travel free as luggage; other bicycles need a cycle reservation.",
		"shop/rows.jsonl": `{"id":"LL-109","text":"Festoon lights, 10 m, link up to three sets end to end."}` + "\n" +
			`{"id":"ret-1","kb":"returns","text":"Return anything unused within 30 days for a full refund."}` + "\n",
		"memory.jsonl": `{"type":"pin","question":"can i bring my bike","refs":["conditions.txt"]}` + "\n",
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
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	code, _, stderr := runCLI(t, "index", "build", "--corpus", filepath.Join(dir, "rail"), "--memory", filepath.Join(dir, "memory.jsonl"), "--kb", "rail", "--out", v1)
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "names no document") {
		t.Errorf("build: the pin's ref was looked up outside --kb rail: %s", stderr)
	}
	if code, _, stderr := runCLI(t, "index", "add", "--index", v1, "--corpus", filepath.Join(dir, "shop"), "--kb", "shop", "--out", v2); code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct{ kb, question, want string }{
		{"rail", "can i bring my bike", "conditions.txt"},
		{"shop", "garden lights", "LL-109"},
		{"returns", "refund", "ret-1"},
	} {
		code, stdout, stderr := runCLI(t, "index", "query", "--index", v2, "--kb", tc.kb, "--json", tc.question)
		if code != 0 || !strings.Contains(stdout, `"id": "`+tc.want+`"`) {
			t.Errorf("query --kb %s: exit %d, stderr %q; want %s in:\n%s", tc.kb, code, stderr, tc.want, stdout)
		}
	}
	code, stdout, stderr := runCLI(t, "index", "query", "--index", v2, "--json", "bike")
	want := "it has: --tenant default --kb rail; --tenant default --kb returns; --tenant default --kb shop"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("query default kb: exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", filepath.Join(dir, "rail"), "--kb", "rail kb", "--out", filepath.Join(dir, "v3")); code != 2 || !strings.Contains(stderr, `--kb "rail kb"`) {
		t.Errorf("bad --kb: exit %d, stderr %q; want 2 naming it", code, stderr)
	}
	if code, _, stderr := runCLI(t, "index", "build", "--demo", "--kb", "x", "--out", filepath.Join(dir, "v4")); code != 2 || !strings.Contains(stderr, "--demo") && !strings.Contains(stderr, "demo corpus") {
		t.Errorf("--demo with --kb: exit %d, stderr %q; want 2", code, stderr)
	}
}

// TestMemoryInPartitionWithoutDocuments: a memory entry whose tenant and KB
// hold no document is a bad line naming why, and the snapshot loads; it
// was kept as a partition of memory alone, which no command could load
// ("read encoder.f32: no such file"), the default partition's included.
func TestMemoryInPartitionWithoutDocuments(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "rows.jsonl")
	memory := filepath.Join(dir, "memory.jsonl")
	if err := os.WriteFile(corpus, []byte(`{"id":"LL-109","text":"Festoon lights, 10 m, link up to three sets end to end."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(memory, []byte(`{"type":"pin","question":"can i link the lights","refs":["LL-109"],"kb":"faq"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	want := memory + `:1: memory pin: tenant "default", kb "faq" has no corpus document`
	code, _, stderr := runCLI(t, "index", "build", "--corpus", corpus, "--memory", memory, "--out", v1)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("build: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	code, _, stderr = runCLI(t, "index", "add", "--index", v1, "--memory", memory, "--out", v2)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("add: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	for _, snap := range []string{v1, v2} {
		if code, stdout, stderr := runCLI(t, "index", "query", "--index", snap, "--json", "festoon lights"); code != 0 || !strings.Contains(stdout, "LL-109") {
			t.Errorf("query %s: exit %d, stderr %q, stdout %q; want LL-109", snap, code, stderr, stdout)
		}
	}
	if code, _, stderr := runCLI(t, "index", "build", "--strict", "--corpus", corpus, "--memory", memory, "--out", filepath.Join(dir, "v3")); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("strict build: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestGapsSaysWhereTheProxyListens: guard gaps at an address where nothing
// listens (its default, with the proxy on another port) says to give the
// proxy's address, for the list and for resolve alike.
func TestGapsSaysWhereTheProxyListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a loopback port nothing listens on now
	hint := "(is guard serve running there? give its address with --addr"
	for _, args := range [][]string{{"gaps", "--addr", "http://" + addr}, {"gaps", "resolve", "abc", "--addr", "http://" + addr}} {
		if code, _, stderr := runCLI(t, args...); code != 1 || !strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, hint) {
			t.Errorf("%v: exit %d, stderr %q; want 1 with %q", args, code, stderr, hint)
		}
	}
}

// TestServeWarnsOfUpstreamWithoutPath: guard serve --upstream
// http://host:port (no /v1) warns at start, naming the URL to use; a chat
// through it got a bare 404 upstream_rejected before, and nothing said why.
func TestServeWarnsOfUpstreamWithoutPath(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"http://127.0.0.1:11434", "use http://127.0.0.1:11434/v1 unless"},
		{"http://127.0.0.1:11434/", "use http://127.0.0.1:11434/v1 unless"},
		{"http://127.0.0.1:11434/v1", ""},
		{"https://openrouter.ai/api/v1", ""},
	} {
		got := upstreamPathWarning(tc.base)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("upstreamPathWarning(%q) = %q, want %q", tc.base, got, tc.want)
		}
	}
	mock := httptest.NewServer(http.NotFoundHandler()) // an upstream that serves only under /v1
	defer mock.Close()
	_, _, log := serveInProcess(t, "--upstream", mock.URL)
	if es := log.entries(t, upstreamPathWarning(mock.URL)); len(es) != 1 || es[0]["base_url"] != mock.URL {
		t.Errorf("serve log: warnings %v, want one naming %s", es, mock.URL)
	}
}

// TestUpstreamKeyWarning: a remote upstream with its key variable empty is
// warned of; a loopback one, or one whose key is set, is not.
func TestUpstreamKeyWarning(t *testing.T) {
	t.Setenv("TRIAL_KEY_SET", "sk-test")
	t.Setenv("TRIAL_KEY_EMPTY", "")
	for _, tc := range []struct {
		base, env string
		warn      bool
	}{
		{"https://api.openai.com/v1", "TRIAL_KEY_EMPTY", true},
		{"https://api.openai.com/v1", "TRIAL_KEY_SET", false},
		{"http://127.0.0.1:11434/v1", "TRIAL_KEY_EMPTY", false},
		{"http://localhost:8000/v1", "TRIAL_KEY_EMPTY", false},
		{"http://[::1]:8000/v1", "TRIAL_KEY_EMPTY", false},
	} {
		got := upstreamKeyWarning(tc.base, tc.env)
		if (got != "") != tc.warn || tc.warn && !strings.Contains(got, "$"+tc.env+" is empty") {
			t.Errorf("upstreamKeyWarning(%q, %q) = %q, want a warning: %v", tc.base, tc.env, got, tc.warn)
		}
	}
}
