package operator

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/answer-guard/guard/gate"
)

// TestGapQueueOffTopicApart: with gate.off_topic: refuse, a question
// refused as off-topic (its reply is off_topic_text) is queued as kind
// off_topic, an on-topic refusal stays refused, and kind= filters each.
func TestGapQueueOffTopicApart(t *testing.T) {
	cfg := testConfig()
	cfg.Log.Level = "error"
	// As TestGapQueue: on-topic questions the demo corpus does not answer
	// are refused; off_topic: refuse refuses what would fall back.
	cfg.Stages.Gate.BailOutBelow = 0.25
	cfg.Stages.Gate.Planner.MinSupport = 0.50
	cfg.Stages.Gate.OffTopic = gate.OffTopicRefuse
	srv, base := startOwned(t, cfg)
	defer shutdown(t, srv)

	c := openai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0),
		option.WithRequestTimeout(10*time.Second))
	want := map[string]string{} // question -> kind
	for _, variants := range offTopic {
		q := variants[0]
		resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "mock-1",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		var g struct {
			Guard struct {
				Decision string `json:"decision"`
			} `json:"guard"`
		}
		json.Unmarshal([]byte(resp.RawJSON()), &g)
		if g.Guard.Decision != "refuse" {
			t.Fatalf("%q: decision %q, want refuse (off_topic: refuse)", q, g.Guard.Decision)
		}
		want[q] = GapRefused
		if resp.Choices[0].Message.Content == cfg.Stages.Gate.OffTopicText {
			want[q] = GapOffTopic
		}
	}
	n := map[string]int{}
	for _, k := range want {
		n[k]++
	}
	if n[GapOffTopic] == 0 || n[GapRefused] == 0 {
		t.Fatalf("want both kinds of refusal, got %v", n)
	}

	_, all := getGaps(t, base, "", "")
	got := map[string]string{}
	for _, g := range all {
		got[g.Text] = g.Kind
	}
	for q, k := range want {
		if got[q] != k {
			t.Errorf("%q: kind %q, want %q", q, got[q], k)
		}
	}
	for _, kind := range []string{GapOffTopic, GapRefused} {
		code, gaps := getGaps(t, base, "kind="+kind, "")
		if code != 200 || len(gaps) != n[kind] {
			t.Errorf("kind=%s: status %d, %d entries, want 200 and %d", kind, code, len(gaps), n[kind])
		}
		for _, g := range gaps {
			if g.Kind != kind {
				t.Errorf("kind=%s lists %+v", kind, g)
			}
		}
	}
	t.Logf("refusals by kind: %v", n)
}
