package operator

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/proxy"
)

const contactQ, worldCup = "whats your phone number", "who won the football world cup in 1966"

// gapKindsBody is the part of GET /v1/guard/gaps the kind filter tests read.
type gapKindsBody struct {
	Enabled bool           `json:"enabled"`
	Total   int            `json:"total"`
	ByKind  map[string]int `json:"by_kind"`
	Data    []struct {
		Kind string `json:"kind"`
	} `json:"data"`
}

// offTopicGuard serves the dry cleaner's FAQ (contactSnapshot) after four
// turns: a contact question grounded on the passage with the phone number
// (tenant phone) and, for tenant nophone, the same question refused as a
// gap of the corpus (kind refused), an off-topic question answered from
// general knowledge under off_topic: fallback (kind fallback) and, after
// a reload to off_topic: refuse, the same question refused as off-topic
// (kind off_topic).
// It returns the server's root URL and the grounded contact turn's id.
// mutate (may be nil) changes the configuration first.
func offTopicGuard(t *testing.T, mutate func(*testCfg)) (root string, contactTurn uint64) {
	t.Helper()
	tc := testConfig()
	tc.Log.Level = "error"
	tc.Pipeline.Index = contactSnapshot(t)
	tc.Stages.Gate.OffTopic = gate.OffTopicFallback
	if mutate != nil {
		mutate(&tc)
	}
	ts := serve(t, tc, proxy.NewPipeline(nil))
	root = strings.TrimSuffix(ts.base, "/v1")
	for _, c := range []struct{ tenant, q, want string }{
		{"phone", contactQ, "ground"},
		{"nophone", contactQ, "refuse"},
		{"nophone", worldCup, "fallback"},
	} {
		if r := chatTenant(t, ts.base, c.tenant, c.q); r.decision != c.want {
			t.Fatalf("%s %q: decision %s, want %s", c.tenant, c.q, r.decision, c.want)
		}
	}
	cfg := ts.srv.Config()
	cfg.Stages.Gate.OffTopic = gate.OffTopicRefuse
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatalf("reload to off_topic: refuse: %v", err)
	}
	if r := chatTenant(t, ts.base, "nophone", worldCup); r.text != cfg.Stages.Gate.OffTopicText {
		t.Fatalf("world cup under off_topic: refuse: decision %s text %q, want the off-topic refusal", r.decision, r.text)
	}
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
	for _, row := range list.Turns {
		if row.Tenant == "phone" && row.Question == contactQ {
			return root, row.ID
		}
	}
	t.Fatalf("no logged turn of tenant phone asking %q", contactQ)
	return "", 0
}

// gapKindsOf asks GET /v1/guard/gaps?kind=kinds (every kind when empty).
func gapKindsOf(t *testing.T, root, kinds string) gapKindsBody {
	t.Helper()
	var b gapKindsBody
	if code := opReq(t, "GET", root+"/v1/guard/gaps?limit=1000&kind="+kinds, nil, "", &b); code != 200 {
		t.Fatalf("GET gaps kind=%s: %d", kinds, code)
	}
	return b
}

// The gap queue's kind filter takes several kinds joined by commas, and
// by_kind counts every kind within the other filters, whatever kind asks.
func TestGapQueueKindList(t *testing.T) {
	root, _ := offTopicGuard(t, nil)
	all := gapKindsOf(t, root, "")
	for _, k := range []string{GapRefused, GapFallback, GapOffTopic} {
		if all.ByKind[k] != 1 {
			t.Errorf("by_kind %v, want one %s entry", all.ByKind, k)
		}
	}
	sum := 0
	for _, n := range all.ByKind {
		sum += n
	}
	if all.Total != sum || len(all.Data) != sum {
		t.Errorf("every kind: total %d, %d entries, want by_kind's sum %d", all.Total, len(all.Data), sum)
	}
	for _, kinds := range []string{"refused,gap", "off_topic,fallback", "off_topic"} {
		got := gapKindsOf(t, root, kinds)
		want := 0
		for k := range strings.SplitSeq(kinds, ",") {
			want += all.ByKind[k]
		}
		if got.Total != want || len(got.Data) != want {
			t.Errorf("kind=%s: total %d, %d entries, want %d", kinds, got.Total, len(got.Data), want)
		}
		for _, g := range got.Data {
			if !strings.Contains(","+kinds+",", ","+g.Kind+",") {
				t.Errorf("kind=%s lists a %s entry", kinds, g.Kind)
			}
		}
		if fmt.Sprint(got.ByKind) != fmt.Sprint(all.ByKind) {
			t.Errorf("kind=%s: by_kind %v, want %v (the kind filter does not narrow it)", kinds, got.ByKind, all.ByKind)
		}
	}
	if code := opReq(t, "GET", root+"/v1/guard/gaps?kind=refused,bogus", nil, "", nil); code != 400 {
		t.Errorf("kind=refused,bogus: %d, want 400", code)
	}
}

var (
	reGapKindRow = regexp.MustCompile(`<tr data-decision="(\w*)" data-kind="(\w+)"><td>`)
	reGapOption  = regexp.MustCompile(`<option value="(on|off|all)" data-count="(\d+)">`)
	reAsk        = regexp.MustCompile(`id="detail-ask" data-type="(\w*)" data-contact="([01])"`)
	reTypeHit    = regexp.MustCompile(`<tr data-cand="([^"]+)" data-type-hit="([01])"`)
	reWhatIfOff  = regexp.MustCompile(`id="whatif-summary" data-changed="(\d+)" data-turns="(\d+)" data-primary-kind="[^"]*" data-off-topic="(\w+)"`)
	reOffTopicOp = regexp.MustCompile(`(?s)<select name="off_topic"[^>]*>(.*?)</select>`)
)

