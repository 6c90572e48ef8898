package main

import (
	"os"
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
	if string(gb) != string(wb) {
		t.Errorf("configs/guard.yaml differs from the defaults:\n--- file\n%s\n--- defaults\n%s", gb, wb)
	}
	var fileNode, defNode yaml.Node
	yaml.Unmarshal(b, &fileNode)
	yaml.Unmarshal(wb, &defNode)
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
