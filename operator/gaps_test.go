package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/answer-guard/guard/proxy"
)

func getGaps(t *testing.T, base, query, key string) (int, []Gap) {
	t.Helper()
	var out struct {
		Object string `json:"object"`
		Total  int    `json:"total"`
		Data   []Gap  `json:"data"`
	}
	code := operator(t, "GET", base+"/guard/gaps?"+query, key, "", &out)
	if code == 200 && out.Object != "list" {
		t.Fatalf("gaps body: object %q, want list", out.Object)
	}
	return code, out.Data
}

// startOwned starts a guard proxy whose shutdown the test controls.
func startOwned(t *testing.T, tc testCfg) (*server, string) {
	t.Helper()
	ts := startProxy(t, tc, proxy.NewPipeline(nil))
	return ts.srv, ts.base
}

// ask sends q as tenant through the proxy at base and returns guard.decision.
func askGap(t *testing.T, base, tenant, q string, stream bool) string {
	t.Helper()
	c := openai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0),
		option.WithRequestTimeout(10*time.Second), option.WithHeader("X-Tenant-ID", tenant))
	p := openai.ChatCompletionNewParams{Model: "mock-1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}}
	var raw string
	if !stream {
		resp, err := c.Chat.Completions.New(context.Background(), p)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		raw = resp.RawJSON()
	} else {
		s := c.Chat.Completions.NewStreaming(context.Background(), p)
		for s.Next() {
			if j := s.Current().RawJSON(); strings.Contains(j, `"guard":`) {
				raw = j
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream: %v", err)
		}
	}
	var g struct {
		Guard struct {
			Decision string `json:"decision"`
		} `json:"guard"`
	}
	json.Unmarshal([]byte(raw), &g)
	return g.Guard.Decision
}

// gapQuestions: grounded demo questions and off-topic ones, each off-topic
// one asked in several phrasings.
var (
	groundedQs = []string{
		"What does error LF-4002 mean?",
		"How do I restore a backup?",
		"How do I set up OpenID Connect?",
		"Why does search return nothing?",
		"Which port does Lanternfish listen on?",
		"How do I unlock a locked account?",
	}
	offTopic = [][]string{
		{"What is the capital of Mongolia?", "what's the capital of Mongolia", "What is the capital of Mongolia, please?"},
		{"How tall is Mount Everest?", "how tall is mount everest"},
		{"Who wrote the novel Moby Dick?", "Who wrote Moby Dick?"},
		{"What is the boiling point of ethanol?", "what is the boiling point of ethanol"},
		{"How many moons does Jupiter have?", "How many moons does Jupiter have"},
		{"What is the population of Iceland?", "what is the population of iceland"},
		{"Does Lanternfish have a mobile app?", "Does Lanternfish have a mobile app"},
	}
)

// TestGapQueue sends 100 mixed questions through a loopback proxy: each
// refused or fallback question shows up once, with its count; a second
// tenant's gaps stay its own; a restart keeps the queue.
func TestGapQueue(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Log.Level = "error"
	cfg.State.Dir = dir
	// Bail out lower than the default, so that the on-topic questions the
	// demo corpus does not answer are refused and off-topic ones fall back.
	cfg.Stages.Gate.BailOutBelow = 0.25
	// The planner at 0.50: at the fitted default (0.20) the local planner
	// grounds the on-topic question the demo does not answer (docs/quality.md),
	// and this test is about the queue, which needs a refusal.
	cfg.Stages.Gate.Planner.MinSupport = 0.50
	srv, base := startOwned(t, cfg)

	type key struct {
		base int
		kind string
	}
	want := map[key]int{}
	kinds := map[string]string{"refuse": "refused", "fallback": "fallback"}
	grounded, off := 0, 0
	for i := range 100 {
		var q string
		b := -1
		if i%5 < 2 {
			q = groundedQs[i%len(groundedQs)]
		} else {
			b = off % len(offTopic)
			q = offTopic[b][(off/len(offTopic))%len(offTopic[b])]
			off++
		}
		d := askGap(t, base, "default", q, i%2 == 0)
		switch {
		case kinds[d] != "" && b < 0:
			t.Errorf("%q: decision %s, want ground", q, d)
		case kinds[d] != "":
			want[key{b, kinds[d]}]++
		case d == "ground" && b >= 0:
			t.Errorf("%q: grounded, want refused or fallback", q)
		case d == "ground":
			grounded++
		default:
			t.Fatalf("%q: decision %q", q, d)
		}
	}
	byKind := map[string]int{}
	for k := range want {
		byKind[k.kind]++
	}
	if byKind["refused"] == 0 || byKind["fallback"] == 0 || grounded == 0 {
		t.Fatalf("want a mix: %d grounded, gaps %v", grounded, want)
	}
	check := func(base string) {
		t.Helper()
		code, gaps := getGaps(t, base, "tenant=default&kb=default", "")
		if code != 200 {
			t.Fatalf("gaps: status %d", code)
		}
		got := map[key]int{}
		for i, g := range gaps {
			if g.Kind == "gap" {
				continue
			}
			if i > 0 && gaps[i-1].Count < g.Count {
				t.Errorf("not most frequent first: %+v before %+v", gaps[i-1], g)
			}
			b := -1
			for j, variants := range offTopic {
				for _, v := range variants {
					if v == g.Text {
						b = j
					}
				}
			}
			if b < 0 {
				t.Errorf("unexpected gap %+v", g)
				continue
			}
			if _, dup := got[key{b, g.Kind}]; dup {
				t.Errorf("question %q listed twice", g.Text)
			}
			got[key{b, g.Kind}] = g.Count
			if g.FirstSeen.IsZero() || g.LastSeen.Before(g.FirstSeen) {
				t.Errorf("first/last seen %+v", g)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("gaps %v, want %v", got, want)
		}
	}
	check(base)
	t.Logf("100 questions: %d grounded; gaps %v", grounded, want)

	// Tenant isolation: acme's gaps are its own.
	for range 3 {
		askGap(t, base, "acme", offTopic[0][0], false)
	}
	askGap(t, base, "acme", "How do I restore a backup?", false) // acme has no corpus: a gap too
	_, acme := getGaps(t, base, "tenant=acme", "")
	if len(acme) != 2 || acme[0].Count != 3 || acme[0].Tenant != "acme" || acme[1].Count != 1 {
		t.Errorf("acme gaps %+v, want capital x3 and restore x1", acme)
	}
	check(base) // default's counts unchanged
	_, all := getGaps(t, base, "", "")
	for _, g := range all {
		if g.Tenant == "acme" && g.Text == "How do I restore a backup?" {
			continue
		}
		if g.Tenant == "default" && g.Text == "How do I restore a backup?" {
			t.Errorf("acme's question leaked into default: %+v", g)
		}
	}

	// Restart keeps the queue.
	shutdown(t, srv)
	srv2, base2 := startOwned(t, cfg)
	defer shutdown(t, srv2)
	check(base2)
	_, acme2 := getGaps(t, base2, "tenant=acme", "")
	if fmt.Sprint(acme2) != fmt.Sprint(acme) {
		t.Errorf("acme after restart %+v, want %+v", acme2, acme)
	}
	if code, _ := getGaps(t, base2, "kind=nosuch", ""); code != 400 {
		t.Errorf("kind=nosuch: status %d, want 400", code)
	}
}

// TestGapQueueNeedsAdminKey: with auth on, a tenant key gets 403 and an
// admin key the list. A tenant key may list the turn log's grouping
// (source=turnlog: what it may read of GET /v1/guard/turns), not another
// tenant's.
func TestGapQueueNeedsAdminKey(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{{Name: "t", SHA256: sha("tenant-key"), Tenant: "acme", KBs: []string{"default"}}}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("admin-key")}}
	})
	for _, tc := range []struct {
		key  string
		want int
	}{{"", 401}, {"wrong", 401}, {"tenant-key", 403}, {"admin-key", 200}} {
		if code, _ := getGaps(t, ts.base, "", tc.key); code != tc.want {
			t.Errorf("key %q: status %d, want %d", tc.key, code, tc.want)
		}
	}
	for _, tc := range []struct {
		query, key string
		want       int
	}{{"source=turnlog", "tenant-key", 200}, {"source=turnlog&tenant=other", "tenant-key", 403},
		{"source=turnlog", "", 401}, {"source=turnlog", "admin-key", 200}} {
		if code, _ := getGaps(t, ts.base, tc.query, tc.key); code != tc.want {
			t.Errorf("%q with key %q: status %d, want %d", tc.query, tc.key, code, tc.want)
		}
	}
}

// TestGapQueueUncitedClaims: an uncited factual sentence the verifier
// classifies gap is queued with the question that produced it, once however
// often it recurs.
func TestGapQueueUncitedClaims(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) { c.Mock.Faults.Uncited = 1 })
	for i := range 4 {
		if d := askGap(t, ts.base, "default", groundQ, i%2 == 0); d != "ground" {
			t.Fatalf("decision %s, want ground", d)
		}
	}
	_, gaps := getGaps(t, ts.base, "kind=gap", "")
	if len(gaps) == 0 {
		t.Fatal("no gap claim queued")
	}
	seen := map[string]bool{}
	for _, g := range gaps {
		if seen[g.Text] {
			t.Errorf("claim %q listed twice", g.Text)
		}
		seen[g.Text] = true
		if g.Count != 4 || g.Question != groundQ {
			t.Errorf("claim %+v: want count 4 (once per answer) and the question", g)
		}
	}
	t.Logf("gap claims: %+v", gaps)
}
