package proxy_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// shopCorpus is a small service FAQ as a new user writes it: no kind set,
// some passages without a title.
func shopCorpus(t *testing.T) string {
	t.Helper()
	corpus := writeCorpus(t,
		`{"id":"puncture","text":"Puncture repair costs 8 pounds per wheel, including a new inner tube. Most repairs are done while you wait."}`,
		`{"id":"prices","title":"Hire prices","text":"Bike hire is 15 pounds a day for adults. Seniors over 65 and students with a valid card pay 10 pounds a day."}`,
		`{"id":"service","title":"Servicing","text":"Our annual service costs 60 pounds and includes a full check of brakes, gears, wheels and chain, with adjustments."}`,
		`{"id":"returns","title":"Returns","text":"Unused items can be returned within 30 days with the receipt for a full refund to the original card."}`,
		`{"id":"hours","title":"Workshop opening hours","text":"The workshop is open Tuesday to Saturday, 9am to 5:30pm, and closed on Sundays and Mondays."}`,
		`{"id":"ebikes","title":"Electric bikes","text":"Electric bike hire costs 30 pounds a day. The battery lasts about 60 miles and a charger is included."}`,
		`{"id":"locks","text":"Every hire bike comes with a D-lock and a helmet at no extra charge."}`,
	)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Questions in customers' words and the passage that uses the corpus's
// words: flat tyre / puncture, pensioner / senior, yearly tune-up / annual
// service, money back / refund. The corpus never sets kind, so the
// primary-kind rule counts its own chunks. The goal (issue 28) is that all
// four ground on their passage; the rows marked miss do not yet (the
// answerability or relevance model scores them too low, docs/quality.md),
// and for those the test holds what the gate does instead: never a
// citation of another passage, and a refusal names the right passage as
// the closest topic where one is given. A miss that starts grounding
// fails the test so the row can be promoted.
func TestParaphrasesGround(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = shopCorpus(t) })
	for _, tc := range []struct {
		q, want string
		miss    string // the decision a known miss gets today; "" = must ground
		topic   string // with miss refuse: the closest topic the refusal names first
	}{
		{"how much do you charge to fix a flat tyre?", "puncture", "", ""},
		{"Is there a discount for pensioners?", "prices", "", ""}, // no shared word: relevance's pool scale (Run 7)
		{"how much is a yearly tune-up?", "service", "", ""},
		{"can I get my money back if I don't use it?", "returns", "", ""},
	} {
		text, g := complete(t, ts, tc.q, false)
		cited := slices.ContainsFunc(g.Citations, func(c cite) bool { return c.ID == tc.want })
		switch {
		case tc.miss == "":
			if g.Decision != "ground" || !cited {
				t.Errorf("%q: decision %s citations %v, want ground citing %s (%q)", tc.q, g.Decision, g.Citations, tc.want, text)
			}
		case g.Decision == "ground" && cited:
			t.Errorf("%q: known miss now grounds on %s: promote the row", tc.q, tc.want)
		case g.Decision != tc.miss || len(g.Citations) != 0:
			t.Errorf("%q: decision %s citations %v, want the known miss %s without citations", tc.q, g.Decision, g.Citations, tc.miss)
		case tc.topic != "" && !strings.Contains(text, "are: "+tc.topic):
			t.Errorf("%q: refusal %q does not name %s first", tc.q, text, tc.topic)
		}
	}
}

// An on-topic question the corpus does not answer is refused, not answered
// from general knowledge, and the refusal names the closest topics; no
// model runs. It refuses at the default planner.min_support because the
// question asks for a phone number, which no note has (a strict answer
// type: gate.strictType); the local planner refuses only about a sixth of
// other on-topic unanswerable questions (docs/quality.md, Run 4).
func TestOnTopicUnanswerableRefusesNamingTopics(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = shopCorpus(t) })
	before := ts.mock.Requests()
	text, g := complete(t, ts, "What is the phone number of the workshop?", false)
	gcfg := proxy.DefaultConfig().Stages.Gate
	if g.Decision != "refuse" || !strings.HasPrefix(text, gcfg.RefusalText) || !strings.Contains(text, `"Workshop opening hours"`) {
		t.Errorf("decision %s, text %q; want a refusal naming \"Workshop opening hours\"", g.Decision, text)
	}
	if n := ts.mock.Requests() - before; n != 0 {
		t.Errorf("a refused turn made %d upstream calls", n)
	}
}

