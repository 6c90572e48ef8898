package proxy_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/answer-guard/guard/internal/leaktest"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// TestMain fails the run when a goroutine is left after the tests passed
// (library janitors aside: internal/leaktest).
func TestMain(m *testing.M) { leaktest.Main(m) }

// testServer is a proxy on a loopback port with its own simulated upstream.
type testServer struct {
	srv  *proxy.Server
	base string // http://127.0.0.1:port/v1
	mock *mockllm.Server
}

func startServer(t *testing.T, mutate func(*testCfg)) *testServer {
	t.Helper()
	cfg := testConfig()
	cfg.Pipeline.Enabled = false
	if mutate != nil {
		mutate(&cfg)
	}
	return serve(t, cfg, nil)
}

// testCfg is what a test sets: the proxy's configuration and that of the
// simulated upstream serve starts for it (as guard serve does).
type testCfg struct {
	proxy.Config
	Mock mockllm.Config
}

// testConfig is the default configuration with an unpaced simulated
// upstream and a fast disconnect probe.
func testConfig() testCfg {
	cfg := testCfg{Config: proxy.DefaultConfig(), Mock: mockllm.DefaultConfig()}
	cfg.Mock.Pace = 0
	cfg.Server.DisconnectProbe = 20 * time.Millisecond
	return cfg
}

// withMock starts the simulated upstream of cfg for the test's life and
// returns the proxy configuration pointed at it (unless it names an
// upstream of its own).
func withMock(t testing.TB, cfg testCfg) (proxy.Config, *mockllm.Server) {
	t.Helper()
	mock, err := mockllm.Start(cfg.Mock, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("start simulated upstream: %v", err)
	}
	t.Cleanup(func() { mock.Close() })
	if cfg.Upstream.BaseURL == "" {
		cfg.Upstream.BaseURL = mock.BaseURL()
	}
	return cfg.Config, mock
}

// serve starts a proxy for cfg (and its simulated upstream) on a loopback
// port and shuts it down when the test ends.
func serve(t *testing.T, tc testCfg, factory proxy.PipelineFactory) *testServer {
	t.Helper()
	ts := startProxy(t, tc, factory)
	t.Cleanup(func() { shutdown(t, ts.srv) })
	return ts
}

// startProxy starts a proxy for cfg (and its simulated upstream, stopped
// when the test ends) on a loopback port; the caller shuts the proxy down.
func startProxy(tb testing.TB, tc testCfg, factory proxy.PipelineFactory) *testServer {
	tb.Helper()
	cfg, mock := withMock(tb, tc)
	srv, err := proxy.New(cfg, nil, factory)
	if err != nil {
		tb.Fatalf("proxy.New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Serve(ln)
	return &testServer{srv: srv, base: "http://" + ln.Addr().String() + "/v1", mock: mock}
}

// shutdown stops srv, waiting at most 5 s for its streams.
func shutdown(tb testing.TB, srv *proxy.Server) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		tb.Errorf("shutdown: %v", err)
	}
}

func (ts *testServer) client(opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(ts.base + "/"),
		option.WithAPIKey("test"), option.WithMaxRetries(0), option.WithRequestTimeout(10 * time.Second)}, opts...)...)
}

func (ts *testServer) completions() *openai.ChatCompletionService {
	c := ts.client()
	return &c.Chat.Completions
}

const notesSystem = "Notes:\n[^1] (kind: lecture; address: HB 1.2) The return window is 30 days from delivery.\n[^2] (kind: library; address: HB 4.1) Refunds are issued within 5 business days."

func params(stream bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model: "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(notesSystem),
			openai.UserMessage("What is the return window?"),
		},
	}
	return p
}

func TestOpenAIClientNonStream(t *testing.T) {
	ts := startServer(t, nil)
	resp, err := ts.completions().New(context.Background(), params(false))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if len(resp.Choices) != 1 || !strings.Contains(resp.Choices[0].Message.Content, "30 days") {
		t.Fatalf("got content %q, want the cited note's sentence", resp.Choices[0].Message.Content)
	}
	if resp.Usage.TotalTokens == 0 {
		t.Errorf("got no usage on a non-stream completion")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(resp.RawJSON()), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"guard", "citations", "x_mock_trace", "system_fingerprint"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("response lacks %q: %s", k, resp.RawJSON())
		}
	}
	var g struct{ Decision string }
	json.Unmarshal(raw["guard"], &g)
	if g.Decision != "passthrough" {
		t.Errorf("got decision %q, want passthrough (stages off)", g.Decision)
	}
}

