//go:build unix

package peerclose

import (
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// A client that closes is seen, and gone runs once.
func TestWatchSeesClose(t *testing.T) {
	client, server := pair(t)
	gone := make(chan struct{}, 2)
	var p Watcher
	defer p.Close()
	w := p.Start(server, time.Millisecond, func() { gone <- struct{}{} })
	client.Close()
	<-gone
	if !w.Stop() {
		t.Error("Stop after the close: got false, want true")
	}
	select {
	case <-gone:
		t.Error("gone ran twice")
	default:
	}
}

// A pipelining client's next request is no close, tick after tick, and
// its bytes stay to be read; a stopped watch calls nothing.
func TestWatchPipelinedIsOpen(t *testing.T) {
	client, server := pair(t)
	if _, err := client.Write([]byte("GET / HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		var p Watcher
		w := p.Start(server, time.Second, func() { t.Error("gone ran for a pipelined request") })
		time.Sleep(10 * time.Second) // the bubble's clock: ten ticks
		if w.Stop() {
			t.Fatal("a pipelined request was taken for a close")
		}
		time.Sleep(2 * time.Second) // nothing watched: the goroutine ends at its next tick
	})
	b := make([]byte, 3)
	if _, err := io.ReadFull(server, b); err != nil || string(b) != "GET" {
		t.Fatalf("read %q, %v; want the pipelined GET", b, err)
	}
}

// BenchmarkWatchRequest is what watching costs a request answered within
// the interval: Start, then Stop, no tick.
func BenchmarkWatchRequest(b *testing.B) {
	_, server := pair(b)
	gone := func() {}
	var p Watcher
	defer p.Close()
	b.ReportAllocs()
	for b.Loop() {
		p.Start(server, time.Second, gone).Stop()
	}
}
