package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/answer-guard/guard/proxy"
)

// scripted is a fixed set of demo-corpus questions whose decisions span
// ground, refuse (coverage between bail_out_below and good_enough_max) and
// fallback (coverage below bail_out_below, a general-knowledge question
// and one that is not) with the default thresholds.
var scripted = []string{
	"What does error LF-4002 mean?",
	"What languages does the editor support?",
	"What is the weather in Paris today?",
	"How do I restore a backup?",
	"Who founded Lanternfish?",
	"Is there a mobile app?",
	"Can I use SAML?",
	"What is the refund policy?",
	"Can I print a page?",
	"How do I rename a space?",
	"Is garden furniture sold there?", // below bail-out and not a general-knowledge question (gate.general_above), nor one that speaks to the service (gate.on_topic_you)
	"Do you sell garden furniture?",   // below bail-out, speaks to the service: refused as on-topic (gate.on_topic_you)
}

// asked is what the client saw of one turn (its guard object).
type asked struct {
	q        string
	decision string
	max      float64
	primary  int
}

// ask sends one question through the openai-go client (stream or not) as
// the given key and tenant, and returns the guard object's decision and
// coverage.
func ask(t *testing.T, ts *testServer, key, tenant, q string, stream bool) asked {
	t.Helper()
	opts := []option.RequestOption{}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if tenant != "" {
		opts = append(opts, option.WithHeader("X-Tenant-ID", tenant))
	}
	c := ts.client(opts...)
	p := openai.ChatCompletionNewParams{Model: "mock-1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}}
	var raw string
	if stream {
		s := c.Chat.Completions.NewStreaming(context.Background(), p)
		for s.Next() {
			if ch := s.Current(); strings.Contains(ch.RawJSON(), `"guard":`) {
				raw = ch.RawJSON()
			}
		}
		if err := s.Err(); err != nil {
			t.Fatalf("stream %q: %v", q, err)
		}
	} else {
		resp, err := c.Chat.Completions.New(context.Background(), p)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		raw = resp.RawJSON()
	}
	var g struct {
		Guard struct {
			Decision string `json:"decision"`
			Coverage struct {
				Max     float64 `json:"max"`
				Primary int     `json:"primary_kind_count"`
			} `json:"coverage"`
		} `json:"guard"`
	}
	if err := json.Unmarshal([]byte(raw), &g); err != nil || g.Guard.Decision == "" {
		t.Fatalf("%q: no guard object in %s (%v)", q, raw, err)
	}
	return asked{q: q, decision: g.Guard.Decision, max: g.Guard.Coverage.Max, primary: g.Guard.Coverage.Primary}
}

type turnsBody struct {
	Enabled bool `json:"enabled"`
	Total   int  `json:"total"`
	Turns   []struct {
		ID       uint64 `json:"id"`
		Tenant   string `json:"tenant"`
		KB       string `json:"kb"`
		Question string `json:"question"`
		Decision string `json:"decision"`
		Coverage struct {
			Max float64 `json:"max"`
		} `json:"coverage"`
	} `json:"turns"`
}

type whatIfBody struct {
	Turns       int `json:"turns"`
	Changed     int `json:"changed"`
	Transitions []struct {
		From     string `json:"from"`
		To       string `json:"to"`
		Count    int    `json:"count"`
		Examples []struct {
			ID       uint64 `json:"id"`
			Question string `json:"question"`
		} `json:"examples"`
	} `json:"transitions"`
	Before map[string]int `json:"before"`
	After  map[string]int `json:"after"`
	Exact  struct {
		Checked    int `json:"checked"`
		Mismatched int `json:"mismatched"`
	} `json:"exact"`
}

func operator(t *testing.T, method, url, key, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
	return resp.StatusCode
}

// runScripted asks every scripted question once, alternating non-stream
// and stream, and returns what the client saw, in order.
func runScripted(t *testing.T, ts *testServer) []asked {
	var got []asked
	for i, q := range scripted {
		got = append(got, ask(t, ts, "", "", q, i%2 == 1))
	}
	return got
}

// The turn log holds what the client saw, and the what-if is exact: at the
// thresholds in force no turn changes and every recomputed decision is the
// logged one; a moved threshold changes exactly the turns the gate's rule
// says it should, computed here from the coverage the client was sent.
func TestWhatIfExact(t *testing.T) {
	ts := startGuard(t, nil)
	root := strings.TrimSuffix(ts.base, "/v1")
	seen := runScripted(t, ts)
	count := map[string]int{}
	for _, a := range seen {
		count[a.decision]++
	}
	if count["ground"] == 0 || count["refuse"] == 0 || count["fallback"] == 0 {
		t.Fatalf("the scripted questions no longer span every decision: %v", count)
	}

	var tb turnsBody
	if code := operator(t, "GET", root+"/v1/guard/turns", "", "", &tb); code != 200 {
		t.Fatalf("GET turns: %d", code)
	}
	if tb.Total != len(scripted) || len(tb.Turns) != len(scripted) {
		t.Fatalf("turn log holds %d turns, want %d", tb.Total, len(scripted))
	}
	byQ := map[string]uint64{}
	generalQ := map[string]bool{} // the general-question rule applied (gate.general_above)
	seenQ := map[string]asked{}
	for _, a := range seen {
		seenQ[a.q] = a
	}
	for _, row := range tb.Turns { // in the order the turns finished (a stream's log line follows its [DONE])
		want := seenQ[row.Question]
		if _, dup := byQ[row.Question]; dup || row.Question != want.q || row.Decision != want.decision || row.Coverage.Max != want.max {
			t.Errorf("logged turn %d = (%q %s %v), the client saw (%q %s %v)", row.ID, row.Question, row.Decision, row.Coverage.Max, want.q, want.decision, want.max)
		}
		byQ[row.Question] = row.ID
		var one struct {
			Turn struct {
				Checks map[string]bool `json:"checks"`
			} `json:"turn"`
		}
		if code := operator(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, row.ID), "", "", &one); code != 200 {
			t.Fatalf("GET turn %d: %d", row.ID, code)
		}
		generalQ[row.Question] = one.Turn.Checks["general"]
	}

	var same whatIfBody
	if code := operator(t, "POST", root+"/v1/guard/whatif", "", `{}`, &same); code != 200 {
		t.Fatalf("whatif: %d", code)
	}
	if same.Changed != 0 || same.Turns != len(scripted) || same.Exact.Checked != len(scripted) || same.Exact.Mismatched != 0 {
		t.Errorf("what-if at the current thresholds: %+v, want no change and every turn exact", same)
	}
	for d, n := range count {
		if same.Before[d] != n || same.After[d] != n {
			t.Errorf("decision %s: before %d after %d, want %d", d, same.Before[d], same.After[d], n)
		}
	}

	def := proxy.DefaultConfig().Stages.Gate
	cases := []struct {
		name string
		body string
		// next is the gate's rule for the moved threshold, from the
		// coverage the client saw.
		next func(a asked) string
	}{
		{"bail_out_below up", "", nil},
		{"good_enough_max and sufficient_max up", "", nil}, // set below, from the coverage seen
		{"bail_out_below down", fmt.Sprintf(`{"gate":{"bail_out_below":0},"examples":100}`), func(a asked) string {
			if a.decision == "fallback" && !generalQ[a.q] {
				return "refuse" // nothing is below 0 any more (a general question goes per off_topic in the between band too)
			}
			return a.decision
		}},
	}
	// bail_out_below moved to just above the lowest refused turn's coverage:
	// that turn (and any other refusal below it) falls back, nothing else.
	low := 1.0
	for _, a := range seen {
		if a.decision == "refuse" {
			low = min(low, a.max)
		}
	}
	cut := low + 0.001
	if cut >= def.SufficientMax {
		t.Fatalf("lowest refusal at %v: cannot move bail_out_below above it without passing sufficient_max", low)
	}
	// good_enough_max and sufficient_max moved to just above the lowest
	// grounded turn's coverage: that turn (and any other grounded one below
	// it) lands between bail-out and good enough, and is refused.
	lowGround := 1.0
	for _, a := range seen {
		if a.decision == "ground" {
			lowGround = min(lowGround, a.max)
		}
	}
	up := lowGround + 0.001
	if up > 1 || lowGround < def.BailOutBelow {
		t.Fatalf("lowest grounded turn at %v: cannot move good_enough_max just above it", lowGround)
	}
	cases[1].body = fmt.Sprintf(`{"gate":{"good_enough_max":%v,"sufficient_max":%v},"examples":100}`, up, up)
	cases[1].next = func(a asked) string {
		if a.decision == "ground" && a.max < up {
			return "refuse" // at or above bail_out_below: between, refused
		}
		return a.decision
	}
	// on_topic_sim 0: every turn raised below bail-out falls back (none
	// is kept as on-topic by the encoder's cosine).
	cases[0].body = fmt.Sprintf(`{"gate":{"bail_out_below":%v,"on_topic_sim":0},"examples":100}`, cut)
	cases[0].next = func(a asked) string {
		switch {
		case a.decision == "refuse" && a.max < cut:
			return "fallback"
		case a.decision == "fallback" && a.max >= cut && !generalQ[a.q]:
			return "refuse" // bail_out_below moved below it: the between band, refused
		}
		return a.decision
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string][]uint64{}
			changed := 0
			for _, a := range seen {
				if to := tc.next(a); to != a.decision {
					k := a.decision + "->" + to
					want[k] = append(want[k], byQ[a.q])
					changed++
				}
			}
			if changed == 0 {
				t.Fatal("the case changes no scripted turn: it would prove nothing")
			}
			var r whatIfBody
			if code := operator(t, "POST", root+"/v1/guard/whatif", "", tc.body, &r); code != 200 {
				t.Fatalf("whatif: %d", code)
			}
			got := map[string][]uint64{}
			for _, tr := range r.Transitions {
				for _, x := range tr.Examples {
					got[tr.From+"->"+tr.To] = append(got[tr.From+"->"+tr.To], x.ID)
				}
				if tr.Count != len(tr.Examples) {
					t.Errorf("%s->%s: count %d but %d examples", tr.From, tr.To, tr.Count, len(tr.Examples))
				}
			}
			for k := range got {
				slices.Sort(got[k])
			}
			for k := range want {
				slices.Sort(want[k])
			}
			if r.Changed != changed || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("changed %d %v, want %d %v", r.Changed, got, changed, want)
			}
			if r.Exact.Mismatched != 0 {
				t.Errorf("self-check: %d turns recompute differently at their own thresholds", r.Exact.Mismatched)
			}
		})
	}

	// An invalid combination is refused with the gate's own message.
	if code := operator(t, "POST", root+"/v1/guard/whatif", "", `{"gate":{"bail_out_below":0.9}}`, nil); code != 400 {
		t.Errorf("bail_out_below above good_enough_max: %d, want 400", code)
	}
	if code := operator(t, "POST", root+"/v1/guard/whatif", "", `{"gate":{"bail_out":0.5}}`, nil); code != 400 {
		t.Errorf("unknown threshold: %d, want 400", code)
	}
}

