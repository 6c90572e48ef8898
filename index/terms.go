package index

import (
	"math"
	"slices"
	"sync"

	"github.com/answer-guard/guard/index/internal/disk"
)

// vocabIndex maps terms to ids; built lazily from Vocab after gob decoding.
type vocabIndex struct {
	once sync.Once
	ids  map[string]uint32
}

func (m *LocalModel) ids() map[string]uint32 {
	m.vocabMu.Lock()
	if m.vocab == nil {
		m.vocab = &vocabIndex{}
	}
	vi := m.vocab
	m.vocabMu.Unlock()
	vi.once.Do(func() {
		vi.ids = make(map[string]uint32, len(m.Vocab))
		for i, t := range m.Vocab {
			vi.ids[t] = uint32(i)
		}
	})
	return vi.ids
}

// termID returns the id of t, extending the vocabulary when grow (build
// and Add only; never while readers share the model).
func (m *LocalModel) termID(t string, grow bool) (uint32, bool) {
	ids := m.ids()
	if id, ok := ids[t]; ok {
		return id, true
	}
	if !grow {
		return 0, false
	}
	id := uint32(len(m.Vocab))
	m.Vocab = append(m.Vocab, t)
	ids[t] = id
	return id, true
}

func (m *LocalModel) fitVocab() {
	m.Vocab = make([]string, 0, len(m.DF))
	for t := range m.DF {
		m.Vocab = append(m.Vocab, t)
	}
	slices.Sort(m.Vocab)
	m.vocab = nil
}

// appendTerms adds one chunk (title tokens, then text tokens) to tf.
func (m *LocalModel) appendTerms(tf *disk.Terms, title, text []string) {
	if len(tf.Offsets) == 0 {
		tf.Offsets = append(tf.Offsets, 0)
	}
	start := len(tf.IDs)
	for _, t := range title {
		id, _ := m.termID(t, true)
		tf.IDs = append(tf.IDs, id)
	}
	for _, t := range text {
		id, _ := m.termID(t, true)
		tf.IDs = append(tf.IDs, id)
	}
	tf.Offsets = append(tf.Offsets, uint32(len(tf.IDs)))
	tf.TitleLen = append(tf.TitleLen, uint32(len(title)))
	tf.Norm = append(tf.Norm, float32(m.norm(tf.IDs[start:])))
}

func (m *LocalModel) idfID(id uint32) float64 { return m.IDF(m.Vocab[id]) }

// norm is the L2 norm of the TF-IDF vector of an id sequence (unigrams and
// weighted bigrams, exactly as sparseTokens weighs them).
func (m *LocalModel) norm(ids []uint32) float64 {
	tf := map[uint32]int{}
	for _, id := range ids {
		tf[id]++
	}
	var s float64
	for id, n := range tf {
		w := (1 + math.Log(float64(n))) * m.idfID(id)
		s += w * w
	}
	if m.BigramWeight > 0 {
		bt := map[uint64]int{}
		for i := 1; i < len(ids); i++ {
			bt[uint64(ids[i-1])<<32|uint64(ids[i])]++
		}
		for b, n := range bt {
			w := m.BigramWeight * (1 + math.Log(float64(n))) * (m.idfID(uint32(b>>32)) + m.idfID(uint32(b))) / 2
			s += w * w
		}
	}
	return math.Sqrt(s)
}

// QueryTerms is a query prepared for fast exact scoring against chunks.
type QueryTerms struct {
	terms   map[uint32]float64 // unit-vector weight of each known query term
	bigrams map[uint64]float64
	idfW    map[uint32]float64 // idf of each known unique term (title coverage)
	idfSum  float64            // idf mass of all unique query terms, known or not
	nBi     int                // query bigrams, known or not
}

// PrepareQuery builds the exact local query vector of text in vocabulary ids.
func (m *LocalModel) PrepareQuery(text string) *QueryTerms {
	toks := Tokenize(text)
	sp := m.sparseTokens(toks)
	q := &QueryTerms{terms: map[uint32]float64{}, bigrams: map[uint64]float64{}, idfW: map[uint32]float64{}}
	seen := map[string]bool{}
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		w := m.IDF(t)
		q.idfSum += w
		if id, ok := m.termID(t, false); ok {
			q.terms[id] = sp[t]
			q.idfW[id] = w
		}
	}
	for i := 1; i < len(toks); i++ {
		q.nBi++
		a, okA := m.termID(toks[i-1], false)
		b, okB := m.termID(toks[i], false)
		if okA && okB {
			q.bigrams[uint64(a)<<32|uint64(b)] = sp[toks[i-1]+" "+toks[i]]
		}
	}
	return q
}

// Match holds the exact local match statistics of a query and a chunk.
type Match struct {
	Cosine   float64 // exact TF-IDF cosine
	Coverage float64 // share of the query's weight present in the chunk
	TitleCov float64 // IDF-weighted share of query terms present in the title
	Bigrams  float64 // share of query bigrams present in the chunk
}

// Relevance is the raw local relevance (see relevance).
func (mt Match) Relevance() float64 {
	if mt.Cosine <= 0 {
		return 0
	}
	return math.Pow(mt.Coverage, 0.7) * math.Pow(mt.Cosine, 0.3)
}

// Match scores chunk i against q exactly, from the stored term ids.
func (p *Partition) Match(q *QueryTerms, i int) Match {
	var mt Match
	if len(q.terms) == 0 || i >= len(p.terms.TitleLen) {
		return mt
	}
	ids := p.terms.Chunk(i)
	tl := int(p.terms.TitleLen[i])
	var tf [32]struct {
		id uint32
		n  int
	}
	counts := tf[:0]
	inTitle := map[uint32]bool{}
	bseen := map[uint64]int{}
	for j, id := range ids {
		if _, ok := q.terms[id]; ok {
			found := false
			for k := range counts {
				if counts[k].id == id {
					counts[k].n++
					found = true
					break
				}
			}
			if !found {
				counts = append(counts, struct {
					id uint32
					n  int
				}{id, 1})
			}
			if j < tl {
				inTitle[id] = true
			}
		}
		if j > 0 && len(q.bigrams) > 0 {
			b := uint64(ids[j-1])<<32 | uint64(id)
			if _, ok := q.bigrams[b]; ok {
				bseen[b]++
			}
		}
	}
	m := p.local
	var dot float64
	for _, c := range counts {
		w := q.terms[c.id]
		dot += w * (1 + math.Log(float64(c.n))) * m.idfID(c.id)
		mt.Coverage += w * w
	}
	for b, n := range bseen {
		w := q.bigrams[b]
		dot += w * m.BigramWeight * (1 + math.Log(float64(n))) * (m.idfID(uint32(b>>32)) + m.idfID(uint32(b))) / 2
		mt.Coverage += w * w
	}
	if norm := float64(p.terms.Norm[i]); norm > 0 {
		mt.Cosine = dot / norm
	}
	if q.idfSum > 0 {
		var s float64
		for id := range inTitle {
			s += q.idfW[id]
		}
		mt.TitleCov = s / q.idfSum
	}
	if q.nBi > 0 {
		mt.Bigrams = float64(len(bseen)) / float64(q.nBi)
	}
	return mt
}
