package gate

import (
	"math"
	"slices"
	"testing"

	"github.com/answer-guard/guard/index"
)

// The corpus map is monotone in the model's probability whatever the
// fitted slope and offset, and each cut point maps back onto its threshold.
func TestCalibrationMonotoneAndCutPoints(t *testing.T) {
	for _, c := range []Calibration{{A: 1, B: 0}, {A: 1.4, B: -0.5}, {A: 0.6, B: 0.8}, {A: 2.1, B: -0.6}} {
		prev := -1.0
		for p := 0.0; p <= 1.0; p += 0.01 {
			got := Calibrate(c, p)
			if got < prev {
				t.Fatalf("a=%.1f b=%.1f: Calibrate(%.2f) = %.4f < %.4f at the previous p", c.A, c.B, p, got, prev)
			}
			prev = got
		}
		cuts := cutPoints(c, CalibrationThresholds(DefaultConfig()))
		for name, th := range CalibrationThresholds(DefaultConfig()) {
			if got := Calibrate(c, cuts[name]); math.Abs(got-th) > 0.005 {
				t.Errorf("a=%.1f b=%.1f: %s cut point %.3f calibrates to %.3f, want %.2f", c.A, c.B, name, cuts[name], got, th)
			}
		}
	}
}

// Pseudo-questions are deterministic, drawn from their own passage's words,
// and a small corpus gets several per passage.
func TestPseudoQuestions(t *testing.T) {
	srcs := []PseudoSource{
		{Key: "a", Text: "The Ardmore lifeboat carries a crew of seven volunteers. It launches within ten minutes of a call."},
		{Key: "b", Text: "Children under 5 travel free and do not need a ticket. Older children pay the child fare."},
	}
	q1, q2 := PseudoQuestions(index.Tokenize, srcs, 50), PseudoQuestions(index.Tokenize, srcs, 50)
	if !slices.Equal(q1, q2) {
		t.Fatalf("not deterministic:\n%v\n%v", q1, q2)
	}
	if len(q1) <= len(srcs) {
		t.Errorf("%d questions from %d passages, want several per passage", len(q1), len(srcs))
	}
	for _, q := range q1 {
		src := srcs[slices.IndexFunc(srcs, func(s PseudoSource) bool { return s.Key == q.Key })]
		terms := index.Tokenize(src.Text)
		for _, w := range index.Tokenize(q.Text) {
			if w != "much" && !slices.Contains(terms, w) {
				t.Errorf("question %q has %q, not in its passage", q.Text, w)
			}
		}
	}
	if got := PseudoQuestions(index.Tokenize, srcs, 1); len(got) != 1 {
		t.Errorf("n=1 gave %d questions", len(got))
	}
}

// With positives above negatives the fitted slope is positive; with too few
// pairs the map stays the identity.
func TestFitCorpusCalibration(t *testing.T) {
	m := DefaultAnswerModel()
	mk := func(n int) []PseudoQuestion {
		var qs []PseudoQuestion
		for i := range n {
			qs = append(qs, PseudoQuestion{Key: "own", Text: string(rune('a' + i%26))})
		}
		return qs
	}
	ask := func(PseudoQuestion) (Question, []Candidate, []bool, error) {
		q := PrepareQuestion(index.Tokenize, "how many volunteers crew the lifeboat", nil)
		return q, []Candidate{
			{ID: "1", Text: "The lifeboat is crewed by seven volunteers.", Rerank: 0.8, Lanes: []string{"dense", "lexical"}},
			{ID: "2", Text: "Harbour parking costs two pounds.", Rerank: 0.1, Lanes: []string{"dense"}},
		}, []bool{true, false}, nil
	}
	cal, err := FitCorpusCalibration(m, mk(40), ask, CalibrationThresholds(DefaultConfig()))
	if err != nil {
		t.Fatal(err)
	}
	if cal.Found != 40 || cal.A <= 0 || len(cal.Pos) != 5 || cal.Pos[2] <= cal.Neg[2] {
		t.Errorf("calibration %+v: want 40 found, a > 0, own passage above the other", cal)
	}
	few, err := FitCorpusCalibration(m, mk(3), ask, nil)
	if err != nil || few.A != 1 || few.B != 0 {
		t.Errorf("3 pairs: got a=%.2f b=%.2f err %v, want the identity", few.A, few.B, err)
	}
}

