package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/mockllm"
)

// The upstream timeouts, timed in a synctest bubble: the client, the proxy
// and the simulated upstream talk real HTTP over in-memory connections, so
// every goroutine of the three blocks durably and the bubble's clock jumps
// straight to the next timer. A timeout is then asserted to the exact
// duration configured, in no wall-clock time (the upstream's 1 s stall
// costs nothing), and the bubble ends only once every goroutine the
// request started has exited. (The stall is shorter than the simulated
// upstream's 2 s shutdown grace, so closing it waits out the stalled
// handler; a bubble must be empty when its function returns.)

// pipeNet is an in-memory network: dialing an address hands one end of a
// fasthttputil pipe to that address's listener.
type pipeNet struct {
	mu  sync.Mutex
	lns map[string]*pipeListener
}

type pipeListener struct {
	addr  string
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (n *pipeNet) listen(addr string) *pipeListener {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.lns == nil {
		n.lns = map[string]*pipeListener{}
	}
	l := &pipeListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
	n.lns[addr] = l
	return l
}

func (n *pipeNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.lns[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: syscall.ECONNREFUSED}
	}
	p := fasthttputil.NewPipeConns()
	select {
	case l.conns <- p.Conn2():
		return p.Conn1(), nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: syscall.ECONNREFUSED}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.addr) }

type pipeAddr string

func (pipeAddr) Network() string  { return "pipe" }
func (a pipeAddr) String() string { return string(a) }

// pipedProxy is a proxy and its simulated upstream on a pipeNet, with a
// client for the proxy. Call it inside the bubble; the cleanup shuts all
// three down there.
type pipedProxy struct {
	srv    *Server
	mock   *mockllm.Server
	client *http.Client
}

// startPiped starts a proxy without a pipeline on a pipe network of its own.
func startPiped(t *testing.T, mutate func(*Config, *mockllm.Config)) *pipedProxy {
	t.Helper()
	return startPipedOn(t, &pipeNet{}, nil, mutate)
}

// startPipedOn starts the proxy with factory (nil: pass-through) on n.
func startPipedOn(t *testing.T, n *pipeNet, factory PipelineFactory, mutate func(*Config, *mockllm.Config)) *pipedProxy {
	t.Helper()
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	cfg := DefaultConfig()
	cfg.Pipeline.Enabled = false
	cfg.Server.DisconnectProbe = 20 * time.Millisecond
	cfg.Upstream.BaseURL = "http://upstream.pipe/v1"
	mutate(&cfg, &mcfg)
	mock, err := mockllm.New(mcfg)
	if err != nil {
		t.Fatal(err)
	}
	mockDone := make(chan error, 1)
	upLn := n.listen("upstream.pipe:80")
	go func() { mockDone <- mock.Serve(upLn) }()
	srv, err := New(cfg, nil, factory)
	if err != nil {
		t.Fatal(err)
	}
	// The upstream client dials the pipe network (set before any request).
	srv.fast.Dial = srv.fast.track(func(addr string) (net.Conn, error) { return n.dial(context.Background(), addr) })
	srvDone := make(chan error, 1)
	ln := n.listen("guard.pipe:80")
	go func() { srvDone <- srv.Serve(ln) }()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return n.dial(ctx, addr) }}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("proxy shutdown: %v", err)
		}
		if err := <-srvDone; err != nil {
			t.Errorf("proxy serve: %v", err)
		}
		if err := mock.Close(); err != nil {
			t.Errorf("upstream shutdown: %v", err)
		}
		if err := <-mockDone; err != nil {
			t.Errorf("upstream serve: %v", err)
		}
		// Bubble time, not wall-clock time: fasthttp's worker-pool
		// janitors sleep out their 10 s idle period before they see that
		// their server stopped, and a bubble's clock stands still once its
		// function has returned.
		time.Sleep(10 * time.Second)
	})
	return &pipedProxy{srv: srv, mock: mock, client: &http.Client{Transport: tr}}
}

// post sends body to the proxy and returns the status and the whole body.
func (p *pipedProxy) post(t *testing.T, body string) (int, string) {
	t.Helper()
	resp, err := p.client.Post("http://guard.pipe/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

const timeoutBody = `{"model":"mock-1","stream":true,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: HB 1.2) The return window is 30 days from delivery.\n[^2] (kind: lecture; address: HB 1.3) Refunds are issued within 5 business days."},{"role":"user","content":"returns?"}]}`

// startDateUpdater starts fasthttp's process-wide Date-header updater
// outside any bubble: started inside one, it would be a bubble goroutine
// that never exits.
func startDateUpdater() {
	var h fasthttp.ResponseHeader
	h.AppendBytes(nil)
}

// A stream whose first event does not arrive within first_byte_timeout,
// and a non-stream answer that does not arrive within request_timeout,
// get 504 upstream_timeout after exactly that long.
func TestFirstByteAndRequestTimeout(t *testing.T) {
	startDateUpdater()
	for _, stream := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "whole"}[stream]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := startPiped(t, func(c *Config, m *mockllm.Config) {
					m.Faults.SlowFirst = 1
					m.SlowFirstDelay = time.Second
					c.Upstream.FirstByteTimeout = 100 * time.Millisecond
					c.Upstream.RequestTimeout = 250 * time.Millisecond
				})
				body := timeoutBody
				want := 100 * time.Millisecond // first_byte_timeout
				if !stream {
					body = strings.Replace(body, `"stream":true`, `"stream":false`, 1)
					want = 250 * time.Millisecond // request_timeout: a whole answer has no first byte
				}
				start := time.Now()
				status, got := p.post(t, body)
				if d := time.Since(start); d != want {
					t.Errorf("answered after %s, want %s", d, want)
				}
				if status != 504 || !strings.Contains(got, `"upstream_timeout"`) {
					t.Errorf("got %d %s, want 504 upstream_timeout", status, got)
				}
			})
		})
	}
}

