package gauntlet

import (
	"hash/maphash"
	"sync"
)

// noteCache keeps prepared note texts (NoteScrub) across turns: scrubbing
// id shapes and finding the catalog's lookups in every note of every turn
// was most of the gate stage's CPU. Keyed by a hash of the text, checked
// against the text on a hit; a value depends on the text and the spec
// only, so nothing is invalidated when a snapshot changes and nothing
// crosses tenants that the text itself does not give. Bounded: a shard
// over its share of noteCacheBytes starts empty again.
type noteCache struct {
	seed   maphash.Seed
	shards [noteShards]noteShard
}

type noteShard struct {
	mu    sync.Mutex
	m     map[uint64]*NoteScrub
	bytes int
}

const (
	noteShards     = 16
	noteCacheBytes = 32 << 20
)

func newNoteCache() *noteCache { return &noteCache{seed: maphash.MakeSeed()} }

func (c *noteCache) get(s *Spec, text string) *NoteScrub {
	if c == nil {
		return s.PrepareNote(text)
	}
	h := maphash.String(c.seed, text)
	sh := &c.shards[h%noteShards]
	sh.mu.Lock()
	n := sh.m[h]
	sh.mu.Unlock()
	if n != nil && n.src == text {
		return n
	}
	n = s.PrepareNote(text)
	sz := n.size()
	sh.mu.Lock()
	if sh.m == nil || sh.bytes+sz > noteCacheBytes/noteShards {
		sh.m, sh.bytes = make(map[uint64]*NoteScrub), 0
	}
	if old := sh.m[h]; old != nil {
		sh.bytes -= old.size()
	}
	sh.m[h] = n
	sh.bytes += sz
	sh.mu.Unlock()
	return n
}

// ScrubNote returns ScrubCatalog(Scrub(text), isID, keep), the text's
// preparation taken from the spec's cache (made and kept on a miss). Safe
// for concurrent use.
func (s *Spec) ScrubNote(text string, isID, keep func(string) bool) string {
	return s.notes.get(s, text).Apply(isID, keep)
}
