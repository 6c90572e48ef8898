package encoder

import (
	"hash/maphash"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/answer-guard/guard/internal/quotefold"
	"github.com/answer-guard/guard/internal/resident"
	"golang.org/x/text/unicode/norm"
)

// wordStart is sentencepiece's word-boundary mark (U+2581).
const wordStart = "\u2581"

// reservedPieces are the control pieces at the head of the vocabulary
// (unknown, <s>, </s>, three spare ids); they never match text.
const reservedPieces = 6

// tokenizer splits text into sentencepiece ids the way the JavaScript
// reference (@energetic-ai/embeddings) does: NFKC, a word mark before the
// text and for every space, then the best-scoring segmentation into
// vocabulary pieces (Viterbi over the sum of piece log-probabilities), a
// code point no piece covers becoming the unknown id 0, runs of unknowns
// merged into one.
//
// The vocabulary is a compact table without pointers, outside the Go heap
// where the system allows it (internal/resident's Arena): the pieces' bytes
// end to end, their offsets, scores and lengths, and an open-addressing
// index of piece ids by hash (about 0.2 MB for 8,000 pieces, where a map of
// piece strings held about 1 MB of heap, five at the peak under the
// proxy's server.gc.percent 400).
type tokenizer struct {
	text  []uint8   // every piece's bytes, end to end
	off   []uint32  // piece i is text[off[i]:off[i+1]]
	score []float32 // by piece id
	// units is each piece's length in UTF-16 code units, which the
	// reference uses when it walks the best path back.
	units []int32
	// slots index the matchable pieces (ids from reservedPieces on) by
	// hash: id+1, 0 when empty; a power of two, at most half full.
	slots    []int32
	seed     maphash.Seed
	maxRunes int
}

func newTokenizer(pieces []string, scores []float32) *tokenizer {
	var a resident.Arena
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	nslots := 1
	for nslots < 2*len(pieces) {
		nslots <<= 1
	}
	t := &tokenizer{
		text:  resident.Make[uint8](&a, size),
		off:   resident.Make[uint32](&a, len(pieces)+1),
		score: resident.Make[float32](&a, len(pieces)),
		units: resident.Make[int32](&a, len(pieces)),
		slots: resident.Make[int32](&a, nslots),
		seed:  maphash.MakeSeed(),
	}
	o := 0
	for i, p := range pieces {
		t.off[i] = uint32(o)
		o += copy(t.text[o:], p)
		t.score[i] = scores[i]
		t.units[i] = int32(len(utf16.Encode([]rune(p))))
	}
	t.off[len(pieces)] = uint32(o)
	for i, p := range pieces {
		if i < reservedPieces {
			continue
		}
		k := t.slot(p)
		t.slots[k] = int32(i) + 1 // a later duplicate wins
		t.maxRunes = max(t.maxRunes, utf8.RuneCountInString(p))
	}
	resident.ReleaseWith(&a, t)
	return t
}

// slot is the index of p's slot in t.slots: the one holding p, else the
// empty one where it would go.
func (t *tokenizer) slot(p string) int {
	mask := len(t.slots) - 1
	k := int(maphash.String(t.seed, p)) & mask
	for {
		id := t.slots[k] - 1
		if id < 0 || string(t.text[t.off[id]:t.off[id+1]]) == p {
			return k
		}
		k = (k + 1) & mask
	}
}

// lookup returns the id and score of the piece p; ok is false when no
// matchable piece is p.
func (t *tokenizer) lookup(p string) (id int32, score float32, ok bool) {
	id = t.slots[t.slot(p)] - 1
	if id < 0 {
		return 0, 0, false
	}
	return id, t.score[id], true
}

// encode returns the piece ids of text. Typographic apostrophes and
// quotes are read as ASCII ones (internal/quotefold), a step the JS
// reference does not take: the vocabulary has a piece for ’ apart from '
// (ids 2390 and 13), so "what’s the price", as a phone types it, embedded
// at cosine 0.91-0.95 to "what's the price" and moved the gate's
// relevance; ASCII text gives the reference's pieces as before.
func (t *tokenizer) encode(text string) []int32 {
	if !utf8.ValidString(text) {
		// Each invalid byte becomes U+FFFD, as a decoder hands JavaScript.
		text = string([]rune(text))
	}
	s := quotefold.Fold(norm.NFKC.String(text))
	if s == "" {
		return nil
	}
	s = wordStart + strings.ReplaceAll(s, " ", wordStart)
	syms := []rune(s)
	n := len(syms)
	// offs[i] is the byte offset of rune i, so a candidate piece is a
	// substring of s without building strings rune by rune.
	offs := make([]int, n+1)
	o := 0
	for i, r := range syms {
		offs[i] = o
		o += len(string(r))
	}
	offs[n] = o

	type edge struct {
		start int
		score float32
		id    int32
	}
	// ends[e] lists the pieces that end at rune e, by ascending start
	// (the order the reference visits them in).
	ends := make([][]edge, n+1)
	for i := 0; i < n; i++ {
		found := false
		for l := 1; l <= t.maxRunes && i+l <= n; l++ {
			if id, score, ok := t.lookup(s[offs[i]:offs[i+l]]); ok {
				ends[i+l] = append(ends[i+l], edge{start: i, score: score, id: id})
				found = true
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], edge{start: i, score: 0, id: 0})
		}
	}
	best := make([]float32, n+1)
	words := make([]int32, n+1)
	for e := 0; e <= n; e++ {
		for _, c := range ends[e] {
			sc := c.score + best[c.start]
			if best[e] == 0 || sc >= best[e] {
				best[e] = sc
				words[e] = c.id
			}
		}
	}
	var rev []int32
	for it := n; it > 0; {
		id := words[it]
		rev = append(rev, id)
		it -= int(t.units[id])
	}
	out := make([]int32, 0, len(rev))
	prevUnk := false
	for _, id := range rev {
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
