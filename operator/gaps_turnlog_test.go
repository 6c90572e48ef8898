package operator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/proxy"
)

// turnsGapRows are the refusals and fallbacks of GET /v1/guard/turns.
type turnsGapRows struct {
	Turns []struct {
		Tenant   string `json:"tenant"`
		Question string `json:"question"`
		Decision string `json:"decision"`
		OffTopic bool   `json:"off_topic"`
	} `json:"turns"`
}

// gapKindsFromTurns files each refusal and fallback of the turn list
// under the gap queue's kind for it, as the console does without a queue.
func gapKindsFromTurns(t *testing.T, root string) map[string]int {
	t.Helper()
	var list turnsGapRows
	if code := opReq(t, "GET", root+"/v1/guard/turns", nil, "", &list); code != 200 {
		t.Fatalf("GET turns: %d", code)
	}
	kinds := map[string]int{}
	for _, r := range list.Turns {
		switch {
		case r.Decision == "refuse" && r.OffTopic:
			kinds[GapOffTopic]++
		case r.Decision == "refuse":
			kinds[GapRefused]++
		case r.Decision == "fallback":
			kinds[GapFallback]++
		case r.OffTopic:
			t.Errorf("turn %q: decision %s marked off_topic; only a refusal is", r.Question, r.Decision)
		}
	}
	return kinds
}

// The turn list marks a refusal the gate made as outside the corpus
// (off_topic): read from the turns alone, the refusals and fallbacks
// fall in the gap queue's kinds as the live queue files them. With
// gaps.enabled: false the gap list says so (enabled: false).
func TestTurnListOffTopicAsGapQueue(t *testing.T) {
	live, _ := offTopicGuard(t, nil)
	off, _ := offTopicGuard(t, func(c *testCfg) { c.Gaps.Enabled = false })
	queue := gapKindsOf(t, live, "")
	if !queue.Enabled {
		t.Errorf("gaps on: the list says enabled false")
	}
	want := map[string]int{GapRefused: queue.ByKind[GapRefused], GapOffTopic: queue.ByKind[GapOffTopic], GapFallback: queue.ByKind[GapFallback]}
	if want[GapRefused] != 1 || want[GapOffTopic] != 1 || want[GapFallback] != 1 {
		t.Fatalf("the live queue's kinds %v, want one of each: it would prove nothing", queue.ByKind)
	}
	for name, root := range map[string]string{"gaps on": live, "gaps off": off} {
		if got := gapKindsFromTurns(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the turn list's refusals and fallbacks by kind %v, want the gap queue's %v", name, got, want)
		}
	}
	if b := gapKindsOf(t, off, ""); b.Enabled || b.Total != 0 {
		t.Errorf("gaps off: the list says enabled %v with %d entries, want false and none", b.Enabled, b.Total)
	}
}

