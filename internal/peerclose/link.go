package peerclose

import (
	"io"
	"sync"
	"sync/atomic"
)

// Owned is embedded in a pooled connection: it records which request's
// Link it is written for, so that a request that ends after its answer
// was read whole (and its connection went back to the pool, maybe to
// another request) never closes it.
type Owned struct{ owner atomic.Pointer[Link] }

// closing marks an Owned connection a Link is closing.
var closing = new(Link)

// Link ties one request to the pooled connection it is sent on: End (the
// client left) closes that connection, so a request blocked on it returns,
// and a connection handed over after End is closed at once. The zero Link
// is ready to use.
type Link struct {
	mu    sync.Mutex
	o     *Owned
	c     io.Closer
	ended bool
}

// Use records c, whose Owned is o, as the connection the request is now
// written on (a retry's replaces the first attempt's). A connection Use
// takes over from a request that is closing it fails its write: nothing
// of the request was sent, so it may be retried.
func (l *Link) Use(o *Owned, c io.Closer) {
	o.owner.Store(l)
	l.mu.Lock()
	l.o, l.c = o, c
	ended := l.ended
	l.mu.Unlock()
	if ended {
		l.close(o, c)
	}
}

// End closes the connection in use, if it is still this request's, and
// any handed over later. It reports whether it was the first End.
func (l *Link) End() bool {
	l.mu.Lock()
	first := !l.ended
	l.ended = true
	o, c := l.o, l.c
	l.mu.Unlock()
	if first && o != nil {
		l.close(o, c)
	}
	return first
}

// Ended reports whether End ran.
func (l *Link) Ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

func (l *Link) close(o *Owned, c io.Closer) {
	if o.owner.CompareAndSwap(l, closing) {
		c.Close() //nolint:errcheck // closing only ends reads and writes
	}
}

// Done ends the tie once the request is done with its connection (the
// answer was read): it may be another request's from now on, and a later
// End closes nothing. It reports whether the connection is intact: false
// when End ran first and closed it.
func (l *Link) Done() bool {
	l.mu.Lock()
	o, intact := l.o, !l.ended
	l.o, l.c = nil, nil
	l.mu.Unlock()
	if o != nil {
		o.owner.CompareAndSwap(l, nil)
	}
	return intact
}
