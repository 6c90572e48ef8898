package proxy_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/answer-guard/guard/proxy"
)

// startGuard starts a proxy with the full pipeline over the embedded demo
// corpus.
func startGuard(t *testing.T, mutate func(*testCfg)) *testServer {
	t.Helper()
	cfg := testConfig()
	cfg.Log.Level = "error"
	if mutate != nil {
		mutate(&cfg)
	}
	return serve(t, cfg, proxy.NewPipeline(nil))
}

type cite struct {
	N  int    `json:"n"`
	ID string `json:"id"`
}

type guardObj struct {
	Decision  string `json:"decision"`
	Citations []cite `json:"citations"`
	Markers   struct {
		ByReason map[string]int `json:"by_reason"`
	} `json:"markers"`
	Claims []struct {
		Text      string `json:"text"`
		Citations []int  `json:"citations"`
		Verdict   string `json:"verdict"`
		Evidence  string `json:"evidence"`
		Uncited   string `json:"uncited"`
		Reason    string `json:"reason"`
	} `json:"claims"`
	Degraded []string `json:"degraded"`
}

// complete runs one question through the openai-go client, stream or not,
// and returns the answer text and the guard object.
func complete(t *testing.T, ts *testServer, q string, stream bool, opts ...option.RequestOption) (string, guardObj) {
	t.Helper()
	p := openai.ChatCompletionNewParams{Model: "mock-1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}}
	var g guardObj
	if !stream {
		resp, err := ts.completions().New(context.Background(), p, opts...)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		var raw struct {
			Guard guardObj `json:"guard"`
		}
		if err := json.Unmarshal([]byte(resp.RawJSON()), &raw); err != nil {
			t.Fatal(err)
		}
		return resp.Choices[0].Message.Content, raw.Guard
	}
	s := ts.completions().NewStreaming(context.Background(), p, opts...)
	var text strings.Builder
	for s.Next() {
		ch := s.Current()
		if len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
		if strings.Contains(ch.RawJSON(), `"guard":`) {
			var raw struct {
				Guard guardObj `json:"guard"`
			}
			json.Unmarshal([]byte(ch.RawJSON()), &raw)
			g = raw.Guard
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return text.String(), g
}

const groundQ = "What does error LF-4002 mean?"

func TestGroundRefuseFallbackWithOpenAIClient(t *testing.T) {
	ts := startGuard(t, nil)
	refusing := startGuard(t, func(c *testCfg) {
		// Every pool lands between bail-out and good enough: refuse.
		c.Stages.Gate.BailOutBelow = 0
		c.Stages.Gate.SufficientMax = 1
		c.Stages.Gate.GoodEnoughMax = 1
		c.Stages.Gate.Between = "refuse"
	})
	for _, stream := range []bool{false, true} {
		text, g := complete(t, ts, groundQ, stream)
		if g.Decision != "ground" || len(g.Citations) == 0 || !regexp.MustCompile(`\[1\]`).MatchString(text) {
			t.Errorf("stream=%v ground: got %q %+v", stream, text, g)
		}
		if strings.Contains(text, "[^") {
			t.Errorf("stream=%v: footnote leaked to the client: %q", stream, text)
		}

		before := ts.mock.Requests()
		text, g = complete(t, refusing, groundQ, stream)
		if g.Decision != "refuse" || !strings.HasPrefix(text, proxy.DefaultConfig().Stages.Gate.RefusalText) {
			t.Errorf("stream=%v refuse: got %q %q", stream, g.Decision, text)
		}
		if refusing.mock.Requests() != 0 || ts.mock.Requests() != before {
			t.Errorf("stream=%v: a refused turn reached the upstream", stream)
		}

		text, g = complete(t, ts, "What is the capital of Mongolia and how many people live there?", stream)
		disclaimer := proxy.DefaultConfig().Stages.Gate.Disclaimer
		if g.Decision != "fallback" || !strings.HasPrefix(text, disclaimer) || len(g.Citations) != 0 || regexp.MustCompile(`\[\^?\d+\]`).MatchString(text) {
			t.Errorf("stream=%v fallback: got %q %+v", stream, text, g)
		}
	}
}

func TestNoRealIDReachesTheModel(t *testing.T) {
	ts := startGuard(t, nil)
	complete(t, ts, groundQ, false)
	var body struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(ts.mock.LastBody(), &body); err != nil {
		t.Fatal(err)
	}
	sys := body.Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "[^1] ") {
		t.Fatalf("no notes in the system message: %+v", body.Messages)
	}
	for _, id := range []string{"ref-error-lf-4002", "hb-", "https://"} {
		if strings.Contains(sys.Content, id) {
			t.Errorf("system message carries %q:\n%s", id, sys.Content)
		}
	}
}

// Changed numbers in a cited sentence come back as contradictions with the
// evidence span; in strict mode the contradicted citation is never emitted.
func TestContradictionsReportAndStrict(t *testing.T) {
	for _, mode := range []string{"report", "strict"} {
		t.Run(mode, func(t *testing.T) {
			ts := startGuard(t, func(c *testCfg) {
				c.Mock.Faults.Contradict = 1
				c.Mock.Faults.Uncited = 1
				c.Stages.Verify.Mode = mode
				c.Stages.Verify.MinContextChars = 0
			})
			contradictions := 0
			for _, q := range []string{"What are the hardware requirements for a Lanternfish server?", "How long are deleted pages kept in the trash?", groundQ, "Which port does Lanternfish listen on?"} {
				for _, stream := range []bool{false, true} {
					text, g := complete(t, ts, q, stream)
					if g.Decision != "ground" {
						continue
					}
					uncitedSeen := false
					for _, c := range g.Claims {
						if c.Uncited != "" {
							uncitedSeen = true
						}
						if c.Verdict != "contradiction" {
							continue
						}
						contradictions++
						if c.Evidence == "" {
							t.Errorf("contradiction without evidence span: %+v", c)
						}
						core := strings.TrimRight(strings.TrimSpace(c.Text), ". ")
						cited := regexp.MustCompile(regexp.QuoteMeta(core) + `\s*\[\d+\]`).MatchString(text)
						if mode == "strict" && cited {
							t.Errorf("strict mode emitted a contradicted citation: %q in %q", c.Text, text)
						}
						if mode == "report" && !cited && len(c.Citations) > 0 {
							t.Errorf("report mode: cited claim %q not found with its citation in %q", c.Text, text)
						}
					}
					if !uncitedSeen {
						t.Errorf("the uncited sentence was not classified: %+v", g.Claims)
					}
				}
			}
			if contradictions == 0 {
				t.Errorf("no changed number was reported as a contradiction")
			}
		})
	}
}

// Remote stages that are down degrade to their local stand-ins and the
// report says which; the answer still arrives.
func TestRemoteStagesDownDegrade(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Retrieve.Rerank.Mode = "remote"
		c.Stages.Retrieve.Rerank.URL = closed + "/rerank"
		c.Stages.Retrieve.Rerank.Timeout = 500 * time.Millisecond
		c.Stages.Verify.Verifier = "llm"
		c.Stages.Verify.LLM.BaseURL = closed + "/v1"
		c.Stages.Verify.LLM.Model = "judge"
		c.Stages.Verify.LLM.Timeout = 500 * time.Millisecond
		c.Stages.Verify.MinContextChars = 0
	})
	for _, stream := range []bool{false, true} {
		text, g := complete(t, ts, groundQ, stream)
		if g.Decision != "ground" || text == "" {
			t.Fatalf("stream=%v: got %q %+v", stream, text, g)
		}
		for _, want := range []string{"rerank", "judge"} {
			found := false
			for _, d := range g.Degraded {
				found = found || d == want
			}
			if !found {
				t.Errorf("stream=%v: degraded %v lacks %q", stream, g.Degraded, want)
			}
		}
	}
}

