package operator

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// statusGap is a gap queue entry with the fields the status tests read.
type statusGap struct {
	ID          string  `json:"id"`
	Tenant      string  `json:"tenant"`
	KB          string  `json:"kb"`
	Kind        string  `json:"kind"`
	Text        string  `json:"text"`
	Count       int     `json:"count"`
	CoverageMax float64 `json:"coverage_max"`
	Status      string  `json:"status"`
	Resolution  string  `json:"resolution"`
	ResolvedAt  *string `json:"resolved_at"`
}

// opReq sends one operator request with the given headers and decodes a
// 200 body into out; it returns the status.
func opReq(t *testing.T, method, url string, hdr map[string]string, body string, out any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	for k, v := range hdr {
		req.Header.Set(k, v)
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

func listGaps(t *testing.T, base, query string, hdr map[string]string) []statusGap {
	t.Helper()
	var out struct {
		Data []statusGap `json:"data"`
	}
	if code := opReq(t, "GET", base+"/guard/gaps?"+query, hdr, "", &out); code != 200 {
		t.Fatalf("GET gaps?%s: %d", query, code)
	}
	return out.Data
}

// A gap can be resolved and dismissed through the API: it leaves the open
// list (the default), shows under its status with when and why, a fresh
// refusal of a resolved question opens it again while a dismissed one
// stays dismissed; an unknown id is 404, a GET on the action 405. Every
// entry carries the best coverage its turns reached.
func TestGapResolveDismiss(t *testing.T) {
	ts := startGuard(t, nil)
	base := ts.base
	capital, moby := "What is the capital of Mongolia?", "Who wrote the novel Moby Dick?"
	for _, q := range []string{capital, moby, capital} {
		if d := askGap(t, base, "default", q, false); d == "ground" {
			t.Fatalf("%q grounded", q)
		}
	}
	open := listGaps(t, base, "", nil)
	if len(open) != 2 {
		t.Fatalf("open gaps %+v, want 2", open)
	}
	// Best coverage: the highest coverage.max of the question's turns.
	var tb turnsBody
	opReq(t, "GET", base+"/guard/turns", nil, "", &tb)
	best := map[string]float64{}
	for _, tr := range tb.Turns {
		best[tr.Question] = max(best[tr.Question], tr.Coverage.Max)
	}
	byText := map[string]statusGap{}
	for _, g := range open {
		if g.ID == "" || g.Status != "open" || g.CoverageMax != best[g.Text] {
			t.Errorf("entry %+v: want an id, status open and best coverage %v (the turn log's)", g, best[g.Text])
		}
		byText[g.Text] = g
	}
	var raw struct {
		Data []map[string]any `json:"data"`
	}
	opReq(t, "GET", base+"/guard/gaps", nil, "", &raw)
	for _, g := range raw.Data {
		if _, ok := g["coverage_max"].(float64); !ok {
			t.Errorf("entry without coverage_max (the console's best coverage column): %v", g)
		}
	}
	var res struct {
		Gap statusGap `json:"gap"`
	}
	if code := opReq(t, "POST", base+"/guard/gaps/"+byText[capital].ID+"/resolve", nil, `{"note":"added a geography page"}`, &res); code != 200 {
		t.Fatalf("resolve: %d", code)
	}
	if res.Gap.Status != "resolved" || res.Gap.ResolvedAt == nil || !strings.Contains(res.Gap.Resolution, "added a geography page") {
		t.Errorf("resolve answered %+v", res.Gap)
	}
	if code := opReq(t, "POST", base+"/guard/gaps/"+byText[moby].ID+"/dismiss", nil, "", &res); code != 200 || res.Gap.Status != "dismissed" {
		t.Fatalf("dismiss: %d %+v", code, res.Gap)
	}
	if open := listGaps(t, base, "", nil); len(open) != 0 {
		t.Errorf("open after resolve and dismiss: %+v", open)
	}
	if got := listGaps(t, base, "status=resolved", nil); len(got) != 1 || got[0].Text != capital {
		t.Errorf("status=resolved: %+v", got)
	}
	if got := listGaps(t, base, "status=all", nil); len(got) != 2 {
		t.Errorf("status=all: %+v", got)
	}
	// Asked and refused again: the resolved one opens again, the dismissed one stays.
	askGap(t, base, "default", capital, true)
	askGap(t, base, "default", moby, true)
	open = listGaps(t, base, "", nil)
	if len(open) != 1 || open[0].Text != capital || open[0].Count != 3 || open[0].ResolvedAt != nil {
		t.Errorf("after asking again: open %+v, want the capital question open again, counted 3", open)
	}
	if d := listGaps(t, base, "status=dismissed", nil); len(d) != 1 || d[0].Count != 2 {
		t.Errorf("dismissed %+v, want moby, counted 2", d)
	}
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"POST", "/guard/gaps/nosuchid/resolve", 404},
		{"POST", "/guard/gaps/" + byText[capital].ID + "/frobnicate", 404},
		{"GET", "/guard/gaps/" + byText[capital].ID + "/resolve", 405},
		{"GET", "/guard/gaps?status=maybe", 400},
	} {
		if code := opReq(t, tc.method, base+tc.path, nil, "", nil); code != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, code, tc.want)
		}
	}
	// With auth off the tenant header scopes the action too.
	if code := opReq(t, "POST", base+"/guard/gaps/"+byText[capital].ID+"/dismiss", map[string]string{"X-Tenant-ID": "cafe"}, "", nil); code != 404 {
		t.Errorf("dismiss as tenant cafe: %d, want 404 (another tenant's entry)", code)
	}
}

