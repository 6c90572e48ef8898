package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func lec(score float64) Candidate  { return Candidate{Kind: "lecture", Score: score, Rerank: score} }
func lib(score float64) Candidate  { return Candidate{Kind: "library", Score: score, Rerank: score} }
func forced(c Candidate) Candidate { c.Forced = true; return c }

// rerankConfig compares the reranker's own score, as before the
// answerability model: these tests pin the threshold arithmetic.
func rerankConfig() Config {
	c := DefaultConfig()
	c.Relevance = RelevanceRerank
	return c
}

func TestPrefloor(t *testing.T) {
	tests := []struct {
		name         string
		cand         Candidate
		rerankActive bool
		wantFloored  int
	}{
		{"rerank just below 0.18", lib(0.1799), true, 1},
		{"rerank at 0.18", lib(0.18), true, 0},
		{"rerank above 0.18", lib(0.1801), true, 0},
		{"no rerank just below 0.45", lib(0.4499), false, 1},
		{"no rerank at 0.45", lib(0.45), false, 0},
		{"no rerank 0.30 passes with rerank only", lib(0.30), false, 1},
		{"forced below rerank floor", forced(lib(0.01)), true, 0},
		{"forced below no-rerank floor", forced(lib(0.2)), false, 0},
		{"NaN score is floored", lib(math.NaN()), true, 1},
		{"rerank compares Rerank not Score", Candidate{Kind: "library", Score: 0.9, Rerank: 0.1}, true, 1},
		{"no rerank compares Score not Rerank", Candidate{Kind: "library", Score: 0.1, Rerank: 0.9}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Decide(rerankConfig(), []Candidate{tt.cand}, tt.rerankActive, Ask{})
			if o.Floored != tt.wantFloored {
				t.Errorf("Floored = %d, want %d", o.Floored, tt.wantFloored)
			}
		})
	}
}

func TestDecideBoundaries(t *testing.T) {
	ground := rerankConfig()
	ground.Between = BetweenGround
	tests := []struct {
		name    string
		cfg     Config
		cands   []Candidate
		want    Decision
		checks  map[string]bool
		wantCov Coverage
	}{
		{"sufficient at 0.55 with 2 lectures", rerankConfig(), []Candidate{lec(0.55), lec(0.3)}, Ground,
			map[string]bool{"sufficient": true, "good_enough": true, "bail_out": false, "between": false}, Coverage{0.55, 2, 0}},
		{"0.5499 with 2 lectures is between", rerankConfig(), []Candidate{lec(0.5499), lec(0.3)}, Refuse,
			map[string]bool{"sufficient": false, "good_enough": false, "bail_out": false, "between": true}, Coverage{0.5499, 2, 0}},
		{"0.55 with 1 lecture is between", rerankConfig(), []Candidate{lec(0.55), lib(0.3)}, Refuse,
			map[string]bool{"sufficient": false, "good_enough": false, "between": true}, Coverage{0.55, 1, 0}},
		{"floored lecture does not count", rerankConfig(), []Candidate{lec(0.6), lec(0.1)}, Refuse,
			map[string]bool{"sufficient": false, "between": true}, Coverage{0.6, 1, 0}},
		{"forced lecture below floor counts", rerankConfig(), []Candidate{lec(0.6), forced(lec(0.1))}, Ground,
			map[string]bool{"sufficient": true}, Coverage{0.6, 2, 0}},
		{"good enough at 0.65 alone", rerankConfig(), []Candidate{lib(0.65)}, Ground,
			map[string]bool{"sufficient": false, "good_enough": true}, Coverage{0.65, 0, 0}},
		{"0.6499 alone is between", rerankConfig(), []Candidate{lib(0.6499)}, Refuse,
			map[string]bool{"good_enough": false, "between": true}, Coverage{0.6499, 0, 0}},
		{"0.40 is not bail out", rerankConfig(), []Candidate{lib(0.40)}, Refuse,
			map[string]bool{"bail_out": false, "between": true}, Coverage{0.40, 0, 0}},
		{"0.3999 bails out", rerankConfig(), []Candidate{lib(0.3999)}, Fallback,
			map[string]bool{"bail_out": true, "between": false}, Coverage{0.3999, 0, 0}},
		{"empty pool bails out", rerankConfig(), nil, Fallback,
			map[string]bool{"bail_out": true, "empty": true}, Coverage{0, 0, 0}},
		{"all floored bails out", rerankConfig(), []Candidate{lib(0.1), lec(0.05)}, Fallback,
			map[string]bool{"bail_out": true, "empty": true}, Coverage{0, 0, 0}},
		{"between ground grounds with caveat", ground, []Candidate{lib(0.5)}, Ground,
			map[string]bool{"between": true, "caveat": true, "good_enough": false}, Coverage{0.5, 0, 0}},
		{"between ground still bails out below 0.40", ground, []Candidate{lib(0.39)}, Fallback,
			map[string]bool{"caveat": false, "bail_out": true}, Coverage{0.39, 0, 0}},
		{"good enough has no caveat", ground, []Candidate{lib(0.7)}, Ground,
			map[string]bool{"caveat": false}, Coverage{0.7, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Decide(tt.cfg, tt.cands, true, Ask{})
			if o.Decision != tt.want {
				t.Errorf("Decision = %q, want %q (checks %v)", o.Decision, tt.want, o.Checks)
			}
			if o.Coverage != tt.wantCov {
				t.Errorf("Coverage = %+v, want %+v", o.Coverage, tt.wantCov)
			}
			for k, v := range tt.checks {
				got, ok := o.Checks[k]
				if !ok || got != v {
					t.Errorf("Checks[%q] = %v (present %v), want %v", k, got, ok, v)
				}
			}
			if (o.Decision == Ground) != (len(o.Notes) > 0) {
				t.Errorf("Decision %q with %d notes", o.Decision, len(o.Notes))
			}
		})
	}
}