func TestOpenAIClientStream(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { c.Mock.ChunkRunes = 3 })
	for _, usage := range []bool{false, true} {
		t.Run(fmt.Sprintf("include_usage=%v", usage), func(t *testing.T) {
			p := params(true)
			if usage {
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			}
			stream := ts.completions().NewStreaming(context.Background(), p)
			var acc openai.ChatCompletionAccumulator
			chunks, guardSeen, usageChunks := 0, 0, 0
			for stream.Next() {
				ch := stream.Current()
				acc.AddChunk(ch)
				chunks++
				if strings.Contains(ch.RawJSON(), `"guard":`) {
					guardSeen++
					if len(ch.Choices) == 0 || ch.Choices[0].FinishReason == "" {
						t.Errorf("guard object on a chunk without finish_reason: %s", ch.RawJSON())
					}
				}
				if ch.Usage.TotalTokens > 0 {
					usageChunks++
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			if got := acc.Choices[0].Message.Content; !strings.Contains(got, "30 days") {
				t.Errorf("got content %q", got)
			}
			if guardSeen != 1 {
				t.Errorf("got %d chunks with guard, want 1", guardSeen)
			}
			want := 0
			if usage {
				want = 1
			}
			if usageChunks != want {
				t.Errorf("got %d usage chunks, want %d", usageChunks, want)
			}
			// The upstream always gets include_usage, whatever the client asked.
			if !strings.Contains(string(ts.mock.LastBody()), `"include_usage":true`) {
				t.Errorf("upstream body lacks forced include_usage: %s", ts.mock.LastBody())
			}
		})
	}
}

func TestToolCallPassthrough(t *testing.T) {
	ts := startServer(t, nil)
	p := params(false)
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:       "lookup_order",
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}},
	})}
	resp, err := ts.completions().New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	tc := resp.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].Function.Name != "lookup_order" || !strings.Contains(tc[0].Function.Arguments, "return window") {
		t.Fatalf("got tool calls %+v", tc)
	}
	if !strings.Contains(string(ts.mock.LastBody()), `"lookup_order"`) {
		t.Errorf("tools not forwarded upstream: %s", ts.mock.LastBody())
	}

	stream := ts.completions().NewStreaming(context.Background(), func() openai.ChatCompletionNewParams { q := p; return q }())
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	calls := acc.Choices[0].Message.ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "lookup_order" || !json.Valid([]byte(calls[0].Function.Arguments)) {
		t.Fatalf("got streamed tool calls %+v", calls)
	}
	if acc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("got finish_reason %q", acc.Choices[0].FinishReason)
	}
}

func TestUnknownFieldsReachUpstream(t *testing.T) {
	ts := startServer(t, nil)
	body := `{"model":"mock-1","messages":[{"role":"user","content":"hi"}],"vendor_knob":{"a":[1,2.50,"x"]},"temperature":0.25}`
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got := string(ts.mock.LastBody()); !strings.Contains(got, `"vendor_knob":{"a":[1,2.50,"x"]}`) || !strings.Contains(got, `"temperature":0.25`) {
		t.Errorf("upstream got %s, want unknown fields untouched", got)
	}
}

// sseEvents reads a raw SSE body into its data payloads.
func sseEvents(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func postStream(t *testing.T, ts *testServer, body string) (*http.Response, []string) {
	t.Helper()
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		return resp, []string{string(b)}
	}
	return resp, sseEvents(t, resp.Body)
}

const streamBody = `{"model":"mock-1","stream":true,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: HB 1.2) The return window is 30 days from delivery.\n[^2] (kind: lecture; address: HB 1.3) Refunds are issued within 5 business days.\n[^3] (kind: lecture; address: HB 1.4) Store credit never expires."},{"role":"user","content":"returns?"}]}`

func TestUpstreamDiesMidStream(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { c.Mock.Faults.Disconnect = 1 })
	resp, events := postStream(t, ts, streamBody)
	if resp.StatusCode != 200 {
		t.Fatalf("got status %d, want 200 (the stream had started)", resp.StatusCode)
	}
	if n := len(events); n < 2 || events[n-1] != "[DONE]" {
		t.Fatalf("got events %q, want an error event then [DONE]", events)
	}
	last := events[len(events)-2]
	if !strings.Contains(last, `"error"`) || !strings.Contains(last, "upstream_stream_failed") {
		t.Errorf("got %s before [DONE], want an upstream_stream_failed error event", last)
	}
	for _, e := range events[:len(events)-1] {
		if !json.Valid([]byte(e)) {
			t.Errorf("event is not whole JSON: %q", e)
		}
	}
}

