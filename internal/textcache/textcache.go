// Package textcache keeps values computed from a text alone across turns:
// the same passages are notes turn after turn, and preparing them again
// each time was most of a stage's CPU (the gauntlet's note scrub, the
// gate's note cleaning).
//
// A value is keyed by a hash of its text and checked against the text on
// a hit, so a collision never returns another text's value. A value is a
// function of its text alone: nothing is invalidated when a snapshot
// changes, and a tenant gets from the cache nothing its own text does not
// give. Bounded: a shard over its share of the byte budget starts empty
// again.
package textcache

import (
	"hash/maphash"
	"sync"
)

// Value is what the cache keeps: its text (checked on a hit) and its cost
// in bytes (the text it keeps alive included).
type Value interface {
	Source() string
	Size() int
}

const shards = 16

// Cache maps texts to values of type V. The zero Cache is not usable: make
// one with New.
type Cache[V Value] struct {
	seed   maphash.Seed
	budget int // bytes per shard
	shards [shards]shard[V]
}

type shard[V Value] struct {
	mu    sync.Mutex
	m     map[uint64]V
	bytes int
}

// New returns a cache that keeps about maxBytes of values.
func New[V Value](maxBytes int) *Cache[V] {
	return &Cache[V]{seed: maphash.MakeSeed(), budget: maxBytes / shards}
}

// Get returns the value of text, made with make and kept on a miss. Safe
// for concurrent use; make may run twice for one text when two callers
// miss at once (both results are equal: a value is a function of its
// text).
func (c *Cache[V]) Get(text string, make func(string) V) V {
	h := maphash.String(c.seed, text)
	sh := &c.shards[h%shards]
	sh.mu.Lock()
	v, ok := sh.m[h]
	sh.mu.Unlock()
	if ok && v.Source() == text {
		return v
	}
	v = make(text)
	sz := v.Size()
	sh.mu.Lock()
	if sh.m == nil || sh.bytes+sz > c.budget {
		sh.m, sh.bytes = map[uint64]V{}, 0
	}
	if old, ok := sh.m[h]; ok {
		sh.bytes -= old.Size()
	}
	sh.m[h] = v
	sh.bytes += sz
	sh.mu.Unlock()
	return v
}
