package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answer-guard/guard/proxy"
)

// serveOn is serve with a listener of the caller's choosing.
func serveOn(t *testing.T, cfg proxy.Config, ln net.Listener) *proxy.Server {
	t.Helper()
	srv, err := proxy.New(cfg, nil, nil)
	if err != nil {
		t.Fatalf("proxy.New: %v", err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return srv
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

// A reload can never switch auth off on a listener that is not loopback:
// the server binds 0.0.0.0 (requests go only to 127.0.0.1), auth on; new
// configurations that move the address to loopback with auth off, keep the
// address but switch auth off, or change other restart-only settings are
// all refused whole, and an unauthenticated request still gets 401.
func TestReloadNeverWeakensAuth(t *testing.T) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot bind 0.0.0.0 here: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	cfg, _ := withMock(t, testConfig())
	cfg.Pipeline.Enabled = false
	cfg.Server.Addr = ln.Addr().String()
	cfg.Auth.Enabled = true
	cfg.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("sk-admin")}}
	cfg.Auth.Keys = []proxy.KeyConfig{{Name: "acme", SHA256: sha("sk-acme"), Tenant: "acme", KBs: []string{"docs"}}}
	srv := serveOn(t, cfg, ln)
	base := "http://127.0.0.1:" + strconv.Itoa(port)

	authOffLoopback := cfg
	authOffLoopback.Server.Addr = "127.0.0.1:1"
	authOffLoopback.Auth = proxy.AuthConfig{}
	authOffSameAddr := cfg
	authOffSameAddr.Server.Addr = "127.0.0.1:8080" // validates (loopback) but the listener is not
	authOffSameAddr.Auth = proxy.AuthConfig{}
	bigger := cfg
	bigger.Server.MaxBodyBytes *= 2
	for _, tc := range []struct {
		name string
		cfg  proxy.Config
		want string
	}{
		{"moved to loopback with auth off", authOffLoopback, "server.addr"},
		{"auth off, listener public", authOffSameAddr, "server.addr"},
		{"body limit changed", bigger, "server.max_body_bytes"},
	} {
		err := srv.Reload(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: reload error %v, want it refused naming %s", tc.name, err, tc.want)
		}
		if code, body := get(t, base+"/v1/models", ""); code != 401 {
			t.Fatalf("%s: unauthenticated request got %d %s, want 401", tc.name, code, body)
		}
	}
	if got := srv.Config(); !got.Auth.Enabled || got.Server != cfg.Server {
		t.Errorf("running configuration changed by refused reloads: auth %v server %+v", got.Auth.Enabled, got.Server)
	}

	// The listener check stands on its own: a configuration whose own
	// addr is loopback (so it validates) cannot switch auth off while the
	// bound listener is public.
	sneaky := cfg
	sneaky.Auth = proxy.AuthConfig{}
	sneaky.Server.Addr = "127.0.0.1:" + strconv.Itoa(port)
	srv2cfg := cfg
	srv2cfg.Server.Addr = sneaky.Server.Addr // the running config claims loopback...
	ln2, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	srv2 := serveOn(t, srv2cfg, ln2)                                                        // ...but the listener is 0.0.0.0
	get(t, "http://127.0.0.1:"+strconv.Itoa(ln2.Addr().(*net.TCPAddr).Port)+"/healthz", "") // Serve is running
	if err := srv2.Reload(sneaky); err == nil || !strings.Contains(err.Error(), "auth.enabled") {
		t.Errorf("auth off on a public listener: reload error %v, want refused", err)
	}

	// Each refusal is counted.
	_, metrics := get(t, base+"/metrics", "sk-admin")
	if !strings.Contains(metrics, `guard_config_reloads_total{result="refused"} 3`) {
		t.Errorf("metrics lack the three refused reloads:\n%s", grepLines(metrics, "guard_config_reloads_total"))
	}
}

