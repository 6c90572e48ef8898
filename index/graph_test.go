package index

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestGraphRecall builds a partition above exact_below and checks that the
// graph search finds the exact top 10 on clustered synthetic data, where
// disjoint topics would become islands of a graph built without the
// neighbour-selection heuristic (measured 1.00; 0.70 with coder/hnsw's
// graph before 2026-11-28; a broken search lands near 0.1).
func TestGraphRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	var docs []Doc
	for i := 0; i < 3000; i++ {
		text := ""
		topic := rng.IntN(40) * 10
		for j := 0; j < 12; j++ {
			text += words[(topic+rng.IntN(10))%400] + " "
			if rng.IntN(3) == 0 {
				text += words[rng.IntN(400)] + " "
			}
		}
		docs = append(docs, Doc{ID: fmt.Sprint("d", i), Text: text})
	}
	cfg := DefaultConfig()
	cfg.HNSW.ExactBelow = 100
	// These tests exercise the graph mechanics over the hashed model's
	// vectors (queried with p.Local().EmbedText); they pin that embedder.
	cfg.Embedder = EmbedderHashed
	s, p := buildGraphPartition(t, cfg, docs, filepath.Join(t.TempDir(), "s"))
	defer s.Close()
	var found, total int
	for i := 0; i < 50; i++ {
		q := p.Local().EmbedText(docs[rng.IntN(len(docs))].Text)
		got, err := p.Dense(q, 10, 4)
		if err != nil {
			t.Fatal(err)
		}
		g := p.graph
		p.graph = nil
		want, _ := p.Dense(q, 10, 1)
		p.graph = g
		in := map[int]bool{}
		for _, h := range got {
			in[h.Index] = true
		}
		for _, h := range want {
			total++
			if in[h.Index] {
				found++
			}
		}
	}
	recall := float64(found) / float64(total)
	t.Logf("graph recall@10 %.3f", recall)
	if recall < 0.95 {
		t.Errorf("graph recall@10 = %.2f, want >= 0.95", recall)
	}
}
