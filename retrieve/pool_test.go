package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answer-guard/guard/index"
)

// fakeReranker scores documents by title from a fixed table (0 for titles
// not in it) and records the titles of the pool it was last given, so a
// test can see what reached rerank and dictate the rerank order.
type fakeReranker struct {
	mu     sync.Mutex
	scores map[string]float64
	seen   []string
}

var _ Reranker = (*fakeReranker)(nil)

func (f *fakeReranker) Rerank(_ context.Context, _ string, docs []RerankDoc) ([]float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = f.seen[:0]
	out := make([]float64, len(docs))
	for i, d := range docs {
		f.seen = append(f.seen, d.Title)
		out[i] = f.scores[d.Title]
	}
	return out, nil
}

func (f *fakeReranker) pool() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

// rerankEngine is an engine (without a snapshot of its own: use
// RetrieveFrom) whose pool is ordered by rr.
func rerankEngine(t *testing.T, cfg Config, ic index.Config, rr Reranker) *Engine {
	t.Helper()
	e := newEngine(t, cfg, ic, nil)
	e.remote = rr
	return e
}

// kindDocs is one partition (acme/kinds) of 12 lectures, 3 verses and 3
// library chunks, all on one topic; every title is the chunk id, so a
// fakeReranker can be keyed by id.
func kindDocs() []index.Doc {
	var docs []index.Doc
	add := func(id, kind string, n int) {
		docs = append(docs, index.Doc{ID: id, Tenant: "acme", KB: "kinds", Kind: kind, Title: id,
			Text: fmt.Sprintf("Backups are restored from the archive with the restore command, note %d.", n)})
	}
	for i := 1; i <= 12; i++ {
		add(fmt.Sprintf("L%02d", i), "lecture", i)
	}
	for i := 1; i <= 3; i++ {
		add(fmt.Sprintf("V%d", i), "verse", 20+i)
		add(fmt.Sprintf("B%d", i), "library", 30+i)
	}
	return docs
}

// kindScores ranks every lecture above every verse, and every verse above
// every library chunk: L01 0.90 ... L12 0.79, V1..V3 0.30..0.28, B1..B3
// 0.20..0.18. over replaces single entries.
func kindScores(over map[string]float64) map[string]float64 {
	m := map[string]float64{}
	for i := 1; i <= 12; i++ {
		m[fmt.Sprintf("L%02d", i)] = 0.91 - 0.01*float64(i)
	}
	for i := 1; i <= 3; i++ {
		m[fmt.Sprintf("V%d", i)] = 0.31 - 0.01*float64(i)
		m[fmt.Sprintf("B%d", i)] = 0.21 - 0.01*float64(i)
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// kindQuery names no kind and no address.
const kindQuery = "how are backups restored from the archive"

func lectures(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("L%02d", i))
	}
	return out
}