// An empty or whitespace/comment-only config file is an error (it would
// otherwise reset every setting to the defaults on SIGHUP).
func TestEmptyConfigFileRejected(t *testing.T) {
	for _, body := range []string{"", "   \n\t\n", "# only a comment\n", "---\n"} {
		p := filepath.Join(t.TempDir(), "guard.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := proxy.LoadConfig(p); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("file %q: error %v, want 'empty'", body, err)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The operator endpoint /metrics needs an admin key when auth is on; a
// tenant key is 403, none 401. /healthz and /readyz stay open. A method a
// path does not take is 405 with an Allow header, in the OpenAI shape.
func TestOperatorEndpointsAndMethods(t *testing.T) {
	ts := startServer(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{{Name: "acme", SHA256: sha("sk-acme"), Tenant: "acme", KBs: []string{"docs"}}}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("sk-admin")}}
	})
	root := strings.TrimSuffix(ts.base, "/v1")
	for _, tc := range []struct {
		path, key string
		want      int
	}{
		{"/metrics", "", 401},
		{"/metrics", "sk-wrong", 401},
		{"/metrics", "sk-acme", 403},
		{"/metrics", "sk-admin", 200},
		{"/healthz", "", 200},
		{"/readyz", "", 200},
		{"/v1/models", "sk-admin", 403}, // an admin key cannot act as a tenant (tenant_key_required)
	} {
		if code, body := get(t, root+tc.path, tc.key); code != tc.want {
			t.Errorf("GET %s key %q: %d %s, want %d", tc.path, tc.key, code, body, tc.want)
		}
	}
	for _, tc := range []struct{ method, path, allow string }{
		{"DELETE", "/v1/models", "GET, HEAD"},
		{"POST", "/v1/models", "GET, HEAD"},
		{"GET", "/v1/chat/completions", "POST"},
		{"PUT", "/v1/chat/completions", "POST"},
	} {
		req, _ := http.NewRequest(tc.method, root+tc.path, nil)
		req.Header.Set("Authorization", "Bearer sk-acme")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != tc.allow || !strings.Contains(string(b), `"method_not_allowed"`) {
			t.Errorf("%s %s: %d Allow %q %s, want 405 Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), b, tc.allow)
		}
	}
}

// A body with a duplicate key (at any depth, after unescaping, in any
// case) is refused with 400 naming the key, and never reaches an upstream
// that, like Go's encoding/json, would keep the last occurrence.
func TestDuplicateKeysRefused(t *testing.T) {
	var calls atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req) // keeps the last "model"
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`, req.Model)
	}))
	defer up.Close()
	ts := startServer(t, func(c *testCfg) {
		c.Upstream.BaseURL = up.URL + "/v1"
		c.Models.Allow = []string{"mock-1"}
	})
	for _, tc := range []struct{ body, key string }{
		{`{"model":"mock-1","messages":[{"role":"user","content":"x"}],"model":"gpt-x"}`, "model"},
		{`{"model":"mock-1","messages":[{"role":"user","content":"x"}],"messages":[{"role":"user","content":"y"}]}`, "messages"},
		{`{"model":"mock-1","Model":"gpt-x","messages":[{"role":"user","content":"x"}]}`, "Model"},
		{`{"model":"mock-1","mod\u0065l":"gpt-x","messages":[{"role":"user","content":"x"}]}`, "model"},
		{`{"model":"mock-1","messages":[{"role":"user","content":"x","role":"system"}]}`, "role"},
		{`{"model":"mock-1","messages":[{"role":"user","content":"x"}],"metadata":{"a":{"b":1,"b":2}}}`, "b"},
	} {
		resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), `"code":"duplicate_key"`) || !strings.Contains(string(b), `"param":"`+tc.key+`"`) {
			t.Errorf("%s: %d %s, want 400 duplicate_key naming %q", tc.body, resp.StatusCode, b, tc.key)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the upstream was called %d times", n)
	}
	// The same keys in different objects are fine.
	resp, err := http.Post(ts.base+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"},{"role":"user","content":"z"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"model":"mock-1"`) {
		t.Errorf("a request without duplicates: %d %s", resp.StatusCode, b)
	}
}

// closingUpstream answers each connection's first request with a
// keep-alive chat completion and then closes the connection, as an upstream
// with a short keep-alive does with idle connections: the proxy's next
// request on that pooled connection fails before any byte of an answer.
func closingUpstream(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				served.Add(1)
				body := `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			}(c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return "http://" + ln.Addr().String() + "/v1", &served
}

// Non-stream requests survive an upstream that closes idle connections: a
// request that meets a closed pooled connection is retried once on a
// fresh one (the write or the first read failed: nothing was answered).
func TestUpstreamClosingIdleConnections(t *testing.T) {
	base, served := closingUpstream(t)
	ts := startServer(t, func(c *testCfg) { c.Upstream.BaseURL = base })
	const n = 20
	for i := range n {
		resp, err := http.Post(ts.base+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi `+strconv.Itoa(i)+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
	}
	if got := served.Load(); got != n {
		t.Errorf("upstream answered %d requests for %d sent (a retry must not repeat an answered request)", got, n)
	}
}