// With auth on: no key is 401 on both endpoints, a tenant key sees only its
// tenant's turns (and is 403 when it names another tenant), an admin key
// sees every tenant's.
func TestTurnLogTenantIsolation(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{
			{Name: "acme", SHA256: sha("sk-acme"), Tenant: "acme", KBs: []string{"default"}},
			{Name: "globex", SHA256: sha("sk-globex"), Tenant: "globex", KBs: []string{"default"}},
		}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("sk-admin")}}
	})
	root := strings.TrimSuffix(ts.base, "/v1")
	ask(t, ts, "sk-acme", "", "What does error LF-4002 mean?", false)
	ask(t, ts, "sk-acme", "", "Who founded Lanternfish?", true)
	ask(t, ts, "sk-globex", "", "How do I restore a backup?", false)

	for _, tc := range []struct{ method, path, key, body string }{
		{"GET", "/v1/guard/turns", "", ""},
		{"GET", "/v1/guard/turns", "sk-wrong", ""},
		{"POST", "/v1/guard/whatif", "", "{}"},
		{"POST", "/v1/guard/whatif", "sk-wrong", "{}"},
	} {
		if code := operator(t, tc.method, root+tc.path, tc.key, tc.body, nil); code != 401 {
			t.Errorf("%s %s key %q: %d, want 401", tc.method, tc.path, tc.key, code)
		}
	}
	tenants := func(key, query string) ([]string, int) {
		var tb turnsBody
		code := operator(t, "GET", root+"/v1/guard/turns"+query, key, "", &tb)
		var ts []string
		for _, r := range tb.Turns {
			ts = append(ts, r.Tenant)
		}
		slices.Sort(ts)
		return ts, code
	}
	if got, _ := tenants("sk-acme", ""); fmt.Sprint(got) != "[acme acme]" {
		t.Errorf("acme's key sees %v, want its two turns only", got)
	}
	if got, _ := tenants("sk-globex", ""); fmt.Sprint(got) != "[globex]" {
		t.Errorf("globex's key sees %v, want its one turn only", got)
	}
	if _, code := tenants("sk-acme", "?tenant=globex"); code != 403 {
		t.Errorf("acme's key asking for globex's turns: %d, want 403", code)
	}
	if got, _ := tenants("sk-admin", ""); fmt.Sprint(got) != "[acme acme globex]" {
		t.Errorf("the admin key sees %v, want every turn", got)
	}
	var one struct {
		Turn struct{ Tenant string } `json:"turn"`
	}
	var tb turnsBody
	operator(t, "GET", root+"/v1/guard/turns?tenant=globex", "sk-admin", "", &tb)
	if len(tb.Turns) != 1 {
		t.Fatalf("admin, tenant=globex: %d turns, want 1", len(tb.Turns))
	}
	gid := tb.Turns[0].ID
	if code := operator(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, gid), "sk-acme", "", &one); code != 404 {
		t.Errorf("acme's key reading globex's turn %d: %d, want 404", gid, code)
	}
	if code := operator(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, gid), "sk-globex", "", &one); code != 200 || one.Turn.Tenant != "globex" {
		t.Errorf("globex's key reading its turn %d: %d %+v", gid, code, one)
	}
	var w whatIfBody
	if code := operator(t, "POST", root+"/v1/guard/whatif", "sk-acme", `{"gate":{"good_enough_max":1,"sufficient_max":1}}`, &w); code != 200 || w.Turns != 2 {
		t.Errorf("acme's what-if: %d over %d turns, want 200 over its 2", code, w.Turns)
	}
	if code := operator(t, "POST", root+"/v1/guard/whatif", "sk-acme", `{"tenant":"globex"}`, nil); code != 403 {
		t.Errorf("acme's what-if over globex: %d, want 403", code)
	}
	// The console page is static (its data needs the key): served with auth on.
	if code, body := get(t, root+"/console", ""); code != 200 || !strings.Contains(body, "answer-guard console") {
		t.Errorf("GET /console with auth on: %d", code)
	}
}

