package retrieve

import (
	"context"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
)

// The general-question score, on the demo corpus with the embedded
// encoder: general-knowledge questions score above the gate's default
// general_above, customers' questions to the service below it; a
// question that names a word of the corpus rare in English says so
// (Result.Names), and one naming none does not.
func TestGeneralScore(t *testing.T) {
	e, _ := demoEngine(t, DefaultConfig(), index.DefaultConfig())
	above := gate.DefaultConfig().GeneralAbove
	for _, tc := range []struct {
		q       string
		general bool
		names   string
	}{
		{"What is the weather in Paris today?", true, ""},
		{"who won the world cup in 2018", true, ""},
		{"how long should I boil an egg for", true, ""},
		{"How do I restore a backup?", false, ""},
		{"What is the refund policy?", false, ""},
		{"Can I print a page?", false, ""},
		{"Who founded Lanternfish?", true, "lanternfish"},
	} {
		res, err := e.Retrieve(context.Background(), Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		if (res.General > above) != tc.general || res.Names != tc.names {
			t.Errorf("%q: general %.3f names %q, want above %v: %v, names %q", tc.q, res.General, res.Names, above, tc.general, tc.names)
		}
	}
}

// BenchmarkGeneralScore is the general-question score of one question
// vector (165 dot products over the embedded sets' vectors).
func BenchmarkGeneralScore(b *testing.B) {
	e, _ := demoEngine(b, DefaultConfig(), index.DefaultConfig())
	qv := e.sem.enc.Embed("what is the weather in paris today")
	b.ReportAllocs()
	for b.Loop() {
		e.sem.generalScore(qv)
	}
}

// BenchmarkQuestionBanks is the one-off cost of embedding the two
// question sets (the first engine of a process pays it).
func BenchmarkQuestionBanks(b *testing.B) {
	e, _ := demoEngine(b, DefaultConfig(), index.DefaultConfig())
	for b.Loop() {
		s := newSemantic(testEncoder{e.sem.enc.(*encoder.Encoder)}, nil)
		s.banks()
	}
}

// testEncoder hides the encoder's checksum, so every semantic embeds its
// own sets.
type testEncoder struct{ *encoder.Encoder }

func (testEncoder) Checksum() string { return "" }
