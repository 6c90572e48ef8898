package gate

import (
	"fmt"
	"testing"

	"github.com/answer-guard/guard/index"
)

// matchEach is Question.match as it was: every term, rare term and pair
// looked up in the passage's sets.
func matchEach(q *Question, pt *PassageTerms) passageMatch {
	var m passageMatch
	if q.total > 0 {
		var found float64
		for i, t := range q.terms {
			if _, ok := pt.set[t]; ok {
				found += q.weights[i]
			}
		}
		m.coverage = found / q.total
	}
	var n, hit float64
	for _, r := range q.rare {
		if r < 0 {
			continue
		}
		n++
		if _, ok := pt.set[q.terms[r]]; ok {
			hit++
		}
	}
	if n > 0 {
		m.rare = hit / n
	}
	if len(q.bigrams) > 0 {
		var b float64
		for _, bg := range q.bigrams {
			if _, ok := pt.pairs[bg]; ok {
				b++
			}
		}
		m.bigram = b / float64(len(q.bigrams))
	}
	if q.want != typeNone {
		has := pt.types&(1<<q.want) != 0
		m.typeHit, m.typeMiss = has, !has
	}
	return m
}

// A question's terms looked up once give the features every look-up gave:
// questions with repeated words and pairs, against passages holding all,
// some or none of them.
func TestMatchAsEachLookup(t *testing.T) {
	words := []string{"rent", "payment", "due", "second", "deposit", "returned", "late", "charge", "rent", "room", "keys", "hardship"}
	var texts []string
	for i := range 200 {
		s := ""
		for k := range 3 + i%17 {
			s += words[(i*5+k*k*7+k)%len(words)] + " "
		}
		texts = append(texts, s)
	}
	pts := make([]*PassageTerms, len(texts))
	for i, s := range texts {
		pts[i] = NewPassageTerms(index.Tokenize, "Rent and payment", s)
	}
	idf := func(t string) float64 { return float64(len(t)) / 3 }
	for i := range 300 {
		q := "When is the"
		for k := range 1 + i%9 {
			q += " " + words[(i*3+k*k*5)%len(words)]
		}
		q += fmt.Sprintf(" %d?", i%3)
		pq := PrepareQuestion(index.Tokenize, q, idf)
		for k, s := range texts {
			pt := pts[k]
			if got, want := pq.match("Rent and payment", s, pt), matchEach(&pq, pt); got != want {
				t.Fatalf("%q against %q: %+v, want %+v", q, s, got, want)
			}
		}
	}
}