func TestDecideNotes(t *testing.T) {
	cfg := rerankConfig()
	cfg.MaxNotes = 2
	cands := []Candidate{
		{ID: "a", Kind: "lecture", Rerank: 0.9, Address: "A"},
		{ID: "b", Kind: "lecture", Rerank: 0.05},
		{ID: "c", Kind: "verse", Rerank: 0.1, Forced: true, Address: "John 3:16"},
		{ID: "d", Kind: "library", Rerank: 0.5},
	}
	o := Decide(cfg, cands, true, Ask{})
	var got []string
	for _, n := range o.Notes {
		got = append(got, n.ID)
		if n.N != len(got) {
			t.Errorf("note %s has N = %d, want %d", n.ID, n.N, len(got))
		}
	}
	if want := "a,c"; strings.Join(got, ",") != want {
		t.Errorf("notes = %v, want %s (in order, floored b skipped, capped at 2)", got, want)
	}
	if o.Floored != 1 {
		t.Errorf("Floored = %d, want 1", o.Floored)
	}
}

func TestValidate(t *testing.T) {
	if err := rerankConfig().Validate(); err != nil {
		t.Fatalf("rerankConfig().Validate() = %v", err)
	}
	bad := rerankConfig()
	bad.Prefloor = 2
	bad.BailOutBelow = 0.9
	bad.Between = "maybe"
	bad.MaxNotes = 0
	bad.SystemTemplate = "{{if}"
	bad.Disclaimer = ""
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want errors")
	}
	for _, key := range []string{"prefloor: must be in [0,1], got 2", "bail_out_below:", "between:", "max_notes:", "system_template:", "disclaimer:"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("Validate() = %q, missing %q", err, key)
		}
	}
}

// Relevance decides between on-topic and off-topic; off_topic picks what
// an off-topic question gets; a refusal names the closest topics (titles,
// or the lead of an untitled text).
func TestRelevanceOffTopicAndRefusal(t *testing.T) {
	onTopic := []Candidate{
		{ID: "spa", Kind: "library", Title: "Spa and pool", Text: "The spa has an indoor pool.", Relevance: 0.9, Answer: 0.2},
		{ID: "x", Kind: "library", Text: "Breakfast is served in the Garden Room from 7am to 10:30am on weekdays and later at weekends.", Relevance: 0.7, Answer: 0.1},
		{ID: "y", Kind: "library", Title: "Parking", Text: "We have an underground car park.", Relevance: 0.1, Answer: 0.1},
	}
	offTopic := []Candidate{{ID: "y", Kind: "library", Title: "Parking", Relevance: 0.3, Answer: 0.1}}
	for _, tc := range []struct {
		name      string
		offTopic  string
		cands     []Candidate
		want      Decision
		wantCheck bool
		wantText  string
	}{
		{"on-topic unanswerable refuses naming topics", OffTopicFallback, onTopic, Refuse, false,
			`The sources I can search do not cover this question, so I can't answer it from them. The closest topics they cover are: "Spa and pool"; "Breakfast is served in the Garden Room from …".`},
		{"off-topic falls back", OffTopicFallback, offTopic, Fallback, false, ""},
		{"off-topic refused with off_topic: refuse", OffTopicRefuse, offTopic, Refuse, true, DefaultConfig().OffTopicText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.OffTopic = tc.offTopic
			cfg.PrimaryKind = ""
			cfg.Planner.MinSupport = 0.5 // above every note's answerability here
			o := Decide(cfg, tc.cands, true, Ask{})
			o = ApplyOutline(o, LocalOutline(cfg, o))
			if o.Decision != tc.want || o.Checks["off_topic"] != tc.wantCheck {
				t.Fatalf("decision %s off_topic %v, want %s %v (checks %v)", o.Decision, o.Checks["off_topic"], tc.want, tc.wantCheck, o.Checks)
			}
			if tc.wantText != "" {
				if got := RefusalMessage(cfg, o); got != tc.wantText {
					t.Errorf("refusal\n got %q\nwant %q", got, tc.wantText)
				}
			}
		})
	}
}

