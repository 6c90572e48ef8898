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
	sc := coverPool.Get().(*coverScratch)
	defer coverPool.Put(sc)
	lists := make([][]int32, len(ps))
	for i, p := range ps {
		if p.plain {
			lists[i] = p.rows
		}
	}
	slots, sim, n := sc.pairTable(rv, q, lists)
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
				row := sim[qi*n : (qi+1)*n]
				for _, u := range slots[i] {
					best = max(best, row[u]) // rows holds known words only: u >= 0
				}
			}
			m += best
			wst = min(wst, best)
		}
		mean[i], worst[i] = m/float64(len(q)), wst
	}
}

// coverScratch is the per-turn buffers of coverAll and focusAll, pooled: a
// turn's distinct passage words as float rows are hundreds of kilobytes,
// garbage that the proxy's lax collector setting (server.gc.percent 400)
// would turn into resident memory.
type coverScratch struct {
	slot       map[int32]int32
	ids, slots []int32
	rows, qrow []float32
	sim        []float64
}

// pairTable numbers the distinct word-vector ids of lists (ids < 0, words
// the vectors do not know, are left out) and computes sim[qi*n+u], the
// cosine of question word q[qi] and distinct row u, as one SIMD dot per
// pair (0 for a question word the vectors do not know). slots[i] is
// lists[i] with each id replaced by its row number (-1 for id < 0). The
// results live in sc until it is reused.
func (sc *coverScratch) pairTable(rv rowVectors, q []string, lists [][]int32) (slots [][]int32, sim []float64, n int) {
	dims := rv.Dims()
	clear(sc.slot)
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	if cap(sc.slots) < total {
		sc.slots = make([]int32, total)
	}
	flat := sc.slots[:total]
	ids := sc.ids[:0]
	slots = make([][]int32, len(lists))
	for i, l := range lists {
		if l == nil {
			continue
		}
		sl := flat[:len(l):len(l)]
		flat = flat[len(l):]
		for j, id := range l {
			if id < 0 {
				sl[j] = -1
				continue
			}
			u, seen := sc.slot[id]
			if !seen {
				u = int32(len(ids))
				sc.slot[id] = u
				ids = append(ids, id)
			}
			sl[j] = u
		}
		slots[i] = sl
	}
	sc.ids = ids
	n = len(ids)
	rows := growF32(&sc.rows, n*dims)
	for u, id := range ids {
		rv.IntRow(id, rows[u*dims:(u+1)*dims])
	}
	sim = growF64(&sc.sim, len(q)*n)
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
				sim[qi*n+u] = float64(vek32.Dot(qrow, rows[u*dims:(u+1)*dims])) / float64(d)
			}
		}
	}
	return slots, sim, n
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