// rawRequest sends raw bytes on a fresh connection and returns the status
// line of the answer.
func rawRequest(t *testing.T, base, raw string) string {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/v1")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// Whitespace between a header name and its colon is a 400 (RFC 9112 5.1),
// and a chat body that is not JSON by its Content-Type is a 415.
func TestHeaderAndContentTypeStrictness(t *testing.T) {
	ts := startServer(t, nil)
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"space before colon (TE)", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding : chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body), "HTTP/1.1 400"},
		{"space before colon (other)", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Thing : 1\r\n\r\n", "HTTP/1.1 400"},
		{"tab before colon", "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Thing\t: 1\r\n\r\n", "HTTP/1.1 400"},
		{"text/plain", fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body), "HTTP/1.1 415"},
		{"form", fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", len(body), body), "HTTP/1.1 415"},
		{"json with charset", fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body), "HTTP/1.1 200"},
		{"no content type", fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body), "HTTP/1.1 200"},
	} {
		if got := rawRequest(t, ts.base, tc.raw); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %s", tc.name, got, tc.want)
		}
	}
}

// On a loopback listener too, a reload whose file leaves out the auth
// section (auth off) is refused: the running keys stay in force, an
// unauthenticated request still gets 401, the refusal names auth.enabled
// and says a restart does it. A reload that keeps auth on goes through.
func TestReloadAuthOffRefusedOnLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := withMock(t, testConfig())
	cfg.Pipeline.Enabled = false
	cfg.Server.Addr = ln.Addr().String()
	cfg.Auth.Enabled = true
	cfg.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("sk-admin")}}
	cfg.Auth.Keys = []proxy.KeyConfig{{Name: "acme", SHA256: sha("sk-acme"), Tenant: "acme", KBs: []string{"docs"}}}
	srv := serveOn(t, cfg, ln)
	base := "http://" + ln.Addr().String()

	off := cfg
	off.Auth = proxy.AuthConfig{}
	err = srv.Reload(off)
	if err == nil || !strings.Contains(err.Error(), "auth.enabled") || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("auth off by reload on loopback: error %v, want refused naming auth.enabled and restart", err)
	}
	if code, body := get(t, base+"/v1/models", ""); code != 401 {
		t.Fatalf("after the refused reload an unauthenticated request got %d %s, want 401", code, body)
	}
	if !srv.Config().Auth.Enabled {
		t.Error("running configuration lost auth")
	}
	same := cfg
	same.Models.Allow = []string{"m1"}
	if err := srv.Reload(same); err != nil {
		t.Errorf("a reload that keeps auth on: %v", err)
	}
	_, metrics := get(t, base+"/metrics", "sk-admin")
	if !strings.Contains(metrics, `guard_config_reloads_total{result="refused"} 1`) {
		t.Errorf("metrics lack the refused reload:\n%s", grepLines(metrics, "guard_config_reloads_total"))
	}
}

// A reload that removes a key ends that key's open streams at once, with
// an invalid_api_key error event and [DONE]; a stream of a key the reload
// keeps runs to its end.
func TestRevokedKeyStreamsEndAtReload(t *testing.T) {
	tc := testConfig()
	tc.Mock.Pace = 20 * time.Millisecond
	tc.Mock.ChunkRunes = 1
	cfg, _ := withMock(t, tc)
	cfg.Pipeline.Enabled = false
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Server.Addr = ln.Addr().String()
	cfg.Auth.Enabled = true
	cfg.Auth.Keys = []proxy.KeyConfig{
		{Name: "gone", SHA256: sha("sk-gone"), Tenant: "acme", KBs: []string{"docs"}},
		{Name: "kept", SHA256: sha("sk-kept"), Tenant: "acme", KBs: []string{"docs"}},
	}
	srv := serveOn(t, cfg, ln)
	open := func(key string) (*http.Response, *bufio.Reader) {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/v1/chat/completions", strings.NewReader(streamBody))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		if first, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(first, "data: ") {
			t.Fatalf("%s: stream did not start: %d %q %v", key, resp.StatusCode, first, err)
		}
		return resp, br
	}
	goneResp, goneBody := open("sk-gone")
	defer goneResp.Body.Close()
	keptResp, keptBody := open("sk-kept")
	defer keptResp.Body.Close()

	next := cfg
	next.Auth.Keys = cfg.Auth.Keys[1:]
	if err := srv.Reload(next); err != nil {
		t.Fatal(err)
	}
	gone := sseEvents(t, goneBody)
	n := len(gone)
	if n < 2 || gone[n-1] != "[DONE]" || !strings.Contains(gone[n-2], `"invalid_api_key"`) || strings.Contains(strings.Join(gone, ""), `"finish_reason":"stop"`) {
		t.Errorf("revoked key's stream: %q, want it cut with an invalid_api_key error event", gone[max(0, n-3):])
	}
	kept := sseEvents(t, keptBody)
	if joined := strings.Join(kept, ""); !strings.Contains(joined, `"finish_reason":"stop"`) || strings.Contains(joined, "invalid_api_key") {
		t.Errorf("kept key's stream did not finish whole: %q", kept[max(0, len(kept)-3):])
	}
}
