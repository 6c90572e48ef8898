package retrieve

import (
	"sync"

	"github.com/dgraph-io/ristretto/v2"
)

// questionCache remembers the sentence encoder's vectors of questions
// (retrieve.question_cache_mb): real traffic repeats questions, and a
// question's vector is most of a turn's CPU time. A key holds the
// encoder's checksum, the tenant, the kb and the exact text encoded: a
// vector depends only on encoder and text, but a shared entry would let
// one tenant time whether another asked the same question (a hit saves
// milliseconds). Cached vectors are shared: callers must not change them.
//
// The ristretto cache (and its goroutines) is made on first use, so an
// engine whose partitions never use the encoder never starts it.
type questionCache struct {
	mb     int
	mu     sync.Mutex
	c      *ristretto.Cache[string, []float32]
	closed bool
}

// newQuestionCache returns a cache bounded to mb megabytes; nil for 0.
func newQuestionCache(mb int) *questionCache {
	if mb <= 0 {
		return nil
	}
	return &questionCache{mb: mb}
}

// cache returns the ristretto cache, making it on first use; nil after
// close or when it cannot be made.
func (q *questionCache) cache() *ristretto.Cache[string, []float32] {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.c == nil && !q.closed {
		c, err := ristretto.NewCache(&ristretto.Config[string, []float32]{
			NumCounters: int64(q.mb) * 4000, // about 400 vectors per MB, ten counters each
			MaxCost:     int64(q.mb) << 20,
			BufferItems: 64,
		})
		if err != nil { // only for a config out of range, which Validate rejects
			q.closed = true
			return nil
		}
		q.c = c
	}
	return q.c
}

// checksummer is the part of an encoder that names its weights
// (*encoder.Encoder).
type checksummer interface{ Checksum() string }

// embed returns embed(text), from the cache when (checksum, tenant, kb,
// text) was embedded before. A nil cache or an empty checksum embeds.
func (q *questionCache) embed(checksum, tenant, kb, text string, embed func(string) []float32) []float32 {
	if q == nil || checksum == "" {
		return embed(text)
	}
	c := q.cache()
	if c == nil {
		return embed(text)
	}
	key := checksum + "\x00" + tenant + "\x00" + kb + "\x00" + text
	if v, ok := c.Get(key); ok {
		return v
	}
	v := embed(text)
	c.Set(key, v, int64(4*len(v)+len(key)+64))
	return v
}

// close stops the cache; later lookups embed.
func (q *questionCache) close() {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.c != nil {
		q.c.Close()
	}
}
