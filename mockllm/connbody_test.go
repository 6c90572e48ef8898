package mockllm

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConnBodyAsRead: a stream the server writes itself (connBody, over a
// clientconn.Conn) sends the body fasthttp sends from eventBody.Read, in
// one write when it is not paced, and in one write per paced event when
// it is (the header with the first, the end of the body with the last).
func TestConnBodyAsRead(t *testing.T) {
	for _, pace := range []time.Duration{0, time.Millisecond} {
		cfg := DefaultConfig()
		cfg.Pace = pace
		got, writes := rawStream(t, cfg, true)
		want, plainWrites := rawStream(t, cfg, false)
		if got != want {
			t.Fatalf("pace %s: body\n%s\nwant\n%s", pace, got, want)
		}
		events := strings.Count(got, "data: ")
		// role and first piece together, every later piece alone, the
		// finish chunk with [DONE]: events - 2 bursts when paced.
		wantWrites := 1
		if pace > 0 {
			wantWrites = events - 2
		}
		if writes != wantWrites {
			t.Errorf("pace %s: %d events in %d writes, want %d (fasthttp alone: %d)", pace, events, writes, wantWrites, plainWrites)
		}
	}
}

var createdField = regexp.MustCompile(`"created":\d+`)

// rawStream asks a new server for one stream, served as Serve serves it
// (conn) or by fasthttp from eventBody.Read, and returns the decoded body
// (creation times blanked) and the server's writes on the connection.
func rawStream(t *testing.T, cfg Config, conn bool) (string, int) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countListener{Listener: ln}
	if conn {
		go s.Serve(cl) //nolint:errcheck // ends with Close
	} else {
		s.ln = cl
		go s.srv.Serve(cl) //nolint:errcheck // ends with Close
	}
	defer s.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file.\n[^2] (kind: lecture; address: A 2) Backups run nightly at 02:00."},{"role":"user","content":"what are the limits?"}]}`
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
		t.Fatalf("transfer encoding %v, want chunked", resp.TransferEncoding)
	}
	b, err := io.ReadAll(resp.Body) // decoded: an error if the chunks or their end are wrong
	resp.Body.Close()
	if err != nil {
		t.Fatalf("read body: %v (%q)", err, b)
	}
	return createdField.ReplaceAllString(string(b), `"created":0`), int(cl.writes.Load())
}

// countListener counts the writes on the connections it accepts.
type countListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}