// TestPoolCap: the rerank pool holds every forced hit (address, top
// lexical) and is filled up to pool_cap by calibrated dense score, never
// beyond. The snapshot uses the remote embedder (embedServer), so the
// calibrated score is the fake model's cosine and is independent of BM25:
// the forced hits are the ones the dense score alone would leave out.
func TestPoolCap(t *testing.T) {
	var docs []index.Doc
	doc := func(id, kind, address, text string) {
		docs = append(docs, index.Doc{ID: id, Tenant: "acme", KB: "pool", Kind: kind, Address: address, Title: id, Text: text})
	}
	for i := 1; i <= 20; i++ {
		// Fillers share the query's common words; i extra words lower
		// their cosine step by step.
		doc(fmt.Sprintf("F%02d", i), "lecture", "", "Restore the backup archive."+strings.Repeat(" tape", i))
	}
	// The lexical hits: the query's one rare word among many words of a
	// length the query has none of (the fake model buckets tokens by
	// length), so BM25 ranks them first and their cosine is low.
	doc("Q1", "lecture", "", "The quokka: cat dog fox owl bee ant cow pig hen yak elk eel.")
	doc("Q2", "lecture", "", "A quokka: ram ewe gnu emu bat rat cod koi jay asp boa.")
	// The address hit: nothing in common with the query.
	doc("Z1", "library", "HB 7.7", "Zebra crossings and pelican crossings.")
	var down atomic.Bool
	srv := embedServer(t, &down, nil)
	ic := index.DefaultConfig()
	ic.Embedder = "remote"
	ic.Remote.BaseURL = srv.URL + "/v1"
	ic.Remote.Model = "test-embed"
	_, s := buildSnap(t, ic, docs, nil)
	t.Cleanup(func() { s.Close() })
	q := Query{Tenant: "acme", KB: "pool", Text: "restore the backup archive of the quokka, see HB 7.7"}
	base := DefaultConfig()
	base.LaneTimeout = 30 * time.Second    // a loaded machine must not fake an outage
	base.LexicalK, base.LexicalKeep = 2, 2 // two forced lexical hits, both kept
	base.AddressScore = 0                  // the address hit must get in by being forced, not by its score floor
	base.Reserves = nil

	// Reference: the whole pool with calibrated scores (the scores do not
	// depend on the cap).
	ref := base
	ref.PoolCap, ref.TopK = 1000, 1000
	rr := &fakeReranker{}
	all, err := rerankEngine(t, ref, ic, rr).RetrieveFrom(context.Background(), s, q)
	if err != nil {
		t.Fatal(err)
	}
	var forced, free []Candidate
	for _, c := range all.Candidates {
		if c.Forced {
			forced = append(forced, c)
		} else {
			free = append(free, c)
		}
	}
	if len(all.Degraded) > 0 || len(all.Candidates) != len(docs) || len(rr.pool()) != len(docs) {
		t.Fatalf("reference pool: %d candidates, %d reranked, degraded %v; want all %d chunks", len(all.Candidates), len(rr.pool()), all.Degraded, len(docs))
	}
	var lexical, address int
	for _, c := range forced {
		if slices.Contains(c.Lanes, "lexical") {
			lexical++
		}
		if slices.Contains(c.Lanes, "address") {
			address++
		}
	}
	if lexical != 2 || address != 1 || len(forced) != 3 {
		t.Fatalf("fixture: forced hits %v; want 2 lexical and 1 address", forced)
	}
	// Each forced hit scores below the 3rd best other candidate, so even
	// a cap of 3 would leave it out on score alone.
	slices.SortFunc(free, func(a, b Candidate) int { return cmpDesc(a.Score, b.Score, 0, 0) })
	for _, c := range forced {
		if c.Score >= free[2].Score {
			t.Fatalf("fixture: forced %s scores %.3f >= %.3f (3rd best other); the cap tests would not test forcing", c.ID, c.Score, free[2].Score)
		}
	}

	for _, tt := range []struct {
		cap      int
		wantPool int
	}{
		{cap: 3, wantPool: 3},          // forced hits only
		{cap: 5, wantPool: 5},          // forced + the 2 best others
		{cap: 10, wantPool: 10},        // forced + the 7 best others
		{cap: 60, wantPool: len(docs)}, // the default: everything fits
	} {
		t.Run(fmt.Sprint("cap", tt.cap), func(t *testing.T) {
			cfg := base
			cfg.PoolCap, cfg.TopK = tt.cap, tt.cap
			rr := &fakeReranker{}
			r, err := rerankEngine(t, cfg, ic, rr).RetrieveFrom(context.Background(), s, q)
			if err != nil {
				t.Fatal(err)
			}
			pool := rr.pool()
			if len(pool) != tt.wantPool {
				t.Errorf("rerank pool = %d %v, want %d", len(pool), pool, tt.wantPool)
			}
			// Every forced hit reaches rerank and the final list, even the
			// ones whose calibrated score is below the cap's cut.
			for _, c := range forced {
				if !slices.Contains(pool, c.ID) || !slices.Contains(ids(r), c.ID) {
					t.Errorf("forced %s (%v, score %.3f) missing: pool %v, final %v", c.ID, c.Lanes, c.Score, pool, ids(r))
				}
			}
			// The rest of the pool is the best of the others by calibrated
			// score: no non-forced candidate left out scores above one let in.
			var in, out []Candidate
			for _, c := range free {
				if slices.Contains(pool, c.ID) {
					in = append(in, c)
				} else {
					out = append(out, c)
				}
			}
			if got, want := len(in), tt.wantPool-len(forced); got != want {
				t.Errorf("non-forced in pool = %d, want %d (cap %d)", got, want, tt.cap)
			}
			for _, a := range in {
				for _, b := range out {
					if b.Score > a.Score {
						t.Errorf("%s (score %.3f) left out of the pool while %s (%.3f) got in", b.ID, b.Score, a.ID, a.Score)
					}
				}
			}
		})
	}
}

