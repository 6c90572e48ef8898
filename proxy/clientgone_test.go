package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// holdUpstream is an upstream that answers a chat completion with an
// event stream's header and then nothing, until the proxy closes the
// connection: a model still thinking. closed gets one value per closed
// chat connection.
func holdUpstream(t *testing.T) (base string, closed <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil || !strings.HasSuffix(req.URL.Path, "/chat/completions") {
					return
				}
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
				io.Copy(io.Discard, c) // nothing more, until the proxy closes
				ch <- struct{}{}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/v1", ch
}

// A client that closes its connection before the first answer byte ends
// its upstream request at once on the goroutine path, guarded or not:
// the upstream sees its connection close long before first_byte_timeout
// (one hour here), and the request counts as the client's (499).
func TestClientGoneBeforeFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*testing.T, func(*testCfg)) *testServer
		q     string
	}{
		{"pass-through", startServer, "hello"},
		{"guarded", startGuard, groundQ},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, closed := holdUpstream(t)
			ts := tc.start(t, func(c *testCfg) {
				c.Server.EventLoop = "off"
				c.Upstream.BaseURL = base
				c.Upstream.FirstByteTimeout = time.Hour
			})
			c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"model":"mock-1","stream":true,"messages":[{"role":"user","content":%q}]}`, tc.q)
			fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			c.Close()
			select {
			case <-closed:
			case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
				t.Fatal("the upstream connection was not closed after the client left")
			}
			// The summary follows the upstream's close: wait for it.
			for bound := time.Now().Add(30 * time.Second); ; {
				if f := scrape(t, ts)["guard_requests_total"]; f != nil && labelled(f, "status", "499") > 0 {
					break
				}
				if time.Now().After(bound) {
					t.Fatal("the request was not counted as 499")
				}
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
