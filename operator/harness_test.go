package operator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/answer-guard/guard/internal/looptest"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// The operator plane's end-to-end tests run it as guard serve does: a
// proxy on a loopback port with the plane attached, against the simulated
// upstream. (Only tests import proxy here; the package itself does not.)

// opConfig names the plane's Config where testCfg embeds it beside the
// proxy's.
type opConfig = Config

// testCfg is what a test sets: the proxy's configuration, the operator
// plane's and that of the simulated upstream.
type testCfg struct {
	proxy.Config
	opConfig
	Mock mockllm.Config
}

// testConfig is the default configuration with an unpaced simulated
// upstream and a fast disconnect probe.
func testConfig() testCfg {
	cfg := testCfg{Config: proxy.DefaultConfig(), opConfig: DefaultConfig(), Mock: mockllm.DefaultConfig()}
	cfg.Mock.Pace = 0
	cfg.Server.DisconnectProbe = 20 * time.Millisecond
	return cfg
}

// server is a proxy with its operator plane, wired and reloaded as guard
// serve wires and reloads them.
type server struct {
	px  *proxy.Server
	op  *Plane
	cfg testCfg
}

// Config is the configuration in force.
func (s *server) Config() testCfg {
	c := s.cfg
	c.Config, c.opConfig = s.px.Config(), s.op.Config()
	return c
}

// Reload is guard serve's SIGHUP (cmd/guard reloadBoth): the plane's
// restart-only settings are checked first, its new settings put in force,
// then the proxy reloads (and runs the plane's reload hook); a refused
// proxy reload puts the plane's settings back.
func (s *server) Reload(c testCfg) error {
	if err := s.op.CheckReload(c.opConfig); err != nil {
		return s.px.ReloadRefused(err)
	}
	prev := s.op.Config()
	s.op.Reload(c.opConfig)
	if err := s.px.Reload(c.Config); err != nil {
		s.op.Reload(prev)
		return err
	}
	return nil
}

func (s *server) Shutdown(ctx context.Context) error { return s.px.Shutdown(ctx) }

type testServer struct {
	srv  *server
	base string // http://127.0.0.1:port/v1
	mock *mockllm.Server
}

// newServer builds a proxy and its plane for tc (its upstream set).
func newServer(tb testing.TB, tc testCfg, factory proxy.PipelineFactory) *server {
	tb.Helper()
	if factory != nil {
		tc = withDemo(tb, tc)
	}
	px, err := proxy.New(tc.Config, nil, factory)
	if err != nil {
		tb.Fatalf("proxy.New: %v", err)
	}
	op, err := New(tc.opConfig, px, nil)
	if err != nil {
		px.Shutdown(context.Background()) //nolint:errcheck
		tb.Fatalf("operator.New: %v", err)
	}
	px.Attach(op)
	return &server{px: px, op: op, cfg: tc}
}

// startProxy starts a proxy for tc (and its simulated upstream, stopped
// when the test ends) on a loopback port; the caller shuts it down.
func startProxy(tb testing.TB, tc testCfg, factory proxy.PipelineFactory) *testServer {
	tb.Helper()
	mock, err := mockllm.Start(tc.Mock, "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("start simulated upstream: %v", err)
	}
	tb.Cleanup(func() { mock.Close() })
	if tc.Upstream.BaseURL == "" {
		tc.Upstream.BaseURL = mock.BaseURL()
	}
	srv := newServer(tb, tc, factory)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.px.Serve(ln)
	return &testServer{srv: srv, base: "http://" + ln.Addr().String() + "/v1", mock: mock}
}

// serve starts a proxy for tc and shuts it down when the test ends.
func serve(t *testing.T, tc testCfg, factory proxy.PipelineFactory) *testServer {
	t.Helper()
	ts := startProxy(t, tc, factory)
	t.Cleanup(func() { shutdown(t, ts.srv) })
	return ts
}

// startServer is a pass-through proxy (pipeline off) with its plane.
func startServer(t *testing.T, mutate func(*testCfg)) *testServer {
	t.Helper()
	cfg := testConfig()
	cfg.Pipeline.Enabled = false
	if mutate != nil {
		mutate(&cfg)
	}
	return serve(t, cfg, nil)
}

// startGuard is the whole guard (the pipeline on the demo corpus).
func startGuard(t *testing.T, mutate func(*testCfg)) *testServer {
	t.Helper()
	cfg := testConfig()
	cfg.Log.Level = "error"
	if mutate != nil {
		mutate(&cfg)
	}
	return serve(t, cfg, proxy.NewPipeline(nil))
}

// shutdown stops srv, waiting at most 5 s for its streams.
func shutdown(tb testing.TB, srv *server) {
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

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

const groundQ = "What does error LF-4002 mean?"

// plannerServer is a scripted OpenAI-compatible planner on loopback: it
// answers every call with reply and records the user messages it got.
func plannerServer(t *testing.T, reply string) (string, func() []string) {
	return looptest.ChatServer(t, reply)
}