// Chunks that share one title (an untitled plain-text file's name, a long
// section cut in two) are named by the title and their first words, so a
// refusal does not name one topic for the whole file.
func TestRefusalSharedTitle(t *testing.T) {
	cands := []Candidate{
		{ID: "a", Kind: "library", Title: "service-terms", Text: "Boiler servicing. An annual service costs 85 pounds and takes about an hour.", Relevance: 0.9, Answer: 0.1},
		{ID: "b", Kind: "library", Title: "service-terms", Text: "Call-outs. We answer emergency calls day and night.", Relevance: 0.8, Answer: 0.1},
		{ID: "c", Kind: "library", Title: "Parking", Text: "Park on the street.", Relevance: 0.7, Answer: 0.1},
	}
	cfg := DefaultConfig()
	cfg.PrimaryKind = ""
	cfg.Planner.MinSupport = 0.5
	o := Decide(cfg, cands, true, Ask{})
	o = ApplyOutline(o, LocalOutline(cfg, o))
	want := cfg.RefusalText + ` The closest topics they cover are: "service-terms: Boiler servicing. An annual service costs 85 pounds …"; "service-terms: Call-outs. We answer emergency calls day and night"; "Parking".`
	if o.Decision != Refuse {
		t.Fatalf("decision %s, want refuse", o.Decision)
	}
	if got := RefusalMessage(cfg, o); got != want {
		t.Errorf("refusal\n got %q\nwant %q", got, want)
	}
}

// One near passage of an untitled file is named by the file's name and
// its first words, not by the name alone (operator trial 9: "The closest
// topics they cover are: \"staying-with-us\"."); a title a writer gave
// stays alone.
func TestRefusalFileNameTitle(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"staying-with-us", `"staying-with-us: Dogs stay in heated kennels with a run"`},
		{"price_list2", `"price_list2: Dogs stay in heated kennels with a run"`},
		{"Opening hours", `"Opening hours"`},
		{"Wi-Fi", `"Wi-Fi"`},
		{"faq", `"faq"`},
		{"-draft", `"-draft"`},
	} {
		cands := []Candidate{{ID: "a", Kind: "library", Title: tc.title, Text: "Dogs stay in heated kennels with a run.", Relevance: 0.9, Answer: 0.1}}
		cfg := DefaultConfig()
		cfg.PrimaryKind = ""
		cfg.Planner.MinSupport = 0.5
		o := Decide(cfg, cands, true, Ask{})
		o = ApplyOutline(o, LocalOutline(cfg, o))
		want := cfg.RefusalText + " The closest topics they cover are: " + tc.want + "."
		if got := RefusalMessage(cfg, o); got != want {
			t.Errorf("title %q: refusal\n got %q\nwant %q", tc.title, got, want)
		}
	}
}

// A partition without the primary kind counts its own chunks (the proxy
// clears primary_kind): sufficiency no longer needs a kind it cannot have.
func TestPrimaryKindEmptyCountsEveryKind(t *testing.T) {
	cands := []Candidate{{ID: "a", Kind: "library", Relevance: 0.6, Answer: 0.9}, {ID: "b", Kind: "library", Relevance: 0.5, Answer: 0.9}}
	cfg := DefaultConfig()
	if o := Decide(cfg, cands, true, Ask{}); o.Checks["sufficient"] || o.Decision != Refuse {
		t.Fatalf("primary_kind lecture: sufficient %v decision %s, want insufficient, refused", o.Checks["sufficient"], o.Decision)
	}
	cfg.PrimaryKind = ""
	if o := Decide(cfg, cands, true, Ask{}); !o.Checks["sufficient"] || o.Decision != Ground || o.Coverage.PrimaryKindCount != 2 {
		t.Fatalf("primary_kind \"\": sufficient %v decision %s count %d, want sufficient, ground, 2", o.Checks["sufficient"], o.Decision, o.Coverage.PrimaryKindCount)
	}
}

