package evrelay

import (
	"sync"
	"sync/atomic"
	"time"
)

// Budget is the process's upstream connection budget (upstream.max_conns):
// every open upstream connection, in use or idle in a pool, holds one of
// Max slots, whether the proxy's fasthttp client or an event loop opened
// it. A caller that finds none free waits for one: a goroutine in Acquire,
// a loop in its own queue (it is told when a slot frees). A waiter makes
// every holder close its idle pooled connections (Shed), since an idle
// connection of one pool is a slot another needs.
type Budget struct {
	Max  int
	Busy atomic.Int64 // requests that waited in vain (guard_upstream_busy_total)

	mu      sync.Mutex
	open    int
	waiting []chan struct{} // goroutines in Acquire, first come first served
	freed   []func()        // each loop's "a slot freed" (it looks only when it waits)
	shed    []func()        // each pool's "close your idle connections"
}

// NewBudget returns a budget of max slots.
func NewBudget(max int) *Budget { return &Budget{Max: max} }

// Open is how many slots are held now.
func (b *Budget) Open() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}

// OnShed registers f, called (on the waiter's goroutine or loop, without
// the budget's lock) when someone starts waiting for a slot: it should
// close the idle connections it pools. f must not block.
func (b *Budget) OnShed(f func()) {
	b.mu.Lock()
	b.shed = append(b.shed, f)
	b.mu.Unlock()
}

func (b *Budget) onFreed(f func()) {
	b.mu.Lock()
	b.freed = append(b.freed, f)
	b.mu.Unlock()
}

// TryAcquire takes a slot if one is free.
func (b *Budget) TryAcquire() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open >= b.Max || len(b.waiting) > 0 {
		return false
	}
	b.open++
	return true
}

// Acquire takes a slot, waiting up to wait for one; it reports false
// when none freed in time.
func (b *Budget) Acquire(wait time.Duration) bool {
	b.mu.Lock()
	if b.open < b.Max && len(b.waiting) == 0 {
		b.open++
		b.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	b.waiting = append(b.waiting, ch)
	b.mu.Unlock()
	b.askShed()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, w := range b.waiting {
		if w == ch {
			b.waiting = append(b.waiting[:i], b.waiting[i+1:]...)
			return false
		}
	}
	return true // handed a slot as the timer fired
}

// Release frees a slot: the first goroutine waiting gets it, or it goes
// back to the budget and the loops are told.
func (b *Budget) Release() {
	b.mu.Lock()
	if len(b.waiting) > 0 {
		ch := b.waiting[0]
		b.waiting = b.waiting[1:]
		b.mu.Unlock()
		close(ch)
		return
	}
	b.open--
	freed := b.freed
	b.mu.Unlock()
	for _, f := range freed {
		f()
	}
}

func (b *Budget) askShed() {
	b.mu.Lock()
	shed := b.shed
	b.mu.Unlock()
	for _, f := range shed {
		f()
	}
}

// fdReserve is the part of the file descriptor limit MaxFromFileLimit
// leaves to everything that is not a proxied request: listeners, index and
// log files, Redis, the remote pieces' clients, idle keep-alive clients.
const fdReserve = 256

// MaxFromFileLimit sizes a budget (upstream.max_conns 0) from the file
// descriptor limit: a proxied request holds two descriptors (the client's
// connection and the upstream's), so upstream connections may use half of
// what is left after fdReserve; at least 64.
func MaxFromFileLimit(fdLimit uint64) int {
	if fdLimit < 2*64+fdReserve {
		return 64
	}
	return int(min((fdLimit-fdReserve)/2, 1<<20))
}