// With questions: hash the question text and the answer's sentences are not
// kept; repeats of one question share a hash.
func TestTurnLogQuestionRedaction(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) { c.TurnLog.Questions = "hash" })
	root := strings.TrimSuffix(ts.base, "/v1")
	q := "What does error LF-4002 mean?"
	ask(t, ts, "", "", q, false)
	ask(t, ts, "", "", q, true)
	ask(t, ts, "", "", "How do I restore a backup?", false)
	var raw json.RawMessage
	operator(t, "GET", root+"/v1/guard/turns", "", "", &raw)
	var detail json.RawMessage
	operator(t, "GET", root+"/v1/guard/turns?id=1", "", "", &detail)
	for _, b := range [][]byte{raw, detail} {
		if bytes.Contains(b, []byte("LF-4002 mean")) || bytes.Contains(b, []byte("restore a backup")) {
			t.Errorf("a question is kept with questions: hash: %s", b)
		}
	}
	var tb struct {
		Turns []struct {
			Hash string `json:"question_hash"`
		} `json:"turns"`
	}
	json.Unmarshal(raw, &tb)
	if len(tb.Turns) != 3 || tb.Turns[1].Hash == "" || tb.Turns[1].Hash != tb.Turns[2].Hash || tb.Turns[0].Hash == tb.Turns[1].Hash {
		t.Errorf("hashes %+v: want the two asks of one question equal, the other different", tb.Turns)
	}
	var d struct {
		Turn struct {
			Claims []struct {
				Text    string `json:"text"`
				Verdict string `json:"verdict"`
			} `json:"claims"`
		} `json:"turn"`
	}
	json.Unmarshal(detail, &d)
	if len(d.Turn.Claims) == 0 {
		t.Fatal("no claims in the detail")
	}
	for _, c := range d.Turn.Claims {
		if c.Text != "" || c.Verdict == "" {
			t.Errorf("claim %+v: want the verdict without the text", c)
		}
	}
}

