package proxy_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// handbook is a corpus of short FAQ passages (100-300 characters each):
// each alone is far below verify.min_context_chars, the notes of one turn
// together are not.
var handbook = []string{
	`{"id":"hb-lamp-1","kind":"lecture","title":"Skerry lighthouse: first light","text":"The Skerry lighthouse was first lit on 14 March 1887 by the harbour board. Its lamp was fuelled by paraffin until electricity arrived."}`,
	`{"id":"hb-lamp-2","kind":"lecture","title":"Skerry lighthouse: height","text":"The Skerry lighthouse tower is 38 metres tall and its light can be seen from 22 nautical miles out at sea on a clear night."}`,
	`{"id":"hb-lamp-3","kind":"lecture","title":"Skerry lighthouse: keepers","text":"Three keepers lived at the Skerry lighthouse until it was automated in 1989; the last keeper's cottage is now a small museum."}`,
	`{"id":"hb-lamp-4","kind":"lecture","title":"Skerry lighthouse: visits","text":"Guided tours of the Skerry lighthouse run from April to October and take 45 minutes, with 167 steps to the lantern room."}`,
	`{"id":"hb-lamp-5","kind":"lecture","title":"Skerry lighthouse: lens","text":"The Skerry lighthouse lens, installed in 1902, flashes white twice every 15 seconds."}`,
	`{"id":"hb-ferry-1","kind":"library","title":"Ferry to Skerry","text":"The ferry to Skerry island leaves the mainland quay at 9:30 and returns at 16:00 from May to September."}`,
}

// A handbook of short passages: a changed date or number in a cited sentence
// is reported contradiction (with the cited span) end to end, through the
// proxy and the simulated upstream, stream and non-stream, in report and
// strict mode; unchanged sentences are entailed. Before issue 11 every such
// claim came back not_checked ("cited context < 500 chars").
func TestShortSourcesContradictionEndToEnd(t *testing.T) {
	for _, p := range handbook {
		if n := len(p); n > 420 { // the JSON line; each text is 100-300 chars
			t.Fatalf("handbook passage too long (%d): %s", n, p)
		}
	}
	corpus := writeCorpus(t, handbook...)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	const q = "Tell me about the Skerry lighthouse: when was it first lit, how tall is it, and when was it automated?"
	for _, mode := range []string{"report", "strict"} {
		for _, contradict := range []float64{1, 0} {
			ts := startGuard(t, func(c *testCfg) {
				c.Pipeline.Index = dir
				c.Stages.Verify.Mode = mode
				c.Mock.Faults = mockllm.Faults{Contradict: contradict}
				c.Mock.MaxSentences = 5
				// the planner keeps every passage that cleared the gate:
				// five short notes make one turn's combined context
				c.Stages.Gate.Planner.MinSupport = 0
			})
			for _, stream := range []bool{false, true} {
				text, g := complete(t, ts, q, stream)
				if g.Decision != "ground" {
					t.Fatalf("%s stream=%v: decision %q, want ground: %q", mode, stream, g.Decision, text)
				}
				recs := ts.mock.Log().Records()
				rec := recs[len(recs)-1]
				var newNums []string
				for _, ch := range rec.Changed {
					_, nv, _ := strings.Cut(ch, " -> ")
					newNums = append(newNums, nv)
				}
				if contradict == 1 && len(newNums) == 0 {
					t.Fatalf("%s stream=%v: the upstream changed no number: %q", mode, stream, text)
				}
				cited := 0
				for _, c := range g.Claims {
					if len(c.Citations) == 0 {
						continue
					}
					cited++
					changed := false
					for _, nv := range newNums {
						changed = changed || strings.Contains(c.Text, nv)
					}
					switch {
					case changed && (c.Verdict != "contradiction" || c.Evidence == ""):
						t.Errorf("%s stream=%v: changed claim %q: verdict %s evidence %q, want contradiction with a span", mode, stream, c.Text, c.Verdict, c.Evidence)
					case !changed && c.Verdict != "entailment":
						t.Errorf("%s stream=%v: unchanged claim %q: verdict %s, want entailment", mode, stream, c.Text, c.Verdict)
					}
				}
				if cited == 0 {
					t.Errorf("%s stream=%v: no cited claim in %q", mode, stream, text)
				}
				if mode == "strict" {
					for _, nv := range newNums {
						for _, s := range strings.SplitAfter(text, ". ") {
							if strings.Contains(s, nv) && strings.Contains(s, "[") {
								t.Errorf("strict: changed sentence released with its citation: %q", s)
							}
						}
					}
				}
			}
		}
	}
}

// A turn whose notes together fall short of verify.min_context_chars: its
// cited claims are still verified against their cited notes (a changed
// number is a contradiction), and only the uncited sentences, which would be
// judged against that combined context, are reported not checked.
func TestShortCombinedContextChecksCitedClaims(t *testing.T) {
	corpus := writeCorpus(t, handbook[0], handbook[5])
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = dir
		c.Stages.Gate.GoodEnoughMax, c.Stages.Gate.SufficientMax, c.Stages.Gate.BailOutBelow = 0, 0, 0
		c.Mock.Faults = mockllm.Faults{Contradict: 1, Uncited: 1}
	})
	text, g := complete(t, ts, "When was the Skerry lighthouse first lit?", false)
	recs := ts.mock.Log().Records()
	var newNums []string
	for _, ch := range recs[len(recs)-1].Changed {
		_, nv, _ := strings.Cut(ch, " -> ")
		newNums = append(newNums, nv)
	}
	cited, uncited, contradicted := 0, 0, 0
	for _, c := range g.Claims {
		if len(c.Citations) == 0 {
			uncited++
			if c.Verdict != "not_checked" || c.Uncited != "not_checked" {
				t.Errorf("uncited claim %q: verdict %s uncited %q, want not_checked (combined context under 500 chars)", c.Text, c.Verdict, c.Uncited)
			}
			continue
		}
		cited++
		changed := false
		for _, nv := range newNums {
			changed = changed || strings.Contains(c.Text, nv)
		}
		switch {
		case changed && (c.Verdict != "contradiction" || c.Evidence == ""):
			t.Errorf("changed claim %q: verdict %s evidence %q, want contradiction with its span", c.Text, c.Verdict, c.Evidence)
		case changed:
			contradicted++
		case c.Verdict != "entailment":
			t.Errorf("unchanged claim %q: verdict %s, want entailment", c.Text, c.Verdict)
		}
	}
	if contradicted == 0 || uncited == 0 {
		t.Fatalf("want a contradicted and an uncited claim, got %d of %d cited and %d uncited (decision %s): %q", contradicted, cited, uncited, g.Decision, text)
	}
}