// Without a gap queue (gaps.enabled: false) the console lists the turn
// log's refusals and fallbacks as the server groups them (GET
// /v1/guard/gaps?source=turnlog, no grouping of its own), with the live
// queue's kinds and counts: an off-topic refusal is off-topic, not an
// on-topic gap, and a question asked twice is one entry. The turn list's
// time window bounds it too.
func TestConsoleGapsFromTurnLogInChromium(t *testing.T) {
	bin := chromium(t)
	live, _ := offTopicGuard(t, nil)
	root, _ := offTopicGuard(t, func(c *testCfg) { c.Gaps.Enabled = false })
	// Asked again: one more turn, not one more group (the queue counts
	// entries, not sightings).
	if r := chatTenant(t, root+"/v1", "nophone", contactQ); r.decision != "refuse" {
		t.Fatalf("nophone %q again: decision %s, want refuse", contactQ, r.decision)
	}
	by := gapKindsOf(t, live, "").ByKind
	want := map[string]int{"on": by[GapRefused] + by[GapClaim], "off": by[GapOffTopic] + by[GapFallback]}
	want["all"] = want["on"] + want["off"]
	kindsOf := map[string][]string{"on": {GapRefused, GapClaim}, "off": {GapOffTopic, GapFallback}, "all": {GapRefused, GapClaim, GapOffTopic, GapFallback}}
	for _, which := range []string{"on", "off", "all", "all&window=15m"} {
		dom := runChromium(t, bin, root+"/console#gaps="+which, "", 2600)
		if !strings.Contains(dom, `data-ready="1"`) {
			t.Fatalf("the console did not finish loading:\n%s", dom)
		}
		if !strings.Contains(dom, `id="gaps-source">No gap queue`) || !strings.Contains(dom, "source=turnlog") {
			t.Errorf("gaps=%s: the list does not say it is the server's grouping of the turn log", which)
		}
		which, _, _ = strings.Cut(which, "&")
		counts := map[string]int{}
		for _, m := range reGapOption.FindAllStringSubmatch(dom, -1) {
			var n int
			fmt.Sscan(m[2], &n)
			counts[m[1]] = n
		}
		if fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("gaps=%s: the filter's counts %v, want the live queue's %v", which, counts, want)
		}
		var kinds []string
		for _, r := range reGapKindRow.FindAllStringSubmatch(dom, -1) {
			if !slices.Contains(kindsOf[which], r[2]) {
				t.Errorf("gaps=%s lists a %s row", which, r[2])
			}
			kinds = append(kinds, r[2])
		}
		if len(kinds) != want[which] {
			t.Errorf("gaps=%s: rows of kinds %v, want %d", which, kinds, want[which])
		}
	}
}

// A turn read back from turnlog.persist.dir after a restart keeps its
// off_topic mark, also from a line written before the turn list had it:
// the console and guard gaps file it as before.
func TestTurnListOffTopicAfterRestart(t *testing.T) {
	cfg := testConfig()
	cfg.Log.Level = "error"
	cfg.Pipeline.Index = contactSnapshot(t)
	cfg.Stages.Gate.OffTopic = gate.OffTopicRefuse
	cfg.TurnLog.Persist.Dir = t.TempDir()
	want := map[string]bool{contactQ: false, worldCup: true} // question -> off_topic
	read := func(root string) map[string]bool {
		var list turnsGapRows
		if code := opReq(t, "GET", root+"/v1/guard/turns", nil, "", &list); code != 200 {
			t.Fatalf("GET turns: %d", code)
		}
		got := map[string]bool{}
		for _, r := range list.Turns {
			if r.Decision == "refuse" {
				got[r.Question] = r.OffTopic
			}
		}
		return got
	}
	ts := startProxy(t, cfg, proxy.NewPipeline(nil))
	for q := range want {
		if r := chatTenant(t, ts.base, "nophone", q); r.decision != "refuse" {
			t.Fatalf("%q: decision %s, want refuse", q, r.decision)
		}
	}
	if got := read(strings.TrimSuffix(ts.base, "/v1")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("refusals' off_topic %v, want %v", got, want)
	}
	shutdown(t, ts.srv)
	ts = startProxy(t, cfg, proxy.NewPipeline(nil))
	if got := read(strings.TrimSuffix(ts.base, "/v1")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a restart: refusals' off_topic %v, want %v", got, want)
	}
	shutdown(t, ts.srv)

	// Lines written before the row had off_topic: the gate's checks,
	// which the detail always held, say it.
	path := filepath.Join(cfg.TurnLog.Persist.Dir, "turns.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "off_topic")
		if _, ok := m["checks"]; !ok && m["decision"] == "refuse" {
			t.Fatalf("a refusal's line without checks: %s", line)
		}
		o, _ := json.Marshal(m)
		old = append(old, string(o))
	}
	if err := os.WriteFile(path, []byte(strings.Join(old, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts = serve(t, cfg, proxy.NewPipeline(nil))
	if got := read(strings.TrimSuffix(ts.base, "/v1")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("from lines without off_topic: refusals' off_topic %v, want %v", got, want)
	}
}
