package retrieve

import (
	"context"
	"math"
	"testing"

	"github.com/answer-guard/guard/index"
)

// shopDocs is a small service FAQ in the corpus's own words; the
// questions below ask in customers' words.
func shopDocs() []index.Doc {
	return []index.Doc{
		{ID: "puncture", Text: "Puncture repair costs 8 pounds per wheel, including a new inner tube. Most repairs are done while you wait."},
		{ID: "prices", Title: "Hire prices", Text: "Bike hire is 15 pounds a day for adults. Seniors over 65 and students with a valid card pay 10 pounds a day."},
		{ID: "service", Title: "Servicing", Text: "Our annual service costs 60 pounds and includes a full check of brakes, gears, wheels and chain, with adjustments."},
		{ID: "returns", Title: "Returns", Text: "Unused items can be returned within 30 days with the receipt for a full refund to the original card."},
		{ID: "hours", Title: "Workshop opening hours", Text: "The workshop is open Tuesday to Saturday, 9am to 5:30pm, and closed on Sundays and Mondays."},
		{ID: "ebikes", Title: "Electric bikes", Text: "Electric bike hire costs 30 pounds a day. The battery lasts about 60 miles and a charger is included."},
		{ID: "locks", Text: "Every hire bike comes with a D-lock and a helmet at no extra charge."},
	}
}

// With the encoder as the dense lane, rerank.dense_weight fuses the
// encoder's order into retrieve's: a paraphrase that shares no content
// word with its passage ("a discount for pensioners" / "Seniors over 65
// ... pay", "a yearly tune-up" / "annual service") ranks it first, where
// term match alone finds nothing and leaves the pool in slot order.
// Weight 0 is the term-match order of before.
func TestDenseWeightFusesEncoderOrder(t *testing.T) {
	ic := index.DefaultConfig()
	if ic.Embedder != index.EmbedderUSE {
		t.Fatalf("default embedder %q, want %q", ic.Embedder, index.EmbedderUSE)
	}
	_, s := buildSnap(t, ic, shopDocs(), nil)
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	rank := func(q, want string, w float64) int {
		cfg := DefaultConfig()
		cfg.Semantic = false
		cfg.Rerank.DenseWeight = w
		e, err := New(cfg, ic, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		res, err := e.RetrieveFrom(ctx, s, Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range res.Candidates {
			if c.DocID == want {
				return i + 1
			}
		}
		return 0
	}
	for _, tc := range []struct{ q, want string }{
		{"Is there a discount for pensioners?", "prices"},
		{"how much is a yearly tune-up?", "service"},
	} {
		if got := rank(tc.q, tc.want, DefaultConfig().Rerank.DenseWeight); got != 1 {
			t.Errorf("%q, default dense_weight: %s ranked %d, want 1", tc.q, tc.want, got)
		}
		if got := rank(tc.q, tc.want, 0); got == 1 {
			t.Errorf("%q, dense_weight 0 (term match alone): %s ranked 1; the test no longer shows the fusion", tc.q, tc.want)
		}
	}
}

func TestPoolMoments(t *testing.T) {
	for _, tc := range []struct {
		cos      []float64
		mean, sd float64
	}{
		{nil, 0, 0},
		{[]float64{0.5}, 0, 0},
		{[]float64{0.3, 0.3, 0.3}, 0.3, 0},
		{[]float64{0.2, 0.4}, 0.3, 0.1},
		{[]float64{0, 0.5, 1}, 0.5, math.Sqrt(1.0 / 6)},
	} {
		var cands []*cand
		for _, c := range tc.cos {
			cands = append(cands, &cand{cos: c, hasCos: true})
		}
		cands = append(cands, &cand{cos: 9}) // no cosine: not counted
		mean, sd := poolMoments(cands)
		if math.Abs(mean-tc.mean) > 1e-9 || math.Abs(sd-tc.sd) > 1e-9 {
			t.Errorf("poolMoments(%v) = %g, %g; want %g, %g", tc.cos, mean, sd, tc.mean, tc.sd)
		}
	}
}

func TestEncoderReach(t *testing.T) {
	short := &index.Chunk{Title: "T", Text: "short text"}
	long := &index.Chunk{Text: string(make([]byte, 4*maxEncodedChars))}
	if got := encoderReach(short); got != 1 {
		t.Errorf("short chunk: reach %g, want 1", got)
	}
	if got := encoderReach(long); math.Abs(got-0.25) > 1e-9 {
		t.Errorf("chunk 4x the encoded length: reach %g, want 0.25", got)
	}
}

// BenchmarkFusePool is the fusion's per-turn work on a full pool of 60
// (rerank.dense_weight): 60 encoder cosines (512 dims), their z-scores and
// the order keys.
func BenchmarkFusePool(b *testing.B) {
	ic := index.DefaultConfig()
	var docs []index.Doc
	for i := range 60 {
		d := shopDocs()[i%7]
		d.ID += string(rune('a' + i/7))
		docs = append(docs, d)
	}
	_, s := buildSnap(b, ic, docs, nil)
	b.Cleanup(func() { s.Close() })
	e := newEngine(b, DefaultConfig(), ic, nil)
	p := s.Partition(index.DefaultTenant, index.DefaultKB)
	q := p.EmbedQuery("is there a discount for pensioners?")
	cands := make([]*cand, 0, 60)
	for slot := range p.Chunks() {
		cands = append(cands, &cand{slot: slot, rerank: 0.1})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cands {
			c.cos, c.hasCos = p.Cosine(q, c.slot), true
		}
		e.fuse(p, cands)
	}
}
