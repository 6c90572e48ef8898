package retrieve

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/cputime"
)

// shopDocs is a small service corpus in its own words; the questions
// below ask in a customer's.
func serviceDocs() []index.Doc {
	return []index.Doc{
		{ID: "repair", Tenant: "t", KB: "k", Title: "Repairs", Text: "Puncture repair costs 8 pounds per wheel, including a new inner tube."},
		{ID: "hours", Tenant: "t", KB: "k", Title: "Opening", Text: "We are open Tuesday to Saturday, 9am to 5:30pm, and closed on bank holidays."},
		{ID: "prices", Tenant: "t", KB: "k", Title: "Prices", Text: "Seniors over 65 and students with a valid card pay 4.50 euros."},
		{ID: "travel", Tenant: "t", KB: "k", Title: "Travel", Text: "Taxis are allowed after 9pm when no train runs."},
		{ID: "drinks", Tenant: "t", KB: "k", Title: "Meals", Text: "Alcohol is never reimbursed with a meal."},
		{ID: "service", Tenant: "t", KB: "k", Title: "Servicing", Text: "An annual service checks brakes, gears and chain."},
	}
}

func serviceEngine(t *testing.T, cfg Config) (*Engine, *index.Snapshot) {
	t.Helper()
	ic := index.DefaultConfig()
	ic.Embedder = index.EmbedderHashed // the expansion reads no dense vector
	_, s := buildSnap(t, ic, serviceDocs(), nil)
	e := newEngine(t, cfg, ic, s)
	return e, s
}

func expanded(r Result) map[string][]string {
	m := map[string][]string{}
	for _, x := range r.Expansion {
		m[x.Word] = x.Near
	}
	return m
}

// TestExpandIntoCorpusWords: a question in words the corpus never uses
// is expanded into the corpus's words, the passage that uses them ranks
// first, and the rerank scores and lanes the gate reads are those without
// the expansion (it moves the order only).
func TestExpandIntoCorpusWords(t *testing.T) {
	e, _ := serviceEngine(t, DefaultConfig())
	off := DefaultConfig()
	off.ExpandMax = 0
	eOff, _ := serviceEngine(t, off)
	for _, tc := range []struct {
		q, word, want, doc string
	}{
		{"can I take a cab home?", "cab", "taxis", "travel"},
		{"can I claim a beer with dinner?", "beer", "alcohol", "drinks"},
		{"when do you shut?", "shut", "closed", "hours"},
		{"is there a discount for pensioners?", "pensioners", "seniors", "prices"},
	} {
		q := Query{Tenant: "t", KB: "k", Text: tc.q}
		r, err := e.Retrieve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if got := expanded(r); !slices.Contains(got[tc.word], tc.want) {
			t.Errorf("%q: expansion %v, want %q among %q's", tc.q, r.Expansion, tc.want, tc.word)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].DocID != tc.doc {
			t.Errorf("%q: order %v, want %s first", tc.q, ids(r), tc.doc)
		}
		plain, err := eOff.Retrieve(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]Candidate{}
		for _, c := range plain.Candidates {
			want[c.DocID] = c
		}
		for _, c := range r.Candidates {
			w, ok := want[c.DocID]
			if !ok {
				continue
			}
			if c.Rerank != w.Rerank || !slices.Equal(c.Lanes, w.Lanes) || c.Forced != w.Forced {
				t.Errorf("%q: %s: rerank %g, lanes %v, forced %v; without the expansion %g, %v, %v",
					tc.q, c.DocID, c.Rerank, c.Lanes, c.Forced, w.Rerank, w.Lanes, w.Forced)
			}
		}
	}
}

