package proxy

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The shipped configs/guard.yaml holds every knob with exactly the built-in
// default: decoding it onto a zero Config gives DefaultConfig, and every key
// of the defaults appears in it.
func TestShippedConfigMatchesDefaults(t *testing.T) {
	b, err := os.ReadFile("../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := DecodeConfig(b, &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := DefaultConfig()
	// Compared through YAML: an empty list in the file and a nil default
	// are the same setting.
	gb, _ := yaml.Marshal(got)
	wb, _ := yaml.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("configs/guard.yaml differs from DefaultConfig:\n--- file\n%s\n--- defaults\n%s", gb, wb)
	}
	var fileNode, defNode yaml.Node
	yaml.Unmarshal(b, &fileNode)
	db, _ := yaml.Marshal(want)
	yaml.Unmarshal(db, &defNode)
	have := map[string]bool{}
	keyPaths(fileNode.Content[0], "", have)
	need := map[string]bool{}
	keyPaths(defNode.Content[0], "", need)
	for k := range need {
		if !have[k] {
			t.Errorf("configs/guard.yaml lacks key %s", k)
		}
	}
}

func keyPaths(n *yaml.Node, prefix string, out map[string]bool) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p := joinPath(prefix, n.Content[i].Value)
		out[p] = true
		// maps of user data (aliases, reserves, kind_words) are values, not keys
		if !strings.HasSuffix(p, "aliases") && !strings.HasSuffix(p, "reserves") && !strings.HasSuffix(p, "kind_words") {
			keyPaths(n.Content[i+1], p, out)
		}
	}
}

func TestStrictDecodeNamesUnknownKeys(t *testing.T) {
	cfg := DefaultConfig()
	err := DecodeConfig([]byte("server:\n  adr: x\ngate:\n  prefloor: 0.2\n  prefloorx: 1\nbogus: 1\n"), &cfg)
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	for _, want := range []string{`"server.adr"`, `"gate.prefloorx"`, `"bogus"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestValidateReportsEverything(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Upstream.IdleTimeout = 0
	cfg.Stages.Gate.Prefloor = 2
	cfg.Stages.Verify.Mode = "loose"
	err := cfg.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"upstream.idle_timeout", "gate.prefloor", "verify.mode"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

func TestGCConfig(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC/GOMEMLIMIT set: the environment wins")
	}
	defer applyGC(GCConfig{Percent: 100})
	if p, l := applyGC(GCConfig{Percent: 250, MemoryLimit: 1 << 30}); p != 250 || l != 1<<30 {
		t.Errorf("applyGC: percent %d, limit %d", p, l)
	}
	for _, tc := range []struct {
		gc   GCConfig
		want string
	}{
		{GCConfig{Percent: 5}, "server.gc.percent"},
		{GCConfig{Percent: -1}, "needs a memory_limit"},
		{GCConfig{Percent: 100, MemoryLimit: -1}, "server.gc.memory_limit"},
	} {
		cfg := DefaultConfig()
		cfg.Server.GC = tc.gc
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.gc, err, tc.want)
		}
	}
}
