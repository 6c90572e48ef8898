package evrelay

import (
	"sync"
	"sync/atomic"
)

// AutoStreams is where server.event_loop: auto starts using the loop: a
// pass-through stream goes to it while more than this many client
// connections, or streams, are open (connections count streams that are
// starting together, before any has its upstream's header). A few busy streams relay cheaper on their own goroutines (the
// 50-event burst at 32 connections: 70.6 against 84.3 us of CPU per
// stream on the loop, docs/bench.md); many slow ones cheaper on the loop
// (2,000 open paced streams: 415 against 551 us).
const AutoStreams = 64

// Streams counts a server's open streams: a WaitGroup that also says how
// many are open.
type Streams struct {
	wg sync.WaitGroup
	n  atomic.Int64
}

// Add adds d open streams.
func (s *Streams) Add(d int) { s.n.Add(int64(d)); s.wg.Add(d) }

// Done ends one.
func (s *Streams) Done() { s.n.Add(-1); s.wg.Done() }

// Wait waits until none is open.
func (s *Streams) Wait() { s.wg.Wait() }

// Open is how many are open now.
func (s *Streams) Open() int64 { return s.n.Load() }
