package gate

import (
	"hash/maphash"
	"sync"
)

// noteText is what the prompt's note cleaner reads of a text before this
// turn's refs and scrub apply, and the cleaning that follows them when they
// leave the text as it is: both depend on the text alone, and the same
// passages are notes turn after turn (a turn's refs and the partition's
// catalog do not: they are applied per turn, as before).
type noteText struct {
	src     string
	bigrams bigramSet // newBigramSet(src)
	// rest is collapseSpace(endParagraphs(neutralizeNumbers(stripMarkers(src)))):
	// the cleaning after the refs are hidden and the scrub applied
	rest string
}

func newNoteText(s string) *noteText {
	return &noteText{src: s, bigrams: *newBigramSet(s), rest: cleanRest(s)}
}

// cleanRest is the cleaning of a note text after its refs are hidden and
// the scrub applied: footnote markers removed, bare bracketed numbers
// neutralised, paragraphs ended, whitespace collapsed.
func cleanRest(s string) string {
	return collapseSpace(endParagraphs(neutralizeNumbers(stripMarkers(s))))
}

// noteTexts keeps noteText values across turns, keyed by a hash of the
// text and checked against it on a hit. A value is a function of its text
// alone, so nothing is invalidated when a snapshot changes, and a tenant
// gets from it nothing but what its own text gives. Bounded: a shard over
// its share of noteTextBytes starts empty again.
var noteTexts = noteTextCache{seed: maphash.MakeSeed()}

type noteTextCache struct {
	seed   maphash.Seed
	shards [noteTextShards]noteTextShard
}

type noteTextShard struct {
	mu    sync.Mutex
	m     map[uint64]*noteText
	bytes int
}

const (
	noteTextShards = 16
	noteTextBytes  = 16 << 20
)

// size is an entry's cost in bytes: its text (kept alive by the entry),
// its cleaned form when that is a copy, and the struct.
func (n *noteText) size() int {
	sz := len(n.src) + 192
	if n.rest != n.src {
		sz += len(n.rest)
	}
	return sz
}

// get returns the noteText of s, made and kept on a miss. Safe for
// concurrent use.
func (c *noteTextCache) get(s string) *noteText {
	h := maphash.String(c.seed, s)
	sh := &c.shards[h%noteTextShards]
	sh.mu.Lock()
	n := sh.m[h]
	sh.mu.Unlock()
	if n != nil && n.src == s {
		return n
	}
	n = newNoteText(s)
	sz := n.size()
	sh.mu.Lock()
	if sh.m == nil || sh.bytes+sz > noteTextBytes/noteTextShards {
		sh.m, sh.bytes = make(map[uint64]*noteText), 0
	}
	if old := sh.m[h]; old != nil {
		sh.bytes -= old.size()
	}
	sh.m[h] = n
	sh.bytes += sz
	sh.mu.Unlock()
	return n
}
