package retrieve

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/wordvec"
	"github.com/answer-guard/guard/internal/cpustage"
)

// SentenceEncoder embeds a text as an L2-normalised vector;
// *encoder.Encoder (the embedded Universal Sentence Encoder lite)
// implements it.
type SentenceEncoder interface {
	Embed(text string) []float32
}

// WordVectors tells how close two words are in meaning (cosine, 1 for the
// same word, 0 when either is unknown); *wordvec.Vectors implements it.
type WordVectors interface {
	Similarity(a, b string) float64
}

var (
	_ SentenceEncoder = (*encoder.Encoder)(nil)
	_ WordVectors     = (*wordvec.Vectors)(nil)
)

// semantic computes the gate's semantic features of the final candidates:
// the encoder's cosine between question and passage, and the word
// vectors' soft coverage. Passage vectors and words are cached per chunk
// (bounded), so a warm corpus costs one question embedding per turn.
type semantic struct {
	enc SentenceEncoder
	wv  WordVectors
	// cache maps passageKey -> *passageSem; n counts its entries.
	cache sync.Map
	n     atomic.Int64
	// own are the general-question sets' vectors under an encoder with
	// no checksum (general.go), embedded once.
	ownBanks sync.Once
	own      *questionBanks
}

// maxSemanticCache bounds the cached passages (about 2.5 KB each).
const maxSemanticCache = 16384

type passageKey struct {
	p    *index.Partition
	slot int
	id   string
}

type passageSem struct {
	vec   []float32
	words []string
	// plain and rows are for coverAll (softcover.go): whether every word
	// is lowercase ASCII, and the word-vector rows of its distinct known
	// words.
	plain bool
	rows  []int32
	focus *passageFocus // stems, word-vector ids and sentence ends of words (semantic_focus.go)
}

func newSemantic(enc SentenceEncoder, wv WordVectors) *semantic {
	return &semantic{enc: enc, wv: wv}
}

// reset drops the cache (a new snapshot was published).
func (s *semantic) reset() {
	s.cache.Range(func(k, _ any) bool {
		s.cache.Delete(k)
		return true
	})
	s.n.Store(0)
}

func (s *semantic) passage(p *index.Partition, slot int, embed bool) *passageSem {
	ch := p.Chunk(slot)
	key := passageKey{p, slot, ch.ID}
	if v, ok := s.cache.Load(key); ok {
		if ps := v.(*passageSem); ps.vec != nil || !embed {
			return ps
		}
	}
	text := ch.Text
	if ch.Title != "" {
		text = ch.Title + ". " + text
	}
	ps := &passageSem{words: index.Words(text)}
	s.wordRows(ps)
	ps.focus = s.newPassageFocus(ch.Title, ch.Text, ps.words)
	if embed {
		ps.vec = s.enc.Embed(index.EncoderText(ch)) // the text the snapshot's vectors embed
	}
	if s.n.Load() < maxSemanticCache {
		if _, loaded := s.cache.Swap(key, ps); !loaded {
			s.n.Add(1)
		}
	}
	return ps
}

// fill sets Sim, Soft and Semantic on cands (chunks of p) for question q
// and returns the question's encoder vector (nil when there are no
// cands).
// When the partition's dense lane is the embedded encoder, qv is the
// question's vector the lane already computed and the passages' vectors
// are the snapshot's: nothing is encoded here. Otherwise (hashed or
// remote dense lane) the question (through embedQ, which may cache it)
// and the passages are encoded here, the passages once each (cached).
func (s *semantic) fill(p *index.Partition, q string, qv []float32, slots []int, cos []float64, cands []Candidate, embedQ func(string) []float32) []float32 {
	if len(cands) == 0 {
		return nil
	}
	own := p.Encoder() != nil && len(qv) == p.PrimaryDims()
	if !own {
		cpustage.Embed.Enter()
		qv = embedQ(lead(q, maxEncodedChars))
		cpustage.Semantic.Enter()
	}
	qw := index.Words(q)
	coh, _ := p.Coherence()
	pss := make([]*passageSem, len(cands))
	for i := range cands {
		ps := s.passage(p, slots[i], !own)
		switch {
		case own && cos != nil:
			cands[i].Sim = cos[i] // the pool's cosine (RetrieveFrom): the same product
		case own:
			cands[i].Sim = p.Cosine(qv, slots[i])
		default:
			cands[i].Sim = encoder.Cosine(qv, ps.vec)
		}
		pss[i] = ps
		cands[i].Semantic, cands[i].Coherence = true, coh
	}
	if s.wv != nil {
		mean, worst := make([]float64, len(cands)), make([]float64, len(cands))
		s.coverAll(qw, pss, mean, worst)
		for i := range cands {
			cands[i].Soft, cands[i].SoftMin = mean[i], worst[i]
		}
		fq := newFocusQuestion(q, p.Local().IDF)
		s.focusAll(&fq, pss, cands)
	}
	return qv
}

// coverage is the word vectors' soft coverage of the question's words by
// the passage's: for each question word its best cosine to a passage word
// (1 when the passage has it), averaged (mean) and at its worst (min): a
// passage on the topic may still lack the one thing asked ("gym" against
// a spa's pool and sauna).
func (s *semantic) coverage(q, p []string) (mean, worst float64) {
	if len(q) == 0 {
		return 0, 0
	}
	worst = 1
	for _, qw := range q {
		best := 0.0
		for _, pw := range p {
			if qw == pw {
				best = 1
				break
			}
			best = max(best, s.wv.Similarity(qw, pw))
		}
		mean += best
		worst = min(worst, best)
	}
	return mean / float64(len(q)), worst
}

// maxEncodedChars bounds the text the encoder reads of a passage or a
// question: its cost grows with the square of the tokens, and a sentence
// encoder's vector of a long page is mostly its opening anyway (the word
// vectors still read the whole passage). It is the index's bound, so a
// question and the passages' vectors are cut alike.
const maxEncodedChars = index.EncoderMaxChars

// lead is s cut to at most n bytes at a space.
func lead(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > n/2 {
		return s[:i]
	}
	return s[:n]
}