func TestSlowFirstByte(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Mock.Faults.SlowFirst = 1
		c.Mock.SlowFirstDelay = time.Second // under the simulated upstream's 2 s shutdown grace: the cleanup waits it out
		c.Upstream.FirstByteTimeout = 100 * time.Millisecond
	})
	// a non-stream answer arrives whole: only request_timeout cuts it
	whole := startServer(t, func(c *testCfg) {
		c.Mock.Faults.SlowFirst = 1
		c.Mock.SlowFirstDelay = time.Second
		c.Upstream.RequestTimeout = 100 * time.Millisecond
	})
	for _, stream := range []bool{true, false} {
		ts := ts
		if !stream {
			ts = whole
		}
		body := strings.Replace(streamBody, `"stream":true`, fmt.Sprintf(`"stream":%v`, stream), 1)
		// A 504 can only come from the timeout (the upstream would answer
		// 200 after its delay); TestFirstByteAndRequestTimeout times it
		// exactly, in a synctest bubble.
		resp, events := postStream(t, ts, body)
		if resp.StatusCode != 504 || !strings.Contains(events[0], "upstream_timeout") {
			t.Errorf("stream=%v: got %d %s, want 504 upstream_timeout", stream, resp.StatusCode, events)
		}
	}
}

func TestIdleTimeoutBetweenEvents(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Mock.Faults.Stall = 1
		c.Mock.StallDelay = time.Second
		c.Upstream.IdleTimeout = 100 * time.Millisecond
	})
	resp, events := postStream(t, ts, streamBody)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d", resp.StatusCode)
	}
	n := len(events)
	if n < 2 || events[n-1] != "[DONE]" || !strings.Contains(events[n-2], "upstream_timeout") {
		t.Fatalf("got %q, want an upstream_timeout error event then [DONE]", events[max(0, n-3):])
	}
}

func TestUpstreamRefusedAndDown(t *testing.T) {
	ts := startServer(t, func(c *testCfg) { c.Mock.Faults.Refuse = 1 })
	resp, events := postStream(t, ts, streamBody)
	if resp.StatusCode != 502 || !strings.Contains(events[0], `"upstream_error"`) {
		t.Errorf("upstream 503: got %d %s, want 502 upstream_error", resp.StatusCode, events)
	}
	// A closed port: connection refused. Port 1 (tcpmux) is below the
	// ephemeral range, so no server a parallel test starts on :0 can take
	// it, as one took a port freed here under the race pass (CI).
	down := startServer(t, func(c *testCfg) { c.Upstream.BaseURL = "http://127.0.0.1:1/v1" })
	resp, events = postStream(t, down, streamBody)
	if resp.StatusCode != 502 || !strings.Contains(events[0], "upstream_unavailable") {
		t.Errorf("upstream down: got %d %s, want 502 upstream_unavailable", resp.StatusCode, events)
	}
}