func TestExpandLeavesKnownAndCommonWords(t *testing.T) {
	e, _ := serviceEngine(t, DefaultConfig())
	// "repair", "puncture" and "wheel" are the corpus's; "much", "get"
	// and "one" are too common to expand; "2024" is a number.
	r, err := e.Retrieve(context.Background(), Query{Tenant: "t", KB: "k", Text: "how much does one puncture repair get per wheel in 2024?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Expansion) != 0 {
		t.Errorf("expansion %v, want none", r.Expansion)
	}
}

func TestExpandOffAndLexicalOnly(t *testing.T) {
	off := DefaultConfig()
	off.ExpandMax = 0
	lexOnly := DefaultConfig()
	lexOnly.Semantic = false
	for name, cfg := range map[string]Config{"expand_max 0": off, "semantic off": lexOnly} {
		e, s := serviceEngine(t, cfg)
		r, err := e.Retrieve(context.Background(), Query{Tenant: "t", KB: "k", Text: "can I take a cab home?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Expansion) != 0 {
			t.Errorf("%s: expansion %v, want none", name, r.Expansion)
		}
		for _, c := range r.Candidates {
			if c.DocID == "travel" && slices.Contains(c.Lanes, "lexical") {
				t.Errorf("%s: the lexical lane found the taxi passage, which shares no word with the question", name)
			}
		}
		p := s.Partition("t", "k")
		if hits, err := p.LexicalExpanded(context.Background(), "take cab home", nil, 0.5, 10); err != nil || len(hits) != 0 {
			t.Errorf("%s: LexicalExpanded without extra words: %v, %v; want no hit", name, hits, err)
		}
	}
}

func TestLexicalExpandedSumsScores(t *testing.T) {
	_, s := serviceEngine(t, DefaultConfig())
	p := s.Partition("t", "k")
	ctx := context.Background()
	base, err := p.Lexical(ctx, "chain repair", 10)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := p.Lexical(ctx, "taxis", 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.LexicalExpanded(ctx, "chain repair", []string{"taxis"}, 0.5, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{}
	for _, h := range base {
		want[h.Index] += h.Score
	}
	for _, h := range extra {
		want[h.Index] += 0.5 * h.Score
	}
	if len(got) != len(want) {
		t.Fatalf("got %d hits, want %d", len(got), len(want))
	}
	for i, h := range got {
		if d := h.Score - want[h.Index]; d > 1e-9 || d < -1e-9 {
			t.Errorf("hit %d: score %g, want %g", h.Index, h.Score, want[h.Index])
		}
		if i > 0 && got[i-1].Score < h.Score {
			t.Errorf("hits not in descending order: %v", got)
		}
	}
}

// expandQuestions ask the embedded demo handbook in words it mostly does
// not use.
var expandQuestions = []string{
	"how do I get my money back for a broken laptop?",
	"what happens if the backup drive dies overnight?",
	"can a pensioner get a discount on the yearly plan?",
	"who fixes a flat tyre on the delivery van?",
	"is there a guarantee on restored files?",
	"how long until my refund lands?",
}

func demoEngine(b testing.TB, cfg Config, ic index.Config) (*Engine, *index.Snapshot) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "snap")
	if _, err := index.BuildDemo(context.Background(), ic, dir, zap.NewNop()); err != nil {
		b.Fatal(err)
	}
	s, err := index.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	return newEngine(b, cfg, ic, s), s
}

// BenchmarkExpand is the expansion of one question on the demo handbook
// (207 passages): warm (each word's nearest words remembered, as for a
// word asked before) and cold (the memo dropped every time: each unknown
// word scans the partition's vocabulary).
func BenchmarkExpand(b *testing.B) {
	ic := index.DefaultConfig()
	ic.Embedder = index.EmbedderHashed
	e, s := demoEngine(b, DefaultConfig(), ic)
	p := s.Partition(index.DefaultTenant, index.DefaultKB)
	start := time.Now()
	vr := e.exp.vocab(p) // once per snapshot: the partition's words, then their vectors
	b.Logf("vocabulary: %d words with vectors, built in %s", len(vr.words), time.Since(start))
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			c0 := cputime.Process()
			for b.Loop() {
				if cold {
					vr.memo.Clear()
					vr.n.Store(0)
				}
				e.exp.expand(p, expandQuestions[i%len(expandQuestions)])
				i++
			}
			b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkRetrieveExpand is one whole retrieval on the demo handbook with
// the encoder lane and the semantic features on, with the expansion on
// and off (question vectors cached: the difference is the expansion and
// the second lexical query).
func BenchmarkRetrieveExpand(b *testing.B) {
	ic := index.DefaultConfig()
	for _, max := range []int{0, DefaultConfig().ExpandMax} {
		cfg := DefaultConfig()
		cfg.ExpandMax = max
		e, _ := demoEngine(b, cfg, ic)
		b.Run(fmt.Sprintf("expand_max=%d", max), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			c0 := cputime.Process()
			for b.Loop() {
				if _, err := e.Retrieve(context.Background(), Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: expandQuestions[i%len(expandQuestions)]}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
