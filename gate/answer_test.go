package gate

import (
	"math"
	"testing"

	"github.com/answer-guard/guard/index"
)

// The shipped models are monotone where they must be: more of the
// question's words in the passage, an answer of the asked type, an address
// hit, a higher rerank score or a closer meaning never lower the
// probability; a missing answer type or missing rare words never raise it.
func TestAnswerModelMonotone(t *testing.T) {
	m := DefaultAnswerModel()
	base := Features{FBias: 1, FRerank: 0.3, FCoverage: 0.4, FRare: 0.5, FBigram: 0.2, FTop: 1, FMargin: 0.1, FLanes: 1}
	for _, k := range []int{FRerank, FCoverage, FRare, FTypeHit, FAddress} {
		lo, hi := base, base
		lo[k], hi[k] = 0, 1
		if m.Prob(hi) < m.Prob(lo) {
			t.Errorf("%s: P(%v=1) = %.3f < P(0) = %.3f", FeatureNames[k], FeatureNames[k], m.Prob(hi), m.Prob(lo))
		}
	}
	for _, mm := range []AnswerModel{m, DefaultRelevanceModel()} {
		sem := base
		sem[FSim], sem[FSimRel], sem[FSoft], sem[FFocus], sem[FFocusMiss], sem[FFocusWorst], sem[FSent] = 0.5, 0.1, 0.6, 0.5, 0.3, 0.4, 0.5
		for _, k := range []int{FSim, FSoft, FSoftMin, FFocus, FFocusWorst, FSent} {
			lo, hi := sem, sem
			lo[k], hi[k] = 0, 1
			if mm.Prob(hi) < mm.Prob(lo) {
				t.Errorf("%s: P(%s=1) = %.3f < P(0) = %.3f", mm.Fit[:12], FeatureNames[k], mm.Prob(hi), mm.Prob(lo))
			}
		}
		for _, k := range []int{FTypeMiss, FFocusMiss} {
			lo, hi := sem, sem
			lo[k], hi[k] = 0, 1
			if mm.Prob(hi) > mm.Prob(lo) {
				t.Errorf("%s: %s raises the probability: %.3f > %.3f", mm.Fit[:12], FeatureNames[k], mm.Prob(hi), mm.Prob(lo))
			}
		}
	}
	prev := -1.0
	for c := 0.0; c <= 1.0001; c += 0.05 {
		f := base
		f[FCoverage] = c
		p := m.Prob(f)
		if p < prev || p < 0 || p > 1 || math.IsNaN(p) {
			t.Fatalf("coverage %.2f: P %.4f after %.4f", c, p, prev)
		}
		prev = p
	}
}

func TestAskedType(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want answerType
	}{
		{"What's the phone number of the lost property office?", typePhone},
		{"How much is a yearly membership?", typeCost},
		{"How long do refunds take", typeDuration},
		{"How many suitcases can I bring?", typeCount},
		{"When is the second rent payment due?", typeTime},
		{"Who do I complain to?", typePerson},
		{"Where am I supposed to keep my bike?", typePlace},
		{"How fast do the electric bikes go?", typeSpeed},
		{"How old do you need to be?", typeAge},
		{"Do toddlers need a ticket?", typeNone},
		{"What's the email address for lost property?", typeEmail},
		// A phone or an email as a thing, not the number or address asked for.
		{"how much is it to use my phone in America?", typeCost},
		{"Can I ring customer support on a Sunday morning?", typeNone},
		{"can I email my receipts?", typeNone},
		// The customer's own number or address: asked about, not asked for.
		{"Can I keep my home phone number when I switch?", typeTime}, // " when ": a time, which rules out no passage
		{"how do I change my email address?", typeNone},
		{"how do I update my contact number", typeNone},
		{"what's the phone number for my account manager?", typePhone},
		{"my bill is wrong, what's your phone number?", typePhone},
	} {
		if got := askedType(tc.q); got != tc.want {
			t.Errorf("askedType(%q) = %d, want %d", tc.q, got, tc.want)
		}
	}
	if !hasType(typeCost, "Up to two dogs per passenger travel free.") || hasType(typeSpeed, "Electric bikes cost 20 pence more.") ||
		!hasType(typePhone, "Call 0161 496 0000.") || hasType(typePhone, "Open from 7 am to 10 pm.") {
		t.Error("hasType misreads a passage")
	}
}

