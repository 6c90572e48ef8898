package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	dto "github.com/prometheus/client_model/go"
)

// holdUpstream is an upstream that answers a chat completion with nothing
// (header false) or an event stream's header and then nothing (true),
// until the proxy closes the connection: a model still thinking. closed
// gets one value per closed chat connection, got one per chat request
// received.
func holdUpstream(t *testing.T, header bool) (base string, closed <-chan struct{}) {
	base, _, closed = holdUpstreamGot(t, header)
	return base, closed
}

func holdUpstreamGot(t *testing.T, header bool) (base string, got, closed <-chan struct{}) {
	base, got, closed, _ = holdUpstreamDialed(t, header)
	return base, got, closed
}

// holdUpstreamDialed is holdUpstreamGot with dialed, which tells how many
// connections the upstream accepted so far: those made before a marker
// connection it dials itself (ahead of it in the accept queue).
func holdUpstreamDialed(t *testing.T, header bool) (base string, got, closed <-chan struct{}, dialed func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch, in := make(chan struct{}, 4), make(chan struct{}, 4)
	var mu sync.Mutex
	var seen []string            // accepted connections' remote addresses, in order
	markers := map[string]bool{} // the marker connections' addresses
	dialed = func() int {
		m, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		mu.Lock()
		markers[m.LocalAddr().String()] = true
		mu.Unlock()
		for bound := time.Now().Add(30 * time.Second); ; runtime.Gosched() {
			mu.Lock()
			i := slices.Index(seen, m.LocalAddr().String())
			mu.Unlock()
			if i >= 0 {
				return i
			}
			if time.Now().After(bound) { // a bound on a hang, not a timing assertion
				t.Fatal("the marker connection was not accepted")
			}
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			seen = append(seen, c.RemoteAddr().String())
			mu.Unlock()
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				mu.Lock()
				marker := markers[c.RemoteAddr().String()]
				mu.Unlock()
				if marker {
					return
				}
				if err != nil {
					// The proxy closed the connection before a whole
					// request was out: its client was gone before the
					// request's body was sent (the disconnect probe's tick
					// fell between the planning and the send), so the
					// connection closed with the request unwritten. Only
					// chat requests come here: that is the close looked
					// for too.
					ch <- struct{}{}
					return
				}
				if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
					return
				}
				io.Copy(io.Discard, req.Body)
				in <- struct{}{}
				if header {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
				}
				io.Copy(io.Discard, c) // nothing more, until the proxy closes
				ch <- struct{}{}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/v1", in, ch, dialed
}

// The openai-go client whose context ends while the model thinks (non-stream,
// guarded): its upstream request ends with it.
func TestClientGoneOpenAICancel(t *testing.T) {
	base, got, closed := holdUpstreamGot(t, false)
	ts := startGuard(t, func(c *testCfg) {
		c.Server.EventLoop = "off"
		c.Upstream.BaseURL = base
		c.Upstream.RequestTimeout = time.Hour
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := ts.completions().New(ctx, openai.ChatCompletionNewParams{Model: "mock-1",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(groundQ)}}, option.WithMaxRetries(0))
		errc <- err
	}()
	<-got
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("New: %v, want context.Canceled", err)
	}
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("the upstream connection was not closed after the client left")
	}
	waitFor(t, ts, "guard_requests_total", func(v float64) bool { return v == 1 })
}

// A client that closes its connection before the first answer byte ends
// its upstream request at once on the goroutine path, guarded or not,
// streamed or not, whether the upstream sent its header or not:
// the upstream sees its connection close long before first_byte_timeout
// (one hour here), or never gets one when the close was seen while the
// turn was planned, and the request counts as the client's (499).
func TestClientGoneBeforeFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  func(*testing.T, func(*testCfg)) *testServer
		q      string
		header bool // the upstream sent its header: the wait is for the first event
		stream bool
	}{
		{"pass-through/stream/no header", startServer, "hello", false, true},
		{"pass-through/stream/header", startServer, "hello", true, true},
		{"guarded/stream/no header", startGuard, groundQ, false, true},
		{"guarded/stream/header", startGuard, groundQ, true, true},
		{"pass-through/whole", startServer, "hello", false, false},
		{"guarded/whole", startGuard, groundQ, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _, closed, dialed := holdUpstreamDialed(t, tc.header)
			ts := tc.start(t, func(c *testCfg) {
				c.Server.EventLoop = "off"
				c.Upstream.BaseURL = base
				c.Upstream.FirstByteTimeout = time.Hour
			})
			c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"model":"mock-1","stream":%t,"messages":[{"role":"user","content":%q}]}`, tc.stream, tc.q)
			fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			c.Close()
			waitFor(t, ts, "guard_requests_total", func(v float64) bool { return v == 1 })
			if dialed() == 0 {
				return // the close was seen before the send: nothing was dialed
			}
			select {
			case <-closed:
			case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
				t.Fatal("the upstream connection was not closed after the client left")
			}
		})
	}
}

// labelled is the sum of f's counters whose label name has value v.
func labelled(f *dto.MetricFamily, name, v string) float64 {
	var s float64
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == name && l.GetValue() == v {
				s += m.GetCounter().GetValue()
			}
		}
	}
	return s
}

// A request that waits in the upstream wait queue (upstream.max_conns)
// when its client leaves ends once a connection frees, though
// conn_wait_timeout is an hour: the connection it gets is closed at once
// (if its client's close was seen first, before anything was sent), the
// request counts as the client's, and no upstream connection stays open.
func TestClientGoneInWaitQueue(t *testing.T) {
	base, closed := holdUpstream(t, true)
	ts := startServer(t, func(c *testCfg) {
		c.Server.EventLoop = "off"
		c.Upstream.BaseURL = base
		c.Upstream.FirstByteTimeout = time.Hour
		c.Upstream.MaxConns = 1
		c.Upstream.ConnWaitTimeout = time.Hour
	})
	send := func() net.Conn {
		c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
		if err != nil {
			t.Fatal(err)
		}
		body := `{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"hi"}]}`
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		return c
	}
	holder := send()
	waitFor(t, ts, "guard_upstream_conns_open", func(v float64) bool { return v == 1 })
	queued := send()
	queued.Close()
	holder.Close() // frees the one connection: the queued request gets it
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("the holder's upstream connection was not closed")
	}
	waitFor(t, ts, "guard_requests_total", func(v float64) bool { return v == 2 })
	waitFor(t, ts, "guard_upstream_conns_open", func(v float64) bool { return v == 0 })
}

// waitFor scrapes ts until the metric name (its 499 series for
// guard_requests_total) is as wanted.
func waitFor(t *testing.T, ts *testServer, name string, ok func(float64) bool) {
	t.Helper()
	for bound := time.Now().Add(30 * time.Second); ; {
		var got float64
		if f := scrape(t, ts)[name]; f != nil && name == "guard_requests_total" {
			got = labelled(f, "status", "499")
		} else if f != nil {
			got = f.GetMetric()[0].GetGauge().GetValue()
		}
		if ok(got) {
			return
		}
		if time.Now().After(bound) {
			t.Fatalf("%s: got %v", name, got)
		}
	}
}
