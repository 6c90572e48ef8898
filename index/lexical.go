package index

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	blevemapping "github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// lexField is the one field the lexical index holds (bleveMapping).
const lexField = "body"

// lexReader answers the lexical lane's match query from the partition's
// Bleve index without Bleve's search machinery: the query's tokens come
// from the field's own analyzer, each term's postings are read once
// through Bleve's term field reader and kept with their BM25 scores (the
// snapshot is read-only; a process-wide budget bounds them), and the
// query norm, the disjunction's sum and coordination factor and the
// top-k order are Bleve's own, computed in the same order with the same
// operations, so every hit and score is Bleve's to the bit
// (TestLexicalAsBleve). What it skips per query: a new index snapshot
// reference, the query tree, a searcher and postings iterator per token,
// the document-match pool, the collector's heap of document matches, and
// the stored "_id" read of each hit (a hit's slot is kept by its document
// number after the first read).
//
// A query Bleve runs another way is left to Bleve (lexical falls back):
// more tokens than its slice disjunction takes (DisjunctionHeapTakeover
// and up, whose summing order differs), a clause limit, k < 1.
type lexReader struct {
	r      *scorch.IndexSnapshot
	an     analysis.Analyzer
	docs   uint64  // live documents: BM25's N
	avgLen float64 // Bleve's average field length, rounded up as it does
	// slots[n] is 1 + the slot of document number n, 0 until read, -1
	// for an id that is no slot.
	slots   []atomic.Int32
	scratch sync.Pool // *lexScratch
	post    sync.Map  // string(term) -> *lexPostings (postings)
	kept    atomic.Int64
}

// errNotScorch: a posting's document id is not a scorch document number
// (lexReader falls back to Bleve).
var errNotScorch = errors.New("lexical: not a scorch document number")

// lexScratch is one query's accumulators, indexed by document number.
type lexScratch struct {
	sum     []float64
	matched []uint8
	touched []uint64
	top     []lexHit
	clauses []lexClause
}

type lexClause struct {
	post   *lexPostings
	count  uint64 // documents holding the term
	idf    float64
	weight float64 // the query weight: idf times the query norm
}

// lexPostings is a term's postings with each posting's BM25 score before
// the query weight (TermQueryScorer.docScore), which depends on the term
// and the snapshot alone.
type lexPostings struct {
	count uint64 // the term field reader's count: BM25's document frequency
	idf   float64
	docs  []uint32 // document numbers, ascending
	score []float64
}

// byCount orders clauses as Bleve's OrderedSearcherList orders their
// searchers (by postings count, through sort.Sort), which fixes the
// order in which a document's clause scores are summed.
type byCount []lexClause

func (c byCount) Len() int           { return len(c) }
func (c byCount) Less(i, j int) bool { return c[i].count < c[j].count }
func (c byCount) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }

type lexHit struct {
	doc   uint64
	score float64
}

// lexBefore is Bleve's collector order: higher score first, then the
// document found first (the lower document number).
func lexBefore(a, b lexHit) bool {
	return a.score > b.score || a.score == b.score && a.doc < b.doc
}

// newLexReader opens a reader on idx that the partition keeps until it is
// closed, or returns nil when the index is not one lexReader reproduces
// (not scorch, not BM25, no analyzer, empty).
func newLexReader(idx bleve.Index, chunks int) *lexReader {
	m, ok := idx.Mapping().(*blevemapping.IndexMappingImpl)
	if !ok || m.ScoringModel != bleveindex.BM25Scoring {
		return nil
	}
	an := m.AnalyzerNamed(m.AnalyzerNameForPath(lexField))
	if an == nil {
		return nil
	}
	adv, err := idx.Advanced()
	if err != nil {
		return nil
	}
	r, err := adv.Reader()
	if err != nil {
		return nil
	}
	is, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		r.Close()
		return nil
	}
	docs, err := is.DocCount()
	if err != nil {
		r.Close()
		return nil
	}
	card, err := is.FieldCardinality(lexField)
	if err != nil || docs == 0 || card == 0 {
		r.Close()
		return nil
	}
	// bm25ScoreMetrics' average, as Bleve computes it.
	avg := math.Ceil(float64(card) / float64(docs))
	return &lexReader{r: is, an: an, docs: docs, avgLen: avg, slots: make([]atomic.Int32, chunks+1)}
}

func (lr *lexReader) close() error {
	lexCacheBudget.Add(lr.kept.Swap(0))
	return lr.r.Close()
}