// An upstream that stalls between two events for longer than
// upstream.idle_timeout: the stream ends with an upstream_timeout error
// event and [DONE] exactly idle_timeout after the last event.
func TestIdleTimeoutExact(t *testing.T) {
	startDateUpdater()
	synctest.Test(t, func(t *testing.T) {
		p := startPiped(t, func(c *Config, m *mockllm.Config) {
			m.Faults.Stall = 1
			m.StallDelay = time.Second
			c.Upstream.IdleTimeout = 100 * time.Millisecond
			c.Server.DisconnectProbe = time.Hour // no keep-alive comment in the stall
		})
		start := time.Now()
		status, got := p.post(t, timeoutBody)
		// Nothing but the idle timer moves the clock: the events before
		// the stall arrive at once.
		if d := time.Since(start); d != 100*time.Millisecond {
			t.Errorf("stream ended after %s, want the idle timeout, 100ms", d)
		}
		events := strings.Split(strings.TrimSpace(got), "\n\n")
		n := len(events)
		if status != 200 || n < 2 || events[n-1] != "data: [DONE]" || !strings.Contains(events[n-2], "upstream_timeout") {
			t.Fatalf("got %d %q, want an upstream_timeout error event then [DONE]", status, events[max(0, n-3):])
		}
	})
}

// A stream whose events keep coming, each within idle_timeout of the one
// before: the idle timeout never fires (one timer serves every wait, armed
// again lazily), and request_timeout ends the stream mid-answer exactly
// when it is due, with an upstream_timeout error event and [DONE].
func TestStreamTimeoutsWhileEventsFlow(t *testing.T) {
	startDateUpdater()
	for _, tc := range []struct {
		name    string
		request time.Duration
	}{{"idle never fires", time.Hour}, {"request_timeout mid-answer", 55 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := startPiped(t, func(c *Config, m *mockllm.Config) {
					m.Pace = 10 * time.Millisecond
					c.Upstream.IdleTimeout = 15 * time.Millisecond
					c.Upstream.FirstByteTimeout = 12 * time.Millisecond
					c.Upstream.RequestTimeout = tc.request
					c.Server.DisconnectProbe = time.Hour
				})
				start := time.Now()
				status, got := p.post(t, timeoutBody)
				d := time.Since(start)
				events := strings.Split(strings.TrimSpace(got), "\n\n")
				n := len(events)
				if status != 200 || n < 2 || events[n-1] != "data: [DONE]" {
					t.Fatalf("got %d %q, want a stream ending in [DONE]", status, events[max(0, n-3):])
				}
				if tc.request == time.Hour {
					if strings.Contains(got, "upstream_timeout") || n < 8 || d%(10*time.Millisecond) != 0 {
						t.Errorf("after %s, %d events: want the whole paced answer, no timeout; tail %q", d, n, events[max(0, n-3):])
					}
					return
				}
				if d != tc.request {
					t.Errorf("stream ended after %s, want request_timeout, %s", d, tc.request)
				}
				if !strings.Contains(events[n-2], "upstream_timeout") || !strings.Contains(events[n-2], "longer than the configured limit") {
					t.Errorf("last event before [DONE] is %q, want the request_timeout error", events[n-2])
				}
			})
		})
	}
}

