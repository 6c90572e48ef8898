package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answer-guard/guard/index"
	"go.uber.org/zap"
)

func testDocs() []index.Doc {
	return []index.Doc{
		{ID: "a-backup", Tenant: "acme", KB: "docs", Kind: "lecture", Address: "HB 1.1", Title: "Backups", Text: "Nightly backups are written to the backup target and kept for fourteen days. Restore a backup with the restore command."},
		{ID: "a-restore", Tenant: "acme", KB: "docs", Kind: "lecture", Address: "HB 1.2", Title: "Restoring", Text: "To restore, stop the service and run the restore command with the path of the backup archive."},
		{ID: "a-verse", Tenant: "acme", KB: "docs", Kind: "verse", Address: "OP 1.1", Title: "Principle", Text: "A backup is proven only by a restore."},
		{ID: "a-ports", Tenant: "acme", KB: "docs", Kind: "library", Address: "CFG listen", Title: "Listen port", Text: "The server listens on port 8420 by default."},
		{ID: "b-secret", Tenant: "globex", KB: "docs", Kind: "lecture", Address: "HB 1.1", Title: "Backups at Globex", Text: "Globex backups are restored with the secret vault restore command and the backup archive."},
		{ID: "b-other", Tenant: "globex", KB: "docs", Kind: "library", Address: "HB 9.9", Title: "Zebra", Text: "Zebra crossings and pelican crossings."},
	}
}

func testMemory() []index.MemoryEntry {
	return []index.MemoryEntry{
		{Type: "pin", Question: "How do I restore a backup archive?", Refs: []string{"a-restore"}, Tenant: "acme", KB: "docs"},
		{Type: "note", Note: "Curator: restore tests matter more than backup schedules.", Triggers: []string{"backup restore testing"}, Refs: []string{"a-backup", "a-restore", "a-verse"}, Tenant: "acme", KB: "docs"},
	}
}

func buildSnap(t testing.TB, ic index.Config, docs []index.Doc, mem []index.MemoryEntry) (string, *index.Snapshot) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.BuildDocs(context.Background(), ic, docs, mem, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := index.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func newEngine(t testing.TB, cfg Config, ic index.Config, s *index.Snapshot) *Engine {
	t.Helper()
	e, err := New(cfg, ic, s, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func ids(r Result) []string {
	var out []string
	for _, c := range r.Candidates {
		out = append(out, c.ID)
	}
	return out
}

func TestTenantIsolation(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), testMemory())
	e := newEngine(t, DefaultConfig(), ic, s)
	ctx := context.Background()
	// Every lane: lexical/dense ("restore backup archive"), address ("HB 1.1"),
	// memory (the acme pin). Twice each: cold, then warm.
	queries := []string{"restore the backup archive with the vault", "What does HB 1.1 say?", "How do I restore a backup archive?", "Zebra crossings"}
	for round := 0; round < 2; round++ {
		for _, q := range queries {
			ra, err := e.Retrieve(ctx, Query{Tenant: "acme", KB: "docs", Text: q})
			if err != nil {
				t.Fatal(err)
			}
			rb, err := e.Retrieve(ctx, Query{Tenant: "globex", KB: "docs", Text: q})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids(ra) {
				if strings.HasPrefix(id, "b-") {
					t.Errorf("round %d %q: tenant acme got globex chunk %s", round, q, id)
				}
			}
			for _, id := range ids(rb) {
				if strings.HasPrefix(id, "a-") {
					t.Errorf("round %d %q: tenant globex got acme chunk %s", round, q, id)
				}
			}
			if len(rb.Memory) > 0 {
				t.Errorf("round %d %q: globex got acme memory %v", round, q, rb.Memory)
			}
		}
	}
	if got := e.KBs("acme"); !slices.Equal(got, []string{"docs"}) {
		t.Errorf("KBs(acme) = %v, want [docs]", got)
	}
	if e.Contains("acme", "docs", "b-secret") || !e.Contains("globex", "docs", "b-secret") {
		t.Error("Contains must be scoped to the partition")
	}
	r, err := e.Retrieve(ctx, Query{Tenant: "nobody", KB: "docs", Text: "backup"})
	if err != nil || len(r.Candidates) != 0 {
		t.Errorf("unknown tenant: got %v, %v; want empty result, nil", ids(r), err)
	}
}

func TestAddressLaneRanksFirst(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), nil)
	e := newEngine(t, DefaultConfig(), ic, s)
	r, err := e.Retrieve(context.Background(), Query{Tenant: "acme", KB: "docs", Text: "what is OP 1.1 about?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || r.Candidates[0].ID != "a-verse" || !r.Candidates[0].Forced || !slices.Contains(r.Candidates[0].Lanes, "address") {
		t.Fatalf("got %+v, want a-verse first, forced, via address", r.Candidates)
	}
	if r.Candidates[0].Score < DefaultConfig().AddressScore {
		t.Errorf("address hit score = %v, want >= %v", r.Candidates[0].Score, DefaultConfig().AddressScore)
	}
	// the gate reads rerank relevance when a reranker ran: an exact address
	// hit must not look irrelevant there because its text shares few words
	// with the question
	if !r.RerankActive || r.Candidates[0].Rerank < DefaultConfig().AddressScore {
		t.Errorf("address hit rerank = %v (rerank active %v), want >= %v", r.Candidates[0].Rerank, r.RerankActive, DefaultConfig().AddressScore)
	}
}

