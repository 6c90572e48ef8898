package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// loopOn turns the event loop on (server.event_loop: on).
func loopOn(c *testCfg) { c.Server.EventLoop = "on" }

// The openai-go client streams a pass-through answer relayed by the event
// loop: content, the usage chunk it asked for, [DONE].
func TestEventLoopOpenAIStream(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { loopOn(c); c.Mock.ChunkRunes = 3 })
	for _, usage := range []bool{false, true} {
		t.Run(fmt.Sprintf("include_usage=%v", usage), func(t *testing.T) {
			p := params(true)
			if usage {
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			stream := ts.completions().NewStreaming(context.Background(), p)
			var acc openai.ChatCompletionAccumulator
			usageChunks := 0
			for stream.Next() {
				acc.AddChunk(stream.Current())
				if stream.Current().Usage.TotalTokens > 0 {
					usageChunks++
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			if got := acc.Choices[0].Message.Content; !strings.Contains(got, "30 days") {
				t.Errorf("got content %q", got)
			}
			if want := map[bool]int{true: 1}[usage]; usageChunks != want {
				t.Errorf("got %d usage chunks, want %d", usageChunks, want)
			}
		})
	}
	if ts.srv.EventLoopStreams() < 0 {
		t.Error("the event loop never ran")
	}
}

// readStream reads one chunked event-stream response from br and returns
// its data lines.
func readStream(t *testing.T, br *bufio.Reader) (*http.Response, []string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp, sseEvents(t, resp.Body)
}

// Two streams, one after the other, on one client connection: the loop
// gives the connection back to the server after the first.
func TestEventLoopKeepAlive(t *testing.T) {
	ts := startServer(t, loopOn)
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := range 2 {
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(streamBody), streamBody)
		resp, events := readStream(t, br)
		if resp.StatusCode != 200 || resp.Close || len(events) < 2 || events[len(events)-1] != "[DONE]" {
			t.Fatalf("stream %d: status %d, close %v, events %q", i, resp.StatusCode, resp.Close, events)
		}
	}
	if ts.srv.EventLoopStreams() < 0 {
		t.Error("the event loop never ran")
	}
}

// A client that goes away mid-stream: the loop closes the upstream
// connection (the upstream sees the cancel).
func TestEventLoopDisconnectCancelsUpstream(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		loopOn(c)
		c.Mock.Pace = 20 * time.Millisecond
		c.Mock.ChunkRunes = 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+"/chat/completions", strings.NewReader(streamBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if n := ts.srv.EventLoopStreams(); n != 1 {
		t.Fatalf("event loop streams: %d, want 1", n)
	}
	cancel()
	resp.Body.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if _, err := ts.mock.WaitClosed(wctx); err != nil {
		t.Fatalf("the upstream stream was not closed after the client left: %v", err)
	}
}

// The stream's idle timeout ends a stalled upstream with an error event.
func TestEventLoopIdleTimeout(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		loopOn(c)
		c.Mock.Faults.Stall = 1
		c.Mock.StallDelay = time.Second
		c.Upstream.IdleTimeout = 100 * time.Millisecond
	})
	resp, events := postStream(t, ts, streamBody)
	n := len(events)
	if resp.StatusCode != 200 || n < 2 || events[n-1] != "[DONE]" || !strings.Contains(events[n-2], "upstream_timeout") {
		t.Fatalf("got %d %q, want an upstream_timeout error event then [DONE]", resp.StatusCode, events[max(0, n-3):])
	}
}

// An upstream that refuses (503) or is down: the client gets today's
// error answers.
func TestEventLoopUpstreamRefusedAndDown(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { loopOn(c); c.Mock.Faults.Refuse = 1 })
	resp, events := postStream(t, ts, streamBody)
	if resp.StatusCode != 502 || !strings.Contains(events[0], `"upstream_error"`) {
		t.Errorf("upstream 503: got %d %s, want 502 upstream_error", resp.StatusCode, events)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	down := startServer(t, func(c *testCfg) { loopOn(c); c.Upstream.BaseURL = "http://" + addr + "/v1" })
	resp, events = postStream(t, down, streamBody)
	if resp.StatusCode != 502 || !strings.Contains(events[0], "upstream_unavailable") {
		t.Errorf("upstream down: got %d %s, want 502 upstream_unavailable", resp.StatusCode, events)
	}
}

// Shutdown ends the loop's streams: the client's stream ends and the
// upstream connection is closed.
func TestEventLoopShutdownEndsStreams(t *testing.T) {
	tc := testConfig()
	tc.Pipeline.Enabled = false
	loopOn(&tc)
	tc.Mock.Pace = time.Second
	tc.Mock.ChunkRunes = 1
	ts := startProxy(t, tc, nil)
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no grace: the open stream is ended
	ts.srv.Shutdown(ctx)
	io.Copy(io.Discard, br) // returns: the stream ended
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if _, err := ts.mock.WaitClosed(wctx); err != nil {
		t.Fatalf("the upstream stream was not closed at shutdown: %v", err)
	}
}

// A connection the loop keeps between requests is closed once it stayed
// quiet for server.idle_timeout.
func TestEventLoopIdleConnectionClosed(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { loopOn(c); c.Server.IdleTimeout = time.Millisecond })
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(streamBody), streamBody)
	if resp, events := readStream(t, br); resp.StatusCode != 200 || len(events) < 2 {
		t.Fatalf("status %d, events %q", resp.StatusCode, events)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound on a failing test, not a timing check
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("idle connection: read %d, %v; want io.EOF (closed by the loop)", n, err)
	}
}

