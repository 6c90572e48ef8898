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

// QueryTerms is a query prepared for fast exact scoring against chunks:
// its known unique terms and bigrams in query order, each with a bit in a
// 64-bit mask (id mod 64), so that most chunk tokens are passed over with
// one test and the rest with a short scan.
type QueryTerms struct {
	ids     []uint32    // the terms' vocabulary ids
	terms   []queryTerm // by the same position
	mask    uint64
	biKeys  []uint64  // the bigrams: first id << 32 | second id
	biW     []float64 // their unit-vector weights, by the same position
	biIDF   []float64 // the sums of their two terms' IDFs, by the same position
	biMask  uint64
	index   map[uint32]int // term positions, for long queries only (see position)
	biIndex map[uint64]int // bigram positions, likewise
	idfSum  float64        // idf mass of all unique query terms, known or not
	nBi     int            // query bigrams, known or not
}

type queryTerm struct {
	w   float64 // unit-vector weight
	idf float64 // the term's IDF: its TF-IDF weight in a chunk, and title coverage
}

// longQuery is the number of terms (bigrams) above which position uses a
// map: past it the mask lets most tokens through.
const longQuery = 16

// position returns where key is in keys, or -1: through index when the
// query is long, else by a short scan.
func position[K uint32 | uint64](keys []K, index map[K]int, key K) int {
	if index != nil {
		if k, ok := index[key]; ok {
			return k
		}
		return -1
	}
	for k, x := range keys {
		if x == key {
			return k
		}
	}
	return -1
}

// find returns the position of term id in the query, or -1.
func (q *QueryTerms) find(id uint32) int {
	if q.mask&(1<<(id&63)) == 0 {
		return -1
	}
	return position(q.ids, q.index, id)
}

// findBigram returns the position of bigram key in the query, or -1.
func (q *QueryTerms) findBigram(key uint64) int {
	if q.biMask&(1<<((key^key>>32)&63)) == 0 {
		return -1
	}
	return position(q.biKeys, q.biIndex, key)
}

// PrepareQuery builds the exact local query vector of text in vocabulary ids.
func (m *LocalModel) PrepareQuery(text string) *QueryTerms {
	q, _ := m.PrepareTokens(Tokenize(text))
	return q
}

// PrepareTokens is PrepareQuery of a question already tokenised (toks from
// Tokenize), and it returns the question's exact vector as well
// (SparseText of the same text), which it builds anyway: a turn tokenises
// its question once.
func (m *LocalModel) PrepareTokens(toks []string) (*QueryTerms, Sparse) {
	sp := m.sparseTokens(toks)
	q := &QueryTerms{}
	seen := map[string]bool{}
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		w := m.IDF(t)
		q.idfSum += w
		if id, ok := m.termID(t, false); ok {
			q.ids = append(q.ids, id)
			q.terms = append(q.terms, queryTerm{w: sp[t], idf: w})
			q.mask |= 1 << (id & 63)
		}
	}
	if len(q.ids) > longQuery {
		q.index = make(map[uint32]int, len(q.ids))
		for k, id := range q.ids {
			q.index[id] = k
		}
	}
	biPos := map[uint64]int{}
	for i := 1; i < len(toks); i++ {
		q.nBi++
		a, okA := m.termID(toks[i-1], false)
		b, okB := m.termID(toks[i], false)
		if okA && okB {
			key := uint64(a)<<32 | uint64(b)
			if _, dup := biPos[key]; !dup {
				biPos[key] = len(q.biKeys)
				q.biKeys = append(q.biKeys, key)
				q.biW = append(q.biW, sp[toks[i-1]+" "+toks[i]])
				q.biIDF = append(q.biIDF, m.IDF(toks[i-1])+m.IDF(toks[i]))
				q.biMask |= 1 << ((key ^ key>>32) & 63)
			}
		}
	}
	if len(q.biKeys) > longQuery {
		q.biIndex = biPos
	}
	return q, sp
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

// logTFs holds 1 + ln n for the counts logTF takes from it.
var logTFs = func() (t [64]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = 1 + math.Log(float64(n))
	}
	return t
}()

// logTF is 1 + ln n (n >= 1), a term's TF weight: the same bits as
// computing it.
func logTF(n int32) float64 {
	if n < int32(len(logTFs)) {
		return logTFs[n]
	}
	return 1 + math.Log(float64(n))
}

// Match scores chunk i against q exactly, from the stored term ids. q must
// be prepared by p's own model (p.Local().PrepareQuery or PrepareTokens).
func (p *Partition) Match(q *QueryTerms, i int) Match {
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
	// Both words of a query bigram are query terms (PrepareQuery), so a
	// bigram is looked up only where a term follows a term.
	prev := -1 // the previous token's position in the query, or -1
	for j, id := range ids {
		k := q.find(id)
		if k >= 0 {
			tn[2*k]++
			if j < tl {
				tn[2*k+1] = 1
			}
			if prev >= 0 && len(q.biKeys) > 0 {
				if b := q.findBigram(uint64(ids[j-1])<<32 | uint64(id)); b >= 0 {
					bn[b]++
				}
			}
		}
		prev = k
	}
	// The IDFs come with q (PrepareTokens), the same values as p's model
	// gives (q is prepared by it); 1 + ln n of small counts from a table.
	var dot, title float64
	for k, t := range q.terms {
		if n := tn[2*k]; n > 0 {
			dot += t.w * logTF(n) * t.idf
			mt.Coverage += t.w * t.w
		}
		if tn[2*k+1] > 0 {
			title += t.idf
		}
	}
	seen := 0
	for k := range q.biKeys {
		if n := bn[k]; n > 0 {
			w := q.biW[k]
			seen++
			dot += w * p.local.BigramWeight * logTF(n) * q.biIDF[k] / 2
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
