package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
)

// lexQueries are queries for TestLexicalAsBleve: the demo questions, then
// random runs of 1 to 12 words drawn from the partition's texts, with
// stopwords, repeats, unknown words and punctuation among them.
func lexQueries(p *Partition, n int, seed uint64) []string {
	qs := []string{"How do I restore a backup?", "How do I set up OpenID Connect?", "Why does search return nothing?",
		"Can two people edit the same page at once?", "How do I encrypt off-site backups?", "What does error LF-4002 mean?",
		"Which database does Lanternfish need?", "What is the maximum attachment size?",
		"", "the of and", "backup backup backups", "zzqx qqzv", "?!", "backup zzqx"}
	var words []string
	for _, c := range p.Chunks() {
		words = append(words, strings.Fields(c.Title+" "+c.Text)...)
	}
	words = append(words, "zzqx", "the", "a", "of", "?", "backup")
	r := rand.New(rand.NewPCG(seed, 7))
	for range n {
		m := 1 + r.IntN(12)
		q := make([]string, m)
		for i := range q {
			q[i] = words[r.IntN(len(words))]
		}
		if r.IntN(4) == 0 && m > 1 {
			q[m-1] = q[0] // a repeated word: two clauses of one term
		}
		qs = append(qs, strings.Join(q, " "))
	}
	return qs
}

// checkLexicalAsBleve compares Lexical (lexReader where it answers)
// with Bleve's own match query: the same hits in the same order with the
// same score bits, for several k.
func checkLexicalAsBleve(t *testing.T, p *Partition, qs []string) {
	t.Helper()
	ctx := context.Background()
	fast := 0
	for _, q := range qs {
		for _, k := range []int{1, 3, 10, 50, 1000} {
			want, err := p.bleveLexical(ctx, q, k)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Lexical(ctx, q, k)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameHits(got, want); err != nil {
				t.Fatalf("%q k=%d: %v\n got %v\nwant %v", q, k, err, got, want)
			}
		}
		if p.lexR != nil {
			if _, ok, _ := p.lexR.search(ctx, q, 10, p); ok {
				fast++
			}
		}
	}
	if p.lexR == nil || fast < len(qs)/2 {
		t.Fatalf("lexReader answered %d of %d queries (reader %v), want most", fast, len(qs), p.lexR != nil)
	}
}

func sameHits(got, want []Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Index != w.Index || math.Float64bits(g.Score) != math.Float64bits(w.Score) ||
			math.Float64bits(g.Base) != math.Float64bits(w.Base) {
			return fmt.Errorf("hit %d = %+v, want %+v", i, g, w)
		}
	}
	return nil
}

// TestLexicalAsBleve: the lexical lane's own evaluation of the match query
// gives Bleve's hits, order and scores to the bit on the demo corpus.
func TestLexicalAsBleve(t *testing.T) {
	p := demoPartition(t)
	n := 3000
	if testing.Short() {
		n = 400
	}
	checkLexicalAsBleve(t, p, lexQueries(p, n, 1))
}

// TestLexicalAsBleveAfterAdd: the same on a snapshot made by Add (two
// segments, deleted and replaced documents), with duplicate texts whose
// equal scores Bleve orders by document number.
func TestLexicalAsBleveAfterAdd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	texts := []string{
		"Large lockers for bags and prams are next to the main entrance.",
		"The sauna and steam room are for adults only.",
		"The pool has six swimming lanes of fifty metres.",
		"The cafe sells hot soup and sandwiches until six.",
		"Swimming lessons for children run on Saturday mornings.",
		"Seniors over 65 and students with a valid card pay less.",
	}
	var docs []Doc
	for i := range 60 {
		docs = append(docs, Doc{ID: fmt.Sprintf("d%02d", i), Text: texts[i%len(texts)]})
	}
	base := filepath.Join(dir, "base")
	if _, err := BuildDocs(ctx, DefaultConfig(), docs, nil, base, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	var add strings.Builder
	for i := 0; i < 60; i += 7 {
		fmt.Fprintf(&add, `{"id":"d%02d","deleted":true}`+"\n", i)
	}
	for i := 3; i < 60; i += 11 {
		fmt.Fprintf(&add, `{"id":"d%02d","text":"The sauna is open late on Fridays, and the pool too."}`+"\n", i)
	}
	add.WriteString(`{"id":"new1","text":"Lockers are back, by the showers of the pool."}` + "\n")
	src := filepath.Join(dir, "add.jsonl")
	if err := os.WriteFile(src, []byte(add.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v1")
	if _, err := Add(ctx, DefaultConfig(), base, []string{src}, nil, out, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	checkLexicalAsBleve(t, p, lexQueries(p, 300, 2))

	// With the postings budget spent, terms are read for each query.
	s2, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	left := lexCacheBudget.Swap(0)
	defer lexCacheBudget.Add(left)
	p2 := s2.Partition(DefaultTenant, DefaultKB)
	checkLexicalAsBleve(t, p2, lexQueries(p2, 300, 4))
	if n := p2.lexR.kept.Load(); n != 0 {
		t.Errorf("kept %d postings past the budget", n)
	}
}

// TestLexicalConcurrent: queries on four goroutines (shared reader, pooled
// accumulators, slot cache) give what one goroutine gets.
func TestLexicalConcurrent(t *testing.T) {
	p := demoPartition(t)
	qs := lexQueries(p, 200, 3)
	ctx := context.Background()
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		h, err := p.bleveLexical(ctx, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = h
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for j := range qs {
				i := (j + g*37) % len(qs)
				got, err := p.Lexical(ctx, qs[i], 20)
				if err != nil {
					t.Error(err)
					return
				}
				if err := sameHits(got, want[i]); err != nil {
					t.Errorf("%q: %v", qs[i], err)
					return
				}
			}
		})
	}
	wg.Wait()
}
