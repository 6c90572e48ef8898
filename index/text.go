package index

import (
	"strings"
	"sync"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
no nor not of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we were what
when where which while who whom why will with would you your yours yourself yourselves shall unto thee thou thy ye
hath doth also may might must us let`) {
		m[w] = true
	}
	return m
}()

// stemCache memoises Porter stems; the vocabulary of a corpus is finite but
// queries are not, so the cache is bounded.
var stemCache sync.Map

var stemCount int64
var stemMu sync.Mutex

const stemCacheMax = 500000

func stem(w string) string {
	if v, ok := stemCache.Load(w); ok {
		return v.(string)
	}
	s := porterstemmer.StemString(w)
	stemMu.Lock()
	if stemCount < stemCacheMax {
		stemCount++
		stemCache.Store(strings.Clone(w), s)
	}
	stemMu.Unlock()
	return s
}

// Tokenize lower-cases text, splits it on non-alphanumerics, drops English
// stopwords and Porter-stems the rest. The local embedder, the local
// reranker and memory matching share it.
func Tokenize(text string) []string {
	out := make([]string, 0, len(text)/6+1)
	start := -1
	lower := strings.ToLower(text)
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := lower[start:end]
		start = -1
		if len(w) > 40 || stopwords[w] {
			return
		}
		if len(w) == 1 && !unicode.IsDigit(rune(w[0])) {
			return
		}
		out = append(out, stem(w))
	}
	for i, r := range lower {
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(lower))
	return out
}

// wordRune reports whether r is part of a word: a letter or a digit, but
// not the modifier letter apostrophe ʼ (U+02BC), which answer models and
// pasted text write for the apostrophe of "donʼt" and "hotelʼs": it
// splits a word as ' and ’ do ("hotelʼs" is "hotel", not "hotelʼ").
func wordRune(r rune) bool {
	return unicode.IsLetter(r) && r != '\u02bc' || unicode.IsDigit(r)
}

// Words is Tokenize without stemming: the lower-cased content words of
// text, stopwords dropped (for word vectors, which know whole words).
func Words(text string) []string {
	out := make([]string, 0, len(text)/6+1)
	lower := strings.ToLower(text)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := lower[start:end]
		start = -1
		if len(w) > 40 || stopwords[w] || len(w) == 1 && !unicode.IsDigit(rune(w[0])) {
			return
		}
		out = append(out, w)
	}
	for i, r := range lower {
		if wordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(lower))
	return out
}