// An exact address hit keeps its rule score whatever the question's words.
func TestAssessAddressHitKeepsRuleScore(t *testing.T) {
	cands := []Candidate{
		{ID: "hb-5-3", Kind: "lecture", Text: "Snapshots are taken nightly.", Rerank: 0.8, Lanes: []string{"address"}, Forced: true},
		{ID: "other", Kind: "lecture", Text: "Unrelated text about widgets.", Rerank: 0.1, Lanes: []string{"dense"}},
	}
	DefaultAnswerModel().Assess(PrepareQuestion(index.Tokenize, "explain hb 5.3", nil), cands)
	if cands[0].Answer < 0.8 {
		t.Errorf("address hit answer %.3f, want >= its rule score 0.8", cands[0].Answer)
	}
	if cands[1].Answer >= 0.4 {
		t.Errorf("unrelated passage answer %.3f", cands[1].Answer)
	}
}

// A passage without a phone number never answers a question that asks
// for one, however close its topic; a passage with one still can.
func TestAssessStrictTypeMiss(t *testing.T) {
	cands := []Candidate{
		{ID: "hours", Title: "Workshop opening hours", Text: "The workshop is open Tuesday to Saturday, 9am to 5:30pm.", Rerank: 0.9, Lanes: []string{"dense", "lexical"}},
		{ID: "phone", Title: "Contact the workshop", Text: "Call the workshop on 01632 960123.", Rerank: 0.5, Lanes: []string{"dense"}},
	}
	q := PrepareQuestion(index.Tokenize, "What is the phone number of the workshop?", nil)
	DefaultAnswerModel().Assess(q, cands)
	if cands[0].Answer != 0 {
		t.Errorf("hours passage: answer %.3f, want 0 (no phone number in it)", cands[0].Answer)
	}
	if !(cands[1].Answer > 0) {
		t.Errorf("phone passage: answer %.3f, want > 0", cands[1].Answer)
	}
	cands[0].Answer = 0
	DefaultAnswerModel().Assess(PrepareQuestion(index.Tokenize, "When is the workshop open?", nil), cands[:1])
	if !(cands[0].Answer > 0) {
		t.Errorf("hours passage, hours question: answer %.3f, want > 0", cands[0].Answer)
	}
}

// The planner keeps only notes that support an answer, best first; an
// empty outline refuses.
func TestPlannerOutline(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Planner.MinSupport = 0.5 // between a's and c's answerability
	cands := []Candidate{
		{ID: "a", Kind: "lecture", Answer: 0.5, Relevance: 0.8, Forced: true},
		{ID: "b", Kind: "lecture", Answer: 0.9, Relevance: 0.9, Forced: true},
		{ID: "c", Kind: "lecture", Answer: 0.2, Relevance: 0.7, Forced: true},
	}
	o := Decide(cfg, cands, true, Ask{})
	if o.Decision != Ground {
		t.Fatalf("decision %s", o.Decision)
	}
	o = ApplyOutline(o, LocalOutline(cfg, o))
	if len(o.Notes) != 2 || o.Notes[0].ID != "b" || o.Notes[0].N != 1 || o.Notes[1].ID != "a" || o.Notes[1].N != 2 || o.Coverage.Outline != 2 {
		t.Fatalf("outline %+v", o.Notes)
	}
	o2 := Decide(cfg, cands, true, Ask{})
	o2 = ApplyOutline(o2, nil)
	if o2.Decision != Refuse || len(o2.Notes) != 0 || !o2.Checks["empty_outline"] {
		t.Fatalf("empty outline: decision %s notes %d checks %v", o2.Decision, len(o2.Notes), o2.Checks)
	}
}

