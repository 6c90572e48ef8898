package retrieve

import (
	"context"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/cputime"
)

// demoPrompts are bench/testdata/demo_prompts.txt, the questions of the
// lexical-only load run.
var demoPrompts = []string{"How do I restore a backup?", "How do I set up OpenID Connect?",
	"Why does search return nothing?", "Can two people edit the same page at once?",
	"How do I install Lanternfish with containers?", "How do I encrypt off-site backups?",
	"How do I move from Confluence to Lanternfish?", "How are seats counted in the plans?",
	"People cannot sign in, what should I check?", "How do I export my pages?",
	"What does error LF-4002 mean?", "Which database does Lanternfish need?",
	"What is the weather in Paris today?", "What is the maximum attachment size?"}

// BenchmarkDemoTurnRetrieve is the retrieval of a lexical-only demo turn
// (issue 28): the demo corpus with the hashed embedder, retrieve.semantic
// off, one demo prompt per op through Retrieve (every lane, the pool, the
// local rerank).
func BenchmarkDemoTurnRetrieve(b *testing.B) {
	ic := index.DefaultConfig()
	ic.Embedder = index.EmbedderHashed
	dir := filepath.Join(b.TempDir(), "demo")
	if _, err := index.BuildDemo(context.Background(), ic, dir, zap.NewNop()); err != nil {
		b.Fatal(err)
	}
	s, err := index.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Semantic = false
	e := newEngine(b, cfg, ic, s)
	ctx := context.Background()
	b.ReportAllocs()
	c0 := cputime.Process()
	i := 0
	for b.Loop() {
		if _, err := e.Retrieve(ctx, Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: demoPrompts[i%len(demoPrompts)]}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}