// search returns the top k hits for text, or ok false when Bleve must run
// the query (see lexReader).
func (lr *lexReader) search(ctx context.Context, text string, k int, p *Partition) (hits []Hit, ok bool, err error) {
	if k < 1 {
		return nil, false, nil
	}
	tokens := lr.an.Analyze([]byte(text))
	if len(tokens) > searcher.DisjunctionHeapTakeover ||
		searcher.DisjunctionMaxClauseCount != 0 && len(tokens) > searcher.DisjunctionMaxClauseCount {
		return nil, false, nil
	}
	if len(tokens) == 0 {
		return []Hit{}, true, nil // Bleve's match-none query
	}
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	s, _ := lr.scratch.Get().(*lexScratch)
	if s == nil {
		s = &lexScratch{}
	}
	defer lr.scratch.Put(s)
	cs := s.clauses[:0]
	defer func() {
		clear(cs)
		s.clauses = cs[:0]
	}()
	for _, t := range tokens {
		pl, err := lr.postings(ctx, t.Term)
		if err == errNotScorch {
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		cs = append(cs, lexClause{post: pl, count: pl.count, idf: pl.idf})
	}
	sort.Sort(byCount(cs))
	// DisjunctionSliceSearcher.computeQueryNorm with each term's boost 1.
	sumSq := 0.0
	for i := range cs {
		w := 1.0 * cs[i].idf
		sumSq += w * w
	}
	norm := 1.0 / math.Sqrt(sumSq)
	for i := range cs {
		cs[i].weight = 1.0 * cs[i].idf * norm
	}

	s.touched = s.touched[:0]
	for i := range cs {
		pl, w := cs[i].post, cs[i].weight
		for j, n := range pl.docs {
			if int(n) >= len(s.sum) {
				s.grow(uint64(n))
			}
			if s.matched[n] == 0 {
				s.touched = append(s.touched, uint64(n))
			}
			s.matched[n]++
			score := pl.score[j]
			if w != 1.0 { // TermQueryScorer.Score
				score = score * w
			}
			s.sum[n] += score
		}
	}

	// The disjunction's score and the collector's top k.
	total := float64(len(cs))
	top := s.top[:0]
	for _, n := range s.touched {
		h := lexHit{doc: n, score: s.sum[n] * (float64(s.matched[n]) / total)}
		s.sum[n], s.matched[n] = 0, 0
		if len(top) < k {
			top = append(top, h)
			if len(top) == k {
				heapInit(top)
			}
		} else if lexBefore(h, top[0]) {
			top[0] = h
			heapDown(top, 0)
		}
	}
	slices.SortFunc(top, func(a, b lexHit) int {
		if lexBefore(a, b) {
			return -1
		}
		return 1 // hits are distinct documents: never equal
	})
	s.top = top[:0]

	hits = make([]Hit, 0, len(top))
	for _, h := range top {
		i := lr.slot(h.doc)
		if i < 0 || i >= len(p.chunks) || p.deleted[i] {
			continue
		}
		hits = append(hits, Hit{Index: i, Score: h.score, Base: h.score})
	}
	return hits, true, nil
}

// docScore is TermQueryScorer.docScore (BM25) for one posting, with
// the field length read back from the posting's norm.
func docScore(idf float64, d *bleveindex.TermFieldDoc, avgLen float64) float64 {
	var tf float64
	if d.Freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[int(d.Freq)]
	} else {
		tf = math.Sqrt(float64(d.Freq))
	}
	fieldLength := 1 / (d.Norm * d.Norm)
	return idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/avgLen)))
}

// lexCacheBudget is the number of postings the lexReaders of the process
// may keep (about 12 bytes each); a term read past it is read again for
// each query.
var lexCacheBudget atomic.Int64

func init() { lexCacheBudget.Store(lexCachePostings) }

const lexCachePostings = 4 << 20

// postings returns term's postings, kept for the reader's life while the
// budget lasts: the snapshot is read-only, so they never change.
func (lr *lexReader) postings(ctx context.Context, term []byte) (*lexPostings, error) {
	if v, ok := lr.post.Load(string(term)); ok {
		return v.(*lexPostings), nil
	}
	tfr, err := lr.r.TermFieldReader(ctx, term, lexField, true, true, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	n := tfr.Count()
	pl := &lexPostings{count: n,
		// TermQueryScorer.computeIDF, BM25.
		idf: math.Log(1 + (float64(lr.docs)-float64(n)+0.5)/(float64(n)+0.5))}
	pl.docs = make([]uint32, 0, n)
	pl.score = make([]float64, 0, n)
	var d bleveindex.TermFieldDoc
	for {
		next, err := tfr.Next(d.Reset())
		if err != nil {
			return nil, err
		}
		if next == nil {
			break
		}
		if len(next.ID) != 8 {
			return nil, errNotScorch
		}
		num := binary.BigEndian.Uint64(next.ID)
		if num > math.MaxUint32 {
			return nil, errNotScorch
		}
		pl.docs = append(pl.docs, uint32(num))
		pl.score = append(pl.score, docScore(pl.idf, next, lr.avgLen))
	}
	if size := int64(len(pl.docs)) + 1; lexCacheBudget.Add(-size) >= 0 {
		if v, loaded := lr.post.LoadOrStore(string(term), pl); loaded {
			lexCacheBudget.Add(size)
			return v.(*lexPostings), nil
		}
		lr.kept.Add(size)
	} else {
		lexCacheBudget.Add(size)
	}
	return pl, nil
}

func (s *lexScratch) grow(n uint64) {
	size := max(2*len(s.sum), int(n)+1, 256)
	sum := make([]float64, size)
	copy(sum, s.sum)
	matched := make([]uint8, size)
	copy(matched, s.matched)
	s.sum, s.matched = sum, matched
}

// slot maps a document number to its chunk slot (the document's id),
// reading the id once per document; -1 for an id that is no slot.
func (lr *lexReader) slot(n uint64) int {
	if n < uint64(len(lr.slots)) {
		if v := lr.slots[n].Load(); v != 0 {
			return max(int(v)-1, -1)
		}
	}
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], n)
	ext, err := lr.r.ExternalID(id[:])
	i := -1
	if err == nil {
		if v, err := strconv.Atoi(ext); err == nil && v >= 0 && v < math.MaxInt32 {
			i = v
		}
	}
	if n < uint64(len(lr.slots)) {
		v := int32(i + 1)
		if i < 0 {
			v = -1
		}
		lr.slots[n].Store(v)
	}
	return i
}

// heapInit and heapDown keep h as a heap whose root is the hit that comes
// last in lexBefore's order.
func heapInit(h []lexHit) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}

func heapDown(h []lexHit, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && lexBefore(h[l], h[r]) {
			j = r
		}
		if !lexBefore(h[i], h[j]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
