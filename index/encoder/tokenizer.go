package encoder

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wordStart is sentencepiece's word-boundary mark (U+2581).
const wordStart = "\u2581"

// reservedPieces are the control pieces at the head of the vocabulary
// (unknown, <s>, </s>, three spare ids); they never match text.
const reservedPieces = 6

type piece struct {
	score float32
	id    int32
}

// tokenizer splits text into sentencepiece ids the way the JavaScript
// reference (@energetic-ai/embeddings) does: NFKC, a word mark before the
// text and for every space, then the best-scoring segmentation into
// vocabulary pieces (Viterbi over the sum of piece log-probabilities), a
// code point no piece covers becoming the unknown id 0, runs of unknowns
// merged into one.
type tokenizer struct {
	pieces   map[string]piece
	maxRunes int
	// units is each piece's length in UTF-16 code units, which the
	// reference uses when it walks the best path back.
	units []int
}

func newTokenizer(pieces []string, scores []float32) *tokenizer {
	t := &tokenizer{pieces: make(map[string]piece, len(pieces)), units: make([]int, len(pieces))}
	for i, p := range pieces {
		t.units[i] = len(utf16.Encode([]rune(p)))
		if i < reservedPieces {
			continue
		}
		t.pieces[p] = piece{score: scores[i], id: int32(i)} // a later duplicate wins
		t.maxRunes = max(t.maxRunes, len([]rune(p)))
	}
	return t
}

// encode returns the piece ids of text.
func (t *tokenizer) encode(text string) []int32 {
	if !utf8.ValidString(text) {
		// Each invalid byte becomes U+FFFD, as a decoder hands JavaScript.
		text = string([]rune(text))
	}
	s := norm.NFKC.String(text)
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
			if p, ok := t.pieces[s[offs[i]:offs[i+l]]]; ok {
				ends[i+l] = append(ends[i+l], edge{start: i, score: p.score, id: p.id})
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
		it -= t.units[id]
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
