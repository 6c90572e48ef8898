//go:build unix

package peerclose

import (
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/looptest"
)

// pair returns both ends of a loopback TCP connection.
var pair = looptest.Pair

// An open client is not closed, and peeking consumes none of what it sent.
func TestOpenPeerKeepsItsBytes(t *testing.T) {
	client, server := pair(t)
	if Closed(server) {
		t.Fatal("Closed on an open, idle connection")
	}
	if _, err := client.Write([]byte("xy")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(server, b); err != nil || b[0] != 'x' {
		t.Fatalf("read %q, %v", b, err)
	}
	if Closed(server) {
		t.Fatal("Closed with a byte pending")
	}
	if _, err := io.ReadFull(server, b); err != nil || b[0] != 'y' {
		t.Fatalf("after the peek: read %q, %v; want the pending y", b, err)
	}
}

// A client that closed its end is seen as closed; the bound only keeps a
// broken kernel from hanging the test.
func TestClosedPeer(t *testing.T) {
	client, server := pair(t)
	client.Close()
	deadline := time.Now().Add(10 * time.Second)
	for !Closed(server) {
		if time.Now().After(deadline) {
			t.Fatal("the client's close was never seen")
		}
		runtime.Gosched()
	}
}

// A connection that is not a socket is never reported closed.
func TestNotASocket(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	b.Close()
	if Closed(a) {
		t.Error("Closed on a net.Pipe")
	}
}
