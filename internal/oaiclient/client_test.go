package oaiclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is one scripted answer of the test server: a status, headers and a
// body; hangup drops the connection without an answer.
type reply struct {
	status int
	header map[string]string
	body   string
	hangup bool
}

// script is a loopback server that answers its requests with replies in
// order (the last one repeats) and records what it received.
type script struct {
	mu      sync.Mutex
	replies []reply
	got     []*http.Request
	bodies  []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	i := min(len(s.got), len(s.replies)-1)
	s.got = append(s.got, r)
	s.bodies = append(s.bodies, string(b))
	rep := s.replies[i]
	s.mu.Unlock()
	if rep.hangup {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	w.Write([]byte(rep.body))
}

func (s *script) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// newClient starts srv on loopback and returns a client of it counting
// into fresh metrics.
func newClient(t *testing.T, srv http.Handler, cfg Config) (*Client, *Metrics) {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m := NewMetrics()
	if cfg.Name == "" {
		cfg.Name = "test"
	}
	cfg.BaseURL = hs.URL + "/v1" + cfg.BaseURL
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	cfg.Metrics = m
	c := New(cfg)
	t.Cleanup(c.Close)
	return c, m
}

func count(m *Metrics, client, result string) int {
	return int(testutil.ToFloat64(m.requests.WithLabelValues(client, result)))
}

const chatOK = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`

func TestChatSendsRequestAndReadsFirstChoice(t *testing.T) {
	t.Setenv("OAICLIENT_TEST_KEY", "sk-test")
	s := &script{replies: []reply{{status: 200, body: chatOK}}}
	c, m := newClient(t, s, Config{Name: "rewrite", APIKeyEnv: "OAICLIENT_TEST_KEY", Timeout: 5 * time.Second})
	got, err := c.Chat(context.Background(), ChatRequest{Model: "m", Temperature: 0, Messages: []Message{{"system", "be brief"}, {"user", "hi"}}})
	if err != nil || got != "hello" {
		t.Fatalf("Chat = %q, %v; want hello", got, err)
	}
	r := s.got[0]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if a := r.Header.Get("Authorization"); a != "Bearer sk-test" {
		t.Errorf("Authorization %q, want Bearer sk-test", a)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(s.bodies[0]), &body); err != nil {
		t.Fatal(err)
	}
	if temp, ok := body["temperature"]; !ok || temp != 0.0 {
		t.Errorf("temperature %v (sent %v), want an explicit 0", temp, ok)
	}
	if _, ok := body["max_tokens"]; ok {
		t.Errorf("max_tokens sent although 0: %s", s.bodies[0])
	}
	if n := count(m, "rewrite", "ok"); n != 1 {
		t.Errorf("ok requests = %d, want 1", n)
	}
	if n := testutil.CollectAndCount(m.latency); n != 1 {
		t.Errorf("latency series = %d, want 1", n)
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	s := &script{replies: []reply{{status: 200, body: chatOK}}}
	c, _ := newClient(t, s, Config{APIKeyEnv: "OAICLIENT_TEST_UNSET_KEY"})
	if _, err := c.Chat(context.Background(), ChatRequest{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if a := s.got[0].Header.Get("Authorization"); a != "" {
		t.Errorf("Authorization %q, want none", a)
	}
}

func TestRetries(t *testing.T) {
	busy := reply{status: 503, body: `{"error":{"message":"overloaded","type":"server_error","code":null}}`}
	ok := reply{status: 200, body: chatOK}
	tests := []struct {
		name       string
		replies    []reply
		retries    int
		wantReqs   int
		wantStatus int // 0: success
		wantResult map[string]int
	}{
		{"503 then ok", []reply{busy, ok}, 2, 2, 0, map[string]int{"http_5xx": 1, "ok": 1}},
		{"429 then ok", []reply{{status: 429, body: `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`}, ok}, 1, 2, 0, map[string]int{"http_429": 1, "ok": 1}},
		{"hangup then ok", []reply{{hangup: true}, ok}, 1, 2, 0, map[string]int{"transport": 1, "ok": 1}},
		{"408 then ok", []reply{{status: 408}, ok}, 1, 2, 0, map[string]int{"http_4xx": 1, "ok": 1}},
		{"retries run out", []reply{busy}, 2, 3, 503, map[string]int{"http_5xx": 3}},
		{"no retries configured", []reply{busy, ok}, 0, 1, 503, map[string]int{"http_5xx": 1}},
		{"400 is final", []reply{{status: 400, body: `{"error":{"message":"bad model","type":"invalid_request_error"}}`}, ok}, 3, 1, 400, map[string]int{"http_4xx": 1}},
		{"401 is final", []reply{{status: 401}, ok}, 3, 1, 401, map[string]int{"http_4xx": 1}},
		{"bad body is final", []reply{{status: 200, body: `{"choices":[]}`}, ok}, 3, 1, 200, map[string]int{"bad_response": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{replies: tt.replies}
			c, m := newClient(t, s, Config{Name: "judge", Retries: tt.retries, Timeout: 5 * time.Second})
			got, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
			if n := s.requests(); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
			if tt.wantStatus == 0 {
				if err != nil || got != "hello" {
					t.Fatalf("Chat = %q, %v; want hello", got, err)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || e.Status != tt.wantStatus {
					t.Fatalf("err = %v, want an *Error with status %d", err, tt.wantStatus)
				}
			}
			for res, want := range tt.wantResult {
				if n := count(m, "judge", res); n != want {
					t.Errorf("requests{result=%s} = %d, want %d", res, n, want)
				}
			}
			if n, want := int(testutil.ToFloat64(m.retries.WithLabelValues("judge"))), tt.wantReqs-1; n != want {
				t.Errorf("retries = %d, want %d", n, want)
			}
		})
	}
}

func TestErrorBodies(t *testing.T) {
	tests := []struct {
		name                string
		status              int
		body                string
		typ, code, msg, str string
	}{
		{"openai", 429, `{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			"requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o", "status 429 (rate_limit_exceeded): Rate limit reached for gpt-4o"},
		{"openai numeric code", 400, `{"error":{"message":"bad","type":"BadRequestError","code":400}}`, "BadRequestError", "400", "bad", "status 400 (400): bad"},
		{"openai null code", 404, `{"error":{"message":"The model x does not exist","type":"invalid_request_error","code":null}}`,
			"invalid_request_error", "", "The model x does not exist", "status 404 (invalid_request_error): The model x does not exist"},
		{"tei", 413, `{"error":"batch size 64 > maximum allowed batch size 32","error_type":"Validation"}`,
			"Validation", "", "batch size 64 > maximum allowed batch size 32", "status 413 (Validation): batch size"},
		{"cohere", 400, `{"message":"invalid request: too many documents"}`, "", "", "invalid request: too many documents", "status 400: invalid request"},
		{"fastapi", 422, `{"detail":"Not Found"}`, "", "", "Not Found", "status 422: Not Found"},
		{"plain text", 502, "Bad Gateway\n", "", "", "Bad Gateway", "status 502: Bad Gateway"},
		{"long text is clipped", 500, strings.Repeat("é", 400), "", "", strings.Repeat("é", maxMessage/2) + "...", "status 500"},
		{"empty", 503, "", "", "", "", "status 503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{replies: []reply{{status: tt.status, body: tt.body}}}
			c, _ := newClient(t, s, Config{Name: "rerank", BaseURL: "/rerank"})
			var out json.RawMessage
			err := c.PostJSON(context.Background(), "", map[string]any{"query": "q"}, &out)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Status != tt.status || e.Type != tt.typ || e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("got status %d type %q code %q message %q, want %d %q %q %q", e.Status, e.Type, e.Code, e.Message, tt.status, tt.typ, tt.code, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "rerank http://") || !strings.Contains(err.Error(), "/v1/rerank: "+tt.str) {
				t.Errorf("Error() = %q, want rerank <url>: %s...", err, tt.str)
			}
		})
	}
}