// Off-topic questions follow gate.off_topic: fallback (general knowledge
// behind the disclaimer) by default, a refusal with off_topic_text and no
// model call with refuse.
func TestOffTopic(t *testing.T) {
	const q = "give me a recipe for lasagne"
	gcfg := proxy.DefaultConfig().Stages.Gate
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = shopCorpus(t) })
	if text, g := complete(t, ts, q, false); g.Decision != "fallback" || !strings.HasPrefix(text, gcfg.Disclaimer) {
		t.Errorf("off_topic fallback: decision %s text %q", g.Decision, text)
	}
	rs := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = shopCorpus(t)
		c.Stages.Gate.OffTopic = "refuse"
	})
	for _, stream := range []bool{false, true} {
		before := rs.mock.Requests()
		text, g := complete(t, rs, q, stream)
		if g.Decision != "refuse" || text != gcfg.OffTopicText {
			t.Errorf("off_topic refuse, stream=%v: decision %s text %q", stream, g.Decision, text)
		}
		if n := rs.mock.Requests() - before; n != 0 {
			t.Errorf("off_topic refuse, stream=%v: %d upstream calls", stream, n)
		}
	}
}

// A question about another business ("how much does Halfords charge ...")
// shares the shop's trade and grounds on its prices as a question; with
// gate.other_business (default) it goes per off_topic, over the real
// client, streamed and not: the fallback behind the disclaimer, no
// citation of the shop's own passages. The same question about the shop
// itself grounds.
func TestOtherBusinessOffTopic(t *testing.T) {
	gcfg := proxy.DefaultConfig().Stages.Gate
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = shopCorpus(t) })
	if _, g := complete(t, ts, "How much do you charge to fix a puncture?", false); g.Decision != "ground" {
		t.Fatalf("about the shop: decision %s, want ground (the test would show nothing)", g.Decision)
	}
	for _, stream := range []bool{false, true} {
		text, g := complete(t, ts, "How much does Halfords charge to fix a puncture?", stream)
		if g.Decision != "fallback" || len(g.Citations) != 0 || !strings.HasPrefix(text, gcfg.Disclaimer) {
			t.Errorf("stream=%v: decision %s citations %v text %q; want the fallback behind the disclaimer", stream, g.Decision, g.Citations, text)
		}
	}
	off := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = shopCorpus(t)
		c.Stages.Gate.OtherBusiness = false
	})
	if _, g := complete(t, off, "How much does Halfords charge to fix a puncture?", false); g.Decision != "ground" {
		t.Errorf("other_business false: decision %s, want ground (the thresholds decide)", g.Decision)
	}
}

// planner.base_url: upstream plans on the answering upstream: a grounded
// turn makes two upstream calls (the planner's and the answer's).
func TestPlannerOnUpstream(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = "upstream"
		c.Stages.Gate.Planner.Model = "mock-planner"
	})
	before := ts.mock.Requests()
	_, g := complete(t, ts, groundQ, false)
	if n := ts.mock.Requests() - before; g.Decision == "ground" && n != 2 || g.Decision != "ground" && n != 1 {
		t.Errorf("decision %s with %d upstream calls; want the planner's call on the upstream too", g.Decision, n)
	}
}

