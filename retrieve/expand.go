package retrieve

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"

	"github.com/answer-guard/guard/index"
)

// expander widens the lexical lane's query into the corpus's own words
// (issue 28): a content word of the question whose stem the partition
// never uses ("tyre", "pensioners") adds its nearest words of the
// partition's vocabulary by word-vector cosine ("puncture", "seniors"),
// at minCos or above, at most max of them (distinct stems). A word can
// only become a word the corpus uses, but GloVe's cosine is relatedness,
// not synonymy ("tap" -> "garden", "table"), so the expansion moves the
// pool's order only and never a feature the gate reads (engine.go,
// orderExpanded; docs/quality.md Run 9).
type expander struct {
	wv     rowVectors
	minCos float32
	max    int
	// parts maps *index.Partition -> *vocabRows, dropped when a snapshot
	// is published.
	parts sync.Map
}

// expandCommon is the frequency rank (the word vectors' row order: the
// most frequent English words first) below which a word is too common to
// expand or to be an expansion: "much", "get" and "say" are absent from a
// small corpus for no reason of meaning, and "one", "take" and "need" sit
// near everything.
const expandCommon = 500

// maxExpandMemo bounds the remembered expansions of one partition.
const maxExpandMemo = 65536

// vocabRows is a partition's vocabulary as unit word vectors, built on
// the first question that needs it.
type vocabRows struct {
	once  sync.Once
	words []string
	stems []string
	rows  []float32 // len(words) x dims, each row unit length
	// memo maps a question word to its expansion ([]string); n counts it.
	memo sync.Map
	n    atomic.Int64
}

func newExpander(wv WordVectors, minCos float64, max int) *expander {
	rv, ok := wv.(rowVectors)
	if !ok || max <= 0 {
		return nil
	}
	return &expander{wv: rv, minCos: float32(minCos), max: max}
}

// reset drops every partition's vocabulary (a new snapshot was published).
func (x *expander) reset() { x.parts.Clear() }

func (x *expander) vocab(p *index.Partition) *vocabRows {
	v, _ := x.parts.LoadOrStore(p, &vocabRows{})
	vr := v.(*vocabRows)
	vr.once.Do(func() {
		words, stems := p.Vocabulary()
		dims := x.wv.Dims()
		row := make([]float32, dims)
		for i, w := range words {
			if hasDigit(w) {
				continue // numbers sit near numbers: never a synonym
			}
			id, ok := x.wv.ID(w)
			if !ok || id < expandCommon || x.wv.Norm(id) == 0 {
				continue
			}
			x.wv.IntRow(id, row)
			vek32.DivNumber_Inplace(row, x.wv.Norm(id))
			vr.words = append(vr.words, w)
			vr.stems = append(vr.stems, stems[i])
			vr.rows = append(vr.rows, row...)
		}
	})
	return vr
}

// Expansion is one question word the partition does not know and the
// partition's words it was widened to, best first.
type Expansion struct {
	Word string
	Near []string
}

// expand returns the expansions of q in partition p: for each distinct
// content word of q the partition does not know, its nearest vocabulary
// words (nearest), leaving out stems q has already. nil when every word
// is known.
func (x *expander) expand(p *index.Partition, q string) []Expansion {
	ws := index.Words(q)
	var have map[string]bool
	var out []Expansion
	for i, w := range ws {
		if hasDigit(w) || p.KnowsWord(w) || slices.Index(ws[:i], w) >= 0 {
			continue
		}
		near := x.nearest(x.vocab(p), w)
		if len(near) == 0 {
			continue
		}
		if have == nil {
			have = make(map[string]bool, len(ws)+4)
			for _, qw := range ws {
				have[index.Stem(qw)] = true
			}
		}
		var keep []string
		for _, n := range near {
			if s := index.Stem(n); !have[s] {
				have[s] = true
				keep = append(keep, n)
			}
		}
		if len(keep) > 0 {
			out = append(out, Expansion{w, keep})
		}
	}
	return out
}

// expansionWords lists the words of exps, in order.
func expansionWords(exps []Expansion) []string {
	var out []string
	for _, e := range exps {
		out = append(out, e.Near...)
	}
	return out
}

// nearest returns the vocabulary words closest to w by cosine, best
// first: at most x.max distinct stems, each at x.minCos or above (nil for
// a word the vectors do not know). Remembered per partition.
func (x *expander) nearest(vr *vocabRows, w string) []string {
	if v, ok := vr.memo.Load(w); ok {
		return v.([]string)
	}
	var out []string
	if id, ok := x.wv.ID(w); ok && id >= expandCommon && x.wv.Norm(id) != 0 && len(vr.words) > 0 {
		dims := x.wv.Dims()
		q := make([]float32, dims)
		x.wv.IntRow(id, q)
		vek32.DivNumber_Inplace(q, x.wv.Norm(id))
		type hit struct {
			i   int
			cos float32
		}
		best := make([]hit, 0, x.max+1)
		for i := range vr.words {
			c := vek32.Dot(q, vr.rows[i*dims:(i+1)*dims])
			if c < x.minCos || len(best) == x.max && c <= best[len(best)-1].cos {
				continue
			}
			// One word per stem: a better form of a stem already kept
			// replaces it.
			if k := slices.IndexFunc(best, func(h hit) bool { return vr.stems[h.i] == vr.stems[i] }); k >= 0 {
				if c <= best[k].cos {
					continue
				}
				best = append(best[:k], best[k+1:]...)
			}
			k := len(best)
			for k > 0 && best[k-1].cos < c {
				k--
			}
			best = append(best, hit{})
			copy(best[k+1:], best[k:])
			best[k] = hit{i, c}
			if len(best) > x.max {
				best = best[:x.max]
			}
		}
		for _, h := range best {
			out = append(out, vr.words[h.i])
		}
	}
	if vr.n.Load() < maxExpandMemo {
		if _, loaded := vr.memo.LoadOrStore(w, out); !loaded {
			vr.n.Add(1)
		}
	}
	return out
}
