package retrieve

import (
	"github.com/viterin/vek/vek32"

	"github.com/answer-guard/guard/index/wordvec"
)

// rowVectors is the part of *wordvec.Vectors the batched soft coverage
// reads: word rows by id, as exact integer floats, and their norms.
type rowVectors interface {
	WordVectors
	ID(word string) (int32, bool)
	IntRow(id int32, dst []float32)
	Norm(id int32) float32
	Dims() int
}

var _ rowVectors = (*wordvec.Vectors)(nil)

// wordRows sets ps.plain and ps.rows (once per passage: the semantic
// cache keeps them) when the word vectors have rows.
func (s *semantic) wordRows(ps *passageSem) {
	rv, ok := s.wv.(rowVectors)
	if !ok {
		return
	}
	ps.plain = plain(ps.words)
	if !ps.plain {
		return
	}
	seen := make(map[int32]bool, len(ps.words))
	for _, w := range ps.words {
		if id, ok := rv.ID(w); ok && !seen[id] {
			seen[id] = true
			ps.rows = append(ps.rows, id)
		}
	}
}

// coverAll is coverage(q, ps[i].words) for every passage, to the bit, with
// each distinct (question word, passage word) cosine computed once per
// turn as one SIMD dot product instead of once per candidate through two
// map lookups and a scalar loop, and each passage's words looked up once
// (wordRows). Words that are not lowercase ASCII (where Similarity's case
// folding could match two different strings) go the per-pair way.
func (s *semantic) coverAll(q []string, ps []*passageSem, mean, worst []float64) {
	rv, ok := s.wv.(rowVectors)
	if !ok || !plain(q) {
		for i, p := range ps {
			mean[i], worst[i] = s.coverage(q, p.words)
		}
		return
	}
	dims := rv.Dims()
	// The distinct passage rows by slot, and each passage's rows as slots.
	// (A word unknown to the vectors has Similarity 0: never above a best
	// that starts at 0.)
	slot := map[int32]int32{}
	var ids []int32
	pslots := make([][]int32, len(ps))
	for i, p := range ps {
		if !p.plain {
			continue
		}
		sl := make([]int32, len(p.rows))
		for k, id := range p.rows {
			u, seen := slot[id]
			if !seen {
				u = int32(len(ids))
				slot[id] = u
				ids = append(ids, id)
			}
			sl[k] = u
		}
		pslots[i] = sl
	}
	rows := make([]float32, len(ids)*dims)
	for u, id := range ids {
		rv.IntRow(id, rows[u*dims:(u+1)*dims])
	}
	// sim[qi*len(ids)+u]: cosine of question word qi and passage word u.
	sim := make([]float64, len(q)*len(ids))
	qrow := make([]float32, dims)
	for qi, w := range q {
		qid, ok := rv.ID(w)
		if !ok {
			continue // unknown: 0 to every word
		}
		rv.IntRow(qid, qrow)
		qn := rv.Norm(qid)
		for u, id := range ids {
			if d := qn * rv.Norm(id); d != 0 {
				sim[qi*len(ids)+u] = float64(vek32.Dot(qrow, rows[u*dims:(u+1)*dims])) / float64(d)
			}
		}
	}
	for i, p := range ps {
		if !p.plain {
			mean[i], worst[i] = s.coverage(q, p.words)
			continue
		}
		mean[i], worst[i] = 0, 0
		if len(q) == 0 {
			continue
		}
		m, wst := 0.0, 1.0
		for qi, qw := range q {
			best := 0.0
			if containsWord(p.words, qw) {
				best = 1
			} else {
				row := sim[qi*len(ids) : (qi+1)*len(ids)]
				for _, u := range pslots[i] {
					best = max(best, row[u])
				}
			}
			m += best
			wst = min(wst, best)
		}
		mean[i], worst[i] = m/float64(len(q)), wst
	}
}

func containsWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// plain reports whether every word is lowercase ASCII (as index.Words
// makes them), where Similarity's case folding equals string equality.
func plain(ws []string) bool {
	for _, w := range ws {
		for i := 0; i < len(w); i++ {
			if c := w[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
				return false
			}
		}
	}
	return true
}