func TestDisconnectCancelsUpstream(t *testing.T) {
	// One rune every 100 ms: the answer (about 140 runes) outlasts the
	// wait below, so a close the proxy notices late under load (the race
	// pass over every package on 2 cores once took over the old 2.8 s
	// answer) still shows as a close, not as an answer that finished.
	ts := startServer(t, func(c *testCfg) {
		c.Mock.Pace = 100 * time.Millisecond
		c.Mock.ChunkRunes = 1
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+"/chat/completions", strings.NewReader(streamBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the stream is flowing
		t.Fatal(err)
	}
	cancel() // the client goes away mid-answer
	resp.Body.Close()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	id, err := ts.mock.WaitClosed(wctx)
	if err != nil {
		t.Fatalf("the upstream stream was not closed after the client left: %v", err)
	}
	if rec, _ := ts.mock.Log().Get(id); !rec.Closed {
		t.Errorf("record %s not marked closed", id)
	}
}

// A client that leaves while a pass-through stream's upstream stalls: the
// disconnect probe (armed at the relay's first wait) finds it gone and the
// proxy closes the upstream connection, though the upstream sent nothing
// more (it would stall for an hour).
func TestProbeCancelsStalledUpstream(t *testing.T) {
	upClosed := make(chan struct{})
	ev := `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"mock-1","choices":[{"index":0,"delta":{"content":"The return window"},"finish_reason":null}]}` + "\n\n"
	// One event, then the stall: upClosed closes when the proxy closes
	// the connection.
	base := proxy.ScriptedUpstream(t, []string{fmt.Sprintf("%x\r\n%s\r\n", len(ev), ev)}, nil, upClosed)
	ts := startServer(t, func(c *testCfg) {
		c.Upstream.BaseURL = base
		c.Upstream.IdleTimeout = time.Hour
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+"/chat/completions", strings.NewReader(streamBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.Contains(line, "The return window") {
		t.Fatalf("first event: %q %v", line, err)
	}
	cancel() // the client goes away during the stall
	resp.Body.Close()
	select {
	case <-upClosed:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("the stalled upstream connection was not closed after the client left")
	}
}

func TestBadInput(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Server.MaxBodyBytes = 4096
		c.Models.Allow = []string{"mock-1"}
	})
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"empty", ``, 400, "invalid_json"},
		{"bad json", `{"model":`, 400, "invalid_json"},
		{"not object", `[1,2]`, 400, "invalid_json"},
		{"invalid utf8", "{\"model\":\"mock-1\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", 400, "invalid_encoding"},
		{"deep json", `{"model":"mock-1","messages":[{"role":"user","content":"x"}],"x":` + deep + `}`, 400, "invalid_json"},
		{"missing model", `{"messages":[{"role":"user","content":"x"}]}`, 400, "missing_required_parameter"},
		{"model wrong type", `{"model":7,"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_type"},
		{"missing messages", `{"model":"mock-1"}`, 400, "missing_required_parameter"},
		{"messages wrong type", `{"model":"mock-1","messages":"hi"}`, 400, "invalid_type"},
		{"empty messages", `{"model":"mock-1","messages":[]}`, 400, "invalid_value"},
		{"message not object", `{"model":"mock-1","messages":[3]}`, 400, "invalid_type"},
		{"bad role", `{"model":"mock-1","messages":[{"role":"wizard","content":"x"}]}`, 400, "invalid_value"},
		{"content wrong type", `{"model":"mock-1","messages":[{"role":"user","content":5}]}`, 400, "invalid_type"},
		{"stream wrong type", `{"model":"mock-1","stream":"yes","messages":[{"role":"user","content":"x"}]}`, 400, "invalid_type"},
		{"n > 1", `{"model":"mock-1","n":2,"messages":[{"role":"user","content":"x"}]}`, 400, "unsupported_value"},
		{"unknown model", `{"model":"gpt-9","messages":[{"role":"user","content":"x"}]}`, 404, "model_not_found"},
		{"too large", `{"model":"mock-1","messages":[{"role":"user","content":"` + strings.Repeat("a", 5000) + `"}]}`, 413, "request_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct{ Message, Type, Code string }
			}
			b, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("body is not an OpenAI error: %s", b)
			}
			if resp.StatusCode != tc.status || e.Error.Code != tc.code || e.Error.Message == "" {
				t.Errorf("got %d %s (%s), want %d %s", resp.StatusCode, e.Error.Code, e.Error.Message, tc.status, tc.code)
			}
		})
	}
	// Oversized headers and a wrong method. The server answers 431 and
	// closes the connection with the rest of the headers unread, so the
	// kernel resets it; about 1 run in 100 the reset reaches the client
	// while it is still writing, before it read the 431 (a transport race
	// on the client side, also on the build before the fasthttp upstream
	// change). A reset is tried again, at most 5 times; any other answer
	// than 431 fails at once.
	for attempt := 1; ; attempt++ {
		req, _ := http.NewRequest("POST", ts.base+"/chat/completions", strings.NewReader(`{}`))
		req.Header.Set("X-Big", strings.Repeat("h", 40<<10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if attempt < 5 && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)) {
				continue
			}
			t.Errorf("oversized headers: %v, want a 431 response", err)
			break
		}
		if resp.StatusCode != 431 {
			t.Errorf("oversized headers: got %d, want 431", resp.StatusCode)
		}
		resp.Body.Close()
		break
	}
	resp, err := http.Get(ts.base + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET chat: got %d, want 405", resp.StatusCode)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestAuthAndTenancy(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{
			{Name: "acme", SHA256: sha("sk-acme"), Tenant: "acme", KBs: []string{"docs", "faq"}},
			{Name: "globex", SHA256: sha("sk-globex"), Tenant: "globex", KBs: []string{"docs"}},
		}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("sk-admin")}}
	})
	body := `{"model":"mock-1","messages":[{"role":"user","content":"x"}]}`
	cases := []struct {
		name, key, tenant, kb string
		status                int
	}{
		{"no key", "", "", "", 401},
		{"wrong key", "sk-nope", "", "", 401},
		{"good key", "sk-acme", "", "", 200},
		{"tenant matches", "sk-acme", "acme", "faq", 200},
		{"tenant mismatch", "sk-acme", "globex", "", 403},
		{"kb not allowed", "sk-globex", "", "faq", 403},
		{"bad header", "sk-acme", "a b", "", 400},
		{"header not a partition name", "sk-acme", "", ".faq", 400},
		{"admin key", "sk-admin", "", "", 403}, // tenant_key_required, not "invalid API key"
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.base+"/chat/completions", strings.NewReader(body))
			if tc.key != "" {
				req.Header.Set("Authorization", "Bearer "+tc.key)
			}
			if tc.tenant != "" {
				req.Header.Set("X-Tenant-ID", tc.tenant)
			}
			if tc.kb != "" {
				req.Header.Set("X-KB-ID", tc.kb)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("got %d %s, want %d", resp.StatusCode, b, tc.status)
			}
			if strings.Contains(string(b), "sk-") {
				t.Errorf("response echoes a key: %s", b)
			}
		})
	}
}

func TestConfigRejectsAuthOffOnPublicAddr(t *testing.T) {
	cfg := proxy.DefaultConfig()
	cfg.Server.Addr = "0.0.0.0:8080"
	cfg.Server.MaxBodyBytes = -1
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "auth.enabled") || !strings.Contains(err.Error(), "server.max_body_bytes") {
		t.Errorf("got %v, want every problem reported with its key path", err)
	}
}

func TestReloadKeepsStreamsAndAppliesConfig(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Mock.Pace = 10 * time.Millisecond
		c.Mock.ChunkRunes = 2
	})
	// A stream in flight during the reload finishes intact.
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "data: ") {
		t.Fatalf("stream did not start: %q %v", first, err)
	}
	cfg := ts.srv.Config()
	cfg.Models.Allow = []string{"only-this"}
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatalf("reload: %v", err)
	}
	events := sseEvents(t, br)
	resp.Body.Close()
	if len(events) == 0 || events[len(events)-1] != "[DONE]" || !strings.Contains(strings.Join(events, ""), `"finish_reason":"stop"`) {
		t.Fatalf("in-flight stream broken by reload: %q", events)
	}
	resp, err = http.Get(ts.base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "only-this") {
		t.Errorf("models after reload: %s", b)
	}
	bad := cfg
	bad.Upstream.IdleTimeout = -1
	if err := ts.srv.Reload(bad); err == nil {
		t.Errorf("reload accepted an invalid config")
	}
}

func TestMetricsAndHealth(t *testing.T) {
	ts := startServer(t, nil)
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	root := strings.TrimSuffix(ts.base, "/v1")
	for _, p := range []string{"/healthz", "/readyz"} {
		r, err := http.Get(root + p)
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("%s: %v %v", p, err, r)
		}
		r.Body.Close()
	}
	r, err := http.Get(root + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	for _, want := range []string{"guard_requests_total{route=\"chat\",status=\"200\"}", "guard_overhead_seconds_bucket",
		"guard_time_to_first_token_seconds_bucket", "guard_stream_duration_seconds_bucket"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestShutdownBeforeServe: a Shutdown that comes before (or while) Serve
// starts leaves no accept loop behind: Serve returns and its listener is
// closed. (Benchmarks that filter sub-benchmarks start and stop proxies
// at once; the accept loop used to outlive them, which TestMain's leak
// check reported.)
func TestShutdownBeforeServe(t *testing.T) {
	cfg, _ := withMock(t, testConfig())
	for _, order := range []string{"shutdown first", "concurrent"} {
		t.Run(order, func(t *testing.T) {
			srv, err := proxy.New(cfg, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			served := make(chan error, 1)
			if order == "shutdown first" {
				shutdown(t, srv)
				go func() { served <- srv.Serve(ln) }()
			} else {
				go func() { served <- srv.Serve(ln) }()
				shutdown(t, srv)
			}
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
				t.Fatal("Serve still accepting after Shutdown")
			}
			if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
				c.Close()
				t.Error("the listener still accepts connections after Shutdown")
			}
		})
	}
}