// Below bail-out, a question whose best encoder cosine to a passage
// reaches on_topic_sim is on the corpus's topic: it is refused naming the
// closest passages (floored or not), whatever off_topic says; without the
// encoder's features, below the threshold or with the check off, it is
// off-topic as before.
func TestOnTopicBelowBailOut(t *testing.T) {
	pool := func(sim float64, semantic bool) []Candidate {
		return []Candidate{
			{ID: "hours", Kind: "library", Title: "Opening hours", Relevance: 0.10, Sim: sim, Semantic: semantic},
			{ID: "van", Kind: "library", Title: "Van hire", Relevance: 0.05, Sim: sim / 2, Semantic: semantic},
		}
	}
	for _, tc := range []struct {
		name     string
		cands    []Candidate
		sim      float64
		offTopic string
		want     Decision
		onTopic  bool
	}{
		{"close in meaning: refused as on-topic", pool(0.45, true), 0.30, OffTopicFallback, Refuse, true},
		{"at the threshold", pool(0.30, true), 0.30, OffTopicFallback, Refuse, true},
		{"off_topic: refuse still names the topics", pool(0.45, true), 0.30, OffTopicRefuse, Refuse, true},
		{"below the threshold: off-topic", pool(0.29, true), 0.30, OffTopicFallback, Fallback, false},
		{"check off", pool(0.45, true), 0, OffTopicFallback, Fallback, false},
		{"lexical only: no encoder, no check", pool(0.45, false), 0.30, OffTopicFallback, Fallback, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.OnTopicSim, cfg.OffTopic, cfg.PrimaryKind = tc.sim, tc.offTopic, ""
			o := Decide(cfg, tc.cands, true, Ask{})
			if o.Decision != tc.want || o.Checks["on_topic"] != tc.onTopic {
				t.Fatalf("decision %s on_topic %v, want %s %v (checks %v)", o.Decision, o.Checks["on_topic"], tc.want, tc.onTopic, o.Checks)
			}
			if !tc.onTopic {
				return
			}
			want := cfg.RefusalText + ` The closest topics they cover are: "Opening hours"; "Van hire".`
			if got := RefusalMessage(cfg, o); got != want {
				t.Errorf("refusal\n got %q\nwant %q", got, want)
			}
		})
	}
}

// on_topic_sim applies to a corpus that keeps to one topic: when the
// partition's coherence is below on_topic_coherence (a mixed archive), a
// question close in meaning to some passages goes per off_topic; an index
// that keeps no coherence (0, built before it was measured) and the check
// off (0) leave on_topic_sim alone to decide.
func TestOnTopicCoherence(t *testing.T) {
	pool := func(coh float64) []Candidate {
		return []Candidate{
			{ID: "hours", Kind: "library", Title: "Opening hours", Relevance: 0.10, Sim: 0.45, Semantic: true, Coherence: coh},
			{ID: "van", Kind: "library", Title: "Van hire", Relevance: 0.05, Sim: 0.20, Semantic: true, Coherence: coh},
		}
	}
	for _, tc := range []struct {
		name      string
		coh, min  float64
		offTopic  string
		want      Decision
		onTopic   bool
		offTopicC bool
	}{
		{"one topic: refused as on-topic", 0.50, 0.40, OffTopicFallback, Refuse, true, false},
		{"at the threshold", 0.40, 0.40, OffTopicFallback, Refuse, true, false},
		{"mixed archive: general knowledge", 0.35, 0.40, OffTopicFallback, Fallback, false, false},
		{"mixed archive, off_topic: refuse", 0.35, 0.40, OffTopicRefuse, Refuse, false, true},
		{"index without coherence: on_topic_sim decides", 0, 0.40, OffTopicFallback, Refuse, true, false},
		{"check off", 0.30, 0, OffTopicFallback, Refuse, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.OnTopicSim, cfg.OnTopicCoherence, cfg.OffTopic, cfg.PrimaryKind = 0.30, tc.min, tc.offTopic, ""
			o := Decide(cfg, pool(tc.coh), true, Ask{})
			if o.Decision != tc.want || o.Checks["on_topic"] != tc.onTopic || o.Checks["off_topic"] != tc.offTopicC {
				t.Fatalf("decision %s on_topic %v off_topic %v, want %s %v %v", o.Decision, o.Checks["on_topic"], o.Checks["off_topic"], tc.want, tc.onTopic, tc.offTopicC)
			}
		})
	}
}

