package retrieve

import (
	"math"
	"testing"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/wordvec"
)

// focusOf computes the focus features of one passage for q with the
// embedded word vectors and every word weighed by idf (nil: 1).
func focusOf(t *testing.T, q, title, text string, idf func(string) float64) focusScores {
	t.Helper()
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := newSemantic(nil, wv)
	body := text
	if title != "" {
		body = title + ". " + text
	}
	ps := &passageSem{words: index.Words(body), focus: newPassageFocus(title, text)}
	fq := newFocusQuestion(q, idf)
	return s.focusCoverage(&fq, index.Words(q), ps)
}

// The soft coverage computed in the focus pass is coverage's, to the bit.
func TestFocusCoverageKeepsSoftCoverage(t *testing.T) {
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := newSemantic(nil, wv)
	for _, tc := range []struct{ q, title, text string }{
		{"how much do you charge to fix a flat tyre?", "Repairs", "Puncture repair costs £8 per wheel, including a new inner tube."},
		{"Is there a discount for pensioners? pensioners", "", "Seniors over 65 and students with a valid card pay 4.50 euros."},
		{"charges charged charging", "Charges", "We charge by the hour."},
	} {
		body := tc.text
		if tc.title != "" {
			body = tc.title + ". " + tc.text
		}
		words := index.Words(body)
		wantMean, wantWorst := s.coverage(index.Words(tc.q), words)
		got := focusOf(t, tc.q, tc.title, tc.text, nil)
		if got.soft != wantMean || got.softMin != wantWorst {
			t.Errorf("%q: soft, softMin = %v, %v; coverage says %v, %v", tc.q, got.soft, got.softMin, wantMean, wantWorst)
		}
	}
}

// A passage on the question's topic that lacks the thing asked misses the
// question's rarest words; one that has them does not.
func TestFocusMissesWhatThePassageLacks(t *testing.T) {
	idf := func(term string) float64 { // "workshop" is everywhere in this corpus
		if term == "workshop" {
			return 0.2
		}
		return 2
	}
	q := "What is the phone number of the workshop?"
	hours := focusOf(t, q, "Workshop hours", "The workshop is open Tuesday to Saturday, 9am to 5:30pm.", idf)
	phone := focusOf(t, q, "Contact the workshop", "The workshop's phone number is 01632 960123.", idf)
	if hours.miss < 0.4 {
		t.Errorf("hours passage: focus_miss %.2f, want >= 0.4 (phone, the rarest word, is not in it)", hours.miss)
	}
	if phone.miss != 0 || phone.focus != 1 || phone.worst != 1 {
		t.Errorf("phone passage: focus_miss %.2f focus %.2f worst %.2f, want 0, 1, 1", phone.miss, phone.focus, phone.worst)
	}
	if hours.focus >= phone.focus || hours.worst >= phone.worst {
		t.Errorf("hours passage scores focus %.2f worst %.2f, not below the phone passage's %.2f %.2f", hours.focus, hours.worst, phone.focus, phone.worst)
	}
}

// A stem match counts as a match; the best sentence (with the title) is
// scored on its own, so words spread over sentences score below words in
// one sentence.
func TestFocusStemsAndSentences(t *testing.T) {
	got := focusOf(t, "charges for late returns", "", "A late return is charged at 2 pounds a day.", nil)
	if got.focus != 1 || got.sent != 1 || got.miss != 0 {
		t.Errorf("stems: focus %.2f sent %.2f miss %.2f, want 1, 1, 0", got.focus, got.sent, got.miss)
	}
	one := focusOf(t, "deposit refund", "", "The deposit refund takes five days. Parking is free.", nil)
	spread := focusOf(t, "deposit refund", "", "A deposit is taken at check-in. Parking is free. A refund takes five days.", nil)
	if one.sent != 1 || spread.focus != 1 {
		t.Fatalf("one sentence: sent %.2f; spread: focus %.2f; want 1, 1", one.sent, spread.focus)
	}
	if !(spread.sent < 1) {
		t.Errorf("spread over sentences: sent %.2f, want < 1", spread.sent)
	}
	titled := focusOf(t, "deposit refund", "Deposit", "A refund takes five days. Parking is free.", nil)
	if math.Abs(titled.sent-1) > 1e-12 {
		t.Errorf("title + sentence: sent %.2f, want 1 (the title counts with every sentence)", titled.sent)
	}
}

// The focus pass replaces the soft-coverage pass of a turn: compare the
// two over one turn's 16 candidates (about 50 words each).
func BenchmarkSoftCoverageTurn(b *testing.B)  { benchCoverage(b, false) }
func BenchmarkFocusCoverageTurn(b *testing.B) { benchCoverage(b, true) }

func benchCoverage(b *testing.B, focus bool) {
	wv, err := wordvec.Default()
	if err != nil {
		b.Fatal(err)
	}
	s := newSemantic(nil, wv)
	const text = "Puncture repair costs 8 pounds per wheel, including a new inner tube. A full service costs 45 pounds and " +
		"takes two working days; book it online or at the desk. Seniors over 65 and students with a valid card pay " +
		"half price for labour. We are open Tuesday to Saturday, 9am to 5:30pm."
	var pss []*passageSem
	for i := range 16 {
		title := "Workshop prices " + string(rune('a'+i))
		pss = append(pss, &passageSem{words: index.Words(title + ". " + text), focus: newPassageFocus(title, text)})
	}
	q := "how much do you charge to fix a flat tyre for a pensioner?"
	qw := index.Words(q)
	b.ReportAllocs()
	for b.Loop() {
		fq := newFocusQuestion(q, nil)
		for _, ps := range pss {
			if focus {
				s.focusCoverage(&fq, qw, ps)
			} else {
				s.coverage(qw, ps.words)
			}
		}
	}
}