// mixedCorpus is an archive of short encyclopedia entries with no topic in
// common. Its coherence is 0.376 (raw encoder cosines: 0.371), shopCorpus's 0.517
// (raw: 0.448); HaluEval's corpus measures 0.350 and the dev corpora
// 0.448-0.661, so gate.on_topic_coherence was tuned to 0.40.
func mixedCorpus(t *testing.T) string {
	t.Helper()
	corpus := writeCorpus(t,
		`{"id":"danube","text":"The Danube is Europe's second-longest river. It rises in the Black Forest in Germany and flows about 2,850 km through ten countries to the Black Sea."}`,
		`{"id":"sibelius","text":"Jean Sibelius was a Finnish composer of the late Romantic period. His best-known works include Finlandia, the Violin Concerto and seven symphonies."}`,
		`{"id":"tungsten","text":"Tungsten is a chemical element with the symbol W and atomic number 74. It has the highest melting point of all metals, 3,422 degrees Celsius."}`,
		`{"id":"etna","text":"Mount Etna is an active stratovolcano on the east coast of Sicily. At about 3,300 metres it is the tallest active volcano in Europe outside the Caucasus."}`,
		`{"id":"middlemarch","text":"Middlemarch is a novel by George Eliot, first published in eight instalments in 1871 and 1872. It is set in a fictional English Midlands town."}`,
		`{"id":"forthbridge","text":"The Forth Bridge is a cantilever railway bridge across the Firth of Forth in Scotland. It opened in 1890 and is a World Heritage Site."}`,
		`{"id":"puffin","text":"The Atlantic puffin is a seabird of the auk family. It breeds on cliffs in Iceland, Norway and the British Isles and feeds on small fish."}`,
		`{"id":"ajax","text":"AFC Ajax is a professional football club based in Amsterdam. It has won the Dutch league more than thirty times and the European Cup four times."}`,
	)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// coherenceOf is the coherence the index keeps for the snapshot at dir.
func coherenceOf(t *testing.T, dir string) float64 {
	t.Helper()
	s, err := index.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, ok := s.Partition(index.DefaultTenant, index.DefaultKB).Coherence()
	if !ok {
		t.Fatalf("%s keeps no coherence", dir)
	}
	return c
}

// A question about something a mixed archive does not hold ("What is the
// capital of Australia?") resembles some of its entries (best cosine
// above on_topic_sim) but is not on "the corpus's topic": the archive's
// coherence is below gate.on_topic_coherence, so it goes per off_topic
// (fallback, the general-knowledge answer behind the disclaimer); with
// on_topic_coherence 0 (the fixed rule of Run 4) the archive counts as one
// topic, so the question is about it and does not fall back: relevance's
// pool scale lifts it above bail-out and the planner decides (it keeps
// notes here: the answerability model's weakness on on-topic unanswerable
// questions, docs/quality.md Run 7).
func TestMixedCorpusOffTopicFallsBack(t *testing.T) {
	const q = "What is the capital of Australia?"
	dir := mixedCorpus(t)
	gcfg := proxy.DefaultConfig().Stages.Gate
	mixed, shop := coherenceOf(t, dir), coherenceOf(t, shopCorpus(t))
	t.Logf("coherence: mixed archive %.3f, shop FAQ %.3f", mixed, shop)
	if !(mixed < gcfg.OnTopicCoherence && gcfg.OnTopicCoherence <= shop) {
		t.Fatalf("coherence: mixed archive %v, shop FAQ %v; want the archive below on_topic_coherence %v and the shop at or above", mixed, shop, gcfg.OnTopicCoherence)
	}
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = dir })
	if text, g := complete(t, ts, q, false); g.Decision != "fallback" || !strings.HasPrefix(text, gcfg.Disclaimer) {
		t.Errorf("default: decision %s text %q; want fallback", g.Decision, text)
	}
	fixed := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = dir
		c.Stages.Gate.OnTopicCoherence = 0
		c.Stages.Gate.GeneralWeight = 0 // the general-question rule would send it to general knowledge too
	})
	if text, g := complete(t, fixed, q, false); g.Decision == "fallback" || strings.HasPrefix(text, gcfg.Disclaimer) {
		t.Errorf("on_topic_coherence 0: decision %s text %q; want it treated as on the archive's topic, not fallback", g.Decision, text)
	}
}