// A remote planner's outlines are replayed, not recomputed (it keeps note
// [1], valid in every grounded turn; a reply naming no valid note falls
// back to the local planner, which min_support would move): at the
// thresholds in force every turn is exact; moving the local planner's
// min_support changes nothing (it did not plan these turns); turns the
// remote planner never saw but new thresholds would ground are planned
// locally and counted as approximate.
func TestWhatIfRemotePlanner(t *testing.T) {
	url, _ := plannerServer(t, "[1]")
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = url
		c.Stages.Gate.Planner.Model = "planner"
	})
	root := strings.TrimSuffix(ts.base, "/v1")
	seen := runScripted(t, ts)
	notGround := 0
	for _, a := range seen {
		if a.decision != "ground" {
			notGround++
		}
	}
	type approxBody struct {
		whatIfBody
		Approximate int `json:"approximate"`
	}
	for _, tc := range []struct {
		body                   string
		changed, approx, exact int
	}{
		{`{}`, 0, 0, len(scripted)},
		{`{"gate":{"planner":{"min_support":1}}}`, 0, 0, len(scripted)},
		{`{"gate":{"bail_out_below":0,"good_enough_max":0}}`, -1, notGround, len(scripted)},
	} {
		var r approxBody
		if code := operator(t, "POST", root+"/v1/guard/whatif", "", tc.body, &r); code != 200 {
			t.Fatalf("%s: %d", tc.body, code)
		}
		if (tc.changed >= 0 && r.Changed != tc.changed) || r.Approximate != tc.approx || r.Exact.Checked != tc.exact || r.Exact.Mismatched != 0 {
			t.Errorf("%s: changed %d approximate %d exact %+v, want changed %d approximate %d, %d exact", tc.body, r.Changed, r.Approximate, r.Exact, tc.changed, tc.approx, tc.exact)
		}
	}
	// The same min_support move on the local planner empties every outline.
	local := startGuard(t, nil)
	grounded := 0
	for _, a := range runScripted(t, local) {
		if a.decision == "ground" {
			grounded++
		}
	}
	var r whatIfBody
	operator(t, "POST", strings.TrimSuffix(local.base, "/v1")+"/v1/guard/whatif", "", `{"gate":{"planner":{"min_support":1}}}`, &r)
	if r.Changed != grounded || grounded == 0 {
		t.Errorf("local planner, min_support 1: %d changed, want every grounded turn (%d)", r.Changed, grounded)
	}
	// So does min_best 1 (no note's answerability reaches it).
	operator(t, "POST", strings.TrimSuffix(local.base, "/v1")+"/v1/guard/whatif", "", `{"gate":{"planner":{"min_best":1}}}`, &r)
	if r.Changed != grounded {
		t.Errorf("local planner, min_best 1: %d changed, want every grounded turn (%d)", r.Changed, grounded)
	}
}

