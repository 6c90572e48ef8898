package peerclose

import (
	"io"
	"testing"
)

type closer struct{ n int }

func (c *closer) Close() error { c.n++; return nil }

// End closes the connection in use once; a connection used after End is
// closed at once; a connection another request took over is left alone.
func TestLink(t *testing.T) {
	var o Owned
	c := &closer{}
	var l Link
	l.Use(&o, c)
	if !l.End() || l.End() {
		t.Fatal("End: want true, then false")
	}
	if c.n != 1 {
		t.Fatalf("closed %d times, want 1", c.n)
	}

	var late Link
	late.End()
	var o2 Owned
	c2 := &closer{}
	late.Use(&o2, c2)
	if c2.n != 1 || !late.Ended() {
		t.Fatalf("a connection used after End: closed %d times, want 1", c2.n)
	}

	var first, second Link
	var o3 Owned
	c3 := &closer{}
	first.Use(&o3, c3)
	second.Use(&o3, c3) // back in the pool, taken by another request
	first.End()
	var done Link
	done.Use(&o3, c3)
	if !done.Done() {
		t.Error("Done before End: want intact")
	}
	done.End()
	second.End()
	if c3.n != 0 {
		t.Fatal("End closed a connection another request uses, or after Done")
	}
}

// BenchmarkLinkRequest is what tying costs a request: its body's send
// ties the connection, Done unties it.
func BenchmarkLinkRequest(b *testing.B) {
	var o Owned
	c := &closer{}
	b.ReportAllocs()
	for b.Loop() {
		var l Link
		body := Body{B: []byte("{}"), OnSend: func() { l.Use(&o, c) }}
		body.WriteTo(io.Discard)
		l.Done()
	}
}
