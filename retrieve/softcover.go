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

// coverAll is coverage(q, passages[i]) for every passage, to the bit, with
// each distinct (question word, passage word) cosine computed once per
// turn as one SIMD dot product instead of once per candidate through two
// map lookups and a scalar loop. Words that are not lowercase ASCII
// (where Similarity's case folding could match two different strings) go
// the per-pair way.
func (s *semantic) coverAll(q []string, passages [][]string, mean, worst []float64) {
	rv, ok := s.wv.(rowVectors)
	if !ok || !plain(q) {
		for i, p := range passages {
			mean[i], worst[i] = s.coverage(q, p)
		}
		return
	}
	dims := rv.Dims()
	// The distinct known passage words (ids, by slot), and each
	// passage's words as slots.
	slot := map[int32]int32{}
	var ids []int32
	pslots := make([][]int32, len(passages))
	for i, p := range passages {
		if !plain(p) {
			continue
		}
		ps := make([]int32, 0, len(p))
		for _, w := range p {
			id, ok := rv.ID(w)
			if !ok {
				continue // Similarity 0: never above a best that starts at 0
			}
			u, seen := slot[id]
			if !seen {
				u = int32(len(ids))
				slot[id] = u
				ids = append(ids, id)
			}
			ps = append(ps, u)
		}
		pslots[i] = ps
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
	for i, p := range passages {
		if !plain(p) {
			mean[i], worst[i] = s.coverage(q, p)
			continue
		}
		mean[i], worst[i] = 0, 0
		if len(q) == 0 {
			continue
		}
		m, wst := 0.0, 1.0
		for qi, qw := range q {
			best := 0.0
			if containsWord(p, qw) {
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