// A partition with no corpus (a misspelt X-KB-ID with auth off) cannot
// ground: the turn falls back, and the report says "corpus" among the
// degraded pieces instead of looking like an ordinary fallback.
func TestUnknownPartitionSaysCorpus(t *testing.T) {
	ts := startGuard(t, nil)
	for _, stream := range []bool{false, true} {
		_, g := complete(t, ts, groundQ, stream, option.WithHeader("X-KB-ID", "no-such-kb"))
		if g.Decision != "fallback" || !slices.Contains(g.Degraded, "corpus") {
			t.Errorf("stream=%v unknown kb: decision %q degraded %v, want fallback with corpus", stream, g.Decision, g.Degraded)
		}
		_, g = complete(t, ts, groundQ, stream)
		if g.Decision != "ground" || slices.Contains(g.Degraded, "corpus") {
			t.Errorf("stream=%v default kb: decision %q degraded %v", stream, g.Decision, g.Degraded)
		}
	}
}

// scrape reads /metrics the way Prometheus does (asking for gzip, decoding
// nothing by itself) and parses the whole page.
func scrape(t *testing.T, ts *testServer) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", strings.TrimSuffix(ts.base, "/v1")+"/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

func counterSum(f *dto.MetricFamily) float64 {
	var s float64
	for _, m := range f.GetMetric() {
		s += m.GetCounter().GetValue()
	}
	return s
}