// hang is a server whose requests wait for the client to give up; arrived
// receives a value as each request comes in.
type hang struct{ arrived chan struct{} }

func (h hang) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body) // the server notices a disconnect only once the body is read
	h.arrived <- struct{}{}
	<-r.Context().Done()
}

func TestTimeoutBoundsEachAttempt(t *testing.T) {
	h := hang{arrived: make(chan struct{}, 4)}
	c, m := newClient(t, h, Config{Name: "planner", Timeout: 20 * time.Millisecond, Retries: 1})
	_, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
	var e *Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || e.Status != 0 {
		t.Fatalf("err = %v, want an *Error with no status wrapping context.DeadlineExceeded", err)
	}
	// an attempt may time out before its request reaches the handler
	if n, got := count(m, "planner", "timeout"), len(h.arrived); n != 2 || got > 2 {
		t.Errorf("timeouts counted = %d, requests seen %d; want 2 attempts (the timed-out one retried once)", n, got)
	}
}

func TestCallerDeadline(t *testing.T) {
	h := hang{arrived: make(chan struct{}, 4)}
	c, _ := newClient(t, h, Config{Retries: 3, Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, ChatRequest{Model: "m"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if got := len(h.arrived); got > 1 {
		t.Errorf("requests = %d, want at most 1 (the caller's deadline ends the call, retries included)", got)
	}
}

func TestCancelInFlight(t *testing.T) {
	h := hang{arrived: make(chan struct{})}
	c, m := newClient(t, h, Config{Name: "embeddings", Retries: 3})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-h.arrived
		cancel()
	}()
	_, err := c.Embed(ctx, "m", []string{"a"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := count(m, "embeddings", "canceled"); n != 1 {
		t.Errorf("canceled counted = %d, want 1", n)
	}
}

// A cancellation during the wait before a retry ends the call at once: with
// an hour's backoff the test would hang otherwise.
func TestCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(503)
		w.(http.Flusher).Flush()
		cancel() // the response is out; the client now waits to retry
	})
	c, _ := newClient(t, srv, Config{Retries: 3, Backoff: time.Hour})
	_, err := c.Chat(ctx, ChatRequest{Model: "m"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n.Load() != 1 {
		t.Errorf("requests = %d, want 1", n.Load())
	}
}

func TestEmbed(t *testing.T) {
	tests := []struct {
		name string
		body string
		want [][]float32
		bad  bool
	}{
		{"placed by index", `{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}]}`, [][]float32{{1, 0}, {0, 1}}, false},
		{"count", `{"data":[{"index":0,"embedding":[1,0]}]}`, nil, true},
		{"repeated index", `{"data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`, nil, true},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,0]},{"index":2,"embedding":[0,1]}]}`, nil, true},
		{"dimensions differ", `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`, nil, true},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`, nil, true},
		{"not json", `<html>`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{replies: []reply{{status: 200, body: tt.body}}}
			c, m := newClient(t, s, Config{Name: "embeddings", Retries: 2})
			got, err := c.Embed(context.Background(), "m", []string{"a", "b"})
			if tt.bad {
				if !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want ErrBadResponse", err)
				}
				if s.requests() != 1 || count(m, "embeddings", "bad_response") != 1 || count(m, "embeddings", "ok") != 0 {
					t.Errorf("requests %d, bad_response %d, ok %d; want 1 1 0 (a bad body is not retried)",
						s.requests(), count(m, "embeddings", "bad_response"), count(m, "embeddings", "ok"))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0][0] != 1 || got[1][1] != 1 {
				t.Errorf("Embed = %v, want %v", got, tt.want)
			}
			var req struct {
				Model string   `json:"model"`
				Input []string `json:"input"`
			}
			if err := json.Unmarshal([]byte(s.bodies[0]), &req); err != nil || req.Model != "m" || len(req.Input) != 2 || s.got[0].URL.Path != "/v1/embeddings" {
				t.Errorf("request %s %s", s.got[0].URL.Path, s.bodies[0])
			}
		})
	}
}

