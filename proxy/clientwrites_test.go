package proxy_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/answer-guard/guard/proxy"
)

// writeCountingListener counts the writes made to the connections it
// accepted (each one a write syscall on the socket underneath) and tells
// when a response body's end went out.
type writeCountingListener struct {
	net.Listener
	mu     sync.Mutex
	writes []string
	ended  chan struct{}
}

func (l *writeCountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &writeCountingConn{Conn: c, l: l}, nil
}

type writeCountingConn struct {
	net.Conn
	l *writeCountingListener
}

func (c *writeCountingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, string(p))
	all := strings.Join(c.l.writes, "")
	c.l.mu.Unlock()
	if strings.HasSuffix(all, "\n\r\n0\r\n\r\n") {
		c.l.ended <- struct{}{}
	}
	return n, err
}

func sseChunk(c string, finish bool) string {
	fr := "null"
	if finish {
		fr = `"stop"`
	}
	ev := fmt.Sprintf("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":%s}]}\n\n", c, fr)
	return fmt.Sprintf("%x\r\n%s\r\n", len(ev), ev)
}

var doneChunk = fmt.Sprintf("%x\r\n%s\r\n", len("data: [DONE]\n\n"), "data: [DONE]\n\n")

// TestStreamWrites: the relay writes a streamed answer to the client with
// one write per upstream burst. The response header leaves with the first
// chunk, and the last chunk with the end of the body; nothing is held back
// while the relay waits on the upstream: the client reads "b" before the
// upstream sends "c", and [DONE] before the upstream ends its body.
func TestStreamWrites(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parts  []string
		after  string // the content after which the upstream sends its second part ("" = at [DONE])
		want   string
		writes int
	}{
		{"one burst", []string{sseChunk("a", false) + sseChunk("b", false) + sseChunk("", true) + doneChunk + "0\r\n\r\n"}, "", "ab", 1},
		{"two bursts", []string{sseChunk("a", false) + sseChunk("b", false), sseChunk("c", false) + sseChunk("", true) + doneChunk + "0\r\n\r\n"}, "b", "abc", 2},
		{"body end late", []string{sseChunk("a", false) + sseChunk("b", false) + sseChunk("", true) + doneChunk, "0\r\n\r\n"}, "", "ab", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := make(chan struct{}, 1)
			cfg := testConfig()
			cfg.Pipeline.Enabled = false
			cfg.Upstream.BaseURL = proxy.ScriptedUpstream(t, tc.parts, next, nil)
			srv, err := proxy.New(cfg.Config, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln := &writeCountingListener{Listener: raw, ended: make(chan struct{}, 1)}
			go srv.Serve(ln)
			t.Cleanup(func() { shutdown(t, srv) })
			ts := &testServer{srv: srv, base: "http://" + raw.Addr().String() + "/v1"}

			text, err := streamText(ts, "m", "hi", func(delta string) {
				if tc.after != "" && delta == tc.after {
					next <- struct{}{}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.parts) > 1 && tc.after == "" {
				next <- struct{}{} // [DONE] is here: the upstream may end its body
			}
			if text != tc.want {
				t.Errorf("text %q, want %q", text, tc.want)
			}
			<-ln.ended
			ln.mu.Lock()
			defer ln.mu.Unlock()
			if len(ln.writes) != tc.writes {
				t.Errorf("%d writes to the client, want %d: %q", len(ln.writes), tc.writes, ln.writes)
			}
			if !strings.HasPrefix(ln.writes[0], "HTTP/1.1 200 OK\r\n") {
				t.Errorf("first write does not start with the header: %q", ln.writes[0])
			}
		})
	}
}
