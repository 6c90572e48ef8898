package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sideUpstream answers every completion with a first choice that cites
// note 1, a second choice, reasoning_content and refusal that all carry
// ids (plain, and broken up by a zero-width space) and raw markers.
func sideUpstream(t *testing.T) string {
	t.Helper()
	const leak = `see doc_1a2b and doc\u200b_9f9f [^2] [^1]`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[`+
				`{"index":0,"message":{"role":"assistant","content":"Error LF-4002 means the feed jammed [^1].","reasoning_content":"I %[1]s","refusal":"no %[1]s"},"finish_reason":"stop"},`+
				`{"index":1,"message":{"role":"assistant","content":"Other %[1]s"},"finish_reason":"stop"}]}`, leak)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(s string) { fmt.Fprintf(w, "data: %s\n\n", s) }
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"I see doc_1a"}}]}`)
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"2b and doc\u200b_9f9f [^2"}}]}`)
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"] [^1] then"}}]}`)
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"refusal":"no ` + leak + `"}},{"index":1,"delta":{"content":"Other ` + leak + `"}}]}`)
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Error LF-4002 means the feed jammed [^1]."}}]}`)
		ev(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		ev(`[DONE]`)
	}))
	t.Cleanup(up.Close)
	return up.URL + "/v1"
}

// Leaked ids and raw markers are deleted from every choice, not only the
// first, and from reasoning_content and refusal, in whole answers and in
// streams (where an id split across deltas is caught too); the answer
// itself keeps its citation.
func TestSideTextsFiltered(t *testing.T) {
	base := sideUpstream(t)
	ts := startGuard(t, func(c *testCfg) { c.Upstream.BaseURL = base })
	for _, stream := range []bool{false, true} {
		body := fmt.Sprintf(`{"model":"m","stream":%v,"messages":[{"role":"user","content":%q}]}`, stream, groundQ)
		resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(b)
		if resp.StatusCode != 200 {
			t.Fatalf("stream %v: %d %s", stream, resp.StatusCode, got)
		}
		for _, bad := range []string{"doc_1a2b", "9f9f", "[^2]", "[^1]", "1a2b"} {
			if strings.Contains(got, bad) {
				t.Errorf("stream %v: response carries %q:\n%s", stream, bad, got)
			}
		}
		for _, want := range []string{"feed jammed [1]", "Other see", "no see", "I see"} {
			if !strings.Contains(got, want) {
				t.Errorf("stream %v: response lacks %q:\n%s", stream, want, got)
			}
		}
		if stream && !strings.Contains(got, "then") {
			t.Errorf("stream: the held tail of reasoning_content was lost:\n%s", got)
		}
	}
}