// A corpus whose passages its own pseudo-questions cannot tell apart keeps
// the identity map instead of a flat one.
func TestCalibrationIdentityWhenPassagesAlike(t *testing.T) {
	ask := func(PseudoQuestion) (Question, []Candidate, []bool, error) {
		q := PrepareQuestion(index.Tokenize, "how many volunteers crew the lifeboat", nil)
		same := Candidate{Text: "The lifeboat is crewed by seven volunteers.", Rerank: 0.8, Lanes: []string{"dense", "lexical"}}
		a, b := same, same
		a.ID, b.ID = "1", "2"
		return q, []Candidate{a, b}, []bool{true, false}, nil
	}
	var qs []PseudoQuestion
	for i := range 30 {
		qs = append(qs, PseudoQuestion{Key: "own", Text: string(rune('a' + i))})
	}
	cal, err := FitCorpusCalibration(DefaultAnswerModel(), qs, ask, nil)
	if err != nil || cal.A != 1 || cal.B != 0 {
		t.Errorf("alike passages: a=%.2f b=%.2f (%s) err %v, want the identity", cal.A, cal.B, cal.Fit, err)
	}
}

// Prepared passage terms give the same features as tokenizing in Assess.
func TestPassageTermsSameFeatures(t *testing.T) {
	m := DefaultAnswerModel()
	q := PrepareQuestion(index.Tokenize, "How many volunteers crew the Ardmore lifeboat, and when was it launched?", nil)
	mk := func() []Candidate {
		return []Candidate{
			{ID: "1", Title: "Lifeboat", Text: "The Ardmore lifeboat carries a crew of seven volunteers. It was first launched on 14 March 1887.", Rerank: 0.7, Lanes: []string{"dense", "lexical"}},
			{ID: "2", Title: "Harbour", Text: "Harbour parking costs two pounds a day; the lifeboat station is open on Sundays.", Rerank: 0.3, Lanes: []string{"dense"}},
		}
	}
	plain, prepared := mk(), mk()
	for i := range prepared {
		prepared[i].Terms = NewPassageTerms(index.Tokenize, prepared[i].Title, prepared[i].Text)
	}
	m.Assess(q, plain)
	m.Assess(q, prepared)
	for i := range plain {
		if plain[i].Features != prepared[i].Features || plain[i].Answer != prepared[i].Answer {
			t.Errorf("candidate %d: features %v / %v, answer %.4f / %.4f", i, plain[i].Features, prepared[i].Features, plain[i].Answer, prepared[i].Answer)
		}
	}
}

// The answer types a cached PassageTerms notes are exactly hasType's, for
// every type.
func TestPassageTermsTypes(t *testing.T) {
	for _, text := range []string{
		"Up to two dogs per passenger travel free.",
		"Electric bikes cost 20 pence more.",
		"Call 0161 496 0000.",
		"Open from 7 am to 10 pm.",
		"Write to help@example.org; Dr Ada Lovelace answers within 3 days.",
		"The station is 2 miles north of Ardmore harbour; the boat does 25 knots.",
		"",
	} {
		pt := NewPassageTerms(index.Tokenize, "", text)
		for ty := typeNone + 1; ty < numTypes; ty++ {
			if got, want := pt.types&(1<<ty) != 0, hasType(ty, text); got != want {
				t.Errorf("%q type %d: noted %v, hasType %v", text, ty, got, want)
			}
		}
	}
}