// TestTopKCut: the final list is the best top_k by rerank order, plus
// reserves.
func TestTopKCut(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, kindDocs(), nil)
	t.Cleanup(func() { s.Close() })
	q := Query{Tenant: "acme", KB: "kinds", Text: kindQuery}
	for _, tt := range []struct {
		name     string
		k        int
		reserves map[string]int
		want     []string
	}{
		{"k1", 1, nil, lectures(1)},
		{"k5", 5, nil, lectures(5)},
		{"k12", 12, nil, lectures(12)},
		{"k14", 14, nil, append(lectures(12), "V1", "V2")},
		{"whole pool", 18, nil, append(lectures(12), "V1", "V2", "V3", "B1", "B2", "B3")},
		{"k5 with default reserves", 5, DefaultConfig().Reserves, append(lectures(5), "V1", "V2", "B1", "B2")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TopK, cfg.Reserves = tt.k, tt.reserves
			rr := &fakeReranker{scores: kindScores(nil)}
			r, err := rerankEngine(t, cfg, ic, rr).RetrieveFrom(context.Background(), s, q)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(rr.pool()); n != 18 {
				t.Fatalf("rerank pool = %d, want all 18 chunks", n)
			}
			if got := ids(r); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKindReserves: reserves add the best-ranked chunks of a kind from
// below the cut when the top k lacks them, counting those already in it.
func TestKindReserves(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, kindDocs(), nil)
	t.Cleanup(func() { s.Close() })
	q := Query{Tenant: "acme", KB: "kinds", Text: kindQuery}
	for _, tt := range []struct {
		name     string
		reserves map[string]int
		over     map[string]float64 // rerank score overrides
		want     []string
	}{
		{"default", map[string]int{"verse": 2, "library": 2}, nil, append(lectures(4), "V1", "V2", "B1", "B2")},
		{"none", nil, nil, lectures(4)},
		{"zero", map[string]int{"verse": 0, "library": 0}, nil, lectures(4)},
		{"verse only", map[string]int{"verse": 1}, nil, append(lectures(4), "V1")},
		{"more than the pool holds", map[string]int{"verse": 5}, nil, append(lectures(4), "V1", "V2", "V3")},
		// V2 ranks first: it counts towards the verse reserve, so only the
		// best verse below the cut (V1) is added.
		{"one already in top k", map[string]int{"verse": 2, "library": 2}, map[string]float64{"V2": 0.95},
			[]string{"V2", "L01", "L02", "L03", "V1", "B1", "B2"}},
		// Both library chunks in the top k: no library reserve is added.
		{"all in top k", map[string]int{"verse": 2, "library": 2}, map[string]float64{"B3": 0.97, "B2": 0.96},
			[]string{"B3", "B2", "L01", "L02", "V1", "V2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.TopK, cfg.Reserves = 4, tt.reserves
			r, err := rerankEngine(t, cfg, ic, &fakeReranker{scores: kindScores(tt.over)}).RetrieveFrom(context.Background(), s, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(r); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestKindBoost: when the question names a kind, candidates of that kind
// move up by kind_boost in the order; their calibrated score and their
// rerank score stay as they were.
func TestKindBoost(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, kindDocs(), nil)
	t.Cleanup(func() { s.Close() })
	scores := kindScores(map[string]float64{
		"L01": 0.50, "B1": 0.42, "V1": 0.40, "L02": 0.35, "V2": 0.30,
		"L03": 0.10, "L04": 0.10, "L05": 0.10, "L06": 0.10, "L07": 0.10, "L08": 0.10, "L09": 0.10, "L10": 0.10, "L11": 0.10, "L12": 0.10,
		"V3": 0.05, "B2": 0.05, "B3": 0.05,
	})
	const (
		verseQ   = "which verse says backups are restored from the archive"
		libraryQ = "which book says backups are restored from the archive"
	)
	for _, tt := range []struct {
		name  string
		q     string
		boost float64
		want  []string // the first five
	}{
		{"no kind named", kindQuery, 0.15, []string{"L01", "B1", "V1", "L02", "V2"}},
		// V1 0.40+0.15 passes L01 0.50; V2 0.30+0.15 passes B1 and L02 but not L01.
		{"verse", verseQ, 0.15, []string{"V1", "L01", "V2", "B1", "L02"}},
		{"verse, boost off", verseQ, 0, []string{"L01", "B1", "V1", "L02", "V2"}},
		{"library", libraryQ, 0.15, []string{"B1", "L01", "V1", "L02", "V2"}},
		{"library, boost off", libraryQ, 0, []string{"L01", "B1", "V1", "L02", "V2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := Query{Tenant: "acme", KB: "kinds", Text: tt.q}
			run := func(boost float64) Result {
				cfg := DefaultConfig()
				cfg.TopK, cfg.Reserves, cfg.KindBoost = 18, nil, boost
				r, err := rerankEngine(t, cfg, ic, &fakeReranker{scores: scores}).RetrieveFrom(context.Background(), s, q)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			r, plain := run(tt.boost), run(0)
			if got := ids(r); len(got) < 5 || !slices.Equal(got[:5], tt.want) {
				t.Errorf("order = %v, want it to start %v", got, tt.want)
			}
			want := map[string]Candidate{}
			for _, c := range plain.Candidates {
				want[c.ID] = c
			}
			for _, c := range r.Candidates {
				if c.Rerank != scores[c.ID] {
					t.Errorf("%s: rerank score = %v, want the reranker's %v", c.ID, c.Rerank, scores[c.ID])
				}
				if w, ok := want[c.ID]; !ok || c.Score != w.Score {
					t.Errorf("%s: calibrated score = %v with boost %v, want %v as without it", c.ID, c.Score, tt.boost, w.Score)
				}
			}
		})
	}
}

// TestTenantIsolationRemoteEmbedder: with a remote embedder and its cache
// warm, the same question asked under three look-alike partitions returns
// only each partition's own chunks, and each (tenant, kb) has its own
// cache entries: the embeddings endpoint is asked again for every new
// scope and not again for a scope it has answered.
func TestTenantIsolationRemoteEmbedder(t *testing.T) {
	var down atomic.Bool
	var calls atomic.Int32
	srv := embedServer(t, &down, &calls)
	ic := index.DefaultConfig()
	ic.Embedder = "remote"
	ic.Remote.BaseURL = srv.URL + "/v1"
	ic.Remote.Model = "test-embed"
	ic.Remote.Retries = 0
	scopes := [][2]string{{"acme", "docs"}, {"acme", "wiki"}, {"globex", "docs"}}
	prefix := func(tenant, kb string) string { return tenant + "-" + kb + "-" }
	var docs []index.Doc
	for _, sc := range scopes {
		p := prefix(sc[0], sc[1])
		docs = append(docs,
			index.Doc{ID: p + "backup", Tenant: sc[0], KB: sc[1], Kind: "lecture", Address: "HB 1.1", Title: "Backups", Text: "Nightly backups are written to the backup target. Restore a backup with the restore command."},
			index.Doc{ID: p + "verse", Tenant: sc[0], KB: sc[1], Kind: "verse", Address: "OP 1.1", Title: "Principle", Text: "A backup is proven only by a restore."},
			index.Doc{ID: p + "ports", Tenant: sc[0], KB: sc[1], Kind: "library", Title: "Listen port", Text: "The server listens on port 8420 by default."},
		)
	}
	_, s := buildSnap(t, ic, docs, nil)
	cfg := DefaultConfig()
	cfg.LaneTimeout = 30 * time.Second // a loaded machine must not fake an outage
	e := newEngine(t, cfg, ic, s)
	ctx := context.Background()
	const text = "How do I restore a backup? See HB 1.1"
	for _, step := range []struct {
		tenant, kb string
		requests   int32 // embeddings requests this query may cause
	}{
		{"acme", "docs", 1},   // cold
		{"acme", "docs", 0},   // warm: served from the cache
		{"globex", "docs", 1}, // same text, other tenant: its own key
		{"acme", "wiki", 1},   // same tenant, other kb: its own key
		{"globex", "docs", 0},
		{"acme", "wiki", 0},
		{"acme", "docs", 0},
	} {
		calls.Store(0)
		r, err := e.Retrieve(ctx, Query{Tenant: step.tenant, KB: step.kb, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		where := step.tenant + "/" + step.kb
		if got := calls.Load(); got != step.requests {
			t.Errorf("%s: %d embeddings requests, want %d (the cache is keyed by tenant and kb)", where, got, step.requests)
		}
		if len(r.Degraded) > 0 || len(r.Candidates) == 0 {
			t.Fatalf("%s: got %v, degraded %v; want candidates, nothing degraded", where, ids(r), r.Degraded)
		}
		dense, address := false, false
		for _, c := range r.Candidates {
			if !strings.HasPrefix(c.ID, prefix(step.tenant, step.kb)) {
				t.Errorf("%s: got chunk %s of another partition", where, c.ID)
			}
			dense = dense || slices.Contains(c.Lanes, "dense")
			address = address || slices.Contains(c.Lanes, "address")
		}
		if !dense || !address {
			t.Errorf("%s: dense lane %v, address lane %v; want both to answer", where, dense, address)
		}
	}
}