// BenchmarkGateAndPlanner is the per-turn cost of the answerability model,
// the gate and the local planner over a 16-candidate pool of 600-character
// passages (the goal: under 1 ms p50).
func BenchmarkGateAndPlanner(b *testing.B) {
	text := "Rent is paid in three instalments, due on 1 October, 15 January and 15 April. A deposit of 250 pounds is taken when a room is accepted and is returned within 28 days of the end of the licence, less any charges for damage or missing keys. Students who pay late are reminded twice; after 21 days a late-payment charge of 25 pounds is added. Students facing hardship should contact the student funding office, which can arrange a payment plan or an emergency grant of up to 500 pounds."
	cands := make([]Candidate, 16)
	for i := range cands {
		cands[i] = Candidate{ID: "c", Kind: "lecture", Title: "Rent and payment", Text: text, Rerank: 0.5 - float64(i)/40, Lanes: []string{"dense", "lexical"}}
	}
	cfg := DefaultConfig()
	m := DefaultAnswerModel()
	idf := func(string) float64 { return 2 }
	b.ReportAllocs()
	for b.Loop() {
		q := PrepareQuestion(index.Tokenize, "When is the second rent payment due?", idf)
		cs := append([]Candidate(nil), cands...)
		m.Assess(q, cs)
		o := Decide(cfg, cs, true, Ask{})
		ApplyOutline(o, LocalOutline(cfg, o))
	}
}

// Relevance's pool scale: in a partition of one topic a closer best
// meaning raises every semantic candidate's relevance, the same passage
// features otherwise; in a mixed archive (oneTopic false), or for a
// candidate without semantic features, the plain scale applies.
func TestRelevancePoolScale(t *testing.T) {
	m := DefaultRelevanceModel()
	if m.PoolScale == ([3]float64{}) || m.PoolScale[2] <= 0 {
		t.Fatalf("shipped relevance model's pool_scale %v: want a positive cosine term", m.PoolScale)
	}
	f := Features{FBias: 1, FRerank: 0.02, FLanes: 0.5, FSim: 0.35, FSimRel: 0.1, FSoft: 0.6, FFocus: 0.6, FSent: 0.6}
	rate := func(sim float64, semantic, oneTopic bool) float64 {
		cands := []Candidate{{Features: f, Sim: sim, Semantic: semantic}, {Features: f, Sim: 0.1, Semantic: semantic}}
		m.Rate(cands, oneTopic)
		return cands[0].Relevance
	}
	if lo, hi := rate(0.2, true, true), rate(0.4, true, true); !(hi > lo) {
		t.Errorf("one topic: relevance at best cosine 0.4 = %.3f, at 0.2 = %.3f; want it higher", hi, lo)
	}
	if lo, hi := rate(0.2, true, false), rate(0.4, true, false); lo != hi {
		t.Errorf("mixed archive: relevance moved with the best cosine: %.3f, %.3f", lo, hi)
	}
	if got, want := rate(0.4, false, true), m.scaled(m.Raw(f, false), false); got != want {
		t.Errorf("lexical candidate: relevance %.4f, want the lexical scale's %.4f", got, want)
	}
}

// BenchmarkRatePool is the relevance model's per-turn cost over a
// 16-candidate semantic pool with the pool scale (one partition of one
// topic) and without it (a mixed archive).
func BenchmarkRatePool(b *testing.B) {
	m := DefaultRelevanceModel()
	f := Features{FBias: 1, FRerank: 0.2, FCoverage: 0.3, FLanes: 1, FSim: 0.35, FSimRel: 0.1, FSoft: 0.6, FFocus: 0.6, FSent: 0.6}
	cands := make([]Candidate, 16)
	for i := range cands {
		cands[i] = Candidate{Features: f, Sim: 0.4 - float64(i)/100, Semantic: true}
	}
	for _, oneTopic := range []bool{true, false} {
		b.Run(map[bool]string{true: "one-topic", false: "mixed"}[oneTopic], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.Rate(cands, oneTopic)
			}
		})
	}
}