// In report mode each sentence is verified as soon as it completes: with an
// LLM judge and an upstream that paces its events 5 ms apart, the first
// judge call is made while the answer is still streaming, and every claim
// is in the report. In the bubble the pace is exact, so "while streaming"
// is a statement about the order of two instants, not a wall-clock margin.
func TestReportModeVerifiesWhileStreaming(t *testing.T) {
	startDateUpdater()
	// The demo index is built outside the bubble: bleve indexes through
	// process-wide analysis workers, which must not touch a bubble's
	// channels. Inside, the pipeline only opens it.
	demo := t.TempDir()
	if _, err := index.BuildDemo(context.Background(), DefaultConfig().Stages.Index, demo, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		n := &pipeNet{}
		// The judge client clones http.DefaultTransport when the pipeline
		// is built: point it at the pipe network for that long.
		def := http.DefaultTransport
		http.DefaultTransport = &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return n.dial(ctx, addr) }}
		defer func() { http.DefaultTransport = def }() // also when startPipedOn fails
		var mu sync.Mutex
		var calls []time.Time
		judgeSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			mu.Lock()
			calls = append(calls, time.Now())
			mu.Unlock()
			content, _ := json.Marshal(`{"label":"supported","confidence":0.95,"evidence":""}`)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"j","object":"chat.completion","created":1,"model":"judge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, content)
		})}
		judgeLn := n.listen("judge.pipe:80")
		judgeDone := make(chan error, 1)
		go func() { judgeDone <- judgeSrv.Serve(judgeLn) }()
		t.Cleanup(func() {
			judgeSrv.Close()
			if err := <-judgeDone; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("judge serve: %v", err)
			}
		})
		p := startPipedOn(t, n, NewPipeline(nil), func(c *Config, m *mockllm.Config) {
			m.Pace = 5 * time.Millisecond
			c.Pipeline.Enabled = true
			c.Pipeline.Index = demo
			c.Log.Level = "error"
			c.Stages.Verify.Mode = "report"
			c.Stages.Verify.Verifier = "llm"
			c.Stages.Verify.LLM.BaseURL = "http://judge.pipe/v1"
			c.Stages.Verify.LLM.Model = "judge"
			c.Stages.Verify.MinContextChars = 0
		})
		http.DefaultTransport = def

		status, body := p.post(t, `{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"What does error LF-4002 mean?"}]}`)
		end := time.Now()
		if status != 200 {
			t.Fatalf("got %d %s", status, body)
		}
		var text strings.Builder
		var g struct {
			Decision string `json:"decision"`
			Claims   []struct {
				Text      string `json:"text"`
				Citations []int  `json:"citations"`
				Verdict   string `json:"verdict"`
			} `json:"claims"`
		}
		for _, ev := range strings.Split(strings.TrimSpace(body), "\n\n") {
			data := strings.TrimPrefix(ev, "data: ")
			var chunk struct {
				Choices []struct {
					Delta struct{ Content string } `json:"delta"`
				} `json:"choices"`
				Guard json.RawMessage `json:"guard"`
			}
			if data == "[DONE]" || json.Unmarshal([]byte(data), &chunk) != nil {
				continue
			}
			if len(chunk.Choices) > 0 {
				text.WriteString(chunk.Choices[0].Delta.Content)
			}
			if chunk.Guard != nil {
				if err := json.Unmarshal(chunk.Guard, &g); err != nil {
					t.Fatal(err)
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if g.Decision != "ground" || text.Len() == 0 || len(g.Claims) == 0 {
			t.Fatalf("decision %q, %d claims, text %q", g.Decision, len(g.Claims), text.String())
		}
		if len(calls) == 0 {
			t.Fatal("the LLM judge was never called")
		}
		if !calls[0].Before(end) {
			t.Errorf("first judge call at %s, the stream ended at %s: want the call while the answer streams", calls[0].Sub(end), time.Duration(0))
		}
		for _, c := range g.Claims {
			if len(c.Citations) > 0 && c.Verdict != "entailment" {
				t.Errorf("claim %q: verdict %q, want entailment from the scripted judge", c.Text, c.Verdict)
			}
		}
	})
}

// A pass-through stream whose upstream stalls: the disconnect probe, armed
// at the relay's first wait, writes a keep-alive comment exactly one probe
// interval after the last event. (That a client gone during the stall
// cancels the upstream is TestProbeCancelsStalledUpstream, on loopback:
// a write to a closed pipe here does not fail.)
func TestProbeInStall(t *testing.T) {
	startDateUpdater()
	synctest.Test(t, func(t *testing.T) {
		const probe = 100 * time.Millisecond
		p := startPiped(t, func(c *Config, m *mockllm.Config) {
			m.Faults.Stall = 1
			m.StallDelay = time.Second
			c.Upstream.IdleTimeout = 5 * time.Second
			c.Server.DisconnectProbe = probe
		})
		resp, err := p.client.Post("http://guard.pipe/v1/chat/completions", "application/json", strings.NewReader(timeoutBody))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		// The events before the stall arrive at once (in one read or in
		// several: the chunked body reader returns a chunk at a time);
		// then nothing moves the clock but the probe.
		buf := make([]byte, 64<<10)
		for events := 0; ; {
			n, err := resp.Body.Read(buf)
			got := string(buf[:n])
			if err != nil {
				t.Fatalf("read: %q %v", got, err)
			}
			if strings.Contains(got, ": keep-alive") {
				if events == 0 || time.Since(start) != probe {
					t.Errorf("keep-alive after %d events and %s of silence, want it after the events, at %s", events, time.Since(start), probe)
				}
				break
			}
			if time.Since(start) != 0 {
				t.Fatalf("at %s, before any keep-alive: %q", time.Since(start), got)
			}
			events += strings.Count(got, "data: {")
		}
		io.Copy(io.Discard, resp.Body) // the rest of the answer, after the stall
	})
}
