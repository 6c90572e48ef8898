package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/answer-guard/guard/check"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// The shipped configs/guard.yaml holds every knob with exactly the built-in
// default: decoding it onto a zero file gives the defaults (the proxy's and
// the simulated upstream's), and every key of the defaults appears in it.
func TestShippedConfigMatchesDefaults(t *testing.T) {
	b, err := os.ReadFile("../../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got guardFile
	if err := proxy.DecodeConfig(b, &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := guardFile{Config: proxy.DefaultConfig(), Operator: operator.DefaultConfig(), Mock: mockllm.DefaultConfig(), Check: check.DefaultConfig()}
	// Compared through YAML: an empty list in the file and a nil default
	// are the same setting.
	gb, _ := yaml.Marshal(got)
	wb, _ := yaml.Marshal(want)
	var fileNode, defNode, gotNode yaml.Node
	yaml.Unmarshal(b, &fileNode)
	yaml.Unmarshal(wb, &defNode)
	yaml.Unmarshal(gb, &gotNode)
	if string(gb) != string(wb) {
		// name each differing setting, not two whole dumps
		gv, wv := map[string]string{}, map[string]string{}
		leafValues(gotNode.Content[0], "", gv)
		leafValues(defNode.Content[0], "", wv)
		var diff []string
		for k, w := range wv {
			if g, ok := gv[k]; !ok || g != w {
				diff = append(diff, fmt.Sprintf("  %s: file %s, code default %s", k, orNone(g, ok), w))
			}
		}
		for k, g := range gv {
			if _, ok := wv[k]; !ok {
				diff = append(diff, fmt.Sprintf("  %s: file %s, no code default", k, g))
			}
		}
		slices.Sort(diff)
		t.Errorf("configs/guard.yaml differs from the defaults the code uses (the code's default wins unless it is a bug):\n%s", strings.Join(diff, "\n"))
	}
	have := map[string]bool{}
	keyPaths(fileNode.Content[0], "", have)
	need := map[string]bool{}
	keyPaths(defNode.Content[0], "", need)
	for k := range need {
		if !have[k] {
			t.Errorf("configs/guard.yaml lacks key %s", k)
		}
	}
	if _, err := loadFile("../../configs/guard.yaml"); err != nil {
		t.Errorf("loadFile: %v", err)
	}
}

// leafValues collects the dotted key path of every scalar or sequence in a
// YAML mapping with its value, re-encoded on one line.
func leafValues(n *yaml.Node, prefix string, out map[string]string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := n.Content[i].Value
		if prefix != "" {
			p = prefix + "." + p
		}
		if v := n.Content[i+1]; v.Kind == yaml.MappingNode && len(v.Content) > 0 {
			leafValues(v, p, out)
		} else {
			b, _ := yaml.Marshal(v)
			out[p] = strings.Join(strings.Fields(string(b)), " ")
		}
	}
}

func orNone(v string, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return v
}

// keyPaths collects the dotted key paths of a YAML mapping.
func keyPaths(n *yaml.Node, prefix string, out map[string]bool) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := n.Content[i].Value
		if prefix != "" {
			p = prefix + "." + p
		}
		out[p] = true
		// maps of user data (aliases, reserves, kind_words) are values, not keys
		if !strings.HasSuffix(p, "aliases") && !strings.HasSuffix(p, "reserves") && !strings.HasSuffix(p, "kind_words") {
			keyPaths(n.Content[i+1], p, out)
		}
	}
}