// A gap that a new snapshot answers is marked resolved after the reload:
// the question is refused (or falls back) on the first snapshot, a second
// snapshot adds the documents that answer it, and the reload's re-ask
// resolves it (and leaves a question the new snapshot still cannot
// answer open).
func TestGapResolvedAfterReload(t *testing.T) {
	ctx := context.Background()
	ic := proxy.DefaultConfig().Stages.Index
	write := func(lines ...string) string {
		p := filepath.Join(t.TempDir(), "corpus.jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write(
		`{"id":"badger-1","kind":"lecture","title":"Badger setts","text":"Badgers dig large underground setts with many entrances. A sett can be used by the same clan for decades, and the tunnels are extended every year."}`,
		`{"id":"badger-2","kind":"lecture","title":"Badger diet","text":"Badgers eat mostly earthworms, but also fruit, bulbs and insects. On a wet night one badger can eat several hundred earthworms."}`,
		`{"id":"otter-1","kind":"library","title":"Otter holts","text":"Otters rest in holts dug into river banks, often between the roots of trees close to the water."}`,
		`{"id":"heron-1","kind":"library","title":"Heron nests","text":"Grey herons nest in colonies called heronries, high in tall trees, and return to the same nests each spring."}`,
	)
	v1 := filepath.Join(t.TempDir(), "v1")
	if _, err := index.Build(ctx, ic, []string{base}, nil, v1, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = v1 })
	const kangaroo = "When is the kangaroo migration schedule published?"
	const volcano = "How hot is the lava of an erupting volcano?"
	for _, q := range []string{kangaroo, volcano} {
		if d := askGap(t, ts.base, "default", q, false); d == "ground" {
			t.Fatalf("before the new snapshot %q grounded", q)
		}
	}
	if open := listGaps(t, ts.base, "", nil); len(open) != 2 {
		t.Fatalf("open gaps before %+v, want 2", open)
	}
	added := write(
		`{"id":"kangaroo-1","kind":"lecture","title":"Kangaroo migration schedule","text":"The kangaroo migration schedule is published every spring by the park service, listing the dates when the mobs move between the northern and southern grasslands."}`,
		`{"id":"kangaroo-2","kind":"lecture","title":"Reading the kangaroo migration schedule","text":"Each kangaroo migration schedule gives the expected crossing dates per valley; the park service publishes the schedule in early spring and revises it in midsummer."}`,
	)
	v2 := filepath.Join(t.TempDir(), "v2")
	if _, err := index.Add(ctx, ic, v1, []string{added}, nil, v2, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	cfg := ts.srv.Config()
	cfg.Pipeline.Index = v2
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	ts.srv.op.waitReask()
	resolved := listGaps(t, ts.base, "status=resolved", nil)
	if len(resolved) != 1 || resolved[0].Text != kangaroo || !strings.Contains(resolved[0].Resolution, "reload") || resolved[0].CoverageMax < 0.4 {
		t.Errorf("resolved after the reload: %+v, want the kangaroo question, resolved by the reload with its new coverage", resolved)
	}
	if open := listGaps(t, ts.base, "", nil); len(open) != 1 || open[0].Text != volcano {
		t.Errorf("open after the reload: %+v, want only the volcano question", open)
	}
	// The new state is on disk-free memory here; the answer now grounds.
	if d := askGap(t, ts.base, "default", kangaroo, false); d != "ground" {
		t.Errorf("after the reload %q: %s, want ground", kangaroo, d)
	}
}

// With auth off, the operator routes take X-Tenant-ID and X-KB-ID as
// filters, the way chat takes them as the partition: the turn list, the
// what-if and the gap queue of tenant cafe show only cafe's turns.
func TestOperatorRoutesHonourPartitionHeaders(t *testing.T) {
	ts := startGuard(t, nil)
	askGap(t, ts.base, "cafe", "What is the capital of Mongolia?", false)
	askGap(t, ts.base, "cafe", "What does error LF-4002 mean?", false)
	askGap(t, ts.base, "bistro", "Who wrote the novel Moby Dick?", false)
	cafe := map[string]string{"X-Tenant-ID": "cafe"}
	var tb turnsBody
	if code := opReq(t, "GET", ts.base+"/guard/turns", cafe, "", &tb); code != 200 {
		t.Fatalf("turns: %d", code)
	}
	if tb.Total != 2 {
		t.Errorf("turns as cafe: %d, want cafe's 2", tb.Total)
	}
	for _, tr := range tb.Turns {
		if tr.Tenant != "cafe" {
			t.Errorf("turns as cafe lists %s's turn %q", tr.Tenant, tr.Question)
		}
	}
	var all turnsBody
	opReq(t, "GET", ts.base+"/guard/turns", nil, "", &all)
	if all.Total != 3 {
		t.Errorf("turns without headers: %d, want every tenant's 3", all.Total)
	}
	var wi whatIfBody
	if code := opReq(t, "POST", ts.base+"/guard/whatif", cafe, `{"gate":{"bail_out_below":0.45}}`, &wi); code != 200 || wi.Turns != 2 {
		t.Errorf("whatif as cafe: %d, %d turns, want cafe's 2", code, wi.Turns)
	}
	// cafe has no corpus of its own: both its questions are gaps; bistro's is not listed.
	if gs := listGaps(t, ts.base, "", cafe); len(gs) != 2 || gs[0].Tenant != "cafe" || gs[1].Tenant != "cafe" {
		t.Errorf("gaps as cafe: %+v, want cafe's two", gs)
	}
	if gs := listGaps(t, ts.base, "", nil); len(gs) != 3 {
		t.Errorf("gaps without headers: %+v, want every tenant's 3", gs)
	}
	if gs := listGaps(t, ts.base, "", map[string]string{"X-Tenant-ID": "cafe", "X-KB-ID": "other"}); len(gs) != 0 {
		t.Errorf("gaps as cafe/other: %+v, want none", gs)
	}
	for _, path := range []string{"/guard/turns?tenant=bistro", "/guard/gaps?tenant=bistro"} {
		if code := opReq(t, "GET", ts.base+path, cafe, "", nil); code != 403 {
			t.Errorf("GET %s as cafe: %d, want 403", path, code)
		}
	}
	if code := opReq(t, "GET", ts.base+"/guard/turns", map[string]string{"X-Tenant-ID": "no spaces"}, "", nil); code != 400 {
		t.Errorf("a malformed X-Tenant-ID: %d, want 400", code)
	}
}