// Below bail-out and on_topic_sim, a question that speaks to the service
// ("do you give a student discount?") is refused as on-topic on a one-topic
// partition (on_topic_you); not on a mixed archive, not where the index
// keeps no coherence, not with the check off, and never a general question,
// a request to make something, advice or another business.
func TestOnTopicYou(t *testing.T) {
	pool := func(coh float64) []Candidate {
		return []Candidate{
			{ID: "prices", Kind: "library", Title: "Repair prices", Relevance: 0.10, Sim: 0.20, Semantic: true, Coherence: coh},
			{ID: "hours", Kind: "library", Title: "Opening hours", Relevance: 0.05, Sim: 0.15, Semantic: true, Coherence: coh},
		}
	}
	you := AskOf("Do you give a student discount?")
	if !you.You {
		t.Fatalf("AskOf = %+v, want You", you)
	}
	for _, tc := range []struct {
		name string
		coh  float64
		on   bool
		ask  Ask
		want Decision
	}{
		{"speaks to the service: refused as on-topic", 0.50, true, you, Refuse},
		{"check off: general knowledge", 0.50, false, you, Fallback},
		{"does not speak to the service", 0.50, true, AskOf("Is there a student discount?"), Fallback},
		{"mixed archive", 0.30, true, you, Fallback},
		{"index without coherence", 0, true, you, Fallback},
		{"a request to make something", 0.50, true, AskOf("can you write me a poem about phones"), Fallback},
		{"advice", 0.50, true, Ask{You: true, Advice: true}, Fallback},
		{"another business", 0.50, true, Ask{You: true, Other: "Apple Store"}, Fallback},
		{"a general question", 0.50, true, Ask{You: true, General: 0.9}, Fallback},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.OnTopicYou, cfg.PrimaryKind = tc.on, ""
			o := Decide(cfg, pool(tc.coh), true, tc.ask)
			if o.Decision != tc.want || o.Checks["on_topic_you"] != (tc.want == Refuse) || o.Checks["on_topic"] != (tc.want == Refuse) {
				t.Fatalf("decision %s, checks %v; want %s", o.Decision, o.Checks, tc.want)
			}
			if tc.want == Refuse && !strings.Contains(RefusalMessage(cfg, o), `"Repair prices"`) {
				t.Errorf("refusal %q names no closest topic", RefusalMessage(cfg, o))
			}
		})
	}
}

// BenchmarkDecideOnTopic is Decide's cost on a turn below bail-out that
// reaches the on_topic_sim check (16 semantic candidates), with the
// on_topic_coherence check (a mixed corpus: general knowledge) and
// without (0: refused as on-topic).
func BenchmarkDecideOnTopic(b *testing.B) {
	cands := make([]Candidate, 16)
	for i := range cands {
		cands[i] = Candidate{ID: "c", Kind: "library", Title: "Opening hours", Relevance: 0.1, Rerank: 0.3, Sim: 0.45 - float64(i)/100, Semantic: true, Coherence: 0.3}
	}
	for _, coh := range []float64{0.40, 0} {
		b.Run(fmt.Sprintf("on_topic_coherence=%v", coh), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.OnTopicCoherence = coh
			b.ReportAllocs()
			for b.Loop() {
				if o := Decide(cfg, cands, true, Ask{}); o.Checks["on_topic"] != (coh == 0) {
					b.Fatalf("on_topic %v with on_topic_coherence %v", o.Checks["on_topic"], coh)
				}
			}
		})
	}
}

