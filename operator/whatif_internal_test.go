package operator

import (
	"fmt"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// forPartition applies primary_kind as the proxy does: a partition that
// lacks the kind counts every chunk; an unknown partition keeps the kind.
func TestForPartition(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		kinds      []string
		want       string
		wantAbsent bool
	}{
		{"lecture", []string{"lecture", "library"}, "lecture", false},
		{"lecture", []string{"library"}, "", true},
		{"lecture", []string{}, "", true},
		{"lecture", nil, "lecture", false},
		{"", []string{"library"}, "", false},
	} {
		cfg := gate.DefaultConfig()
		cfg.PrimaryKind = tc.kind
		got, absent := forPartition(cfg, tc.kinds)
		if got.PrimaryKind != tc.want || absent != tc.wantAbsent {
			t.Errorf("kind %q in %v: got %q absent %v, want %q %v", tc.kind, tc.kinds, got.PrimaryKind, absent, tc.want, tc.wantAbsent)
		}
	}
}

// BenchmarkWhatIf is one what-if over full default rings of four
// partitions (4,000 turns of 20 candidates), primary_kind moved; one
// partition lacks the kind. ns/turn is the cost per replayed turn.
func BenchmarkWhatIf(b *testing.B) {
	cfg := defaultTurnLog()
	tl := newTurnLog(cfg)
	for p := range 4 {
		l, tr := fakeTurn(fmt.Sprintf("t%d", p))
		for range cfg.Size {
			l.Gate = &tr
			tl.record(l)
		}
	}
	entries := tl.snapshot(turnFilter{})
	current := gate.DefaultConfig()
	moved := current
	moved.PrimaryKind = "library"
	kinds := func(tenant, kb string) []string {
		if tenant == "t3" {
			return []string{"lecture"}
		}
		return []string{"lecture", "library"}
	}
	b.ReportAllocs()
	var res whatIfResult
	for b.Loop() {
		res = whatIf(entries, moved, &current, kinds, 5)
	}
	if res.Turns != len(entries) || res.Exact.Mismatched != 0 || len(res.PrimaryKindAbsent) != 1 {
		b.Fatalf("%d turns, %d mismatched, absent %v", res.Turns, res.Exact.Mismatched, res.PrimaryKindAbsent)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(entries)), "ns/turn")
}

// A turn of a mixed partition (coherence below on_topic_coherence) fell
// back below bail-out although a passage was close in meaning; the log
// keeps the coherence, so the what-if replays it exactly, moves it to a
// refusal when on_topic_coherence is switched off, and the stored turn
// (detail, then push) carries it back.
func TestWhatIfOnTopicCoherence(t *testing.T) {
	cfg := gate.DefaultConfig()
	cfg.PrimaryKind = ""
	cands := []gate.Candidate{
		{ID: "film-a", Title: "A film", Kind: "library", Relevance: 0.2, Rerank: 0.2, Answer: 0.1, Sim: 0.5, Semantic: true, Coherence: 0.3},
		{ID: "film-b", Title: "Another film", Kind: "library", Relevance: 0.1, Rerank: 0.1, Answer: 0.1, Sim: 0.4, Semantic: true, Coherence: 0.3},
	}
	o := gate.Decide(cfg, cands, true, gate.Ask{})
	if o.Decision != gate.Fallback {
		t.Fatalf("logged decision %s, want fallback", o.Decision)
	}
	l, _ := fakeTurn("mixed")
	tr := turnrec.GateTrace{Question: "Who directed a third film?", Cands: cands, RerankActive: true, Config: &cfg, Outcome: &o}
	l.Gate, l.Report.Decision = &tr, o.Decision
	tl := newTurnLog(defaultTurnLog())
	tl.record(l)
	entries := tl.snapshot(turnFilter{})
	off := cfg
	off.OnTopicCoherence = 0
	res := whatIf(entries, off, &cfg, nil, 5)
	if res.Exact.Mismatched != 0 || res.After["refuse"] != 1 || res.Before["fallback"] != 1 {
		t.Fatalf("mismatched %d, before %v, after %v; want the fallback replayed and moved to refuse", res.Exact.Mismatched, res.Before, res.After)
	}
	d := tl.detail(&entries[0])
	if d.Coherence == nil || *d.Coherence != 0.3 {
		t.Fatalf("detail coherence %v, want 0.3", d.Coherence)
	}
	back := newTurnLog(defaultTurnLog())
	st := storedTurn(d)
	back.push(&st)
	if got := back.snapshot(turnFilter{}); got[0].coherence != 0.3 {
		t.Errorf("restored coherence %v, want 0.3", got[0].coherence)
	}
}
