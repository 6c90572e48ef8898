package operator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// contactSnapshot indexes a small dry cleaner's FAQ twice: tenant "phone"
// with a contact passage that gives a phone number (in words the question
// does not use: "ring", "on"), tenant "nophone" without it.
func contactSnapshot(t *testing.T) string {
	t.Helper()
	faq := []string{
		`{"id":"%s-prices","title":"Prices","text":"A shirt is cleaned and pressed for 4 pounds; a two-piece suit costs 14 pounds."}`,
		`{"id":"%s-hours","title":"Opening hours","text":"We are open Monday to Friday 8am to 6pm and Saturday 9am to 1pm."}`,
		`{"id":"%s-stains","title":"Stains","text":"Tell us about a stain when you drop the garment off; wine and grease come out best when fresh."}`,
		`{"id":"%s-collect","title":"Collection","text":"Garments are ready to collect after two working days; express service is same day for orders in by 10am."}`,
	}
	var lines []string
	for _, tenant := range []string{"phone", "nophone"} {
		for _, l := range faq {
			l = strings.Replace(fmt.Sprintf(l, tenant), `{"id"`, `{"tenant":"`+tenant+`","id"`, 1)
			lines = append(lines, l)
		}
	}
	lines = append(lines, `{"tenant":"phone","id":"phone-contact","title":"Contact","text":"Ring the shop on 01632 960 983 during opening hours, or leave a message out of hours."}`)
	src := filepath.Join(t.TempDir(), "cleaner.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{src}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// contactReply is what a chat turn returned.
type contactReply struct {
	text      string
	decision  string
	citations []string
}

func chatTenant(t *testing.T, base, tenant, q string) contactReply {
	t.Helper()
	c := openai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0),
		option.WithRequestTimeout(10*time.Second), option.WithHeader("X-Tenant-ID", tenant))
	resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}})
	if err != nil {
		t.Fatalf("%s %q: %v", tenant, q, err)
	}
	var g struct {
		Guard struct {
			Decision  string `json:"decision"`
			Citations []struct {
				ID string `json:"id"`
			} `json:"citations"`
		} `json:"guard"`
	}
	if err := json.Unmarshal([]byte(resp.RawJSON()), &g); err != nil {
		t.Fatal(err)
	}
	r := contactReply{decision: g.Guard.Decision}
	if len(resp.Choices) > 0 {
		r.text = resp.Choices[0].Message.Content
	}
	for _, c := range g.Guard.Citations {
		r.citations = append(r.citations, c.ID)
	}
	return r
}

