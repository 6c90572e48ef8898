package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/cputime"
	"github.com/answer-guard/guard/internal/evaldata"

	"go.uber.org/zap"
)

// BenchmarkKJVDense measures the dense lane on KJV (31,102 verses; built
// with exact_below 20,000, the default before 2026-11-24, so the graph
// is built): recall@10 of
// Partition.Dense against an exact scan over 300 verse-text queries, how
// often a verse's own text finds that verse in the top 10, and per-query
// latency. Sub-benchmarks vary the search beam (graphEf) for the
// retrieve defaults (k 60, overfetch 4) and for a bare k 10, and run the
// exact scan (no graph) for comparison. Build-time settings are the
// defaults otherwise (one build, ~30 s of CPU). Report metrics: recall@10,
// self@10, p50-ms, p99-ms.
func BenchmarkKJVDense(b *testing.B) {
	docs, bad, err := ReadDocs([]string{evaldata.KJV(b)}, true)
	if err != nil || len(bad) > 0 {
		b.Fatal(err, bad)
	}
	cfg := DefaultConfig()
	cfg.HNSW.ExactBelow = 20000
	// These tests exercise the graph mechanics over the hashed model's
	// vectors (queried with p.Local().EmbedText); they pin that embedder.
	cfg.Embedder = EmbedderHashed
	s, p := buildGraphPartition(b, cfg, docs, b.TempDir())
	defer s.Close()
	graph := p.graph
	defer func() { p.graph = graph }()

	// 300 verse texts, fixed seed; the expected top 10 from an exact scan.
	rng := rand.New(rand.NewPCG(1, 2))
	const nq = 300
	type query struct {
		slot  int
		vec   []float32
		exact []int
	}
	qs := make([]query, nq)
	p.graph = nil
	for i := range qs {
		slot := rng.IntN(len(p.chunks))
		q := p.Local().EmbedText(p.chunks[slot].Text)
		hits, err := p.Dense(q, 10, 1)
		if err != nil {
			b.Fatal(err)
		}
		qs[i] = query{slot: slot, vec: q}
		for _, h := range hits {
			qs[i].exact = append(qs[i].exact, h.Index)
		}
	}

	run := func(b *testing.B, k, overfetch int) {
		var lat []time.Duration
		for b.Loop() {
			lat = lat[:0]
			found, self := 0, 0
			for _, q := range qs {
				t0 := time.Now()
				hits, err := p.Dense(q.vec, k, overfetch)
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) > 10 {
					hits = hits[:10]
				}
				for _, h := range hits {
					if slices.Contains(q.exact, h.Index) {
						found++
					}
					if h.Index == q.slot {
						self++
					}
				}
			}
			b.ReportMetric(float64(found)/float64(10*nq), "recall@10")
			b.ReportMetric(float64(self)/float64(nq), "self@10")
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("exact", func(b *testing.B) {
		p.graph = nil
		run(b, 60, 4)
	})
	for _, ef := range []int{64, 128, 256, 512} {
		for _, kf := range [][2]int{{10, 1}, {60, 4}} {
			b.Run(fmt.Sprintf("graph/ef=%d/k=%d/overfetch=%d", ef, kf[0], kf[1]), func(b *testing.B) {
				p.graph = graph
				old := graph.ef
				graph.ef = ef
				defer func() { graph.ef = old }()
				run(b, kf[0], kf[1])
			})
		}
	}
}

// TestExactScanTopK: the exact scan's bounded top-k returns what scoring
// every live chunk and sorting (score, then slot) returns, for every k,
// including ties (a duplicated document) and tombstoned slots.
func TestExactScanTopK(t *testing.T) {
	var docs []Doc
	for i := 0; i < 200; i++ {
		docs = append(docs, Doc{ID: fmt.Sprint("d", i), Text: fmt.Sprintf("word%d common text %d and more words %d", i%17, i%5, i%3)})
	}
	docs = append(docs, Doc{ID: "dup", Text: docs[3].Text}) // ties with d3
	out := filepath.Join(t.TempDir(), "s")
	cfg := DefaultConfig()
	cfg.Embedder = EmbedderHashed // the exact scan over the hashed vectors, queried with p.Local().EmbedText
	if _, err := BuildDocs(context.Background(), cfg, docs, nil, out, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	if p.graph != nil {
		t.Fatal("want the exact scan")
	}
	for i := 0; i < len(p.deleted); i += 7 {
		p.deleted[i] = true
	}
	for qi, text := range []string{docs[3].Text, "more words 2", "nothing matches zzz"} {
		q := p.Local().EmbedText(text)
		var all []Hit
		for i := range p.chunks {
			if !p.deleted[i] {
				all = append(all, Hit{Index: i, Score: p.Cosine(q, i)})
			}
		}
		slices.SortFunc(all, func(a, b Hit) int {
			if worse(a, b) {
				return 1
			}
			if worse(b, a) {
				return -1
			}
			return 0
		})
		for _, k := range []int{1, 2, 10, 60, len(all), len(all) + 5} {
			got, err := p.Dense(q, k, 4)
			if err != nil {
				t.Fatal(err)
			}
			want := all[:min(k, len(all))]
			if !slices.Equal(got, want) {
				t.Fatalf("query %d k %d: got %v, want %v", qi, k, got, want)
			}
		}
	}
}

// BenchmarkBuildKJV times a whole build of KJV (31,102 verses, hashed
// embedder) with the graph (exact_below 20,000) and without it (the
// default 50,000), and reports CPU seconds per build: the difference is
// the graph's cost. CPU time, not the wall clock: the machine is shared.
func BenchmarkBuildKJV(b *testing.B) {
	docs, bad, err := ReadDocs([]string{evaldata.KJV(b)}, true)
	if err != nil || len(bad) > 0 {
		b.Fatal(err, bad)
	}
	for _, below := range []int{20000, 50000} {
		b.Run(fmt.Sprint("exact_below=", below), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.HNSW.ExactBelow = below
			cfg.Embedder = EmbedderHashed
			dir := b.TempDir()
			n := 0
			c0 := cputime.Process()
			for b.Loop() {
				n++
				if _, err := BuildDocs(context.Background(), cfg, docs, nil, filepath.Join(dir, fmt.Sprint("s", n)), zap.NewNop()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-c0).Seconds()/float64(b.N), "cpu-s/build")
		})
	}
}