func TestResponseCap(t *testing.T) {
	s := &script{replies: []reply{{status: 200, body: chatOK}}}
	c, _ := newClient(t, s, Config{MaxResponse: 16})
	_, err := c.Chat(context.Background(), ChatRequest{Model: "m"})
	if err == nil || !strings.Contains(err.Error(), "larger than 16 bytes") {
		t.Fatalf("err = %v, want the response cap", err)
	}
}

func TestRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		h    string
		want time.Duration
	}{{"", 0}, {"3", 3 * time.Second}, {" 1 ", time.Second}, {"-1", 0}, {"Wed, 21 Oct 2015 07:28:00 GMT", 0}} {
		if got := retryAfter(http.Header{"Retry-After": {tt.h}}); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

// Metrics registers on a Prometheus registry and serves its series.
func TestMetricsCollector(t *testing.T) {
	s := &script{replies: []reply{{status: 500}, {status: 200, body: chatOK}}}
	c, m := newClient(t, s, Config{Name: "judge", Retries: 1})
	if _, err := c.Chat(context.Background(), ChatRequest{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	want := `
# HELP guard_remote_requests_total HTTP requests to remote pieces (embeddings, rerank, rewrite, planner, judge), by client and result.
# TYPE guard_remote_requests_total counter
guard_remote_requests_total{client="judge",result="http_5xx"} 1
guard_remote_requests_total{client="judge",result="ok"} 1
# HELP guard_remote_retries_total Retries of failed requests to remote pieces, by client.
# TYPE guard_remote_retries_total counter
guard_remote_retries_total{client="judge"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "guard_remote_requests_total", "guard_remote_retries_total"); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(reg, "guard_remote_request_seconds"); err != nil || n != 1 {
		t.Errorf("latency histograms = %d (%v), want 1", n, err)
	}
}
