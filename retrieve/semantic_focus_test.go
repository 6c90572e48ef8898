package retrieve

import (
	"math"
	"strings"
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
	c := focusCands(newSemantic(nil, wv), q, idf, [][2]string{{title, text}})
	return focusScores{c[0].Focus, c[0].FocusMiss, c[0].FocusWorst, c[0].SentSoft}
}

// focusCands runs focusAll over passages (title, text) as fill does.
func focusCands(s *semantic, q string, idf func(string) float64, passages [][2]string) []Candidate {
	pss := make([]*passageSem, len(passages))
	for i, p := range passages {
		body := p[1]
		if p[0] != "" {
			body = p[0] + ". " + p[1]
		}
		pss[i] = &passageSem{words: index.Words(body)}
		pss[i].focus = s.newPassageFocus(p[0], p[1], pss[i].words)
	}
	cands := make([]Candidate, len(passages))
	fq := newFocusQuestion(q, idf)
	s.focusAll(&fq, pss, cands)
	return cands
}

// pairVectors hides the row access of the word vectors, so focusAll takes
// the per-pair way.
type pairVectors struct{ WordVectors }

// The batched cosines give the per-pair path's features, to the bit.
func TestFocusBatchedMatchesPerPair(t *testing.T) {
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	passages := [][2]string{
		{"Repairs", "Puncture repair costs £8 per wheel, including a new inner tube. We fix brakes too."},
		{"", "Seniors over 65 and students with a valid card pay 4.50 euros. Café Zoë is upstairs."},
		{"Charges", "We charge by the hour; a full service costs 45 pounds."},
	}
	for _, q := range []string{"how much do you charge to fix a flat tyre?", "Is there a discount for pensioners?", "yearly tune-up price"} {
		got := focusCands(newSemantic(nil, wv), q, nil, passages)
		want := focusCands(newSemantic(nil, pairVectors{wv}), q, nil, passages)
		for i := range got {
			g := [4]float64{got[i].Focus, got[i].FocusMiss, got[i].FocusWorst, got[i].SentSoft}
			w := [4]float64{want[i].Focus, want[i].FocusMiss, want[i].FocusWorst, want[i].SentSoft}
			if g != w || g == ([4]float64{}) {
				t.Errorf("%q, passage %d: batched %v, per pair %v", q, i, g, w)
			}
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

// The focus features' cost beside the batched soft coverage, over one
// turn's 16 candidates of about 50 words (Long: 300).
func BenchmarkSoftCoverageTurn(b *testing.B)      { benchCoverage(b, false, 1) }
func BenchmarkFocusCoverageTurn(b *testing.B)     { benchCoverage(b, true, 1) }
func BenchmarkSoftCoverageLongTurn(b *testing.B)  { benchCoverage(b, false, 6) }
func BenchmarkFocusCoverageLongTurn(b *testing.B) { benchCoverage(b, true, 6) }

func benchCoverage(b *testing.B, focus bool, repeat int) {
	wv, err := wordvec.Default()
	if err != nil {
		b.Fatal(err)
	}
	s := newSemantic(nil, wv)
	text := strings.Repeat("Puncture repair costs 8 pounds per wheel, including a new inner tube. A full service costs 45 pounds and "+
		"takes two working days; book it online or at the desk. Seniors over 65 and students with a valid card pay "+
		"half price for labour. We are open Tuesday to Saturday, 9am to 5:30pm. ", repeat)
	var pss []*passageSem
	for i := range 16 {
		title := "Workshop prices " + string(rune('a'+i))
		ps := &passageSem{words: index.Words(title + ". " + text)}
		s.wordRows(ps)
		ps.focus = s.newPassageFocus(title, text, ps.words)
		pss = append(pss, ps)
	}
	q := "how much do you charge to fix a flat tyre for a pensioner?"
	cands := make([]Candidate, len(pss))
	mean, worst := make([]float64, len(pss)), make([]float64, len(pss))
	b.ReportAllocs()
	for b.Loop() {
		qw := index.Words(q)
		s.coverAll(qw, pss, mean, worst)
		if focus {
			fq := newFocusQuestion(q, nil)
			s.focusAll(&fq, pss, cands)
		}
	}
}