// rawHead sends body as one HTTP/1.1 request on a new connection and
// returns the response header as sent, its Date value replaced by "D".
func rawHead(t *testing.T, ts *testServer, body string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	br := bufio.NewReader(c)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("header: %q, %v", head.String(), err)
		}
		if v, ok := strings.CutPrefix(line, "Date: "); ok {
			if _, err := http.ParseTime(strings.TrimSpace(v)); err != nil {
				t.Errorf("Date %q: %v", v, err)
			}
			line = "Date: D\r\n"
		}
		head.WriteString(line)
		if line == "\r\n" {
			return head.String()
		}
	}
}

// The loop's response headers are the goroutine path's, byte for byte
// (the Date's value aside): a stream, and an upstream's refusal.
func TestEventLoopHeaderParity(t *testing.T) {
	for _, refuse := range []float64{0, 1} {
		var heads [2]string
		for i, mode := range []string{"off", "on"} {
			ts := startServer(t, func(c *testCfg) { c.Server.EventLoop = mode; c.Mock.Faults.Refuse = refuse })
			heads[i] = rawHead(t, ts, streamBody)
		}
		if heads[0] != heads[1] {
			t.Errorf("upstream refuses %v: event loop header\n%s\nwant the goroutine path's\n%s", refuse, heads[1], heads[0])
		}
	}
}

// With every upstream connection taken (upstream.max_conns: 1, held by a
// loop stream), a second loop stream and a non-stream request (fasthttp's
// client: one budget for both) each wait upstream.conn_wait_timeout, then
// get 503 upstream_busy; the gauges count the loop's connection. Once the
// first stream ends, its connection's slot serves the next stream.
func TestEventLoopUpstreamBusy(t *testing.T) {
	ts, _ := countedMock(t, func(c *testCfg) {
		loopOn(c)
		c.Upstream.MaxConns = 1
		c.Upstream.ConnWaitTimeout = 150 * time.Millisecond
		c.Mock.Pace = 100 * time.Millisecond // the stream holds its connection for seconds
	})
	ctx, cancel := context.WithCancel(context.Background())
	st := ts.completions().NewStreaming(ctx, params(true))
	if !st.Next() {
		t.Fatalf("no first chunk: %v", st.Err())
	}
	if n := ts.srv.EventLoopStreams(); n != 1 {
		t.Fatalf("event loop streams: %d, want 1", n)
	}
	second := ts.completions().NewStreaming(context.Background(), params(true))
	for second.Next() {
	}
	var apiErr *openai.Error
	if err := second.Err(); !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Code != "upstream_busy" {
		t.Errorf("second stream with the only connection taken: %v, want 503 upstream_busy", err)
	}
	second.Close()
	if _, err := ts.completions().New(context.Background(), params(false)); !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Code != "upstream_busy" {
		t.Errorf("non-stream request with the only connection taken: %v, want 503 upstream_busy", err)
	}
	fams := scrape(t, ts)
	for name, want := range map[string]float64{"guard_upstream_busy_total": 2, "guard_upstream_conns_max": 1, "guard_upstream_conns_open": 1} {
		f := fams[name]
		if f == nil {
			t.Errorf("/metrics has no %s", name)
			continue
		}
		m := f.GetMetric()[0]
		if got := m.GetCounter().GetValue() + m.GetGauge().GetValue(); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	cancel()
	st.Close()
	third := ts.completions().NewStreaming(context.Background(), params(true))
	defer third.Close()
	if !third.Next() {
		t.Errorf("a stream after the first one ended: %v", third.Err())
	}
}

// A pooled loop connection unused for upstream.idle_conn_timeout is
// closed (the upstream reads its end).
func TestEventLoopIdleUpstreamClosed(t *testing.T) {
	ts, ln := countedMock(t, func(c *testCfg) { loopOn(c); c.Upstream.IdleConnTimeout = 50 * time.Millisecond })
	if _, err := streamText(ts, "mock-1", "What is the return window?", nil); err != nil {
		t.Fatal(err)
	}
	if ts.srv.EventLoopStreams() < 0 {
		t.Fatal("the event loop never ran")
	}
	select {
	case <-ln.eof:
	case <-time.After(10 * time.Second): // a bound on a failing test, not a timing check
		t.Fatal("the idle upstream connection was not closed")
	}
	if n := ln.n.Load(); n != 1 {
		t.Errorf("%d upstream connections, want 1", n)
	}
}

// A client that sends its request and closes at once, before any byte of
// the answer: the loop hears the close from the socket and closes the
// upstream connection though the upstream sends nothing. (The goroutine
// path, server.event_loop: off, does not: its disconnect probe is armed at
// the first event, so it waits for upstream.first_byte_timeout.)
func TestEventLoopClientGoneBeforeAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	upClosed := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(io.Discard, c) // the request, then nothing back, until the proxy closes
		close(upClosed)
	}()
	ts := startServer(t, func(c *testCfg) { loopOn(c); c.Upstream.BaseURL = "http://" + ln.Addr().String() + "/v1" })
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(streamBody), streamBody)
	c.Close()
	select {
	case <-upClosed:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("the upstream connection was not closed after the client left")
	}
}

// server.event_loop: auto keeps a pass-through stream on the goroutine
// path while few clients are connected and relays it on the loop once
// more than evrelay.AutoStreams (64) connections are open.
func TestEventLoopAuto(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { c.Server.EventLoop = "auto" })
	stream := func() {
		s := ts.completions().NewStreaming(context.Background(), params(true))
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream: %v", err)
		}
	}
	stream()
	if n := ts.srv.EventLoopStreams(); n != -1 {
		t.Fatalf("one client: the loop ran (%d streams), want the goroutine path", n)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(ts.base, "http://"), "/v1")
	for range 65 { // each answered once, so the server holds it open
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: guard\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	stream()
	if n := ts.srv.EventLoopStreams(); n < 0 {
		t.Error("66 clients: the loop never ran")
	}
}
