package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"
)

// fakeVerifier splits on ". " and calls a claim contradicted when it holds
// "999", unsupported when it holds "never", entailed otherwise.
type fakeVerifier struct{ calls atomic.Int64 }

func (f *fakeVerifier) Claims(text string) []string {
	var out []string
	for _, s := range strings.Split(text, ". ") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (f *fakeVerifier) Verify(_ context.Context, claim string, srcs []SourcePassage) (ClaimVerdict, error) {
	f.calls.Add(1)
	switch {
	case strings.Contains(claim, "999"):
		return ClaimVerdict{Label: "contradiction", Confidence: 0.9, Evidence: srcs[0].Text}, nil
	case strings.Contains(claim, "never"):
		return ClaimVerdict{Label: "neutral", Confidence: 0.6}, nil
	}
	return ClaimVerdict{Label: "entailment", Confidence: 0.9, Evidence: srcs[0].Text}, nil
}

// TestHaluGateMemory: a derived memory note contradicted by its source is
// left out of the snapshot's memory, a faithful one stays; without a
// verifier both stay and are marked unchecked.
func TestHaluGateMemory(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	mem := filepath.Join(dir, "m.jsonl")
	os.WriteFile(corpus, []byte(`{"id":"src","text":"The vault holds 12 keys and opens at dawn."}`+"\n"), 0o644)
	os.WriteFile(mem, []byte(`{"type":"note","id":"good","note":"The vault holds 12 keys","triggers":["vault"],"sources":["src"]}
{"type":"note","id":"bad","note":"The vault holds 999 keys","triggers":["vault keys"],"sources":["src"]}
{"type":"note","id":"plain","note":"Ask the curator","triggers":["curator"]}
`), 0o644)
	cfg := DefaultConfig()
	fv := &fakeVerifier{}
	man, err := Build(context.Background(), cfg, []string{corpus}, []string{mem}, filepath.Join(dir, "v1"), zap.NewNop(), WithVerifier(fv))
	if err != nil {
		t.Fatal(err)
	}
	if h := man.HaluGate; h == nil || h.Derived != 2 || h.High != 1 || h.Excluded != 1 || h.Checked != 2 {
		t.Fatalf("halugate %+v", man.HaluGate)
	}
	s, err := Load(filepath.Join(dir, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range s.Partition(DefaultTenant, DefaultKB).Memory() {
		ids = append(ids, m.ID)
	}
	s.Close()
	if got := strings.Join(ids, ","); got != "good,plain" {
		t.Errorf("memory %s, want good,plain", got)
	}
	// An add of an unrelated document checks nothing again.
	other := filepath.Join(dir, "o.jsonl")
	os.WriteFile(other, []byte(`{"id":"other","text":"Unrelated text about gardens."}`+"\n"), 0o644)
	before := fv.calls.Load()
	man, err = Add(context.Background(), cfg, filepath.Join(dir, "v1"), []string{other}, nil, filepath.Join(dir, "v2"), zap.NewNop(), WithVerifier(fv))
	if err != nil {
		t.Fatal(err)
	}
	if n := fv.calls.Load() - before; n != 0 || man.HaluGate.Derived != 2 || man.HaluGate.Excluded != 1 {
		t.Errorf("add: %d verifier calls, halugate %+v; want 0 calls, findings carried over", n, man.HaluGate)
	}

	serve := cfg
	serve.HaluGate.ServeHigh = true
	man, err = Build(context.Background(), serve, []string{corpus}, []string{mem}, filepath.Join(dir, "v4"), zap.NewNop(), WithVerifier(fv))
	if err != nil {
		t.Fatal(err)
	}
	if h := man.HaluGate; h.High != 1 || h.Excluded != 0 {
		t.Errorf("serve_high: halugate %+v, want 1 high, none excluded", h)
	}

	man, err = Build(context.Background(), cfg, []string{corpus}, []string{mem}, filepath.Join(dir, "v3"), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if h := man.HaluGate; h.Unchecked != 2 || h.Excluded != 0 {
		t.Errorf("no verifier: halugate %+v, want 2 unchecked, none excluded", h)
	}
}
