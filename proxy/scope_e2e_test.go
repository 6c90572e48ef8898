package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// answerUpstream is an OpenAI-compatible upstream on loopback that answers
// every chat completion with answer, streamed in small chunks or whole.
func answerUpstream(t *testing.T, answer string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"id": "scripted-1", "object": "chat.completion", "created": 1, "model": "mock-1",
				"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
				"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "scripted-1", "object": "chat.completion.chunk", "created": 1, "model": "mock-1",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for rest := answer; rest != ""; {
			n := min(7, len(rest)) // small pieces: markers and numbers split across events
			chunk(map[string]any{"content": rest[:n]}, nil)
			rest = rest[n:]
		}
		chunk(map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// issue 29, end to end: a turn grounded on one short FAQ note (far below
// verify.min_context_chars) is verified. An answer that changes the note's
// number or widens its condition reports contradiction with the note's
// span; a faithful paraphrase reports entailment. Stream and non-stream,
// report and strict mode.
func TestShortFAQNoteScopeEndToEnd(t *testing.T) {
	const note = `{"id":"faq-parking","kind":"lecture","title":"Parking at the spa","text":"Parking at the spa is free for the first 3 hours; after that it costs 2 euros an hour."}`
	corpus := writeCorpus(t, note)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	const q = "Is parking at the spa free?"
	for _, tt := range []struct {
		name, answer, verdict, reason string
	}{
		{"number changed", "Parking at the spa is free for the first 5 hours [^1].", "contradiction", ""},
		{"condition widened", "Parking at the spa is free all day [^1].", "contradiction", "scope_widened"},
		{"condition dropped", "Parking at the spa is free [^1].", "contradiction", "condition_dropped"},
		{"faithful paraphrase", "At the spa you can park for free for the first three hours [^1].", "entailment", ""},
	} {
		up := answerUpstream(t, tt.answer)
		for _, mode := range []string{"report", "strict"} {
			ts := startGuard(t, func(c *testCfg) {
				c.Pipeline.Index = dir
				c.Upstream.BaseURL = up
				c.Stages.Verify.Mode = mode
				c.Stages.Gate.GoodEnoughMax, c.Stages.Gate.SufficientMax, c.Stages.Gate.BailOutBelow = 0, 0, 0
				c.Stages.Gate.Planner.MinSupport = 0
			})
			for _, stream := range []bool{false, true} {
				text, g := complete(t, ts, q, stream)
				if g.Decision != "ground" || len(g.Claims) != 1 {
					t.Fatalf("%s %s stream=%v: decision %q, %d claims, want ground with one: %q %+v", tt.name, mode, stream, g.Decision, len(g.Claims), text, g.Claims)
				}
				c := g.Claims[0]
				if c.Verdict != tt.verdict || !strings.HasPrefix(c.Reason, tt.reason) {
					t.Errorf("%s %s stream=%v: %q: verdict %s (%s), want %s %s", tt.name, mode, stream, c.Text, c.Verdict, c.Reason, tt.verdict, tt.reason)
				}
				if tt.verdict == "contradiction" && !strings.Contains(c.Evidence, "first 3 hours") {
					t.Errorf("%s %s stream=%v: evidence %q, want the note's span", tt.name, mode, stream, c.Evidence)
				}
				cited := strings.Contains(text, "[1]")
				if want := mode == "report" || tt.verdict == "entailment"; cited != want {
					t.Errorf("%s %s stream=%v: answer %q: citation kept %v, want %v", tt.name, mode, stream, text, cited, want)
				}
			}
		}
	}
}