// planner.min_best decides whether the corpus answers at all, apart from
// which notes support the answer (min_support): a question whose best note
// is below it refuses, naming the closest topics; one whose best note
// reaches it keeps every note at min_support, the weaker right one too;
// a contact hit is kept whatever its answerability; 0 turns the rule off.
func TestLocalOutlineMinBest(t *testing.T) {
	near := []Candidate{
		{ID: "a", Kind: "library", Title: "Grooming prices", Text: "A full groom for a small dog costs 35 pounds.", Relevance: 0.9, Answer: 0.30},
		{ID: "b", Kind: "library", Title: "Nail clipping", Text: "Nail clipping on its own is 8 pounds.", Relevance: 0.8, Answer: 0.25},
	}
	cfg := DefaultConfig()
	cfg.PrimaryKind = ""
	cfg.Planner.MinBest = 0.35
	o := Decide(cfg, near, true, Ask{})
	if o.Decision != Ground || !WeakBest(cfg, o) {
		t.Fatalf("gate %s, weak best %v: want ground, weak", o.Decision, WeakBest(cfg, o))
	}
	r := ApplyOutline(o, LocalOutline(cfg, o))
	if r.Decision != Refuse || !r.Checks["empty_outline"] {
		t.Fatalf("best answerability 0.30 < min_best %.2f: decision %s, want refuse", cfg.Planner.MinBest, r.Decision)
	}
	if msg := RefusalMessage(cfg, r); !strings.Contains(msg, `"Grooming prices"`) {
		t.Errorf("refusal %q does not name the closest topic", msg)
	}

	cfg.Planner.MinBest = 0
	if r := ApplyOutline(o, LocalOutline(cfg, o)); r.Decision != Ground || len(r.Notes) != 2 {
		t.Fatalf("min_best 0: decision %s with %d notes, want ground with 2", r.Decision, len(r.Notes))
	}

	cfg.Planner.MinBest = 0.35
	answered := slices.Clone(near)
	answered[0].Answer = 0.6 // a near miss scores high; the right note b stays at 0.25 >= min_support
	o = Decide(cfg, answered, true, Ask{})
	if r := ApplyOutline(o, LocalOutline(cfg, o)); r.Decision != Ground || len(r.Notes) != 2 || r.Notes[1].ID != "b" {
		t.Fatalf("best 0.6: decision %s, notes %v, want ground with a then b", r.Decision, r.Notes)
	}

	contact := []Candidate{{ID: "c", Kind: "library", Title: "Contact", Text: "Call us on 0113 496 0728.", Relevance: 0.9, Answer: 0.1, TypeHit: true}}
	o = Decide(cfg, contact, true, Ask{Contact: true, Type: "phone"})
	if !o.Checks["contact_hit"] {
		t.Fatalf("the phone number is no contact hit: checks %v", o.Checks)
	}
	if r := ApplyOutline(o, LocalOutline(cfg, o)); r.Decision != Ground {
		t.Fatalf("contact hit with answerability 0.1: decision %s, want ground", r.Decision)
	}
}

// between: ground grounds a question of middling relevance only on a note
// that answers it well: the best note's answerability must reach
// planner.min_best_between (0.40), not just min_best (0.31); a good enough
// pool keeps min_best.
func TestBetweenGroundNeedsStrongNote(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PrimaryKind = ""
	if cfg.Between != BetweenRefuse || cfg.Planner.MinBestBetween != 0.40 {
		t.Fatalf("defaults: between %s, min_best_between %v", cfg.Between, cfg.Planner.MinBestBetween)
	}
	cfg.Between = BetweenGround
	for _, tc := range []struct {
		name      string
		relevance float64
		answer    float64
		want      Decision
	}{
		{"between band, answerability 0.35: refused", 0.5, 0.35, Refuse},
		{"between band, answerability 0.45: grounded with the caveat", 0.5, 0.45, Ground},
		{"good enough, answerability 0.35: grounded", 0.9, 0.35, Ground},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands := []Candidate{{ID: "a", Kind: "library", Title: "Prices", Text: "A day costs 32 pounds.", Relevance: tc.relevance, Answer: tc.answer}}
			o := Decide(cfg, cands, true, Ask{})
			r := ApplyOutline(o, LocalOutline(cfg, o))
			if r.Decision != tc.want {
				t.Fatalf("decision %s, want %s (gate %s, checks %v)", r.Decision, tc.want, o.Decision, o.Checks)
			}
			if tc.want == Ground && r.Checks["caveat"] != (tc.relevance < cfg.GoodEnoughMax) {
				t.Errorf("caveat %v at relevance %v", r.Checks["caveat"], tc.relevance)
			}
		})
	}
	cfg.Planner.MinBestBetween = 0 // min_best alone
	o := Decide(cfg, []Candidate{{ID: "a", Kind: "library", Relevance: 0.5, Answer: 0.35}}, true, Ask{})
	if r := ApplyOutline(o, LocalOutline(cfg, o)); r.Decision != Ground {
		t.Fatalf("min_best_between 0: decision %s, want ground", r.Decision)
	}
}
