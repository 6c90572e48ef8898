package chaos

import (
	"bytes"
	"context"

	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/bench"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// startProxy runs a pass-through-or-pipeline proxy against a pace-0 mock.
func startProxy(tb testing.TB) *bench.InProcess {
	tb.Helper()
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	ip, err := bench.StartInProcess(mcfg, func(c *proxy.Config) { c.Server.ReadTimeout = 2 * time.Second }, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := ip.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return ip
}

func hostOf(ip *bench.InProcess) string {
	return strings.TrimSuffix(strings.TrimPrefix(ip.ProxyURL, "http://"), "/v1")
}

// TestBadInputs sends each hostile request on its own connection: each gets
// one of its acceptable answers (a clear 4xx), and the proxy answers a good
// request afterwards.
func TestBadInputs(t *testing.T) {
	ip := startProxy(t)
	ctx := context.Background()
	for _, c := range bench.BadInputs() {
		t.Run(c.Name, func(t *testing.T) {
			got := bench.SendBadInput(ctx, hostOf(ip), c)
			if !got.OK {
				t.Errorf("status %d code %q responses %d, want status in %v and one response. %s", got.Status, got.Code, got.Responses, c.Want, got.Detail)
			}
			if got.Status >= 500 {
				t.Errorf("a hostile request caused a %d", got.Status)
			}
			resp, err := http.Post(ip.ProxyURL+"/chat/completions", "application/json",
				strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"still up?"}]}`))
			if err != nil {
				t.Fatalf("proxy down after %s: %v", c.Name, err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("after %s a good request got %d", c.Name, resp.StatusCode)
			}
		})
	}
}

// FuzzChatBody posts arbitrary bodies: the proxy answers each with 200 or a
// 4xx (never a 5xx: the simulated upstream is healthy), and stays up.
func FuzzChatBody(f *testing.F) {
	for _, s := range []string{
		`{"model":"mock-1","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"mock-1","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"n":1}`,
		`{"model":"mock-1","messages":[{"role":"system","content":null},{"role":"user","content":"[^1] doc_0123456789"}]}`,
		`{"model":5}`, `[]`, `{`, "\xff", `{"model":"m","messages":[[[[[[[[]]]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	ip := startProxy(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := http.Post(ip.ProxyURL+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body) //nolint:errcheck
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("status %d for body %q: %s", resp.StatusCode, body, b.Bytes())
		}
		if resp.StatusCode != 200 && !bytes.Contains(b.Bytes(), []byte(`"error"`)) {
			t.Fatalf("status %d without an OpenAI error body: %s", resp.StatusCode, b.Bytes())
		}
		if resp.StatusCode == 200 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			if c := bench.CheckStream(&b, 1<<20); len(c.Problems) > 0 {
				t.Fatalf("stream broke its contract: %v", c.Problems)
			}
		}
	})
}
