package retrieve

import (
	"sync"

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
	sc := coverPool.Get().(*coverScratch)
	defer coverPool.Put(sc)
	// The distinct passage rows by slot, and each passage's rows as slots
	// (one flat slice, pstart[i]:pstart[i+1]). A word unknown to the
	// vectors has Similarity 0: never above a best that starts at 0.
	clear(sc.slot)
	ids := sc.ids[:0]
	slots := sc.slots[:0]
	pstart := append(sc.pstart[:0], 0)
	for _, p := range ps {
		if p.plain {
			for _, id := range p.rows {
				u, seen := sc.slot[id]
				if !seen {
					u = int32(len(ids))
					sc.slot[id] = u
					ids = append(ids, id)
				}
				slots = append(slots, u)
			}
		}
		pstart = append(pstart, len(slots))
	}
	sc.ids, sc.slots, sc.pstart = ids, slots, pstart
	rows := growF32(&sc.rows, len(ids)*dims)
	for u, id := range ids {
		rv.IntRow(id, rows[u*dims:(u+1)*dims])
	}
	// sim[qi*len(ids)+u]: cosine of question word qi and passage word u.
	sim := growF64(&sc.sim, len(q)*len(ids))
	clear(sim)
	qrow := growF32(&sc.qrow, dims)
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
				for _, u := range slots[pstart[i]:pstart[i+1]] {
					best = max(best, row[u])
				}
			}
			m += best
			wst = min(wst, best)
		}
		mean[i], worst[i] = m/float64(len(q)), wst
	}
}

// coverScratch is coverAll's per-turn buffers, pooled: a turn's distinct
// passage words as float rows are hundreds of kilobytes, garbage that the
// proxy's lax collector setting (server.gc.percent 400) would turn into
// resident memory.
type coverScratch struct {
	slot       map[int32]int32
	ids, slots []int32
	pstart     []int
	rows, qrow []float32
	sim        []float64
}

var coverPool = sync.Pool{New: func() any { return &coverScratch{slot: map[int32]int32{}} }}

func growF32(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n)
	}
	*b = (*b)[:n]
	return *b
}

func growF64(b *[]float64, n int) []float64 {
	if cap(*b) < n {
		*b = make([]float64, n)
	}
	*b = (*b)[:n]
	return *b
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
