package proxy

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/waitread"
)

// closeProbe is a trackedConn over one end of a pipe; closed reports
// whether that end was closed (a read on the other end then fails).
func closeProbe(t *testing.T) (c *trackedConn, closed func() bool) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &trackedConn{Conn: a, wr: waitread.New(a)}, func() bool {
		b.SetReadDeadline(time.Now().Add(-time.Second)) //nolint:errcheck
		_, err := b.Read(make([]byte, 1))
		// A closed far end reads as EOF; an open one times out at once.
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}
}

// The watch closes the stream's upstream connection when the request
// ends, in either order of tying (link.Use) and stop, once; a connection it gave
// back (link.Done) stays open whatever comes after.
func TestWatchClosesConn(t *testing.T) {
	u := UpstreamConfig{RequestTimeout: time.Hour, IdleTimeout: time.Hour, FirstByteTimeout: time.Hour}
	cause := errors.New("client gone")

	t.Run("watched, then stopped", func(t *testing.T) {
		ctx, w := newStreamWatch(u, time.Now())
		c, closed := closeProbe(t)
		w.link.Use(&c.Owned, c)
		if closed() {
			t.Fatal("closed before the request ended")
		}
		w.stop(cause)
		if !closed() || !errors.Is(context.Cause(ctx), cause) {
			t.Fatalf("after stop: closed %v, cause %v", closed(), context.Cause(ctx))
		}
		if w.link.Done() {
			t.Error("Done after stop reports the connection reusable")
		}
		w.stop(nil) // a second stop changes nothing
	})
	t.Run("stopped, then watched", func(t *testing.T) {
		_, w := newStreamWatch(u, time.Now())
		w.stop(cause)
		c, closed := closeProbe(t)
		w.link.Use(&c.Owned, c)
		if !closed() {
			t.Fatal("a connection watched after the request ended stays open")
		}
		if w.link.Done() {
			t.Error("Done reports a closed connection reusable")
		}
	})
	t.Run("given back, then stopped", func(t *testing.T) {
		_, w := newStreamWatch(u, time.Now())
		c, closed := closeProbe(t)
		w.link.Use(&c.Owned, c)
		if !w.link.Done() {
			t.Fatal("Done before the end: want reusable")
		}
		w.stop(nil)
		if closed() {
			t.Error("stop closed a connection that was given back")
		}
	})
}
