package judge

import (
	"hash/maphash"
	"strings"
	"sync/atomic"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// porterStem is porterstemmer.StemString, remembered: the analysis of
// claims and evidence stems the same words turn after turn, and stemming
// was a third of analyse's CPU. A direct-mapped table of stemSlots words,
// lock-free (a slot holds one word and its stem; a newer word replaces it),
// so it stays bounded whatever text arrives.
func porterStem(w string) string {
	h := maphash.String(stemSeed, w)
	slot := &stemSlots[h&uint64(len(stemSlots)-1)]
	if e := slot.Load(); e != nil && e.word == w {
		return e.stem
	}
	st := porterstemmer.StemString(w)
	// w may be part of a long text: keep a copy, not the text.
	slot.Store(&stemEntry{word: strings.Clone(w), stem: st})
	return st
}

type stemEntry struct{ word, stem string }

var (
	stemSeed  = maphash.MakeSeed()
	stemSlots [1 << 14]atomic.Pointer[stemEntry]
)