// A mock section with a bad value is reported with its path, next to the
// proxy's own problems.
func TestLoadFileNamesMockProblems(t *testing.T) {
	path := t.TempDir() + "/guard.yaml"
	if err := os.WriteFile(path, []byte("mock:\n  chunk_runes: -1\nserver:\n  max_body_bytes: -5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadFile(path)
	if err == nil || !strings.Contains(err.Error(), "mock.") || !strings.Contains(err.Error(), "server.") {
		t.Errorf("loadFile error %v, want both the mock and the server problem named", err)
	}
}

// manyErrors is a config file with one mistake of every kind, each on its
// own line: the operator of issue 31 met them in three rounds.
const manyErrors = `server:
  addr: 127.0.0.1:8080
  max_body_bytes: lots
gate:
  prefloorr: 0.2
  bail_out_below: 1.7
  between: maybe
retrieve:
  top_k: sixteen
verify:
  mode: [report]
upstream:
  idle_timeout: soon
  request_timeout: -5s
pipeline:
  enabled: maybe
mock:
  chunk_runes: -1
bogus: 1
`

// manyErrorsWant is every problem of manyErrors: its line, key path and
// a piece of the message.
var manyErrorsWant = []struct {
	line int
	path string
	msg  string
}{
	{3, "server.max_body_bytes", `"lots" is not a number`},
	{5, "gate.prefloorr", "unknown key (did you mean gate.prefloor?)"},
	{6, "gate.bail_out_below", "must be in [0,1], got 1.7; must not exceed good_enough_max"}, // one key, one line
	{7, "gate.between", `got "maybe"`},
	{9, "retrieve.top_k", `"sixteen" is not a number`},
	{11, "verify.mode", "must be a single value, got a list"},
	{13, "upstream.idle_timeout", `"soon" is not a duration`},
	{14, "upstream.request_timeout", "must be > 0, got -5s"},
	{16, "pipeline.enabled", `"maybe" is not true or false`},
	{18, "mock.chunk_runes", ""},
	{19, "bogus", "unknown key"},
}

// checkManyErrors asserts that lines (one problem each) are exactly the
// problems of manyErrors at path, in line order, in plain words.
func checkManyErrors(t *testing.T, path string, lines []string) {
	t.Helper()
	if len(lines) != len(manyErrorsWant) {
		t.Errorf("%d problems, want %d:\n%s", len(lines), len(manyErrorsWant), strings.Join(lines, "\n"))
	}
	for i, w := range manyErrorsWant {
		if i >= len(lines) {
			break
		}
		prefix := fmt.Sprintf("%s:%d: %s: ", path, w.line, w.path)
		if got := lines[i]; !strings.HasPrefix(got, prefix) || !strings.Contains(got, w.msg) {
			t.Errorf("problem %d = %q, want %q...%q", i, got, prefix, w.msg)
		}
	}
	for _, l := range lines {
		for _, jargon := range []string{"!!", "unmarshal", "int", "string", "[]", "time.Duration", "yaml:"} {
			if strings.Contains(strings.TrimPrefix(l, path), jargon) && !strings.Contains(l, "[0,1]") {
				t.Errorf("problem %q speaks the decoder's language (%q)", l, jargon)
			}
		}
	}
}

// TestConfigCheckReportsEverything: guard config check reads a file with a
// dozen mistakes of every kind and lists them all in one run, each as
// file:line: key.path: plain words, and exits 1; a good file exits 0.
func TestConfigCheckReportsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(path, []byte(manyErrors), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"config", "check", "--config", path}, &out, &errb); code != 1 {
		t.Errorf("exit %d, want 1 (stderr %s)", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if n := len(lines); n == 0 || lines[n-1] != fmt.Sprintf("%s: %s", path, plural(len(manyErrorsWant), "problem")) {
		t.Errorf("last line %q, want the count", lines[len(lines)-1])
	} else {
		lines = lines[:n-1]
	}
	checkManyErrors(t, path, lines)

	// guard serve (and every command) refuses the file with the same list.
	errb.Reset()
	if code := run([]string{"serve", "--config", path}, &out, &errb); code != 1 {
		t.Errorf("serve: exit %d, want 1", code)
	}
	served := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if served[0] != fmt.Sprintf("guard serve: the configuration has %d problems:", len(manyErrorsWant)) {
		t.Errorf("serve: first line %q", served[0])
	}
	for i := range served[1:] {
		served[i+1] = strings.TrimPrefix(served[i+1], "  ")
	}
	checkManyErrors(t, path, served[1:])

	out.Reset()
	if code := run([]string{"config", "check", "--config", "../../configs/guard.yaml"}, &out, &errb); code != 0 || !strings.Contains(out.String(), ": ok") {
		t.Errorf("shipped config: exit %d, output %q; want 0 and ok", code, out.String())
	}
	if code := run([]string{"config", "check"}, &out, &errb); code != 2 {
		t.Errorf("no --config: exit %d, want 2", code)
	}
}

// TestLoadFileProblems: smaller cases of the one-pass reading.
func TestLoadFileProblems(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // each problem line without the file name
	}{
		{"not yaml", "server: [\n", []string{":1: not valid YAML"}},
		{"empty", "# nothing\n", []string{": empty: the file sets no keys"}},
		{"list at top", "- a\n", []string{":1: the file must be a list of sections"}},
		{"section is a value", "gate: 5\n", []string{":1: gate: must be a section of keys"}},
		{"alias list item", "auth:\n  keys:\n    - name: a\n      sha256: x\n      tenant: t\n      kbs: [k]\n      extra: 1\n",
			[]string{":7: auth.keys[0].extra: unknown key", ":4: auth.keys[0].sha256: want 64 hex digits"}},
		// a default broken by another key: placed at the nearest key in the file
		{"default out of range by another key", "gate:\n  good_enough_max: 0.3\n", []string{":1: gate.bail_out_below: must not exceed"}},
		{"array of the wrong length", "index:\n  remote:\n    calibration: [[0, 0, 1]]\n", []string{":3: index.remote.calibration[0]: must be a list of exactly 2 values"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.yaml")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := loadFile(path)
			if err == nil {
				t.Fatal("no problem reported")
			}
			got := problemLines(err)
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || strings.HasPrefix(g, path+w)
				}
				if !found {
					t.Errorf("problems %q, want one starting %q", got, path+w)
				}
			}
		})
	}
}
