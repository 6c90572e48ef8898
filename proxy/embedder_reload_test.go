package proxy_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// A reload whose index.embedder differs from the one that built the
// snapshot is refused with both names, and the running configuration
// keeps serving.
func TestReloadRefusesOtherEmbedder(t *testing.T) {
	ic := proxy.DefaultConfig().Stages.Index
	corpus := writeCorpus(t,
		`{"id":"puncture","text":"Puncture repair costs £8 per wheel, including a new inner tube."}`,
		`{"id":"hours","text":"We are open Tuesday to Saturday, 9am to 5:30pm."}`,
	)
	dir := filepath.Join(t.TempDir(), "v1")
	if _, err := index.Build(context.Background(), ic, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = dir })
	cfg := ts.srv.Config()
	cfg.Stages.Index.Embedder = index.EmbedderHashed
	err := ts.srv.Reload(cfg)
	if err == nil || !strings.Contains(err.Error(), `"use"`) || !strings.Contains(err.Error(), `"hashed"`) {
		t.Fatalf("Reload with embedder hashed over a use snapshot: %v; want a refusal naming both", err)
	}
	if got := ts.srv.Config().Stages.Index.Embedder; got != index.EmbedderUSE {
		t.Errorf("running embedder after the refused reload = %q, want use", got)
	}
	if _, g := complete(t, ts, "how much to fix a flat tyre?", false); g.Decision == "" {
		t.Error("the proxy stopped answering after the refused reload")
	}
}
