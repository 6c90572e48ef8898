package retrieve

import (
	"testing"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/wordvec"
)

var coverTexts = struct{ questions, passages []string }{
	questions: []string{
		"how much do you charge to fix a flat tyre?",
		"Is there a discount for pensioners?",
		"what are your hours on a saturday?",
		"zzqx blorf unknownword",
		"",
		"café crème prices", // not ASCII: the per-pair way
		"How much does it cost for my 10 year old to swim?",
	},
	passages: []string{
		"Puncture repair costs £8 per wheel, including a new inner tube.",
		"We are open Tuesday to Saturday, 9am to 5:30pm.",
		"Seniors over 65 and students with a valid card pay 4.50 euros.",
		"Swimming lessons for children aged 5 to 12 run every Saturday morning from 9am.",
		"",
		"Our café serves crème brûlée on Sundays.",
		"flat flat tyre tyre repair repair",
	},
}

// TestCoverAllEqualsCoverage: the batched soft coverage gives every
// candidate the per-pair coverage to the bit.
func TestCoverAllEqualsCoverage(t *testing.T) {
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	s := newSemantic(nil, wv)
	var passages []*passageSem
	for _, p := range coverTexts.passages {
		passages = append(passages, &passageSem{words: index.Words(p)})
	}
	passages = append(passages, &passageSem{words: []string{"Saturday", "OPEN"}}) // not lowercase: the per-pair way
	for _, p := range passages {
		s.wordRows(p)
	}
	for _, qt := range coverTexts.questions {
		q := index.Words(qt)
		mean, worst := make([]float64, len(passages)), make([]float64, len(passages))
		s.coverAll(q, passages, mean, worst)
		for i, p := range passages {
			wm, ww := s.coverage(q, p.words)
			if mean[i] != wm || worst[i] != ww {
				t.Errorf("%q vs %q: got (%v, %v), want (%v, %v)", qt, p.words, mean[i], worst[i], wm, ww)
			}
		}
	}
}

// BenchmarkSoftCoverage is a turn's soft coverage over 16 candidates:
// per pair (coverage) and batched (coverAll).
func BenchmarkSoftCoverage(b *testing.B) {
	wv, err := wordvec.Default()
	if err != nil {
		b.Fatal(err)
	}
	s := newSemantic(nil, wv)
	var passages []*passageSem
	for i := 0; i < 16; i++ {
		p := &passageSem{words: index.Words(coverTexts.passages[i%4] + " " + coverTexts.passages[(i+1)%4] + " " + coverTexts.passages[(i+3)%4])}
		s.wordRows(p)
		passages = append(passages, p)
	}
	q := index.Words(coverTexts.questions[6])
	mean, worst := make([]float64, len(passages)), make([]float64, len(passages))
	b.Run("per-pair", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, p := range passages {
				mean[i], worst[i] = s.coverage(q, p.words)
			}
		}
	})
	b.Run("batched", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.coverAll(q, passages, mean, worst)
		}
	})
}
