//go:build unix

package waitread

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/looptest"
)

// pair returns both ends of a loopback TCP connection.
var pair = looptest.Pair

// Bytes that have arrived are read without the hook; a read that has to
// wait calls it once, before the bytes that end the wait.
func TestHookOnlyBeforeWaiting(t *testing.T) {
	client, server := pair(t)
	r := New(server)
	if _, err := client.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	// Wait for the bytes with the plain connection's own read (a peek
	// would need a syscall here): read one byte, the rest stays queued.
	b := make([]byte, 1)
	if _, err := io.ReadFull(server, b); err != nil {
		t.Fatal(err)
	}
	hooks := 0
	hook := func() { hooks++ }
	p := make([]byte, 8)
	n, err := r.Read(p, hook)
	if err != nil || string(p[:n]) != "bc" || hooks != 0 {
		t.Fatalf("queued bytes: read %q, %v, %d hook calls; want bc, nil, 0", p[:n], err, hooks)
	}
	// Nothing queued: the hook runs, and writes the bytes the read then
	// gets (as the relay flushes, and the upstream answers).
	hook = func() {
		hooks++
		client.Write([]byte("de")) //nolint:errcheck // the read checks it
	}
	n, err = r.Read(p, hook)
	if err != nil || string(p[:n]) != "de" || hooks != 1 {
		t.Fatalf("empty socket: read %q, %v, %d hook calls; want de, nil, 1", p[:n], err, hooks)
	}
}

// The end of the stream, a deadline and a closed connection read as
// conn.Read reports them.
func TestErrorsAsConnRead(t *testing.T) {
	client, server := pair(t)
	r := New(server)
	p := make([]byte, 8)

	server.SetReadDeadline(time.Now().Add(-time.Second)) //nolint:errcheck
	_, err := r.Read(p, nil)
	_, want := server.Read(p)
	var oe *net.OpError
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" || err.Error() != want.Error() {
		t.Fatalf("past deadline: %v; want %v", err, want)
	}
	server.SetReadDeadline(time.Time{}) //nolint:errcheck

	client.Close()
	if n, err := r.Read(p, nil); n != 0 || err != io.EOF {
		t.Fatalf("after the peer's close: %d, %v; want 0, EOF", n, err)
	}

	server.Close()
	_, err = r.Read(p, nil)
	_, want = server.Read(p)
	if !errors.Is(err, net.ErrClosed) || err.Error() != want.Error() {
		t.Fatalf("closed: %v; want %v", err, want)
	}
}

// A connection that is not a socket calls the hook before every read.
func TestNotASocket(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go b.Write([]byte("xy")) //nolint:errcheck // the reads check it
	r, hooks := New(a), 0
	p := make([]byte, 1)
	for _, want := range "xy" {
		if n, err := r.Read(p, func() { hooks++ }); n != 1 || err != nil || rune(p[0]) != want {
			t.Fatalf("read %q, %v; want %q", p[:n], err, want)
		}
	}
	if hooks != 2 {
		t.Errorf("%d hook calls for two reads; want 2", hooks)
	}
}

// A read of queued bytes allocates nothing.
func TestReadAllocs(t *testing.T) {
	client, server := pair(t)
	r := New(server)
	p := make([]byte, 1)
	msg := make([]byte, 200)
	if _, err := client.Write(msg); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(server, p); err != nil { // the bytes have arrived
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() {
		if _, err := r.Read(p, nil); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per read; want 0", a)
	}
}

// A hook that closes the connection (the relay's flush finds the client
// gone and ends the upstream request) does not hang: the read returns the
// closed connection's error, and the connection is closed.
func TestCloseInHook(t *testing.T) {
	client, server := pair(t)
	r := New(server)
	p := make([]byte, 8)
	_, err := r.Read(p, func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close in the hook: %v", err)
		}
		r.Close() //nolint:errcheck // a second close returns at once too
	})
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after a close in the hook: %v; want net.ErrClosed", err)
	}
	if _, err := client.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Read(p); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the connection is open after a close in the hook: %v", err)
	}
	if err := r.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Close after the read: %v; want net's closed error", err)
	}
}