// With turnlog.persist.dir, every turn the server logged is in
// turns.jsonl once it has shut down (the object GET /v1/guard/turns?id=N
// returns), and a restart reads them back: the list, the exact self-check
// and a what-if give what they gave before the restart, and nothing is
// written twice.
func TestTurnLogPersistedByServer(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Log.Level = "error"
	cfg.TurnLog.Persist.Dir = dir
	start := func() (*server, *testServer) {
		ts := startProxy(t, cfg, proxy.NewPipeline(nil))
		return ts.srv, ts
	}
	stop := func(srv *server) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	srv, ts := start()
	var want []asked
	for i, q := range scripted {
		want = append(want, ask(t, ts, "", "", q, i%2 == 0))
	}
	up := aboveLowestGround(t, want)
	moved := fmt.Sprintf(`{"gate":{"good_enough_max":%v,"sufficient_max":%v},"examples":0}`, up, up)
	var before whatIfBody
	operator(t, "POST", strings.TrimSuffix(ts.base, "/v1")+"/v1/guard/whatif", "", moved, &before)
	stop(srv)

	check := func() {
		b, err := os.ReadFile(filepath.Join(dir, "turns.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d", len(lines), len(want))
		}
		byQ := map[string]asked{}
		for _, a := range want {
			byQ[a.q] = a
		}
		for i, line := range lines {
			var d struct {
				ID       uint64 `json:"id"`
				Question string `json:"question"`
				Decision string `json:"decision"`
				Cands    []any  `json:"candidate_list"`
			}
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			w, ok := byQ[d.Question]
			delete(byQ, d.Question)
			if d.ID != uint64(i+1) || !ok || d.Decision != w.decision || len(d.Cands) == 0 {
				t.Errorf("line %d: id %d %q %s (%d candidates), want id %d, each question once with its decision", i+1, d.ID, d.Question, d.Decision, len(d.Cands), i+1)
			}
		}
	}
	check()

	srv, ts = start()
	root := strings.TrimSuffix(ts.base, "/v1")
	var tb turnsBody
	operator(t, "GET", root+"/v1/guard/turns", "", "", &tb)
	if len(tb.Turns) != len(want) {
		t.Fatalf("after a restart: %d turns, want %d", len(tb.Turns), len(want))
	}
	restored := map[string]asked{}
	for _, a := range want {
		restored[a.q] = a
	}
	for _, row := range tb.Turns {
		w := restored[row.Question]
		delete(restored, row.Question)
		if row.Question != w.q || row.Decision != w.decision || row.Coverage.Max != w.max {
			t.Errorf("restored turn %d = (%q %s %v), want (%q %s %v)", row.ID, row.Question, row.Decision, row.Coverage.Max, w.q, w.decision, w.max)
		}
	}
	var same, after whatIfBody
	operator(t, "POST", root+"/v1/guard/whatif", "", `{}`, &same)
	operator(t, "POST", root+"/v1/guard/whatif", "", moved, &after)
	if same.Changed != 0 || same.Exact.Checked != len(want) || same.Exact.Mismatched != 0 {
		t.Errorf("restored turns at the thresholds in force: %+v", same)
	}
	if before.Changed == 0 || fmt.Sprint(after.Transitions) != fmt.Sprint(before.Transitions) {
		t.Errorf("what-if after the restart %+v, before it %+v", after.Transitions, before.Transitions)
	}
	stop(srv)
	check() // nothing restored was written again
}

