package index

import (
	"context"
	"github.com/answer-guard/guard/internal/cputime"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// refMatch is Match written plainly with maps, from the query's tokens:
// the reference the masked scan must agree with.
func refMatch(p *Partition, text string, i int) Match {
	m := p.local
	toks := Tokenize(text)
	sp := m.sparseTokens(toks)
	terms, idfW, bigrams := map[uint32]float64{}, map[uint32]float64{}, map[uint64]float64{}
	var idfSum float64
	nBi := 0
	seen := map[string]bool{}
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		idfSum += m.IDF(t)
		if id, ok := m.termID(t, false); ok {
			terms[id], idfW[id] = sp[t], m.IDF(t)
		}
	}
	for k := 1; k < len(toks); k++ {
		nBi++
		a, okA := m.termID(toks[k-1], false)
		b, okB := m.termID(toks[k], false)
		if okA && okB {
			bigrams[uint64(a)<<32|uint64(b)] = sp[toks[k-1]+" "+toks[k]]
		}
	}
	var mt Match
	if len(terms) == 0 {
		return mt
	}
	ids := p.terms.Chunk(i)
	tl := int(p.terms.TitleLen[i])
	count, inTitle, bseen := map[uint32]int{}, map[uint32]bool{}, map[uint64]int{}
	for j, id := range ids {
		if _, ok := terms[id]; ok {
			count[id]++
			if j < tl {
				inTitle[id] = true
			}
		}
		if j > 0 {
			if b := uint64(ids[j-1])<<32 | uint64(id); hasKey(bigrams, b) {
				bseen[b]++
			}
		}
	}
	var dot float64
	for id, n := range count {
		w := terms[id]
		dot += w * (1 + math.Log(float64(n))) * m.idfID(id)
		mt.Coverage += w * w
	}
	for b, n := range bseen {
		w := bigrams[b]
		dot += w * m.BigramWeight * (1 + math.Log(float64(n))) * (m.idfID(uint32(b>>32)) + m.idfID(uint32(b))) / 2
		mt.Coverage += w * w
	}
	if norm := float64(p.terms.Norm[i]); norm > 0 {
		mt.Cosine = dot / norm
	}
	var s float64
	for id := range inTitle {
		s += idfW[id]
	}
	if idfSum > 0 {
		mt.TitleCov = s / idfSum
	}
	if nBi > 0 {
		mt.Bigrams = float64(len(bseen)) / float64(nBi)
	}
	return mt
}

func hasKey(m map[uint64]float64, k uint64) bool { _, ok := m[k]; return ok }

// demoPartition builds the embedded demo corpus on disk and returns its
// default partition, loaded (closed at the end of the test).
func demoPartition(tb testing.TB) *Partition {
	out := filepath.Join(tb.TempDir(), "demo")
	if _, err := BuildDemo(context.Background(), DefaultConfig(), out, zap.NewNop()); err != nil {
		tb.Fatal(err)
	}
	s, err := Load(out)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s.Partition(DefaultTenant, DefaultKB)
}

// TestMatchAgreesWithReference scores every demo chunk against short,
// repeated and long queries (the long one past the map threshold) and
// compares each statistic with the plain map-based reference.
func TestMatchAgreesWithReference(t *testing.T) {
	p := demoPartition(t)
	var long []string
	for i, c := range p.Chunks() {
		if i == 6 {
			break
		}
		long = append(long, c.Title, c.Text)
	}
	queries := []string{
		"How do I restore a backup?",
		"backup backup restore restore the backup",
		"What is the API rate limit per minute for tokens?",
		"error LF-4002 invite people workspace admin",
		"zzz qqq unknown words only",
		strings.Join(long, " "),
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, qs := range queries {
		q := p.Local().PrepareQuery(qs)
		for i := range p.Chunks() {
			got, want := p.Match(q, i), refMatch(p, qs, i)
			if !near(got.Cosine, want.Cosine) || !near(got.Coverage, want.Coverage) || !near(got.TitleCov, want.TitleCov) || !near(got.Bigrams, want.Bigrams) {
				t.Fatalf("query %.40q, chunk %d: got %+v, want %+v", qs, i, got, want)
			}
		}
	}
	if q := p.Local().PrepareQuery(queries[len(queries)-1]); len(q.ids) <= longQuery || len(q.biKeys) <= 2*longQuery {
		t.Errorf("the long query has %d terms and %d bigrams: it does not reach the long paths", len(q.ids), len(q.biKeys))
	}
}

// TestTokensFormsAsText holds what a turn builds from its question's
// tokens, made once (PrepareTokens, EmbedTokens), to what the text forms
// build (PrepareQuery, SparseText, EmbedText), to the bit.
func TestTokensFormsAsText(t *testing.T) {
	p := demoPartition(t)
	m := p.Local()
	for _, qs := range []string{
		"How do I restore a backup?",
		"backup backup restore restore the backup",
		"What does error LF-4002 mean?",
		"zzz qqq unknown words only",
		"",
	} {
		toks := Tokenize(qs)
		q, sp := m.PrepareTokens(toks)
		if want := m.PrepareQuery(qs); !reflect.DeepEqual(q, want) {
			t.Errorf("%q: PrepareTokens gave %+v, PrepareQuery %+v", qs, q, want)
		}
		want := m.SparseText(qs)
		if len(sp) != len(want) {
			t.Errorf("%q: sparse vector of %d keys, want %d", qs, len(sp), len(want))
		}
		for k, w := range want {
			if math.Float64bits(sp[k]) != math.Float64bits(w) {
				t.Errorf("%q: sparse[%q] = %v, want %v", qs, k, sp[k], w)
			}
		}
		got, wantV := m.EmbedTokens(toks), m.EmbedText(qs)
		for i := range wantV {
			if math.Float32bits(got[i]) != math.Float32bits(wantV[i]) {
				t.Fatalf("%q: EmbedTokens[%d] = %v, EmbedText %v", qs, i, got[i], wantV[i])
			}
		}
	}
}

// BenchmarkMatch is the exact match of one query against every demo chunk
// (ns/op per chunk).
func BenchmarkMatch(b *testing.B) {
	p := demoPartition(b)
	q := p.Local().PrepareQuery("How do I restore a workspace backup after the API rate limit error?")
	n := len(p.terms.TitleLen)
	i := 0
	c0 := cputime.Process()
	for b.Loop() {
		p.Match(q, i)
		if i++; i == n {
			i = 0
		}
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}
