package proxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/answer-guard/guard/mockllm"
)

// countingListener counts the connections accepted; eof gets one value
// each time one of them reads the end of the stream (the proxy closed it).
type countingListener struct {
	net.Listener
	n   atomic.Int64
	eof chan struct{}
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.n.Add(1)
	return &eofConn{Conn: c, eof: l.eof}, nil
}

type eofConn struct {
	net.Conn
	eof  chan struct{}
	once sync.Once
}

func (c *eofConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err == io.EOF {
		c.once.Do(func() { c.eof <- struct{}{} })
	}
	return n, err
}

// countedMock starts a simulated upstream whose accepted connections are
// counted, and a pass-through proxy in front of it.
func countedMock(t *testing.T, mutate func(*testCfg)) (*testServer, *countingListener) {
	t.Helper()
	cfg := testConfig()
	cfg.Pipeline.Enabled = false
	if mutate != nil {
		mutate(&cfg)
	}
	mock, err := mockllm.New(cfg.Mock)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &countingListener{Listener: raw, eof: make(chan struct{}, 64)}
	go mock.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(func() { mock.Close() })
	cfg.Upstream.BaseURL = "http://" + raw.Addr().String() + "/v1"
	ts := serve(t, cfg, nil)
	ts.mock = mock
	return ts, ln
}

// streamText streams one answer to prompt through the openai-go client and
// returns its text; each content delta also goes to each (when not nil) as
// it arrives.
func streamText(ts *testServer, model, prompt string, each func(string)) (string, error) {
	st := ts.completions().NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	defer st.Close()
	var text strings.Builder
	for st.Next() {
		if ch := st.Current(); len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
			if each != nil {
				each(ch.Choices[0].Delta.Content)
			}
		}
	}
	return text.String(), st.Err()
}

// Streams read to their end give their upstream connection back: ten
// streamed answers one after the other use at most two upstream
// connections (the relay stops at [DONE] and the upstream client reads the
// body's end before it pools the connection).
func TestStreamConnectionReused(t *testing.T) {
	ts, ln := countedMock(t, nil)
	for i := range 10 {
		text, err := streamText(ts, "mock-1", "What is the return window?", nil)
		if err != nil || text == "" {
			t.Fatalf("stream %d: %v, %d bytes", i, err, len(text))
		}
	}
	// The relay pools the connection right after it flushed [DONE], so a
	// client quick enough to send its next request before that finds the
	// pool empty and the proxy dials a second connection; a third is never
	// needed for requests one after the other. Without reuse: 10.
	if n := ln.n.Load(); n > 2 {
		t.Errorf("10 streams in a row opened %d upstream connections, want at most 2", n)
	}
}

// A stream the client abandons mid-answer cancels the upstream request,
// and its connection (with the rest of the answer unread) is closed, not
// pooled: the next request gets a whole answer of its own.
func TestAbandonedStreamConnectionNotReused(t *testing.T) {
	ts, ln := countedMock(t, func(c *testCfg) { c.Mock.Pace = 5 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	st := ts.completions().NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the return window?")},
	})
	if !st.Next() {
		t.Fatalf("no first chunk: %v", st.Err())
	}
	cancel()
	st.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer wcancel()
	if _, err := ts.mock.WaitClosed(wctx); err != nil {
		t.Fatalf("the upstream stream was not cancelled: %v", err)
	}
	resp, err := ts.completions().New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the return window?")},
	})
	if err != nil || len(resp.Choices) == 0 || resp.Choices[0].Message.Content == "" {
		t.Fatalf("next request after an abandoned stream: %v", err)
	}
	if n := ln.n.Load(); n != 2 {
		t.Errorf("%d upstream connections, want 2 (the abandoned one closed, a new one dialed)", n)
	}
}

// With every upstream connection taken (upstream.max_conns: 1, held by a
// slow stream the client keeps reading), another request waits up to
// conn_wait_timeout for one and then gets a clear 503, not a dial error,
// counted in guard_upstream_busy_total.
func TestUpstreamBusy(t *testing.T) {
	ts, _ := countedMock(t, func(c *testCfg) {
		c.Upstream.MaxConns = 1
		c.Upstream.ConnWaitTimeout = 150 * time.Millisecond
		c.Mock.Pace = 100 * time.Millisecond // the stream holds its connection for seconds
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := ts.completions().NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the return window?")},
	})
	defer st.Close()
	if !st.Next() {
		t.Fatalf("no first chunk: %v", st.Err())
	}
	_, err := ts.completions().New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Can I return a gift?")},
	})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Code != "upstream_busy" {
		t.Fatalf("second request with the only connection taken: %v, want 503 upstream_busy", err)
	}
	fams := scrape(t, ts)
	for name, want := range map[string]float64{"guard_upstream_busy_total": 1, "guard_upstream_conns_max": 1, "guard_upstream_conns_open": 1} {
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
}