// A reload that moves a threshold: the turns logged before it still
// recompute exactly at the thresholds they were decided with, the what-if
// at the new thresholds shows what the reload changed for them, and turns
// logged after it are decided under the configuration in force.
func TestWhatIfAcrossReload(t *testing.T) {
	ts := startGuard(t, nil)
	root := strings.TrimSuffix(ts.base, "/v1")
	before := runScripted(t, ts)
	cfg := ts.srv.Config()
	up := aboveLowestGround(t, before)
	cfg.Stages.Gate.GoodEnoughMax, cfg.Stages.Gate.SufficientMax = up, up
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	after := runScripted(t, ts)
	var r struct {
		whatIfBody
		Other int `json:"decided_under_other_config"`
	}
	if code := operator(t, "POST", root+"/v1/guard/whatif", "", `{"examples":100}`, &r); code != 200 {
		t.Fatalf("whatif: %d", code)
	}
	changed := 0
	for i, a := range before {
		if a.decision != after[i].decision {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("the reload changed no decision: it would prove nothing")
	}
	if r.Turns != 2*len(scripted) || r.Other != len(scripted) || r.Exact.Mismatched != 0 || r.Changed != changed {
		t.Errorf("turns %d, decided under another config %d, mismatched %d, changed %d; want %d, %d, 0, %d",
			r.Turns, r.Other, r.Exact.Mismatched, r.Changed, 2*len(scripted), len(scripted), changed)
	}
}

// aboveLowestGround is a good_enough_max (and sufficient_max) just above
// the lowest coverage of the grounded turns seen: moved there, that turn
// is no longer good enough. (Fixed values stop proving anything when the
// gate's scores move: with the relevance model grounded turns reach 0.95
// and more.)
func aboveLowestGround(t *testing.T, seen []asked) float64 {
	t.Helper()
	low := 2.0
	for _, a := range seen {
		if a.decision == "ground" {
			low = min(low, a.max)
		}
	}
	if low+0.001 > 1 {
		t.Fatalf("lowest grounded coverage %v: no threshold above it", low)
	}
	return low + 0.001
}