// /metrics is one well-formed page whatever the client accepts, and the
// verifier's series keep counting across a reload that replaces the
// retrieval engine (the retired engine is closed only after the swap, so the
// new configuration answers at once).
func TestMetricsAcrossReloadAndGzip(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) { c.Stages.Verify.MinContextChars = 0 })
	if _, g := complete(t, ts, groundQ, false); g.Decision != "ground" {
		t.Fatalf("decision %q, want ground", g.Decision)
	}
	fams := scrape(t, ts)
	if fams["guard_requests_total"] == nil || fams["guard_judge_verdicts_total"] == nil {
		t.Fatalf("/metrics lacks guard_requests_total or guard_judge_verdicts_total: %d families", len(fams))
	}
	before := counterSum(fams["guard_judge_verdicts_total"])
	if before == 0 {
		t.Fatal("no verdict counted after a grounded answer")
	}
	cfg := ts.srv.Config()
	cfg.Stages.Retrieve.TopK--
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		if _, g := complete(t, ts, groundQ, stream); g.Decision != "ground" || len(g.Citations) == 0 {
			t.Fatalf("after reload, stream=%v: decision %q with %d citations, want ground with citations", stream, g.Decision, len(g.Citations))
		}
	}
	if after := counterSum(scrape(t, ts)["guard_judge_verdicts_total"]); after <= before {
		t.Errorf("verdicts counted %v before the reload and %v after two more answers", before, after)
	}
}

// Card markers naming an address of this turn's notes and action markers
// naming a tool that fired this turn survive; others are dropped with their
// reasons. The upstream is scripted so the answer is known.
func TestCardAndActionMarkers(t *testing.T) {
	const answer = "Error LF-4002 means the account is locked [^1] [card:LF-4002]. " +
		"The account was unlocked [action:unlock_account]. See [card:HB 99.9] and [action:delete_everything]."
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-s", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}}})
		w.Write(b)
	})}
	go up.Serve(ln)
	t.Cleanup(func() { up.Close() })
	ts := startGuard(t, func(c *testCfg) { c.Upstream.BaseURL = "http://" + ln.Addr().String() + "/v1" })
	body := `{"model":"m","messages":[
		{"role":"user","content":"` + groundQ + `"},
		{"role":"assistant","content":null,"tool_calls":[
			{"id":"c1","type":"function","function":{"name":"unlock_account","arguments":"{}"}},
			{"id":"c2","type":"function","function":{"name":"never_answered","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"unlocked"}]}`
	resp, err := http.Post(ts.base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Guard guardObj `json:"guard"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	text, g := out.Choices[0].Message.Content, out.Guard
	if g.Decision != "ground" {
		t.Fatalf("decision %q, want ground", g.Decision)
	}
	for _, want := range []string{"[card:LF-4002]", "[action:unlock_account]", "[1]"} {
		if !strings.Contains(text, want) {
			t.Errorf("answer %q lacks %s", text, want)
		}
	}
	for _, gone := range []string{"HB 99.9", "delete_everything"} {
		if strings.Contains(text, gone) {
			t.Errorf("answer %q still has %s", text, gone)
		}
	}
	if g.Markers.ByReason["unknown_card"] != 1 || g.Markers.ByReason["unknown_action"] != 1 {
		t.Errorf("by_reason %v, want one unknown_card and one unknown_action", g.Markers.ByReason)
	}
}

// TestReportModeVerifiesWhileStreaming (timeouts_test.go) runs in a synctest
// bubble: it orders the first judge call before the end of the stream.
