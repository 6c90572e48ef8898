package peerclose

import (
	"net"
	"sync"
	"time"
)

// Watcher looks at many client connections for a close while their
// requests wait on something else (the upstream's answer), all with one
// goroutine that wakes every interval and runs only while some connection
// is watched. A request answered within the interval costs a map insert
// and delete: no timer of its own, whose arming woke the runtime's poller
// (two more epoll waits per request). The zero value is ready; Close ends
// the goroutine at once (a server's shutdown).
type Watcher struct {
	mu      sync.Mutex
	set     map[*Watch]struct{}
	every   time.Duration // the latest Start's interval
	running bool
	quit    chan struct{} // closed by Close
	closed  bool
	batch   []*Watch // the sweeper's, reused
}

// Watch is one connection's watch (Watcher.Start).
type Watch struct {
	p    *Watcher
	conn net.Conn
	gone func()
	seen bool // the client was seen gone (guarded by p.mu)
}

// Start watches conn until Stop, looking at it at least every interval
// (every > 0; the latest Start's interval applies to all); gone runs at
// most once, on the watcher's goroutine. It peeks (Closed), so bytes a
// pipelining client already sent for its next request are no close and
// stay where they are. After Close, Start watches nothing.
func (p *Watcher) Start(conn net.Conn, every time.Duration, gone func()) *Watch {
	w := &Watch{p: p, conn: conn, gone: gone}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return w
	}
	if p.set == nil {
		p.set, p.quit = make(map[*Watch]struct{}), make(chan struct{})
	}
	p.set[w], p.every = struct{}{}, every
	if !p.running {
		p.running = true
		go p.sweep()
	}
	return w
}

// sweep looks at every watched connection each interval, and returns at
// a tick that finds none watched, or at Close.
func (p *Watcher) sweep() {
	for {
		p.mu.Lock()
		t := time.NewTimer(p.every)
		p.mu.Unlock()
		select {
		case <-p.quit:
			t.Stop()
			return
		case <-t.C:
		}
		p.mu.Lock()
		if len(p.set) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		for w := range p.set {
			p.batch = append(p.batch, w)
		}
		p.mu.Unlock()
		for _, w := range p.batch {
			if Closed(w.conn) && p.take(w) {
				w.gone()
			}
		}
		clear(p.batch)
		p.batch = p.batch[:0]
	}
}

// take ends w's watch as seen gone; false: Stop ran first.
func (p *Watcher) take(w *Watch) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, live := p.set[w]; !live {
		return false
	}
	delete(p.set, w)
	w.seen = true
	return true
}

// Close ends the watcher's goroutine; watches not stopped are dropped.
func (p *Watcher) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && p.quit != nil {
		close(p.quit)
	}
	p.closed, p.set, p.running = true, nil, false
}

// Stop ends the watch: gone is not called after it returns unless it was
// already running. It reports whether the client was seen gone. Later
// calls change nothing.
func (w *Watch) Stop() (gone bool) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.set, w)
	return w.seen
}
