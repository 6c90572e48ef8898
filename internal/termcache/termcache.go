// Package termcache keeps the answerability model's view of passages' words
// (gate.PassageTerms) across turns, for the proxy.
package termcache

import (
	"hash/maphash"
	"sync/atomic"
	"unsafe"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/gatefeed"
)

// Cache keeps the answerability model's view of a passage's words
// (gate.PassageTerms) across turns: tokenizing and stemming every candidate
// of every turn was the largest single cost of a guarded turn (16% of CPU
// under load, gate.(*Question).match). It is keyed by a hash of the
// passage's title and text, so it needs no invalidation when a snapshot
// changes and reveals nothing across tenants (a value is derived only from
// the text the key was made of). Shared by every configuration the server
// runs; closed at shutdown.
//
// In front of it, slots finds a passage by where its strings live rather
// than by what they say, so a turn does not hash 16 passages' text: a
// snapshot's chunk hands every turn the same title and text strings. An
// entry holds the strings it was made from, which keeps their bytes alive
// and unchanged (Go strings are immutable and the snapshot's are on the
// heap, decoded from its gob), so the same data pointer and length is the
// same text, exactly. A miss (another snapshot, a string made per turn)
// falls through to the hashed cache. An entry keeps only its two strings
// alive, not the snapshot they came from.
type Cache struct {
	seed  maphash.Seed
	cache *ristretto.Cache[uint64, *gate.PassageTerms]
	slots [termSlots]atomic.Pointer[termEntry]
}

// termSlots is the size of the direct-mapped front (a power of two; about
// 2,000 times a turn's candidates, and at most about 10 MB of passages kept).
const termSlots = 1 << termSlotBits

const termSlotBits = 14

// termEntry is a front slot's content: the strings a PassageTerms was
// prepared from, held so that their addresses stay theirs.
type termEntry struct {
	title, text string
	terms       *gate.PassageTerms
}

// sameString reports whether a and b are the same bytes in memory (not only
// equal ones).
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// termSlot is the front slot of a text (by its data pointer).
func termSlot(text string) int {
	return int((uint64(uintptr(unsafe.Pointer(unsafe.StringData(text)))) * 0x9e3779b97f4a7c15) >> (64 - termSlotBits))
}

// termCacheCost bounds the cache: the sum of the terms and pairs held
// (about 100 bytes each with map overhead, so roughly 50 MB at most).
const termCacheCost = 500_000

// New returns an empty cache (nil if ristretto refuses its configuration).
func New() *Cache {
	c, err := ristretto.NewCache(&ristretto.Config[uint64, *gate.PassageTerms]{
		NumCounters: 100_000, MaxCost: termCacheCost, BufferItems: 64,
	})
	if err != nil {
		return nil // a constant, valid configuration: never; without a cache Assess tokenizes
	}
	return &Cache{seed: maphash.MakeSeed(), cache: c}
}

// Fill sets each candidate's Terms from the cache, preparing and storing
// the missing ones.
func (tc *Cache) Fill(cands []gate.Candidate) {
	if tc == nil {
		return
	}
	for i := range cands {
		title, text := cands[i].Title, cands[i].Text
		slot := &tc.slots[termSlot(text)]
		if e := slot.Load(); e != nil && sameString(e.text, text) && sameString(e.title, title) {
			cands[i].Terms = e.terms
			continue
		}
		cands[i].Terms = tc.hashed(title, text)
		slot.Store(&termEntry{title: title, text: text, terms: cands[i].Terms})
	}
}

// hashed is the PassageTerms of title and text from the hashed cache,
// prepared and stored when missing.
func (tc *Cache) hashed(title, text string) *gate.PassageTerms {
	var h maphash.Hash
	h.SetSeed(tc.seed)
	h.WriteString(title)
	h.WriteByte(0)
	h.WriteString(text)
	k := h.Sum64()
	if pt, ok := tc.cache.Get(k); ok {
		return pt
	}
	pt := gate.NewPassageTerms(gatefeed.Tokenize, title, text)
	tc.cache.Set(k, pt, int64(pt.Size()+1))
	return pt
}

// Close releases the hashed cache; a Fill after it still works, from the
// front slots or by preparing the terms anew.
func (tc *Cache) Close() {
	if tc != nil {
		tc.cache.Close()
	}
}
