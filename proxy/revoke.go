package proxy

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"slices"
	"sync"

	"go.uber.org/zap"
)

// errKeyRevoked ends the open streams of a key a reload removed (or whose
// tenant or knowledge base it no longer allows).
var errKeyRevoked = errors.New("api key revoked by a configuration reload")

// keyedStreams are the open streams begun with an API key (auth on), so
// that a reload that revokes a key ends them at once instead of letting
// them run to request_timeout.
type keyedStreams struct {
	mu sync.Mutex
	m  map[*streamWatch]streamKey
}

// streamKey is what a stream was admitted with.
type streamKey struct {
	sum        [sha256.Size]byte
	tenant, kb string
}

func (k *keyedStreams) add(w *streamWatch, key streamKey) {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[*streamWatch]streamKey{}
	}
	k.m[w] = key
	k.mu.Unlock()
}

func (k *keyedStreams) remove(w *streamWatch) {
	k.mu.Lock()
	delete(k.m, w)
	k.mu.Unlock()
}

// revoke ends every open stream whose key rt does not admit any more to
// the tenant and knowledge base it streams from, and returns how many.
func (k *keyedStreams) revoke(rt *runtime) int {
	var ended []*streamWatch
	k.mu.Lock()
	for w, key := range k.m {
		if !rt.admits(key) {
			ended = append(ended, w)
			delete(k.m, w)
		}
	}
	k.mu.Unlock()
	for _, w := range ended {
		w.stop(errKeyRevoked)
	}
	return len(ended)
}

// admits reports whether key still opens its tenant and knowledge base.
func (rt *runtime) admits(key streamKey) bool {
	if !rt.cfg.Auth.Enabled {
		return true
	}
	ok := false
	for i := range rt.keys {
		e := &rt.keys[i]
		if subtle.ConstantTimeCompare(key.sum[:], e.hash[:]) == 1 && e.tenant == key.tenant && slices.Contains(e.kbs, key.kb) {
			ok = true
		}
	}
	return ok
}

// revokeStreams ends the streams of keys the running configuration no
// longer admits (after a reload) and logs how many.
func (s *Server) revokeStreams(rt *runtime) {
	if n := s.keyed.revoke(rt); n > 0 {
		s.log.Info("open streams ended: their API key was revoked", zap.Int("streams", n))
	}
}
