package bench

import (
	"bytes"
	"context"
	"testing"

	"github.com/answer-guard/guard/internal/evaldata"
)

func retrievalDataRoot(tb testing.TB) string {
	tb.Helper()
	evaldata.Require(tb, "scifact data", "scifact", "beir", "corpus.jsonl")
	return evaldata.Root()
}

func TestNDCGAndRecall(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		ranked     []string
		ndcg, rec2 float64
	}{
		{[]string{"a", "b", "c"}, 1, 1},
		{[]string{"c", "d", "e"}, 0, 0},
		{[]string{"c", "a"}, (1 / 1.584962500721156) / (1 + 1/1.584962500721156), 0.5},
	}
	for _, tt := range tests {
		if got := ndcgAt(tt.ranked, rel, 10); absDiff(got-tt.ndcg) > 1e-9 {
			t.Errorf("ndcgAt(%v) = %v, want %v", tt.ranked, got, tt.ndcg)
		}
		if got := recallAt(tt.ranked, rel, 2); absDiff(got-tt.rec2) > 1e-9 {
			t.Errorf("recallAt(%v) = %v, want %v", tt.ranked, got, tt.rec2)
		}
	}
}

func absDiff(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestRetrievalQuality runs the SciFact retrieval suite (about half a
// minute on 2 cores; skipped with -short or without the data).
func TestRetrievalQuality(t *testing.T) {
	skipHeavy(t)
	if testing.Short() {
		t.Skip("retrieval quality suite skipped in -short mode")
	}
	root := retrievalDataRoot(t)
	var buf bytes.Buffer
	rep, err := RetrievalQuality(context.Background(), root, &buf)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
	if len(rep.Rows) != 4 || rep.Queries < 500 {
		t.Fatalf("got %d rows over %d queries, want 4 rows over >= 500 queries", len(rep.Rows), rep.Queries)
	}
	lex, rr := rep.Rows[0], rep.Rows[3]
	// Floors well below the measured values: they catch a broken lane or
	// reranker, not noise.
	if lex.NDCG10 < 0.55 {
		t.Errorf("lexical nDCG@10 = %.3f, want >= 0.55", lex.NDCG10)
	}
	if rr.NDCG10 < lex.NDCG10-0.01 {
		t.Errorf("hybrid+rerank nDCG@10 = %.3f below lexical %.3f", rr.NDCG10, lex.NDCG10)
	}
}
