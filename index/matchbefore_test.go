package index

import (
	"math"
	"strings"
	"testing"
)

// TestMatchSameAsBefore holds Match to the code before the bigram look-up
// was limited to a term after a term (matchBefore, below): every statistic
// equal to the bit, for the demo questions, each chunk's own text as a
// query (many bigrams), and repeated and unknown words.
func TestMatchSameAsBefore(t *testing.T) {
	p := demoPartition(t)
	queries := []string{"How do I restore a backup?", "backup backup restore restore the backup", "zzz qqq unknown words only",
		"How do I set up OpenID Connect?", "Why does search return nothing?", "Can two people edit the same page at once?",
		"How do I encrypt off-site backups?", "What does error LF-4002 mean?", "Which database does Lanternfish need?"}
	var all []string
	for _, c := range p.Chunks() {
		queries = append(queries, c.Title+" "+c.Text)
		all = append(all, c.Text)
	}
	queries = append(queries, strings.Join(all, " "))
	for _, qs := range queries {
		q := p.Local().PrepareQuery(qs)
		for i := range p.Chunks() {
			if got, want := p.Match(q, i), p.matchBefore(q, i); got != want {
				t.Fatalf("query %.40q, chunk %d: got %+v, want %+v", qs, i, got, want)
			}
		}
	}
}

func (p *Partition) matchBefore(q *QueryTerms, i int) Match {
	var mt Match
	if len(q.terms) == 0 || i >= len(p.terms.TitleLen) {
		return mt
	}
	ids := p.terms.Chunk(i)
	tl := int(p.terms.TitleLen[i])
	// Per query term and bigram: its count in the chunk, and (terms)
	// whether the title has it. On the stack for all but long queries.
	var tbuf [2 * longQuery]int32
	var bbuf [2 * longQuery]int32
	tn := tbuf[:0]
	if len(q.terms) <= longQuery {
		tn = tbuf[:2*len(q.terms)]
	} else {
		tn = make([]int32, 2*len(q.terms))
	}
	bn := bbuf[:0]
	if len(q.biKeys) <= len(bbuf) {
		bn = bbuf[:len(q.biKeys)]
	} else {
		bn = make([]int32, len(q.biKeys))
	}
	for j, id := range ids {
		if k := q.find(id); k >= 0 {
			tn[2*k]++
			if j < tl {
				tn[2*k+1] = 1
			}
		}
		if j > 0 && len(q.biKeys) > 0 {
			if k := q.findBigram(uint64(ids[j-1])<<32 | uint64(id)); k >= 0 {
				bn[k]++
			}
		}
	}
	m := p.local
	var dot, title float64
	for k, t := range q.terms {
		if n := tn[2*k]; n > 0 {
			dot += t.w * (1 + math.Log(float64(n))) * m.idfID(q.ids[k])
			mt.Coverage += t.w * t.w
		}
		if tn[2*k+1] > 0 {
			title += t.idf
		}
	}
	seen := 0
	for k, key := range q.biKeys {
		if n := bn[k]; n > 0 {
			w := q.biW[k]
			seen++
			dot += w * m.BigramWeight * (1 + math.Log(float64(n))) * (m.idfID(uint32(key>>32)) + m.idfID(uint32(key))) / 2
			mt.Coverage += w * w
		}
	}
	if norm := float64(p.terms.Norm[i]); norm > 0 {
		mt.Cosine = dot / norm
	}
	if q.idfSum > 0 {
		mt.TitleCov = title / q.idfSum
	}
	if q.nBi > 0 {
		mt.Bigrams = float64(seen) / float64(q.nBi)
	}
	return mt
}