// Users type addresses in any case and with loose spacing: every form
// resolves through the address lane at rank 1 (a numbered-handbook form;
// the KJV forms are in kjv_test.go).
func TestAddressFormsRankFirst(t *testing.T) {
	ic := index.DefaultConfig()
	docs := append(testDocs(), index.Doc{ID: "a-err", Tenant: "acme", KB: "docs", Kind: "library", Address: "LF-4002", Title: "Account locked", Text: "The account is locked after five failed sign-ins."})
	_, s := buildSnap(t, ic, docs, nil)
	e := newEngine(t, DefaultConfig(), ic, s)
	for _, tc := range []struct{ q, want string }{
		{"explain hb 1.2", "a-restore"},
		{"HB1.2", "a-restore"},
		{"Hb. 1.2 please", "a-restore"},
		{"what does hb-1.2 say", "a-restore"},
		{"what is op 1.1 about", "a-verse"},
		{"error lf 4002?", "a-err"},
		{"LF4002", "a-err"},
		{"Lf-4002 again", "a-err"},
	} {
		r, err := e.Retrieve(context.Background(), Query{Tenant: "acme", KB: "docs", Text: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].ID != tc.want || !slices.Contains(r.Candidates[0].Lanes, "address") {
			t.Errorf("%q: got %v, want %s first via the address lane", tc.q, ids(r), tc.want)
		}
	}
}

func TestIncrementalAddVisibleAfterSwap(t *testing.T) {
	ic := index.DefaultConfig()
	dir, s := buildSnap(t, ic, testDocs(), nil)
	e := newEngine(t, DefaultConfig(), ic, s)
	ctx := context.Background()
	q := Query{Tenant: "acme", KB: "docs", Text: "kangaroo migration schedule"}
	r, _ := e.Retrieve(ctx, q)
	if slices.Contains(ids(r), "a-new") {
		t.Fatal("a-new visible before add")
	}
	corpus := filepath.Join(t.TempDir(), "new.jsonl")
	lines := `{"id":"a-new","tenant":"acme","kb":"docs","kind":"lecture","text":"The kangaroo migration schedule is published every spring."}
{"id":"a-ports","tenant":"acme","kb":"docs","kind":"library","text":"The server now listens on port 9999."}
`
	if err := os.WriteFile(corpus, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "snap2")
	man, err := index.Add(ctx, ic, dir, []string{corpus}, nil, next, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if man.Docs != 7 {
		t.Errorf("docs after add = %d, want 7 (one new, one replaced)", man.Docs)
	}
	s2, err := index.Load(next)
	if err != nil {
		t.Fatal(err)
	}
	e.Swap(s2)
	r, err = e.Retrieve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || r.Candidates[0].ID != "a-new" {
		t.Errorf("after swap got %v, want a-new first", ids(r))
	}
	r, _ = e.Retrieve(ctx, Query{Tenant: "acme", KB: "docs", Text: "which port does the server listen on"})
	for _, c := range r.Candidates {
		if c.ID == "a-ports" && !strings.Contains(c.Text, "9999") {
			t.Errorf("replaced doc still has old text %q", c.Text)
		}
	}
	if !e.Contains("acme", "docs", "a-new") {
		t.Error("catalog misses the added id")
	}
}

// embedServer is an OpenAI-compatible embeddings endpoint on loopback that
// maps texts to deterministic vectors, or fails when down is set. It counts
// the requests it receives in calls (which may be nil).
func embedServer(t testing.TB, down *atomic.Bool, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, s := range req.Input {
			v := make([]float32, 8)
			for _, tok := range index.Tokenize(s) {
				v[len(tok)%8] += 1
			}
			v[0] += 0.01
			data = append(data, item{i, v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbedderDownDegrades(t *testing.T) {
	var down atomic.Bool
	srv := embedServer(t, &down, nil)
	ic := index.DefaultConfig()
	ic.Embedder = "remote"
	ic.Remote.BaseURL = srv.URL
	ic.Remote.Model = "test-embed"
	ic.Remote.Retries = 0
	_, s := buildSnap(t, ic, testDocs(), nil)
	cfg := DefaultConfig()
	cfg.LaneTimeout = 30 * time.Second // a loaded CI machine must not fake an outage
	e := newEngine(t, cfg, ic, s)
	ctx := context.Background()
	r, err := e.Retrieve(ctx, Query{Tenant: "acme", KB: "docs", Text: "restore the backup archive"})
	if err != nil || len(r.Degraded) != 0 || len(r.Candidates) == 0 {
		t.Fatalf("embedder up: got %v degraded %v err %v", ids(r), r.Degraded, err)
	}
	down.Store(true)
	for _, tt := range []struct{ q, want, lane string }{
		{"restore the backup archive", "a-restore", "lexical"},
		{"show me OP 1.1", "a-verse", "address"},
	} {
		// A cached query vector would hide the outage: use fresh text.
		r, err := e.Retrieve(ctx, Query{Tenant: "acme", KB: "docs", Text: tt.q + " please"})
		if err != nil {
			t.Fatalf("%q: %v", tt.q, err)
		}
		if !slices.Contains(r.Degraded, "embeddings") {
			t.Errorf("%q: degraded = %v, want embeddings", tt.q, r.Degraded)
		}
		found := false
		for _, c := range r.Candidates {
			if c.ID == tt.want && slices.Contains(c.Lanes, tt.lane) {
				found = true
			}
			if slices.Contains(c.Lanes, "dense") {
				t.Errorf("%q: dense lane answered while the embedder is down", tt.q)
			}
		}
		if !found {
			t.Errorf("%q: got %v, want %s via %s", tt.q, ids(r), tt.want, tt.lane)
		}
	}
}

func TestRemoteRerankFallsBackToLocal(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/broken" {
			http.Error(w, "no", 500)
			return
		}
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type res struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []res
		for i, d := range req.Documents {
			s := 0.1
			if strings.Contains(d, "port") {
				s = 0.9
			}
			out = append(out, res{i, s})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), nil)
	for _, tt := range []struct {
		path     string
		degraded bool
	}{{"/rerank", false}, {"/broken", true}} {
		cfg := DefaultConfig()
		cfg.Rerank.Mode = "remote"
		cfg.Rerank.URL = srv.URL + tt.path
		cfg.Rerank.Timeout = 30 * time.Second
		e, err := New(cfg, ic, nil, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.RetrieveFrom(context.Background(), s, Query{Tenant: "acme", KB: "docs", Text: "backup restore port"})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(r.Degraded, "rerank"); got != tt.degraded || !r.RerankActive {
			t.Errorf("%s: degraded rerank = %v (%v), active %v; want %v, active", tt.path, got, r.Degraded, r.RerankActive, tt.degraded)
		}
		if !tt.degraded && (len(r.Candidates) == 0 || r.Candidates[0].ID != "a-ports") {
			t.Errorf("%s: got %v, want the remote reranker's pick a-ports first", tt.path, ids(r))
		}
	}
	s.Close()
	if calls.Load() < 2 {
		t.Errorf("remote reranker called %d times, want >= 2", calls.Load())
	}
}

func TestRewriteAddsQueriesAndDegrades(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "broken") {
			http.Error(w, "no", 500)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "keywords: zebra pelican crossings\nquestion: where are zebra crossings?"}}}})
	}))
	defer srv.Close()
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), nil)
	defer s.Close()
	for _, tt := range []struct {
		base     string
		degraded bool
	}{{srv.URL + "/v1", false}, {srv.URL + "/broken", true}} {
		cfg := DefaultConfig()
		cfg.Rewrite = RewriteConfig{Enabled: true, BaseURL: tt.base, Model: "m", Max: 3, Timeout: DefaultConfig().Rewrite.Timeout}
		e, err := New(cfg, ic, nil, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.RetrieveFrom(context.Background(), s, Query{Tenant: "globex", KB: "docs", Text: "road safety markings"})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(r.Degraded, "rewrite"); got != tt.degraded {
			t.Errorf("%s: degraded = %v, want rewrite degraded %v", tt.base, r.Degraded, tt.degraded)
		}
		lexical := false
		for _, c := range r.Candidates {
			if c.ID == "b-other" && slices.Contains(c.Lanes, "lexical") {
				lexical = true
			}
		}
		if lexical == tt.degraded {
			t.Errorf("%s: b-other lexical hit = %v; only the rewrites share its words", tt.base, lexical)
		}
	}
}

