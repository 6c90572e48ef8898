package proxy

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/answer-guard/guard/internal/peerclose"
)

// streamWatch enforces a stream's three upstream timeouts with one timer:
// request_timeout over the whole request, first_byte_timeout until the
// first upstream event, and idle_timeout over each wait of the relay on
// the upstream. A timeout cancels the request's context with its cause.
//
// The timer is re-armed lazily: a wait only records when it began, and a
// timer that fires before the nearest deadline computed from that arms
// itself again for it. So a stream costs one timer, and an event no timer
// operation, while each timeout still fires exactly when it is due.
type streamWatch struct {
	t      *time.Timer
	cancel context.CancelCauseFunc
	start  time.Time
	// Offsets from start. deadline is fixed; first is written before
	// phase turns watchFirst, and read only after phase says so.
	deadline, first, idleFor time.Duration
	phase                    atomic.Int32
	waitAt                   atomic.Int64 // offset at which the relay's current wait began
	// link ties the upstream connection to the stream from its writing on:
	// stop closes it (a blocked read returns), Done gives it back.
	link peerclose.Link
}

// The timeouts a watch enforces beside request_timeout.
const (
	watchSetup int32 = iota // planning and sending the request
	watchFirst              // until the first upstream event
	watchRelay              // the relay: idle_timeout over each wait
	watchEnd                // the answer is over
)

// newStreamWatch returns the context of a stream request that started at
// start and its watch, which cancels it at request_timeout.
func newStreamWatch(u UpstreamConfig, start time.Time) (context.Context, *streamWatch) {
	ctx, cancel := context.WithCancelCause(context.Background())
	w := &streamWatch{cancel: cancel, start: start, deadline: u.RequestTimeout, idleFor: u.IdleTimeout}
	// fire reads w.t: the timer is armed only once it is set.
	w.t = time.AfterFunc(time.Duration(math.MaxInt64), w.fire)
	w.t.Reset(u.RequestTimeout)
	return ctx, w
}

// stop ends the request: its context is cancelled with err (nil: it
// finished), and the timer stops. Later calls change nothing.
func (w *streamWatch) stop(err error) {
	w.cancel(err)
	w.t.Stop()
	w.link.End()
}

func (w *streamWatch) clientGone() { w.stop(errClientGone) }
func (w *streamWatch) over() bool  { return w.link.Ended() }

// firstByte starts the first-byte wait: the first event is due within d.
// It returns the time at which it is due.
func (w *streamWatch) firstByte(d time.Duration) time.Time {
	now := time.Since(w.start)
	w.first = now + d
	w.phase.Store(watchFirst)
	w.t.Reset(min(w.deadline, w.first) - now)
	return w.start.Add(w.first)
}

// relaying ends the first-byte wait: from now on idle_timeout times each
// wait of the relay on the upstream.
func (w *streamWatch) relaying() {
	now := time.Since(w.start)
	w.waitAt.Store(int64(now))
	w.phase.Store(watchRelay)
	w.t.Reset(min(w.deadline, now+w.idleFor) - now)
}

// waiting records that the relay begins a wait on the upstream now.
func (w *streamWatch) waiting() { w.waitAt.Store(int64(time.Since(w.start))) }

// ended: the upstream answer is over; only request_timeout still applies.
func (w *streamWatch) ended() { w.phase.Store(watchEnd) }

func (w *streamWatch) fire() {
	now := time.Since(w.start)
	if now >= w.deadline {
		w.stop(errRequestTimeout)
		return
	}
	next := w.deadline
	switch w.phase.Load() {
	case watchFirst:
		if now >= w.first {
			w.stop(errFirstByteTimeout)
			return
		}
		next = min(next, w.first)
	case watchRelay:
		at := time.Duration(w.waitAt.Load()) + w.idleFor
		if now >= at {
			w.stop(errIdleTimeout)
			return
		}
		next = min(next, at)
	}
	w.t.Reset(next - now)
}