// The console's gap list filters on-topic gaps (refused, uncited claims),
// off-topic ones (off_topic refusals, fallbacks) or all, each option with
// the API's count, and the decision filter "refuse" keeps the off-topic
// refusals; the turn detail shows what the question asks and which
// candidate holds the asked type; the what-if form moves gate.off_topic
// and shows how many replayed turns change decision, as the API computes.
func TestConsoleOffTopicInChromium(t *testing.T) {
	bin := chromium(t)
	root, id := offTopicGuard(t, nil)
	all := gapKindsOf(t, root, "")
	want := map[string]int{"on": gapKindsOf(t, root, "refused,gap").Total, "off": gapKindsOf(t, root, "off_topic,fallback").Total, "all": all.Total}
	kindsOf := map[string][]string{"on": {GapRefused, GapClaim}, "off": {GapOffTopic, GapFallback}, "all": {GapRefused, GapClaim, GapOffTopic, GapFallback}}

	var wi kindWhatIf
	if code := opReq(t, "POST", root+"/v1/guard/whatif", nil, `{"gate":{"off_topic":"fallback"}}`, &wi); code != 200 {
		t.Fatalf("whatif off_topic fallback: %d", code)
	}
	if wi.Changed == 0 {
		t.Fatal("off_topic: fallback changes nothing: it would prove nothing")
	}

	for _, which := range []string{"on", "off", "all"} {
		url := root + "/console#gaps=" + which
		if which == "on" {
			url += fmt.Sprintf("&turn=%d&whatif=off_topic:fallback", id)
		}
		dom := runChromium(t, bin, url, "", 2600)
		if !strings.Contains(dom, `data-ready="1"`) {
			t.Fatalf("the console did not finish loading:\n%s", dom)
		}
		counts := map[string]int{}
		for _, m := range reGapOption.FindAllStringSubmatch(dom, -1) {
			counts[m[1]], _ = strconv.Atoi(m[2])
		}
		if fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("gaps=%s: the filter's counts %v, want the API's %v", which, counts, want)
		}
		rows := reGapKindRow.FindAllStringSubmatch(dom, -1)
		if len(rows) != want[which] {
			t.Errorf("gaps=%s: %d rows, want %d", which, len(rows), want[which])
		}
		for _, r := range rows {
			if !slices.Contains(kindsOf[which], r[2]) {
				t.Errorf("gaps=%s lists a %s entry", which, r[2])
			}
		}
		if which != "on" {
			continue
		}
		if m := reAsk.FindStringSubmatch(dom); m == nil || m[1] != "phone" || m[2] != "1" {
			t.Errorf("turn %d: ask shown as %v, want type phone, contact", id, m)
		}
		hits := reTypeHit.FindAllStringSubmatch(dom, -1)
		if len(hits) == 0 {
			t.Errorf("turn %d: no candidate rows", id)
		}
		for _, m := range hits {
			if (m[2] == "1") != (m[1] == "phone-contact") {
				t.Errorf("turn %d: candidate %s shown type hit %s", id, m[1], m[2])
			}
		}
		sel := reOffTopicOp.FindStringSubmatch(dom)
		if sel == nil {
			t.Fatalf("no off_topic select in the what-if form")
		}
		var opts []string
		for _, m := range reOption.FindAllStringSubmatch(sel[1], -1) {
			opts = append(opts, m[1])
		}
		if got := strings.Join(opts, " "); got != " fallback refuse" {
			t.Errorf("off_topic options %q, want the configured, fallback and refuse", got)
		}
		if m := reWhatIfOff.FindStringSubmatch(dom); m == nil || m[1] != strconv.Itoa(wi.Changed) || m[2] != strconv.Itoa(wi.Turns) || m[3] != "fallback" {
			t.Errorf("what-if off_topic fallback shows %v, want %d of %d changed", m, wi.Changed, wi.Turns)
		}
	}

	// decision=refuse: the gap list keeps the off-topic refusal, and the
	// filter counts the refusals of each kind.
	dom := runChromium(t, bin, root+"/console#decision=refuse", "", 2600)
	counts := map[string]int{}
	for _, m := range reGapOption.FindAllStringSubmatch(dom, -1) {
		counts[m[1]], _ = strconv.Atoi(m[2])
	}
	wantRefuse := map[string]int{"on": all.ByKind[GapRefused], "off": all.ByKind[GapOffTopic], "all": all.ByKind[GapRefused] + all.ByKind[GapOffTopic]}
	if fmt.Sprint(counts) != fmt.Sprint(wantRefuse) {
		t.Errorf("decision=refuse: the filter's counts %v, want %v", counts, wantRefuse)
	}
	var kinds []string
	for _, r := range reGapKindRow.FindAllStringSubmatch(dom, -1) {
		kinds = append(kinds, r[2])
	}
	slices.Sort(kinds)
	if got, wantK := strings.Join(kinds, " "), strings.Repeat("off_topic ", all.ByKind[GapOffTopic])+strings.TrimSpace(strings.Repeat("refused ", all.ByKind[GapRefused])); got != wantK {
		t.Errorf("decision=refuse: gap rows of kinds %q, want %q", got, wantK)
	}
}
