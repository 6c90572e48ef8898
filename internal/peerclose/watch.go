package peerclose

import (
	"net"
	"sync"
	"time"
)

// Watch looks at one client connection every interval for a close while
// the client's request waits on something else (the upstream's answer),
// and calls gone once when it sees one. It peeks (Closed), so bytes a
// pipelining client already sent for its next request are no close and
// stay where they are. It is a self-rearming timer: a request answered
// within one interval costs a timer and no tick, and no goroutine.
type Watch struct {
	mu    sync.Mutex
	t     *time.Timer
	conn  net.Conn
	every time.Duration
	gone  func()
	ended bool // Stop ran, or gone was called (guarded by mu)
	seen  bool // the client was seen gone (guarded by mu)
}

// Start watches conn every interval (every > 0) until Stop; gone runs at
// most once, on the timer's goroutine, and must not call Stop.
func Start(conn net.Conn, every time.Duration, gone func()) *Watch {
	w := &Watch{conn: conn, every: every, gone: gone}
	w.mu.Lock() // w.t is set before the first tick reads it
	w.t = time.AfterFunc(every, w.tick)
	w.mu.Unlock()
	return w
}

func (w *Watch) tick() {
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return
	}
	if !Closed(w.conn) {
		w.t.Reset(w.every)
		w.mu.Unlock()
		return
	}
	w.ended, w.seen = true, true
	w.mu.Unlock()
	w.gone()
}

// Stop ends the watch: no tick starts after it returns (gone may still be
// running if the client was seen gone just before). It reports whether
// the client was seen gone. Later calls change nothing.
func (w *Watch) Stop() (gone bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.t.Stop()
	return w.seen
}
