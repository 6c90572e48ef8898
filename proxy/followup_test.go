package proxy_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
)

// chatGuard sends a conversation of user and assistant messages
// (alternating, the user's first) through the proxy with the openai-go
// client and returns the guard object and its "query" member.
func chatGuard(t *testing.T, ts *testServer, stream bool, turns ...string) (guardObj, string) {
	t.Helper()
	msgs := make([]openai.ChatCompletionMessageParamUnion, len(turns))
	for i, m := range turns {
		if i%2 == 0 {
			msgs[i] = openai.UserMessage(m)
		} else {
			msgs[i] = openai.AssistantMessage(m)
		}
	}
	p := openai.ChatCompletionNewParams{Model: "mock-1", Messages: msgs}
	var raw struct {
		Guard struct {
			guardObj
			Query string `json:"query"`
		} `json:"guard"`
	}
	if !stream {
		resp, err := ts.completions().New(context.Background(), p)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := json.Unmarshal([]byte(resp.RawJSON()), &raw); err != nil {
			t.Fatal(err)
		}
		return raw.Guard.guardObj, raw.Guard.Query
	}
	s := ts.completions().NewStreaming(context.Background(), p)
	for s.Next() {
		if ch := s.Current(); len(ch.Choices) > 0 && ch.Choices[0].FinishReason != "" {
			if err := json.Unmarshal([]byte(ch.RawJSON()), &raw); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return raw.Guard.guardObj, raw.Guard.Query
}

// A follow-up ("how long does that take?" after a question about a flat
// tyre) grounds on the passage the conversation is about
// only because retrieve reads it with the previous user message
// (retrieve.followup); the report's "query" shows the text used. With the
// rule off the same turn does not ground on that passage. A standalone
// question and an off-topic switch stay alone: no "query", the off-topic
// one falls back without citations.
func TestFollowupGroundsOnConversation(t *testing.T) {
	const (
		prev   = "how much do you charge to fix a flat tyre?"
		answer = "Puncture repair costs 8 pounds per wheel [1]."
		follow = "how long does that take?"
	)
	on := startGuard(t, func(c *testCfg) { c.Pipeline.Index = shopCorpus(t) })
	off := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = shopCorpus(t)
		c.Stages.Retrieve.Followup = false
	})
	cites := func(g guardObj, id string) bool {
		return slices.ContainsFunc(g.Citations, func(c cite) bool { return c.ID == id })
	}
	for _, stream := range []bool{false, true} {
		g, q := chatGuard(t, on, stream, prev, answer, follow)
		if g.Decision != "ground" || !cites(g, "puncture") {
			t.Errorf("stream=%v: follow-up with the rule: decision %s citations %v, want ground citing puncture", stream, g.Decision, g.Citations)
		}
		if want := prev + "\n" + follow; q != want {
			t.Errorf("stream=%v: guard.query = %q, want %q", stream, q, want)
		}
	}
	if g, q := chatGuard(t, off, false, prev, answer, follow); (g.Decision == "ground" && cites(g, "puncture")) || q != "" {
		t.Errorf("follow-up without the rule: decision %s citations %v query %q; want it not grounded on puncture (the test would not show the rule's effect)", g.Decision, g.Citations, q)
	}

	// A standalone question is read alone.
	if g, q := chatGuard(t, on, false, prev, answer, "do you hire out electric bikes?"); g.Decision != "ground" || !cites(g, "ebikes") || q != "" {
		t.Errorf("standalone: decision %s citations %v query %q; want ground citing ebikes, no query", g.Decision, g.Citations, q)
	}
	// An off-topic switch stays off-topic: read alone, its opening thanks
	// trimmed (gate.Focus).
	if g, q := chatGuard(t, on, false, prev, answer, "thanks! what's the capital of france?"); g.Decision != "fallback" || len(g.Citations) != 0 || q != "what's the capital of france?" {
		t.Errorf("off-topic switch: decision %s citations %v query %q; want fallback, no citations, the question alone", g.Decision, g.Citations, q)
	}
	// A follow-up of a follow-up reads the three messages: the second
	// alone has no topic word.
	then := "and do I need to book it?"
	g, q := chatGuard(t, on, false, prev, answer, follow, "Most repairs are done while you wait [1].", then)
	if want := prev + "\n" + follow + "\n" + then; q != want || g.Decision != "ground" || !cites(g, "puncture") {
		t.Errorf("third turn: decision %s citations %v query %q; want ground citing puncture, query %q", g.Decision, g.Citations, q, want)
	}
}
