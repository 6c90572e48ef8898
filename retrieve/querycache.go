package retrieve

import (
	"slices"
	"sync"

	"github.com/answer-guard/guard/internal/resident"

	"github.com/dgraph-io/ristretto/v2"
)

// questionCache remembers the sentence encoder's vectors of questions
// (retrieve.question_cache_mb): real traffic repeats questions, and a
// question's vector is most of a turn's CPU time. A key holds the
// encoder's checksum, the tenant, the kb and the exact text encoded: a
// vector depends only on encoder and text, but a shared entry would let
// one tenant time whether another asked the same question (a hit saves
// milliseconds).
//
// The ristretto cache (and its goroutines) is made on first use, so an
// engine whose partitions never use the encoder never starts it. It keeps
// each vector's slot, not the vector: the vectors live in fixed slots of
// one region outside the Go heap where the system allows it
// (internal/resident's Arena), so a full cache (8 MB by default) is not
// five times that in the collector's goal under the proxy's
// server.gc.percent 400. A hit copies the vector out under mu; a slot is
// freed when ristretto lets its value go (eviction, rejection, update)
// and reused with a new generation, so a stale slot never reads as a hit.
type questionCache struct {
	mb     int
	mu     sync.Mutex
	c      *ristretto.Cache[string, qslot]
	closed bool
	// The slots, made at the first Set (dims is the first vector's
	// length; a vector of another length is not cached): slot i is
	// vecs[i*dims:(i+1)*dims], held while gen[i] is not 0.
	dims    int
	vecs    []float32
	gen     []uint32
	free    []int32
	nextGen uint32
	arena   resident.Arena
}

// qslot is a cached vector's place: its slot and the generation it was
// written with.
type qslot struct {
	slot int32
	gen  uint32
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
func (q *questionCache) cache() *ristretto.Cache[string, qslot] {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.c == nil && !q.closed {
		c, err := ristretto.NewCache(&ristretto.Config[string, qslot]{
			NumCounters: int64(q.mb) * 4000, // about 400 vectors per MB, ten counters each
			MaxCost:     int64(q.mb) << 20,
			BufferItems: 64,
			OnExit:      q.release,
		})
		if err != nil { // only for a config out of range, which Validate rejects
			q.closed = true
			return nil
		}
		q.c = c
	}
	return q.c
}

// held reports whether s's slot still holds the vector s was written
// with (not freed since, nor reused). q.mu must be held.
func (q *questionCache) held(s qslot) bool {
	return s.gen != 0 && int(s.slot) < len(q.gen) && q.gen[s.slot] == s.gen
}

// load copies the vector at s out; nil when the slot was freed since.
func (q *questionCache) load(s qslot) []float32 {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.held(s) {
		return nil
	}
	return slices.Clone(q.vecs[int(s.slot)*q.dims : int(s.slot+1)*q.dims])
}

// store copies v into a free slot; ok is false when none is free or v's
// length is not the slots'.
func (q *questionCache) store(v []float32) (s qslot, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.vecs == nil && len(v) > 0 {
		// An entry costs at least its vector and 64 bytes (embed), so
		// the bound never holds more vectors than slots.
		n := (q.mb << 20) / (4*len(v) + 64)
		q.dims, q.vecs, q.gen = len(v), resident.Make[float32](&q.arena, n*len(v)), make([]uint32, n)
		resident.ReleaseWith(&q.arena, q)
		q.free = make([]int32, n)
		for i := range q.free {
			q.free[i] = int32(n - 1 - i)
		}
	}
	if len(v) != q.dims || len(q.free) == 0 {
		return qslot{}, false
	}
	i := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	q.nextGen++
	if q.nextGen == 0 {
		q.nextGen = 1
	}
	copy(q.vecs[int(i)*q.dims:], v)
	q.gen[i] = q.nextGen
	return qslot{i, q.nextGen}, true
}

// release frees the slot at s unless it was freed (and perhaps reused)
// already; ristretto calls it when it lets a value go.
func (q *questionCache) release(s qslot) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.held(s) {
		return
	}
	q.gen[s.slot] = 0
	q.free = append(q.free, s.slot)
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
	if s, ok := c.Get(key); ok {
		if v := q.load(s); v != nil {
			return v
		}
	}
	v := embed(text)
	if s, ok := q.store(v); ok && !c.Set(key, s, int64(4*len(v)+len(key)+64)) {
		q.release(s) // dropped: ristretto never saw it
	}
	return v
}

// close stops the cache; later lookups embed.
func (q *questionCache) close() {
	if q == nil {
		return
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	c := q.c
	q.mu.Unlock()
	if c != nil {
		// Not under mu: stopping waits for ristretto's goroutine, which
		// may be in release.
		c.Close()
	}
}
