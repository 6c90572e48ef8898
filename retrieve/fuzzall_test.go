package retrieve

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answer-guard/guard/index"
)

// FuzzRetrieveQuery sends any question text through a real engine built
// once per fuzz process: the demo corpus with the default index and
// retrieve configuration (the embedded sentence encoder, retrieve.semantic
// on, expansion, the local rerank), the text also as a rewrite's extra
// text (Query.Also). No panic, no error; the results are well-formed:
// each candidate has an id, no id twice, scores in [0,1], no NaN feature,
// at most pool_cap of them (a passage the expansion alone found has no
// lane: that is by design, not checked).
func FuzzRetrieveQuery(f *testing.F) {
	for _, q := range demoPrompts {
		f.Add(q)
	}
	// some with runes whose lower case is longer or shorter than they are
	// (İ, invalid UTF-8, the Kelvin sign): the class of judge.splitItems'
	// panic
	wide := strings.NewReplacer("i", "İ", "k", "\u212a", " ", " \xff")
	for i, q := range fuzzSeedQuestions(f) {
		f.Add(q)
		if i%3 == 0 {
			f.Add(wide.Replace(q))
		}
	}
	for _, q := range []string{"HB 1.1", "LF-4002", "İİİ \xff 1:2", "Genesis 1:1 and HB 2.3.4", ""} {
		f.Add(q)
	}
	cfg := DefaultConfig()
	e, _ := demoEngine(f, cfg, index.DefaultConfig())
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, q string) {
		for _, query := range []Query{
			{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q},
			{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: "How do I restore a backup?", Also: []string{q}},
		} {
			res, err := e.Retrieve(ctx, query)
			if err != nil {
				t.Fatalf("Retrieve(%q): %v", q, err)
			}
			if len(res.Candidates) > cfg.PoolCap {
				t.Fatalf("%d candidates, pool cap %d", len(res.Candidates), cfg.PoolCap)
			}
			seen := map[string]bool{}
			for _, c := range res.Candidates {
				if c.ID == "" || seen[c.ID] {
					t.Fatalf("candidate %q twice or without an id", c.ID)
				}
				seen[c.ID] = true
				if !(c.Score >= 0 && c.Score <= 1) {
					t.Fatalf("candidate %s: score %v", c.ID, c.Score)
				}
				for _, x := range []float64{c.Rerank, c.Sim, c.Soft, c.SoftMin, c.Focus, c.FocusMiss, c.FocusWorst, c.SentSoft, c.Coherence} {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("candidate %s: a feature is %v: %+v", c.ID, x, c)
					}
				}
			}
			if res.IDF != nil {
				if w := res.IDF(q); math.IsNaN(w) {
					t.Fatalf("IDF(%q) NaN", q)
				}
			}
		}
	})
}

// fuzzSeedQuestions are the dev gate sets' questions
// (bench/testdata/gate/*/questions.jsonl), every fifth one.
func fuzzSeedQuestions(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob("../bench/testdata/gate/*/questions.jsonl")
	var out []string
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for i := 0; sc.Scan(); i++ {
			var q struct{ Question string }
			if json.Unmarshal(sc.Bytes(), &q) == nil && i%5 == 0 {
				out = append(out, q.Question)
			}
		}
		f.Close()
	}
	return out
}
