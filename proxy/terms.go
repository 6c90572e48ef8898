package proxy

import (
	"hash/maphash"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/gatefeed"
)

// termCache keeps the answerability model's view of a passage's words
// (gate.PassageTerms) across turns: tokenizing and stemming every candidate
// of every turn was the largest single cost of a guarded turn (16% of CPU
// under load, gate.(*Question).match). It is keyed by a hash of the
// passage's title and text, so it needs no invalidation when a snapshot
// changes and reveals nothing across tenants (a value is derived only from
// the text the key was made of). Shared by every configuration the server
// runs; closed at shutdown.
type termCache struct {
	seed  maphash.Seed
	cache *ristretto.Cache[uint64, *gate.PassageTerms]
}

// termCacheCost bounds the cache: the sum of the terms and pairs held
// (about 100 bytes each with map overhead, so roughly 50 MB at most).
const termCacheCost = 500_000

func newTermCache() *termCache {
	c, err := ristretto.NewCache(&ristretto.Config[uint64, *gate.PassageTerms]{
		NumCounters: 100_000, MaxCost: termCacheCost, BufferItems: 64,
	})
	if err != nil {
		return nil // a constant, valid configuration: never; without a cache Assess tokenizes
	}
	return &termCache{seed: maphash.MakeSeed(), cache: c}
}

// fill sets each candidate's Terms from the cache, preparing and storing
// the missing ones.
func (tc *termCache) fill(cands []gate.Candidate) {
	if tc == nil {
		return
	}
	for i := range cands {
		var h maphash.Hash
		h.SetSeed(tc.seed)
		h.WriteString(cands[i].Title)
		h.WriteByte(0)
		h.WriteString(cands[i].Text)
		k := h.Sum64()
		if pt, ok := tc.cache.Get(k); ok {
			cands[i].Terms = pt
			continue
		}
		pt := gate.NewPassageTerms(gatefeed.Tokenize, cands[i].Title, cands[i].Text)
		tc.cache.Set(k, pt, int64(pt.Size()+1))
		cands[i].Terms = pt
	}
}

func (tc *termCache) close() {
	if tc != nil {
		tc.cache.Close()
	}
}
