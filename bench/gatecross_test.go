package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
)

// tinyCrossSets are three small services. The café hires out bikes too,
// so its bike-hire question, put to the bike shop, is answered there: the
// row must count it as grounded, a failure.
func tinyCrossSets() []GateSet {
	return []GateSet{
		{Name: "bikes", Docs: []index.Doc{
			{ID: "b-hire", Title: "Bike hire", Kind: "library", Text: "Bike hire costs 15 pounds per day, helmet and lock included. Return the bike by 6pm."},
			{ID: "b-repair", Title: "Repairs", Kind: "library", Text: "We fix punctures while you wait for 8 pounds. A full service takes two days and costs 60 pounds."},
			{ID: "b-sizes", Title: "Frame sizes", Kind: "library", Text: "Frame sizes run from 48 to 60 cm. Riders under 160 cm tall usually take a 48 or 50 cm frame."},
		}, Questions: []GateQuestion{
			{ID: "bq1", Question: "how much does it cost to fix a puncture?", Answerable: true, AnswerIDs: []string{"b-repair"}},
			{ID: "bq2", Question: "which frame size for someone 155 cm tall?", Answerable: true, AnswerIDs: []string{"b-sizes"}},
			{ID: "bq3", Question: "do you sell electric scooters?"},
			{ID: "bq4", Question: "what's your phone number?"},
		}},
		{Name: "cafe", Docs: []index.Doc{
			{ID: "c-bikes", Title: "Bike hire at the café", Kind: "library", Text: "Bike hire per day is 12 pounds from the café counter; bikes go back by 5pm."},
			{ID: "c-menu", Title: "Menu", Kind: "library", Text: "Breakfast is served until 11am. Vegan and gluten-free cakes are baked every morning."},
			{ID: "c-contact", Title: "Contact", Kind: "library", Text: "Ring the café on 01632 960 555."},
		}, Questions: []GateQuestion{
			{ID: "cq1", Question: "how much is bike hire per day?", Answerable: true, AnswerIDs: []string{"c-bikes"}},
			{ID: "cq2", Question: "do you have gluten-free cakes?", Answerable: true, AnswerIDs: []string{"c-menu"}},
			{ID: "cq3", Question: "what's your phone number?", Answerable: true, AnswerIDs: []string{"c-contact"}},
		}},
		{Name: "thermostat", Docs: []index.Doc{
			{ID: "t-wifi", Title: "Connecting to Wi-Fi", Kind: "library", Text: "The thermostat connects to 2.4 GHz Wi-Fi networks only; 5 GHz networks are not supported."},
			{ID: "t-battery", Title: "Batteries", Kind: "library", Text: "The wireless sensor runs on two AA batteries, which last about a year."},
		}, Questions: []GateQuestion{
			{ID: "tq1", Question: "will it work on 5 GHz wifi?", Answerable: true, AnswerIDs: []string{"t-wifi"}},
			{ID: "tq2", Question: "what batteries does the sensor take?", Answerable: true, AnswerIDs: []string{"t-battery"}},
		}},
	}
}

// The foreign questions of a corpus are the other corpora's answerable,
// non-contact questions, each off-topic; a draw is fixed, bounded and in
// the pool's order.
func TestForeignQuestions(t *testing.T) {
	sets := tinyCrossSets()
	all := foreignQuestions(sets, "bikes", 0)
	var ids []string
	for _, q := range all {
		ids = append(ids, q.ID)
		if !q.OffTopic || q.Answerable || len(q.AnswerIDs) > 0 {
			t.Errorf("%s: got %+v, want an off-topic question with no answers", q.ID, q)
		}
	}
	if want := []string{"cafe:cq1", "cafe:cq2", "thermostat:tq1", "thermostat:tq2"}; !slices.Equal(ids, want) {
		t.Errorf("foreign questions of bikes: got %v, want %v (own, unanswerable and contact questions left out)", ids, want)
	}
	a, b := foreignQuestions(sets, "bikes", 2), foreignQuestions(sets, "bikes", 2)
	if len(a) != 2 || !slices.EqualFunc(a, b, func(x, y GateQuestion) bool { return x.ID == y.ID }) {
		t.Fatalf("draw of 2: got %v then %v, want the same two", a, b)
	}
	if slices.IndexFunc(all, func(q GateQuestion) bool { return q.ID == a[0].ID }) >= slices.IndexFunc(all, func(q GateQuestion) bool { return q.ID == a[1].ID }) {
		t.Errorf("draw of 2: got %v, want the pool's order", a)
	}
}

// The row scores every corpus and the pool with real indexes and the
// shipped models: the counts add up, the café's bike-hire question put to
// the bike shop is grounded (a failure), and the report and JSON carry
// the figures.
func TestGateCrossCorpus(t *testing.T) {
	shipped := gateSystem{sysShipped, gate.DefaultConfig(), gateModels{answer: gate.DefaultAnswerModel(), relevance: gate.DefaultRelevanceModel()}, true}
	refuse := shipped
	refuse.cfg.OffTopic = gate.OffTopicRefuse
	names := []string{"shipped, fallback", "shipped, refuse"}
	x, err := gateCrossCorpus(context.Background(), tinyCrossSets(), 0, names, func(string) []gateSystem { return []gateSystem{shipped, refuse} })
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Rows) != 4 || x.Rows[3].Corpus != "pooled" {
		t.Fatalf("rows: got %+v, want bikes, cafe, thermostat, pooled", x.Rows)
	}
	for i, want := range []int{4, 4, 4, 12} { // bq3 unanswerable, bq4 and cq3 contact questions left out
		r := x.Rows[i]
		if r.Questions != want {
			t.Errorf("%s: got %d foreign questions, want %d", r.Corpus, r.Questions, want)
		}
		for j, s := range r.Scores {
			if s.Handled+s.Grounded+s.RefusedOnTopic != r.Questions {
				t.Errorf("%s, %s: handled %d + grounded %d + refused %d != %d", r.Corpus, names[j], s.Handled, s.Grounded, s.RefusedOnTopic, r.Questions)
			}
		}
	}
	for j := range names {
		var sum GateCrossScore
		for _, r := range x.Rows[:3] {
			sum.Handled += r.Scores[j].Handled
			sum.Grounded += r.Scores[j].Grounded
		}
		if p := x.Rows[3].Scores[j]; p.Handled != sum.Handled || p.Grounded != sum.Grounded {
			t.Errorf("pooled %s: got %+v, want the corpora's sums %+v", names[j], p, sum)
		}
		if g := x.Rows[0].Scores[j].Grounded; g < 1 {
			t.Errorf("bikes, %s: got %d grounded, want the café's bike-hire question grounded", names[j], g)
		}
	}
	if x.Rows[3].Scores[0].Handled == 0 {
		t.Errorf("pooled: no foreign question handled per off_topic: %+v", x.Rows[3].Scores)
	}

	var b strings.Builder
	WriteGateReport(&b, GateReport{CrossCorpus: x})
	for _, want := range []string{gateCrossHeader, "| **pooled** | 12 |", "the full cross product"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	dir := t.TempDir()
	if err := writeGateCrossJSON(dir, x); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, GateCrossJSON))
	if err != nil {
		t.Fatal(err)
	}
	var back GateCross
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Rows[3].Scores[1], x.Rows[3].Scores[1]; got != want {
		t.Errorf("JSON pooled: got %+v, want %+v", got, want)
	}
}