// A question for the service's own phone number is on the corpus's topic
// by its wording, though no passage shares a word with it: where the
// corpus has a phone number it grounds on that passage; where it has none
// it is refused as a gap of the corpus, naming the closest topics, with no
// model call and never answered from general knowledge, under either
// gate.off_topic. The turn log keeps what the question asked (the turn's
// detail shows it and which candidate holds a phone number), the what-if
// replays every turn exactly, and so does a restart that reads the turns
// back from the log file, a line written before the ask was kept (no
// "ask", no "type_hit") included.
func TestContactQuestion(t *testing.T) {
	snap := contactSnapshot(t)
	gcfg := proxy.DefaultConfig().Stages.Gate
	const q = "whats your phone number"
	logDir := t.TempDir()
	for _, offTopic := range []string{"fallback", "refuse"} {
		tc := testConfig()
		tc.Log.Level = "error"
		tc.Pipeline.Index = snap
		tc.Stages.Gate.OffTopic = offTopic
		if offTopic == "refuse" {
			tc.TurnLog.Persist.Dir = logDir
		}
		ts := startProxy(t, tc, proxy.NewPipeline(nil))
		root := strings.TrimSuffix(ts.base, "/v1")

		r := chatTenant(t, ts.base, "phone", q)
		if r.decision != "ground" || !slices.Contains(r.citations, "phone-contact") {
			t.Errorf("off_topic %s, a corpus with a phone number: decision %s citations %v (%q), want ground citing phone-contact",
				offTopic, r.decision, r.citations, r.text)
		}
		before := ts.mock.Requests()
		r = chatTenant(t, ts.base, "nophone", q)
		if r.decision != "refuse" || !strings.HasPrefix(r.text, gcfg.RefusalText) || !strings.Contains(r.text, "The closest topics") {
			t.Errorf("off_topic %s, a corpus without one: decision %s text %q, want the on-topic refusal naming the closest topics",
				offTopic, r.decision, r.text)
		}
		if n := ts.mock.Requests() - before; n != 0 {
			t.Errorf("off_topic %s: the refused turn made %d upstream calls", offTopic, n)
		}
		// an off-topic question still goes per off_topic
		if r = chatTenant(t, ts.base, "nophone", "who won the football world cup in 1966"); offTopic == "fallback" && r.decision != "fallback" ||
			offTopic == "refuse" && r.text != gcfg.OffTopicText {
			t.Errorf("off_topic %s: world cup: decision %s text %q", offTopic, r.decision, r.text)
		}

		// the turn's detail keeps the ask and the candidate holding the number
		var list struct {
			Turns []struct {
				ID       uint64 `json:"id"`
				Tenant   string `json:"tenant"`
				Question string `json:"question"`
			} `json:"turns"`
		}
		if code := opReq(t, "GET", root+"/v1/guard/turns", nil, "", &list); code != 200 {
			t.Fatalf("GET turns: %d", code)
		}
		found := false
		for _, row := range list.Turns {
			if row.Tenant != "phone" || row.Question != q {
				continue
			}
			var d struct {
				Turn struct {
					Ask *struct {
						Type    string `json:"type"`
						Contact bool   `json:"contact"`
					} `json:"ask"`
					Checks map[string]bool `json:"checks"`
					Cands  []struct {
						ID      string `json:"id"`
						TypeHit bool   `json:"type_hit"`
					} `json:"candidate_list"`
				} `json:"turn"`
			}
			if code := opReq(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, row.ID), nil, "", &d); code != 200 {
				t.Fatalf("turn %d: %d", row.ID, code)
			}
			found = true
			if a := d.Turn.Ask; a == nil || a.Type != "phone" || !a.Contact || !d.Turn.Checks["contact_hit"] {
				t.Errorf("turn detail: ask %+v checks %v, want phone, contact, contact_hit", a, d.Turn.Checks)
			}
			for _, c := range d.Turn.Cands {
				if c.TypeHit != (c.ID == "phone-contact") {
					t.Errorf("turn detail: candidate %s type_hit %v", c.ID, c.TypeHit)
				}
			}
		}
		if !found {
			t.Fatalf("no logged turn of tenant phone asking %q in %+v", q, list.Turns)
		}
		var w kindWhatIf
		if code := opReq(t, "POST", root+"/v1/guard/whatif", nil, `{}`, &w); code != 200 {
			t.Fatalf("whatif: %d", code)
		}
		if w.Exact.Checked != 3 || w.Exact.Mismatched != 0 || w.Checks["contact_hit"].Before != 1 || w.Checks["contact_gap"].Before != 1 {
			t.Errorf("off_topic %s: what-if exact %+v checks %v, want 3 checked, none mismatched, one contact_hit, one contact_gap",
				offTopic, w.Exact, w.Checks)
		}
		if w.Changed != 0 {
			t.Errorf("off_topic %s: what-if at the configuration in force changed %d turns", offTopic, w.Changed)
		}
		shutdown(t, ts.srv) // the log file written
	}

	// The refuse server's turns, read back by a new server; one line as
	// an older build wrote it: a contact question decided without the ask
	// (it fell back below bail-out), the "ask" and "type_hit" fields absent.
	lines := readLines(t, filepath.Join(logDir, turnFile))
	if len(lines) != 3 {
		t.Fatalf("the log file holds %d turns, want 3", len(lines))
	}
	var old map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &old); err != nil {
		t.Fatal(err)
	}
	if _, ok := old["ask"]; !ok {
		t.Fatalf("the logged contact turn has no ask: %s", lines[1])
	}
	delete(old, "ask")
	old["decision"] = "refuse"
	old["checks"] = nil
	for _, c := range old["candidate_list"].([]any) {
		delete(c.(map[string]any), "type_hit")
	}
	b, _ := json.Marshal(old)
	if strings.Contains(string(b), "type_hit") {
		t.Fatal("an old line with type_hit")
	}
	lines[1] = string(b)
	if err := os.WriteFile(filepath.Join(logDir, turnFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tc := testConfig()
	tc.Log.Level = "error"
	tc.Pipeline.Index = snap
	tc.Stages.Gate.OffTopic = "refuse"
	tc.TurnLog.Persist.Dir = logDir
	ts := serve(t, tc, proxy.NewPipeline(nil))
	var w kindWhatIf
	if code := opReq(t, "POST", strings.TrimSuffix(ts.base, "/v1")+"/v1/guard/whatif", nil, `{}`, &w); code != 200 {
		t.Fatalf("whatif after restart: %d", code)
	}
	if w.Exact.Checked != 3 || w.Exact.Mismatched != 0 || w.Checks["contact_hit"].Before != 1 || w.Checks["contact_gap"].Before != 0 {
		t.Errorf("after restart: what-if exact %+v checks %v, want 3 checked, none mismatched; the old line replayed without the ask\n%s",
			w.Exact, w.Checks, strings.Join(lines, "\n"))
	}
}

// readLines reads the lines of the file at path.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