func TestParseRewrites(t *testing.T) {
	got := parseRewrites("1. keywords: a b\n- question: What is c?\n\nWhat is c?\nq", "orig", 3)
	want := []string{"a b", "What is c?", "q"}
	if !slices.Equal(got, want) {
		t.Errorf("parseRewrites = %q, want %q", got, want)
	}
}

// TestSwapUnderLoad swaps snapshots while queries run: no query fails, and
// every retired snapshot is closed once its readers are done (run with -race).
func TestSwapUnderLoad(t *testing.T) {
	ic := index.DefaultConfig()
	dir, s := buildSnap(t, ic, testDocs(), nil)
	e := newEngine(t, DefaultConfig(), ic, s)
	ctx := context.Background()
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				r, err := e.Retrieve(ctx, Query{Tenant: "acme", KB: "docs", Text: "restore the backup archive"})
				// A snapshot closed under a reader would fail its lexical lane.
				if err != nil || len(r.Candidates) == 0 || len(r.Degraded) > 0 {
					errs <- fmt.Errorf("retrieve during swap: %v, %d candidates, degraded %v", err, len(r.Candidates), r.Degraded)
					return
				}
			}
		}()
	}
	for i := 0; i < 5; i++ {
		s2, err := index.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		e.Swap(s2)
	}
	close(done)
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// The issue's own forms on the embedded demo handbook: "explain hb 5.3",
// "HB5.3" and "Hb. 5.3" all put HB 5.3 first through the address lane.
func TestDemoHandbookAddressForms(t *testing.T) {
	ic := index.DefaultConfig()
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.BuildDemo(context.Background(), ic, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := index.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, DefaultConfig(), ic, s)
	for _, q := range []string{"explain hb 5.3", "HB5.3", "Hb. 5.3", "HB 5.3"} {
		r, err := e.Retrieve(context.Background(), Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].ID != "hb-5-3" || !slices.Contains(r.Candidates[0].Lanes, "address") {
			t.Errorf("%q: got %v, want hb-5-3 first via the address lane", q, ids(r))
		}
	}
}

// laneSets holds, for every lane mask, the names the per-candidate loop
// it replaced made: nil for none, laneNames' order, clipped.
func TestLaneSets(t *testing.T) {
	for m := range 1 << len(laneNames) {
		var want []string
		for i, name := range laneNames {
			if m&(1<<i) != 0 {
				want = append(want, name)
			}
		}
		got := laneSets[m]
		if !slices.Equal(got, want) || (got == nil) != (want == nil) || cap(got) != len(got) {
			t.Errorf("mask %04b: %q (cap %d), want %q", m, got, cap(got), want)
		}
	}
}
